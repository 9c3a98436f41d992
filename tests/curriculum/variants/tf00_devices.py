"""Plausible student mistakes for tf00_devices; each must lose points on the tests of its exercise.

Device mistakes show on a CPU-only grader because the worker has three logical CPUs: work that should run on
/device:CPU:1 and ran on /device:CPU:0 (no `tf.device`, or a hard-coded '/GPU:0' that soft placement sends
to the first CPU) is seen in where the results live."""

MUTANTS = [
    {
        "name": "inventory lists the physical devices instead of the logical ones",
        "exercise": "inventory",
        "old": '"logical": [d.name for d in tf.config.list_logical_devices()],',
        "new": '"logical": [d.name for d in tf.config.list_physical_devices()],',
    },
    {
        "name": "inventory counts logical CPUs as physical ones",
        "exercise": "inventory",
        "old": '"physical_cpus": len(tf.config.list_physical_devices("CPU")),',
        "new": '"physical_cpus": len(tf.config.list_logical_devices("CPU")),',
    },
    {
        "name": "pick_device hard-codes the book's GPU",
        "exercise": "pick_device",
        "old": '        return "/device:GPU:0" if "/device:GPU:0" in names else "/device:CPU:0"',
        "new": '        return "/device:GPU:0"',
    },
    {
        "name": "pick_device ignores its argument",
        "exercise": "pick_device",
        "old": "    spec = tf.DeviceSpec.from_string(prefer)\n",
        "new": '    return "/device:GPU:0" if "/device:GPU:0" in names else "/device:CPU:0"\n'
        "    spec = tf.DeviceSpec.from_string(prefer)\n",
    },
    {
        "name": "pick_device returns a GPU asked for without checking that it exists",
        "exercise": "pick_device",
        "old": '    return name if name in names else "/device:CPU:0"',
        "new": '    return name if name in names or spec.device_type == "GPU" else "/device:CPU:0"',
    },
    {
        "name": "device_of returns the full name (job, replica, task)",
        "exercise": "placement",
        "old": '    return f"/device:{spec.device_type}:{spec.device_index}"',
        "new": "    return x.device",
    },
    {
        "name": "copy_to returns x itself inside tf.device (no copy: x stays where it was)",
        "exercise": "placement",
        "old": "    with tf.device(device):\n        return tf.identity(x)",
        "new": "    with tf.device(device):\n        return x",
    },
    {
        "name": "copy_to forgets tf.device (the copy lands on the default device)",
        "exercise": "placement",
        "old": "    with tf.device(device):\n        return tf.identity(x)",
        "new": "    return tf.identity(x)",
    },
    {
        "name": "copy_to hard-codes '/GPU:0' (soft placement puts it on the first CPU without a GPU)",
        "exercise": "placement",
        "old": "    with tf.device(device):\n        return tf.identity(x)",
        "new": '    with tf.device("/GPU:0"):\n        return tf.identity(x)',
    },
    {
        "name": "parallel_sum computes every partial on the first device",
        "exercise": "data_parallel",
        "old": "        with tf.device(device):\n            partials.append(tf.reduce_sum(chunk, axis=0))",
        "new": "        with tf.device(devices[0]):\n            partials.append(tf.reduce_sum(chunk, axis=0))",
    },
    {
        "name": "parallel_sum adds the partials outside tf.device (the total lands on the default device)",
        "exercise": "data_parallel",
        "old": "    with tf.device(devices[0]):\n        total = tf.add_n(partials)",
        "new": "    total = tf.add_n(partials)",
    },
    {
        "name": "parallel_matmul drops the rows that do not divide evenly",
        "exercise": "data_parallel",
        "old": "    chunks = tf.split(A, chunk_sizes(A.shape[0], len(devices)))",
        "new": "    k = len(devices)\n    chunks = tf.split(A[: A.shape[0] // k * k], k)",
    },
    {
        "name": "parallel_matmul gives the last device the extra rows (4, 3, 3 becomes 3, 3, 4)",
        "exercise": "data_parallel",
        "old": "    chunks = tf.split(A, chunk_sizes(A.shape[0], len(devices)))",
        "new": "    chunks = tf.split(A, chunk_sizes(A.shape[0], len(devices))[::-1])",
    },
    {
        "name": "parallel_matmul concatenates outside tf.device",
        "exercise": "data_parallel",
        "old": "    with tf.device(devices[0]):\n        C = tf.concat(parts, axis=0)",
        "new": "    C = tf.concat(parts, axis=0)",
    },
    {
        "name": "make_linear creates the variables outside tf.device",
        "exercise": "linear_regression",
        "old": "    with tf.device(device):\n        w = tf.Variable(tf.zeros([2, 1]))\n        b = tf.Variable(tf.zeros([1]))",
        "new": "    w = tf.Variable(tf.zeros([2, 1]))\n    b = tf.Variable(tf.zeros([1]))",
    },
    {
        "name": "make_linear starts w at random values",
        "exercise": "linear_regression",
        "old": "        w = tf.Variable(tf.zeros([2, 1]))",
        "new": "        w = tf.Variable(tf.random.normal([2, 1]))",
    },
    {
        "name": "linreg_step rebinds w and b instead of assigning (the variables never change)",
        "exercise": "linear_regression",
        "old": "        w.assign_sub(lr * dw)\n        b.assign_sub(lr * db)",
        "new": "        w = w - lr * dw\n        b = b - lr * db",
    },
    {
        "name": "linreg_step climbs the gradient",
        "exercise": "linear_regression",
        "old": "        w.assign_sub(lr * dw)\n        b.assign_sub(lr * db)",
        "new": "        w.assign_add(lr * dw)\n        b.assign_add(lr * db)",
    },
    {
        "name": "linreg_step computes on the default device (no tf.device)",
        "exercise": "linear_regression",
        "old": "    with tf.device(device):\n        with tf.GradientTape() as tape:",
        "new": "    if True:\n        with tf.GradientTape() as tape:",
    },
    {
        "name": "linreg_step returns the loss after the update",
        "exercise": "linear_regression",
        "old": "        b.assign_sub(lr * db)\n    return loss",
        "new": "        b.assign_sub(lr * db)\n        loss = tf.reduce_mean((y - (X @ w + b)) ** 2) / 2\n    return loss",
    },
    {
        "name": "ring_forward runs outside tf.device",
        "exercise": "ring_forward",
        "old": '    with tf.device(device):\n        h1 = tf.nn.relu(X @ params["w1"] + params["b1"])',
        "new": '    if True:\n        h1 = tf.nn.relu(X @ params["w1"] + params["b1"])',
    },
    {
        "name": "ring_forward hard-codes '/GPU:0'",
        "exercise": "ring_forward",
        "old": '    with tf.device(device):\n        h1 = tf.nn.relu(X @ params["w1"] + params["b1"])',
        "new": '    with tf.device("/GPU:0"):\n        h1 = tf.nn.relu(X @ params["w1"] + params["b1"])',
    },
    {
        "name": "ring_forward forgets the second relu",
        "exercise": "ring_forward",
        "old": 'h2 = tf.nn.relu(h1 @ params["w2"] + params["b2"])',
        "new": 'h2 = h1 @ params["w2"] + params["b2"]',
    },
    {
        "name": "ring_forward returns the logits (no sigmoid)",
        "exercise": "ring_forward",
        "old": 'return tf.sigmoid(h2 @ params["w3"] + params["b3"])',
        "new": 'return h2 @ params["w3"] + params["b3"]',
    },
    # the stated rules nothing else observes (issue 41): each loses points on its own exercise
    {
        "name": "inventory counts the logical GPUs as physical ones",
        "exercise": "inventory",
        "old": '"physical_gpus": len(tf.config.list_physical_devices("GPU")),',
        "new": '"physical_gpus": len(tf.config.list_logical_devices("GPU")),',
    },
    {
        "name": "parallel_matmul multiplies on the default device and copies each part to its device",
        "exercise": "data_parallel",
        "old": "        with tf.device(device):\n            parts.append(chunk @ B)\n",
        "new": "        product = chunk @ B\n        with tf.device(device):\n            parts.append(tf.identity(product))\n",
    },
    {
        "name": "parallel_sum reduces on the default device and copies each partial to its device",
        "exercise": "data_parallel",
        "old": "        with tf.device(device):\n            partials.append(tf.reduce_sum(chunk, axis=0))\n",
        "new": "        partial = tf.reduce_sum(chunk, axis=0)\n        with tf.device(device):\n            partials.append(tf.identity(partial))\n",
    },
    {
        "name": "ring_forward computes on the default device and copies the result to the device",
        "exercise": "ring_forward",
        "old": (
            '    with tf.device(device):\n        h1 = tf.nn.relu(X @ params["w1"] + params["b1"])\n'
            '        h2 = tf.nn.relu(h1 @ params["w2"] + params["b2"])\n        return tf.sigmoid(h2 @ params["w3"] + params["b3"])\n'
        ),
        "new": (
            '    h1 = tf.nn.relu(X @ params["w1"] + params["b1"])\n    h2 = tf.nn.relu(h1 @ params["w2"] + params["b2"])\n'
            '    p = tf.sigmoid(h2 @ params["w3"] + params["b3"])\n    with tf.device(device):\n        return tf.identity(p)\n'
        ),
    },
    {
        "name": "linreg_step computes on the default device and copies the loss to the device",
        "exercise": "linear_regression",
        "old": (
            "    with tf.device(device):\n        with tf.GradientTape() as tape:\n"
            "            loss = tf.reduce_mean((y - (X @ w + b)) ** 2) / 2\n        dw, db = tape.gradient(loss, [w, b])\n"
            "        w.assign_sub(lr * dw)\n        b.assign_sub(lr * db)\n    return loss\n"
        ),
        "new": (
            "    with tf.GradientTape() as tape:\n        loss = tf.reduce_mean((y - (X @ w + b)) ** 2) / 2\n"
            "    dw, db = tape.gradient(loss, [w, b])\n    w.assign_sub(lr * dw)\n    b.assign_sub(lr * db)\n"
            "    with tf.device(device):\n        return tf.identity(loss)\n"
        ),
    },
]
