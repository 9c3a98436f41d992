"""Plausible student mistakes for 02b_kernels; each must lose points on its exercise's tests."""

MUTANTS = [
    {
        "name": "the Triton kernel is never registered as the op's CUDA implementation (caught without a GPU)",
        "exercise": "triton",
        "old": "    op.register_kernel(\"cuda\")(triton_softmax)\n",
        "new": "    pass\n",
    },
    {
        "name": "contiguous strides multiply by the size itself (size-0 dims give zero strides)",
        "exercise": "strides",
        "old": "        step *= max(size, 1)\n",
        "new": "        step *= size\n",
    },
    {
        "name": "element_offset bound check off by one (i <= size accepted)",
        "exercise": "strides",
        "old": "        if not 0 <= i < size:\n",
        "new": "        if not 0 <= i <= size:\n",
    },
    {
        "name": "narrow_view moves the offset by start, not start * stride",
        "exercise": "strides",
        "old": "    return tuple(sizes), tuple(strides), offset + start * strides[dim]\n",
        "new": "    return tuple(sizes), tuple(strides), offset + start\n",
    },
    {
        "name": "gather_view ignores the storage offset",
        "exercise": "strides",
        "old": "        flat[n] = storage[element_offset(sizes, strides, offset, index)]\n",
        "new": "        flat[n] = storage[element_offset(sizes, strides, 0, index)]\n",
    },
    {
        "name": "C softmax kernel ignores the column stride (assumes contiguous rows)",
        "exercise": "c_kernel",
        "old": "            yr[c] = EXP(xr[c * xs1] - m);                                       \\\n",
        "new": "            yr[c] = EXP(xr[c] - m);                                             \\\n",
    },
    {
        "name": "C softmax loop bound off by one (last column left out of the sum)",
        "exercise": "c_kernel",
        "old": "        for (long c = 0; c < cols; c++) {                                       \\\n",
        "new": "        for (long c = 0; c < cols - 1; c++) {                                   \\\n",
    },
    {
        "name": "C softmax without subtracting the maximum (overflows)",
        "exercise": "c_kernel",
        "old": "        T m = xr[0];                                                            \\\n",
        "new": "        T m = 0;                                                                \\\n",
    },
    {
        "name": "c_silu writes into its input in place",
        "exercise": "c_kernel",
        "old": "    src = x.contiguous()\n    y = torch.empty(x.shape, dtype=x.dtype)\n",
        "new": "    src = x.contiguous()\n    y = src\n",
    },
    {
        "name": "c_silu passes a non-contiguous input straight to the contiguous-only kernel",
        "exercise": "c_kernel",
        "old": "    src = x.contiguous()\n",
        "new": "    src = x\n",
    },
    {
        "name": "float64 inputs sent to the float32 kernel (no dtype dispatch)",
        "exercise": "c_kernel",
        "old": "    return _SUFFIX[x.dtype]\n",
        "new": "    return \"f32\"\n",
    },
    {
        "name": "backward ignores the incoming gradient",
        "exercise": "custom_op",
        "old": "        return y * (grad - (grad * y).sum(dim=-1, keepdim=True))\n",
        "new": "        return y * (1 - y.sum(dim=-1, keepdim=True))\n",
    },
    {
        "name": "fake implementation keeps the input's strides (empty_like)",
        "exercise": "custom_op",
        "old": "        return x.new_empty(x.shape)\n",
        "new": "        return torch.empty_like(x)\n",
    },
    {
        "name": "fake implementation with the wrong dtype",
        "exercise": "custom_op",
        "old": "        return x.new_empty(x.shape)\n",
        "new": "        return x.new_empty(x.shape, dtype=torch.float32)\n",
    },
    {
        "name": "fake implementation with the wrong shape (drops the last dimension)",
        "exercise": "custom_op",
        "old": "        return x.new_empty(x.shape)\n",
        "new": "        return x.new_empty(x.shape[:-1])\n",
    },
    {
        "name": "op returns its input after writing the softmax into it (in place, undeclared)",
        "exercise": "custom_op",
        "old": "    def softmax(x: torch.Tensor) -> torch.Tensor:\n        return c_softmax(x)\n",
        "new": "    def softmax(x: torch.Tensor) -> torch.Tensor:\n        with torch.no_grad():\n            x.copy_(c_softmax(x))\n        return x\n",
    },
    {
        "name": "Triton load without its mask (reads past the row)",
        "exercise": "triton",
        "old": "cols * x_col_stride, mask=mask, other=-float(\"inf\"))",
        "new": "cols * x_col_stride)",
    },
    {
        "name": "Triton masked lanes loaded as 0 instead of -inf",
        "exercise": "triton",
        "old": "mask=mask, other=-float(\"inf\"))",
        "new": "mask=mask, other=0.0)",
    },
    {
        "name": "Triton mask off by one (cols <= n_cols)",
        "exercise": "triton",
        "old": "    mask = cols < n_cols\n",
        "new": "    mask = cols <= n_cols\n",
    },
    {
        "name": "Triton launcher ignores the column stride",
        "exercise": "triton",
        "old": "softmax_kernel[(rows,)](x2, y, cols, x2.stride(0), x2.stride(1), y.stride(0),",
        "new": "softmax_kernel[(rows,)](x2, y, cols, x2.stride(0), 1, y.stride(0),",
    },
    {
        "name": "time_op times the warm-up call too",
        "exercise": "measure",
        "old": "    fn(x)\n    times = []\n    for _ in range(repeat):\n",
        "new": "    times = []\n    for _ in range(repeat + 1):\n",
    },
    {
        "name": "time_op returns the mean instead of the median",
        "exercise": "measure",
        "old": "    return statistics.median(times)\n",
        "new": "    return statistics.mean(times)\n",
    },
    # rules the notebook states, each checked (sizes beyond int64 show torch or a meta tensor at work)
    {
        "name": "contiguous_strides asks torch (a meta tensor) instead of plain integers",
        "exercise": "strides",
        "old": "    strides, step = [], 1\n    for size in reversed(sizes):\n        strides.append(step)\n        step *= max(size, 1)\n    return tuple(reversed(strides))\n",
        "new": "    return tuple(torch.empty(tuple(sizes), device=\"meta\").stride())\n",
    },
    {
        "name": "contiguous_strides returns a list, not a tuple of ints",
        "exercise": "strides",
        "old": "    return tuple(reversed(strides))\n",
        "new": "    return list(reversed(strides))\n",
    },
    {
        "name": "element_offset computed with torch tensors (int64)",
        "exercise": "strides",
        "old": "        position += i * stride\n    return position\n",
        "new": "    return offset + int((torch.tensor(list(index)) * torch.tensor(list(strides))).sum())\n",
    },
    {
        "name": "transpose_view computed by a meta tensor",
        "exercise": "strides",
        "old": "    sizes, strides = list(sizes), list(strides)\n    sizes[dim0], sizes[dim1] = sizes[dim1], sizes[dim0]\n",
        "new": "    t = torch.empty_strided(tuple(sizes), tuple(strides), device=\"meta\").transpose(dim0, dim1)\n"
        "    return tuple(t.shape), t.stride(), offset\n    sizes, strides = list(sizes), list(strides)\n",
    },
    {
        "name": "narrow_view computed by a meta tensor",
        "exercise": "strides",
        "old": "    sizes = list(sizes)\n    sizes[dim] = length\n",
        "new": "    t = torch.empty_strided(tuple(sizes), tuple(strides), device=\"meta\").narrow(dim, start, length)\n"
        "    return tuple(t.shape), t.stride(), offset + start * strides[dim]\n",
    },
    {
        "name": "gather_view calls as_strided with the watching mode switched off (DisableTorchFunction)",
        "exercise": "strides",
        "old": "    out = torch.empty(tuple(sizes), dtype=storage.dtype)\n",
        "new": "    with torch._C.DisableTorchFunction():\n        return storage.as_strided(tuple(sizes), tuple(strides), offset).contiguous()\n",
    },
    {
        "name": "C source with #include <math.h> (the notebook compiles it; the grader's build has no headers)",
        "exercise": "c_kernel",
        "old": "float expf(float);\ndouble exp(double);\n",
        "new": "#include <math.h>\n",
    },
    {
        "name": "Triton softmax without subtracting the maximum (exp overflows float32 at 100)",
        "exercise": "triton",
        "old": "    x = x - tl.max(x, axis=0)\n",
        "new": "",
    },
    {
        "name": "time_op returns the fastest timed call, not the median",
        "exercise": "measure",
        "old": "    return statistics.median(times)\n",
        "new": "    return min(times)\n",
    },
    # device bugs, visible on a CPU-only grader (meta tensors, a tensor that says it is on CUDA)
    {
        "name": "C wrappers accept tensors on any device (no device check)",
        "exercise": "c_kernel",
        "old": "x.dtype not in _SUFFIX or x.device.type != \"cpu\":",
        "new": "x.dtype not in _SUFFIX:",
    },
    {
        "name": "the op's CUDA kernel is the C one",
        "exercise": "triton",
        "old": "    op.register_kernel(\"cuda\")(triton_softmax)\n",
        "new": "    op.register_kernel(\"cuda\")(c_softmax)\n",
    },
    {
        "name": "Triton output allocated on the CPU, whatever the input's device",
        "exercise": "triton",
        "old": "    y = torch.empty((rows, cols), dtype=x.dtype, device=x.device)\n",
        "new": "    y = torch.empty((rows, cols), dtype=x.dtype)\n",
    },
    {
        "name": "time_op never synchronises with the GPU",
        "exercise": "measure",
        "old": "        if isinstance(x, torch.Tensor) and x.is_cuda:\n            torch.cuda.synchronize()\n",
        "new": "        pass\n",
    },
    {
        "name": "time_op synchronises after each timed call but not before",
        "exercise": "measure",
        "old": "        sync()\n        start = time.perf_counter()\n",
        "new": "        start = time.perf_counter()\n",
    },
]
