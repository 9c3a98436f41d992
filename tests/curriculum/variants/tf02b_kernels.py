"""Plausible student mistakes for tf02b_kernels; each must lose points on its exercise's tests.  The C++ ones are
caught by the kit compiling op_source() itself (custom_op, gpu): nothing the notebook computes stands in for them."""

MUTANTS = [
    # 1 registry
    {
        "name": "dense_strides multiplies by a size of 0 (zero strides before an empty dimension)",
        "exercise": "registry",
        "old": "        step *= max(size, 1)\n",
        "new": "        step *= size\n",
    },
    {
        "name": "has_kernel ignores the device type (a CPU kernel counts for the TPU)",
        "exercise": "registry",
        "old": "        if k.device_type != device_type:\n            continue\n",
        "new": "",
    },
    {
        "name": "kernel_devices keeps one entry per kernel (repeats)",
        "exercise": "registry",
        "old": "    return sorted({k.device_type for k in _kernels.get_registered_kernels_for_op(op_name).kernel})\n",
        "new": "    return sorted([k.device_type for k in _kernels.get_registered_kernels_for_op(op_name).kernel])\n",
    },
    # 2 the C++ ops
    {
        "name": "KitLogSumExp's shape function keeps the last dimension",
        "exercise": "custom_op",
        "old": "      c->set_output(0, y);\n",
        "new": "      c->set_output(0, x);\n",
    },
    {
        "name": "no OP_REQUIRES for a scalar input",
        "exercise": "custom_op",
        "old": "    OP_REQUIRES(ctx, x.dims() >= 1,\n                errors::InvalidArgument(\"KitLogSumExp needs a tensor of rank 1 or more\"));\n",
        "new": "",
    },
    {
        "name": "no OP_REQUIRES for an empty last dimension (0 / 0 rows)",
        "exercise": "custom_op",
        "old": "    OP_REQUIRES(ctx, cols > 0,\n                errors::InvalidArgument(\"KitLogSumExp needs a non-empty last dimension\"));\n",
        "new": "",
    },
    {
        "name": "log-sum-exp without subtracting the maximum (overflows near 1000)",
        "exercise": "custom_op",
        "old": "      T m = row[0];\n      for (int64_t c = 1; c < cols; ++c) m = std::max(m, row[c]);\n",
        "new": "      T m = 0;\n",
    },
    {
        "name": "log-sum-exp sum leaves out the last column",
        "exercise": "custom_op",
        "old": "      for (int64_t c = 0; c < cols; ++c) s += std::exp(row[c] - m);\n",
        "new": "      for (int64_t c = 0; c < cols - 1; ++c) s += std::exp(row[c] - m);\n",
    },
    {
        "name": "the CPU kernels registered for DEVICE_GPU",
        "exercise": "custom_op",
        "old": "  REGISTER_KERNEL_BUILDER(Name(\"KitSilu\").Device(DEVICE_CPU).TypeConstraint<T>(\"T\"),     \\\n",
        "new": "  REGISTER_KERNEL_BUILDER(Name(\"KitSilu\").Device(DEVICE_GPU).TypeConstraint<T>(\"T\"),     \\\n",
    },
    {
        "name": "KitSilu ignores its beta attribute",
        "exercise": "custom_op",
        "old": "    const T beta = static_cast<T>(beta_);\n",
        "new": "    const T beta = T(1);\n",
    },
    {"name": "kernels registered for float only", "exercise": "custom_op", "old": "REGISTER_CPU(double)\n", "new": ""},
    {
        "name": "build_op_library leaves out TensorFlow's link flags (the library does not load)",
        "exercise": "custom_op",
        "old": "    cmd = [\"g++\", \"-shared\", \"-fPIC\", \"-O2\", *tf.sysconfig.get_compile_flags(), \"-o\", lib, src,\n           *tf.sysconfig.get_link_flags()]\n",
        "new": "    cmd = [\"g++\", \"-shared\", \"-fPIC\", \"-O2\", *tf.sysconfig.get_compile_flags(), \"-o\", lib, src, \"-Wl,-z,defs\"]\n",
    },
    # 3 gradients
    {
        "name": "KitSilu's gradient leaves beta out of the chain rule",
        "exercise": "gradient",
        "old": "    return grad * (s + beta * x * s * (1 - s))\n",
        "new": "    return grad * (s + x * s * (1 - s))\n",
    },
    {
        "name": "KitSilu's gradient uses sigmoid(x) instead of sigmoid(beta x)",
        "exercise": "gradient",
        "old": "    s = tf.sigmoid(beta * x)\n",
        "new": "    s = tf.sigmoid(x)\n",
    },
    {
        "name": "KitLogSumExp's gradient ignores the incoming gradient",
        "exercise": "gradient",
        "old": "    return grad[..., None] * tf.exp(x - y[..., None])\n",
        "new": "    return tf.exp(x - y[..., None])\n",
    },
    # 4 tf.function and Keras
    {
        "name": "lse_graph without an input_signature (a trace per shape)",
        "exercise": "function_layer",
        "old": "    return tf.function(kit_ops.kit_log_sum_exp, input_signature=[tf.TensorSpec([None, None], tf.float32)])\n",
        "new": "    return tf.function(kit_ops.kit_log_sum_exp)\n",
    },
    {
        "name": "KitSiluLayer.get_config drops beta",
        "exercise": "function_layer",
        "old": "        return {**super().get_config(), \"beta\": self.beta}\n",
        "new": "        return super().get_config()\n",
    },
    {
        "name": "KitSiluLayer calls the op without its beta",
        "exercise": "function_layer",
        "old": "        return kit_ops.kit_silu(x, beta=self.beta)\n",
        "new": "        return kit_ops.kit_silu(x)\n",
    },
    # 5 training
    {
        "name": "log-cosh without the - log 2",
        "exercise": "training",
        "old": "    return tf.reduce_mean(kit_ops.kit_log_sum_exp(tf.stack([r, -r], axis=-1)) - math.log(2.0))\n",
        "new": "    return tf.reduce_mean(kit_ops.kit_log_sum_exp(tf.stack([r, -r], axis=-1)))\n",
    },
    {
        "name": "ring_loss picks the other class's logit",
        "exercise": "training",
        "old": "    true = tf.gather(logits, labels[:, None], batch_dims=1)[:, 0]\n",
        "new": "    true = tf.gather(logits, 1 - labels[:, None], batch_dims=1)[:, 0]\n",
    },
    {
        "name": "linreg_train_step never updates b",
        "exercise": "training",
        "old": "    grads = tape.gradient(loss, [w, b])\n    optimizer.apply_gradients(zip(grads, [w, b]))\n",
        "new": "    grads = tape.gradient(loss, [w])\n    optimizer.apply_gradients(zip(grads, [w]))\n",
    },
    {
        "name": "fit_rings stops after 3 steps",
        "exercise": "training",
        "old": "    for _ in range(150):\n        step()\n",
        "new": "    for _ in range(3):\n        step()\n",
    },
    # 6 the GPU kernel
    {
        "name": "GPU kernel without the grid-stride loop (one element per thread)",
        "exercise": "gpu",
        "old": "  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;\n       i += (int64_t)blockDim.x * gridDim.x)\n",
        "new": "  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\n  if (i < n)\n",
    },
    {
        "name": "GPU kernel bounded by the grid, not by n",
        "exercise": "gpu",
        "old": "  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;\n",
        "new": "  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (int64_t)blockDim.x * gridDim.x;\n",
    },
    {
        "name": "GPU kernel ignores beta",
        "exercise": "gpu",
        "old": "    y[i] = x[i] / (T(1) + exp(-T(beta) * x[i]));\n",
        "new": "    y[i] = x[i] / (T(1) + exp(-x[i]));\n",
    },
    {
        "name": "the GPU kernel registered for DEVICE_CPU inside #if GOOGLE_CUDA (only CUDA compiles it)",
        "exercise": "gpu",
        "old": "REGISTER_KERNEL_BUILDER(Name(\"KitSilu\").Device(DEVICE_GPU).TypeConstraint<float>(\"T\"), KitSiluGpuOp<float>);\n",
        "new": "REGISTER_KERNEL_BUILDER(Name(\"KitSilu\").Device(DEVICE_CPU).TypeConstraint<float>(\"T\"), KitSiluGpuOp<float>);\n",
    },
    # 7 measure
    {
        "name": "time_op without the warm-up call",
        "exercise": "measure",
        "old": "    fn(x).numpy()\n    times = []\n",
        "new": "    times = []\n",
    },
    {
        "name": "time_op returns the mean instead of the median",
        "exercise": "measure",
        "old": "    return statistics.median(times)\n",
        "new": "    return statistics.mean(times)\n",
    },
    {
        "name": "time_op never waits for a result (no .numpy() in the timed calls)",
        "exercise": "measure",
        "old": "        fn(x).numpy()\n        times.append",
        "new": "        fn(x)\n        times.append",
    },
    # rules the text states (issue 52): each loses points on its own exercise
    {
        "name": "build_op_library builds in one fixed folder (a second build loads the first library again)",
        "exercise": "custom_op",
        "old": "    folder = tempfile.mkdtemp(prefix=\"kit-ops-\")\n",
        "new": "    folder = os.path.join(tempfile.gettempdir(), \"kit-ops-fixed\")\n    os.makedirs(folder, exist_ok=True)\n",
    },
    {
        "name": "build_op_library raises without the compiler's messages",
        "exercise": "custom_op",
        "old": "        raise RuntimeError(f\"g++ failed:\\n{done.stderr[-3000:]}\")\n",
        "new": "        raise RuntimeError(\"g++ failed\")\n",
    },
    {
        "name": "build_op_library ignores a failed compile (tf.load_op_library raises instead)",
        "exercise": "custom_op",
        "old": "    if done.returncode != 0:\n        raise RuntimeError(f\"g++ failed:\\n{done.stderr[-3000:]}\")\n",
        "new": "",
    },
    {
        "name": "fit_rings steps eagerly (no tf.function)",
        "exercise": "training",
        "old": "    @tf.function\n    def step():\n",
        "new": "    def step():\n",
    },
    {
        "name": "fit_rings makes a new tf.function for each step",
        "exercise": "training",
        "old": "    for _ in range(150):\n        step()\n",
        "new": "    for _ in range(150):\n        tf.function(step.python_function)()\n",
    },
    {
        "name": "GPU kernel strides by blockDim.x alone (every element written several times)",
        "exercise": "gpu",
        "old": "       i += (int64_t)blockDim.x * gridDim.x)\n",
        "new": "       i += (int64_t)blockDim.x)\n",
    },
    {
        "name": "GPU kernel: each thread a contiguous chunk, not a grid-stride loop",
        "exercise": "gpu",
        "old": "  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;\n       i += (int64_t)blockDim.x * gridDim.x)\n",
        "new": "  const int64_t per = (n + (int64_t)blockDim.x * gridDim.x - 1) / ((int64_t)blockDim.x * gridDim.x);\n"
        "  for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * per;\n"
        "       i < n && i < (blockIdx.x * (int64_t)blockDim.x + threadIdx.x + 1) * per; ++i)\n",
    },
    {
        "name": "KitSiluLayer.get_config without the base layer's config",
        "exercise": "function_layer",
        "old": "        return {**super().get_config(), \"beta\": self.beta}\n",
        "new": "        return {\"beta\": self.beta}\n",
    },
    {
        "name": "max_gradient_error returns the mean difference",
        "exercise": "gradient",
        "old": "    return float(max(np.max(np.abs(a - b)) for a, b in zip(theoretical, numerical)))\n",
        "new": "    return float(max(np.mean(np.abs(a - b)) for a, b in zip(theoretical, numerical)))\n",
    },
    {
        "name": "max_gradient_error checks silu with the default beta",
        "exercise": "gradient",
        "old": "    f = (lambda t: kit_ops.kit_silu(t, beta=1.5)) if which",
        "new": "    f = (lambda t: kit_ops.kit_silu(t)) if which",
    },
    {
        "name": "time_op times the warm-up too (the median over repeat + 1 calls)",
        "exercise": "measure",
        "old": "    fn(x).numpy()\n    times = []\n",
        "new": "    times = []\n    start = time.perf_counter()\n    fn(x).numpy()\n    times.append(time.perf_counter() - start)\n",
    },
    {
        "name": "has_kernel refuses kernels with no constraint on T",
        "exercise": "registry",
        "old": "        if not allowed or dtype.as_datatype_enum in allowed[0]:\n",
        "new": "        if allowed and dtype.as_datatype_enum in allowed[0]:\n",
    },
]
