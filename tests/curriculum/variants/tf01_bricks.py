"""Plausible student mistakes for tf01_bricks; each must lose points on its exercise's tests."""

MUTANTS = [
    {
        "name": "scale_in_place rebinds the name to a new tensor instead of assigning",
        "exercise": "tensors",
        "old": "    v.assign(v * factor)\n    return v\n",
        "new": "    v = v * factor\n    return v\n",
    },
    {
        "name": "running_sum keeps the variable itself instead of a snapshot",
        "exercise": "tensors",
        "old": "        out.append(v.read_value())\n",
        "new": "        out.append(v)\n",
    },
    {
        "name": "int_mean casts after an integer mean (truncated)",
        "exercise": "tensors",
        "old": "    return tf.reduce_mean(tf.cast(x, tf.float32))\n",
        "new": "    return tf.cast(tf.reduce_mean(x), tf.float32)\n",
    },
    {
        "name": "center_columns reduces over the wrong axis (rows centred)",
        "exercise": "broadcasting",
        "old": "tf.reduce_mean(x, axis=0, keepdims=True)",
        "new": "tf.reduce_mean(x, axis=1, keepdims=True)",
    },
    {
        "name": "pairwise_sq_dists broadcasts with the new axes swapped ([m, n])",
        "exercise": "broadcasting",
        "old": "    diff = a[:, None, :] - b[None, :, :]\n",
        "new": "    diff = a[None, :, :] - b[:, None, :]\n",
    },
    {
        "name": "value_and_grad without tape.watch (a constant is not recorded)",
        "exercise": "tape",
        "old": "    with tf.GradientTape() as tape:\n        tape.watch(x)\n        y = f(x)\n    return y, tape.gradient(y, x)\n",
        "new": "    with tf.GradientTape() as tape:\n        y = f(x)\n    return y, tape.gradient(y, x)\n",
    },
    {
        "name": "two_grads with a tape that is not persistent",
        "exercise": "tape",
        "old": "    with tf.GradientTape(persistent=True) as tape:\n        tape.watch(x)\n        y = f(x)\n        z = g(x)\n",
        "new": "    with tf.GradientTape() as tape:\n        tape.watch(x)\n        y = f(x)\n        z = g(x)\n",
    },
    {
        "name": "the first derivative taken after the outer tape stopped recording",
        "exercise": "higher_order",
        "old": "            y = f(x)\n        dy = inner.gradient(y, x)\n    d2y = outer.gradient(dy, x)\n",
        "new": "            y = f(x)\n    dy = inner.gradient(y, x)\n    d2y = outer.gradient(dy, x)\n",
    },
    {
        "name": "straight-through estimator without stop_gradient",
        "exercise": "stop_gradient",
        "old": "    return x + tf.stop_gradient(tf.round(x) - x)\n",
        "new": "    return x + (tf.round(x) - x)\n",
    },
    {
        "name": "straight-through estimator as a plain tf.round (no gradient)",
        "exercise": "stop_gradient",
        "old": "    return x + tf.stop_gradient(tf.round(x) - x)\n",
        "new": "    return tf.round(x)\n",
    },
    {
        "name": "make_traced's g is not a tf.function (the side effect runs on every call)",
        "exercise": "tracing",
        "old": "    @tf.function\n    def g(x):\n",
        "new": "    def g(x):\n",
    },
    {
        "name": "CallCounter counts with a Python counter inside the tf.function (trace time only)",
        "exercise": "tracing",
        "old": "        self.calls.assign_add(1)\n",
        "new": "        self.n = getattr(self, 'n', 0) + 1\n        self.calls.assign(self.n)\n",
    },
    {
        "name": "standardize without input_signature (retraces for every new length)",
        "exercise": "signature",
        "old": "    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])\n    def standardize(x):",
        "new": "    @tf.function\n    def standardize(x):",
    },
    {
        "name": "power_mean without input_signature (retraces for every Python float p)",
        "exercise": "signature",
        "old": "    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32),\n"
        "                                  tf.TensorSpec(shape=[], dtype=tf.float32)])\n    def power_mean(x, p):",
        "new": "    @tf.function\n    def power_mean(x, p):",
    },
    {
        "name": "prefix_sum traced without AutoGraph (a Python loop over a symbolic tensor)",
        "exercise": "autograph",
        "old": "    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])\n    def prefix_sum(x):",
        "new": "    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)], autograph=False)\n    def prefix_sum(x):",
    },
    {
        "name": "prefix_sum as plain Python (no tf.function: no graph)",
        "exercise": "autograph",
        "old": "    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])\n    def prefix_sum(x):",
        "new": "    def prefix_sum(x):",
    },
    {
        "name": "linreg: apply_gradients with the gradients' sign flipped",
        "exercise": "linreg",
        "old": "    optimizer.apply_gradients(zip(grads, [w, b]))\n",
        "new": "    optimizer.apply_gradients(zip([-g for g in grads], [w, b]))\n",
    },
    {
        "name": "linreg: gradients paired with the wrong variables",
        "exercise": "linreg",
        "old": "    optimizer.apply_gradients(zip(grads, [w, b]))\n",
        "new": "    optimizer.apply_gradients(zip(grads, [b, w]))\n",
    },
    {
        "name": "linreg loss summed instead of averaged",
        "exercise": "linreg",
        "old": "    return tf.reduce_mean((y_pred - y_true) ** 2 / 2)\n",
        "new": "    return tf.reduce_sum((y_pred - y_true) ** 2 / 2)\n",
    },
    {
        "name": "dnn: apply_gradients with the gradients' sign flipped",
        "exercise": "dnn",
        "old": "    optimizer.apply_gradients(zip(grads, model.trainable_variables))\n",
        "new": "    optimizer.apply_gradients(zip([-g for g in grads], model.trainable_variables))\n",
    },
    {
        "name": "the book's bug: loss called with labels and predictions swapped",
        "exercise": "dnn",
        "old": "        loss = bce_loss(model(X), Y)\n",
        "new": "        loss = bce_loss(Y, model(X))\n",
    },
    {
        "name": "BCE without clipping",
        "exercise": "dnn",
        "old": "    p = tf.clip_by_value(y_pred, eps, 1.0 - eps)\n",
        "new": "    p = y_pred\n",
    },
    {
        "name": "dnn forward with the second layer's bias left out",
        "exercise": "dnn",
        "old": "        x = tf.nn.relu(x @ self.w2 + self.b2)\n",
        "new": "        x = tf.nn.relu(x @ self.w2)\n",
    },
    # the stated rules nothing else observes (issue 41): each loses points on its own exercise
    {
        "name": "two_grads with a tape for each function (g's tape never saw f's work)",
        "exercise": "tape",
        "old": (
            "    with tf.GradientTape(persistent=True) as tape:\n        tape.watch(x)\n        y = f(x)\n        z = g(x)\n"
            "    dy = tape.gradient(y, x)\n    dz = tape.gradient(z, x)\n"
        ),
        "new": (
            "    with tf.GradientTape() as tape:\n        tape.watch(x)\n        y = f(x)\n"
            "    with tf.GradientTape() as tape2:\n        tape2.watch(x)\n        z = g(x)\n"
            "    dy = tape.gradient(y, x)\n    dz = tape2.gradient(z, x)\n"
        ),
    },
    {
        "name": "two_grads runs f a second time under the tape",
        "exercise": "tape",
        "old": "        y = f(x)\n        z = g(x)\n    dy = tape.gradient(y, x)\n",
        "new": "        y = f(x)\n        z = g(x)\n        y = f(x)\n    dy = tape.gradient(y, x)\n",
    },
    {
        "name": "fit_linreg steps eagerly (no tf.function)",
        "exercise": "linreg",
        "old": "    step = tf.function(linreg_train_step)\n",
        "new": "    step = linreg_train_step\n",
    },
    {
        "name": "fit_linreg makes a new tf.function every epoch",
        "exercise": "linreg",
        "old": "    step = tf.function(linreg_train_step)\n    history = []\n    for e in range(epochs):\n",
        "new": "    history = []\n    for e in range(epochs):\n        step = tf.function(linreg_train_step)\n",
    },
    {
        "name": "fit_dnn steps eagerly (no tf.function)",
        "exercise": "dnn",
        "old": "    step = tf.function(dnn_train_step)\n",
        "new": "    step = dnn_train_step\n",
    },
    {
        "name": "DNNModel's weights drawn from a plain normal (not truncated)",
        "exercise": "dnn",
        "old": "tf.Variable(tf.random.truncated_normal(",
        "new": "tf.Variable(tf.random.normal(",
    },
    {
        "name": "DNNModel's weights from Glorot's uniform initialiser",
        "exercise": "dnn",
        "old": "tf.Variable(tf.random.truncated_normal(",
        "new": "tf.Variable(tf.keras.initializers.GlorotUniform()(",
    },
]
