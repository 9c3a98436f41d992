"""Plausible student mistakes for tf03_walls; each must lose points on its exercise's tests."""

MUTANTS = [
    {
        "name": "MyDense's weights created in __init__ (for the book's 2 inputs) instead of in build",
        "exercise": "dense_layer",
        "old": (
            "        self.activation = keras.activations.get(activation)\n\n"
            "    def build(self, input_shape):\n"
            "        ### BEGIN SOLUTION\n"
            "        self.kernel = self.add_weight(name=\"kernel\", shape=(input_shape[-1], self.units),\n"
            "                                      initializer=\"glorot_uniform\")\n"
            "        self.bias = self.add_weight(name=\"bias\", shape=(self.units,), initializer=\"zeros\")\n"
            "        ### END SOLUTION\n"
        ),
        "new": (
            "        self.activation = keras.activations.get(activation)\n"
            "        self.kernel = self.add_weight(name=\"kernel\", shape=(2, self.units), initializer=\"glorot_uniform\")\n"
            "        self.bias = self.add_weight(name=\"bias\", shape=(self.units,), initializer=\"zeros\")\n\n"
            "    def build(self, input_shape):\n"
            "        pass\n"
        ),
    },
    {
        "name": "MyDense forgets its activation",
        "exercise": "dense_layer",
        "old": "        return self.activation(tf.matmul(inputs, self.kernel) + self.bias)",
        "new": "        return tf.matmul(inputs, self.kernel) + self.bias",
    },
    {
        "name": "get_config without the activation",
        "exercise": "dense_layer",
        "old": 'config.update({"units": self.units, "activation": keras.activations.serialize(self.activation)})',
        "new": 'config.update({"units": self.units})',
    },
    {
        "name": "Huber's call reduces over the batch too (the loss reduction done in call)",
        "exercise": "huber_loss",
        "old": "return tf.reduce_mean(0.5 * quadratic ** 2 + self.delta * linear, axis=-1)",
        "new": "return tf.reduce_mean(0.5 * quadratic ** 2 + self.delta * linear)",
    },
    {
        "name": "Huber summed over the last axis instead of averaged",
        "exercise": "huber_loss",
        "old": "return tf.reduce_mean(0.5 * quadratic ** 2 + self.delta * linear, axis=-1)",
        "new": "return tf.reduce_sum(0.5 * quadratic ** 2 + self.delta * linear, axis=-1)",
    },
    {
        "name": "the metric averages the batch accuracies (a mean of batch means)",
        "exercise": "accuracy_metric",
        "old": "        self.total.assign_add(tf.reduce_sum(right * weights))\n        self.count.assign_add(tf.reduce_sum(weights))",
        "new": "        self.total.assign_add(tf.reduce_sum(right * weights) / tf.reduce_sum(weights))\n        self.count.assign_add(1.0)",
    },
    {
        "name": "reset_state does not reset",
        "exercise": "accuracy_metric",
        "old": "        self.total.assign(0.0)\n        self.count.assign(0.0)",
        "new": "        pass",
    },
    {
        "name": "reset_state resets the total but not the count",
        "exercise": "accuracy_metric",
        "old": "        self.total.assign(0.0)\n        self.count.assign(0.0)",
        "new": "        self.total.assign(0.0)",
    },
    {
        "name": "the metric's state in plain tf.Variables instead of add_weight (not tracked by Keras)",
        "exercise": "accuracy_metric",
        "old": (
            '        self.total = self.add_weight(name="total", shape=(), initializer="zeros", dtype="float32")\n'
            '        self.count = self.add_weight(name="count", shape=(), initializer="zeros", dtype="float32")'
        ),
        "new": "        self.total = tf.Variable(0.0, trainable=False)\n        self.count = tf.Variable(0.0, trainable=False)",
    },
    {
        "name": "momentum: the variable moves by the old velocity (update order swapped)",
        "exercise": "momentum_sgd",
        "old": (
            "            velocity.assign(self.momentum * velocity - self.learning_rate * tf.cast(grad, var.dtype))\n"
            "            var.assign_add(velocity)"
        ),
        "new": (
            "            var.assign_add(velocity)\n"
            "            velocity.assign(self.momentum * velocity - self.learning_rate * tf.cast(grad, var.dtype))"
        ),
    },
    {
        "name": "momentum as an exponential average ((1 - momentum) * gradient)",
        "exercise": "momentum_sgd",
        "old": "velocity.assign(self.momentum * velocity - self.learning_rate * tf.cast(grad, var.dtype))",
        "new": "velocity.assign(self.momentum * velocity - (1 - self.momentum) * self.learning_rate * tf.cast(grad, var.dtype))",
    },
    {
        "name": "shuffle without a seed",
        "exercise": "pipeline",
        "old": "ds.shuffle(buffer_size=len(X), seed=seed, reshuffle_each_iteration=True)",
        "new": "ds.shuffle(buffer_size=len(X), reshuffle_each_iteration=True)",
    },
    {
        "name": "the same order every epoch (reshuffle_each_iteration=False)",
        "exercise": "pipeline",
        "old": "ds.shuffle(buffer_size=len(X), seed=seed, reshuffle_each_iteration=True)",
        "new": "ds.shuffle(buffer_size=len(X), seed=seed, reshuffle_each_iteration=False)",
    },
    {
        "name": "a shuffle buffer of 8 rows instead of the whole data",
        "exercise": "pipeline",
        "old": "ds.shuffle(buffer_size=len(X), seed=seed, reshuffle_each_iteration=True)",
        "new": "ds.shuffle(buffer_size=8, seed=seed, reshuffle_each_iteration=True)",
    },
    {
        "name": "batches shuffled instead of rows (batch before shuffle)",
        "exercise": "pipeline",
        "old": (
            "    if shuffle:\n"
            "        ds = ds.shuffle(buffer_size=len(X), seed=seed, reshuffle_each_iteration=True)\n"
            "    ds = ds.map(lambda x, t: (tf.cast(x, tf.float32), tf.cast(t, tf.float32)), num_parallel_calls=tf.data.AUTOTUNE)\n"
            "    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)"
        ),
        "new": (
            "    ds = ds.map(lambda x, t: (tf.cast(x, tf.float32), tf.cast(t, tf.float32))).batch(batch_size)\n"
            "    if shuffle:\n"
            "        ds = ds.shuffle(buffer_size=len(X), seed=seed, reshuffle_each_iteration=True)\n"
            "    return ds.prefetch(tf.data.AUTOTUNE)"
        ),
    },
    {
        "name": "no map to float32",
        "exercise": "pipeline",
        "old": "    ds = ds.map(lambda x, t: (tf.cast(x, tf.float32), tf.cast(t, tf.float32)), num_parallel_calls=tf.data.AUTOTUNE)\n",
        "new": "",
    },
    {
        "name": "StringLookup without an out-of-vocabulary slot",
        "exercise": "features",
        "old": 'lookup = keras.layers.StringLookup(output_mode="one_hot")',
        "new": 'lookup = keras.layers.StringLookup(output_mode="one_hot", num_oov_indices=0)',
    },
    {
        "name": "one age bucket too few (len(boundaries) tokens)",
        "exercise": "features",
        "old": "num_tokens=len(age_boundaries) + 1",
        "new": "num_tokens=len(age_boundaries)",
    },
    {
        "name": "the linear model's Dense layer without a bias",
        "exercise": "linear_regression",
        "old": "    model = keras.layers.Dense(1)\n",
        "new": "    model = keras.layers.Dense(1, use_bias=False)\n",
    },
    {
        "name": "epochs ignored: one pass over the data",
        "exercise": "linear_regression",
        "old": "    optimizer = keras.optimizers.SGD(learning_rate=learning_rate, momentum=0.9)\n",
        "new": "    optimizer = keras.optimizers.SGD(learning_rate=learning_rate, momentum=0.9)\n    epochs = 1\n",
    },
    {
        "name": "predict_rings with training=True (dropout on at inference)",
        "exercise": "ring_classifier",
        "old": "return tf.sigmoid(model(tf.constant(X, tf.float32), training=False))",
        "new": "return tf.sigmoid(model(tf.constant(X, tf.float32), training=True))",
    },
    {
        "name": "predict_rings returns logits (no sigmoid)",
        "exercise": "ring_classifier",
        "old": "return tf.sigmoid(model(tf.constant(X, tf.float32), training=False))",
        "new": "return model(tf.constant(X, tf.float32), training=False)",
    },
    # the stated rules nothing else observes (issue 41): each loses points on its own exercise
    {
        "name": "get_config without the base layer's config",
        "exercise": "dense_layer",
        "old": "        config = super().get_config()\n",
        "new": "        config = {}\n",
    },
    {
        "name": "a prediction equal to the threshold counts as label 1 (>=)",
        "exercise": "accuracy_metric",
        "old": "tf.cast(y_pred > self.threshold, tf.float32)",
        "new": "tf.cast(y_pred >= self.threshold, tf.float32)",
    },
    {
        "name": "the ring net ends with a sigmoid (probabilities, from_logits=False) and predict_rings passes them on",
        "exercise": "ring_classifier",
        "old": '        keras.layers.Dense(1),\n    ])\n    ### END SOLUTION\n\n\ndef train_ring_classifier(X, y, epochs=10, batch_size=32, learning_rate=0.01, seed=0):\n    ### BEGIN SOLUTION\n    keras.utils.set_random_seed(seed)\n    model = build_ring_classifier()\n    ds = make_dataset(X, y, batch_size=batch_size, seed=seed)\n    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)\n    optimizer = keras.optimizers.Adam(learning_rate=learning_rate)\n\n    @tf.function\n    def train_step(xb, yb):\n        with tf.GradientTape() as tape:\n            loss = loss_fn(yb, model(xb, training=True))\n        grads = tape.gradient(loss, model.trainable_variables)\n        optimizer.apply_gradients(zip(grads, model.trainable_variables))\n        return loss\n\n    for _ in range(epochs):\n        for xb, yb in ds:\n            train_step(xb, yb)\n    return model\n    ### END SOLUTION\n\n\ndef predict_rings(model, X):\n    ### BEGIN SOLUTION\n    return tf.sigmoid(model(tf.constant(X, tf.float32), training=False))',
        "new": '        keras.layers.Dense(1, activation="sigmoid"),\n    ])\n    ### END SOLUTION\n\n\ndef train_ring_classifier(X, y, epochs=10, batch_size=32, learning_rate=0.01, seed=0):\n    ### BEGIN SOLUTION\n    keras.utils.set_random_seed(seed)\n    model = build_ring_classifier()\n    ds = make_dataset(X, y, batch_size=batch_size, seed=seed)\n    loss_fn = keras.losses.BinaryCrossentropy()\n    optimizer = keras.optimizers.Adam(learning_rate=learning_rate)\n\n    @tf.function\n    def train_step(xb, yb):\n        with tf.GradientTape() as tape:\n            loss = loss_fn(yb, model(xb, training=True))\n        grads = tape.gradient(loss, model.trainable_variables)\n        optimizer.apply_gradients(zip(grads, model.trainable_variables))\n        return loss\n\n    for _ in range(epochs):\n        for xb, yb in ds:\n            train_step(xb, yb)\n    return model\n    ### END SOLUTION\n\n\ndef predict_rings(model, X):\n    ### BEGIN SOLUTION\n    return model(tf.constant(X, tf.float32), training=False)',
    },
    {
        "name": "the training step calls the model without training=True (dropout never runs)",
        "exercise": "ring_classifier",
        "old": "loss = loss_fn(yb, model(xb, training=True))",
        "new": "loss = loss_fn(yb, model(xb))",
    },
    {
        "name": "train_ring_classifier does not seed",
        "exercise": "ring_classifier",
        "old": "    keras.utils.set_random_seed(seed)\n    model = build_ring_classifier()\n",
        "new": "    model = build_ring_classifier()\n",
    },
    {
        "name": "train_linear_regression does not seed",
        "exercise": "linear_regression",
        "old": "    keras.utils.set_random_seed(seed)\n    model = keras.layers.Dense(1)\n",
        "new": "    model = keras.layers.Dense(1)\n",
    },
    # a pipeline that ignores the seed it is given (issue 52)
    {
        "name": "train_linear_regression's make_dataset without its seed",
        "exercise": "linear_regression",
        "old": "    model.build((None, X.shape[1]))\n    ds = make_dataset(X, y, batch_size=batch_size, seed=seed)\n",
        "new": "    model.build((None, X.shape[1]))\n    ds = make_dataset(X, y, batch_size=batch_size)\n",
    },
    {
        "name": "train_ring_classifier's make_dataset without its seed",
        "exercise": "ring_classifier",
        "old": "    model = build_ring_classifier()\n    ds = make_dataset(X, y, batch_size=batch_size, seed=seed)\n",
        "new": "    model = build_ring_classifier()\n    ds = make_dataset(X, y, batch_size=batch_size)\n",
    },
]
