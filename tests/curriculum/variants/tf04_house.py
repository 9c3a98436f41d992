"""Plausible student mistakes for tf04_house; each must lose points on the tests of its exercise."""

MUTANTS = [
    {
        "name": "test_step runs the net with training=True (dropout on while evaluating)",
        "exercise": "house_model",
        "old": "        y_pred = self(x, training=False)\n        loss = self.compute_loss(",
        "new": "        y_pred = self(x, training=True)\n        loss = self.compute_loss(",
    },
    {
        "name": "predict without the model's final activation (logits instead of probabilities)",
        "exercise": "house_model",
        "old": "return self.output_activation(self(x, training=False))",
        "new": "return self(x, training=False)",
    },
    {
        "name": "test_step updates the weights (a tape and an optimizer step while evaluating)",
        "exercise": "house_model",
        "old": (
            "        y_pred = self(x, training=False)\n        loss = self.compute_loss(x=x, y=y, y_pred=y_pred)\n"
        ),
        "new": (
            "        with tf.GradientTape() as tape:\n"
            "            y_pred = self(x, training=False)\n"
            "            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)\n"
            "        grads = tape.gradient(loss, self.trainable_variables)\n"
            "        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))\n"
        ),
    },
    {
        "name": "train_step updates only the loss tracker, not the compiled metrics",
        "exercise": "house_model",
        "old": (
            "        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))\n"
            "        for metric in self.metrics:\n"
            "            if metric.name == \"loss\":\n"
            "                metric.update_state(loss)\n"
            "            else:\n"
            "                metric.update_state(y, y_pred)\n"
        ),
        "new": (
            "        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))\n"
            "        for metric in self.metrics:\n"
            "            if metric.name == \"loss\":\n"
            "                metric.update_state(loss)\n"
        ),
    },
    {
        "name": "StopAtThreshold always watches the training loss, whatever its monitor",
        "exercise": "callbacks",
        "old": "value = (logs or {}).get(self.monitor)",
        "new": "value = (logs or {}).get(\"loss\")",
    },
    {
        "name": "early stopping without restoring the best weights",
        "exercise": "fit_callbacks",
        "old": "patience=patience, restore_best_weights=True)",
        "new": "patience=patience)",
    },
    {
        "name": "checkpoint saved every epoch instead of only the best",
        "exercise": "fit_callbacks",
        "old": "save_best_only=True, save_weights_only=True)",
        "new": "save_best_only=False, save_weights_only=True)",
    },
    {
        "name": "the samples are shuffled before the validation split",
        "exercise": "fit_callbacks",
        "old": "    return model.fit(x, y, epochs=epochs,",
        "new": (
            "    order = np.random.permutation(len(x))\n"
            "    x, y = x[order], y[order]\n"
            "    return model.fit(x, y, epochs=epochs,"
        ),
    },
    {
        "name": "the ring classifier's predict gives logits (no output activation)",
        "exercise": "book_tasks",
        "old": "model = HouseModel(net, output_activation=\"sigmoid\")",
        "new": "model = HouseModel(net)",
    },
    # the stated rules nothing else observes (issue 41): each loses points on its own exercise
    {
        "name": "the loss tracker weighted by the batch size (differs on a partial last batch)",
        "exercise": "house_model",
        "old": (
            "        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))\n"
            "        for metric in self.metrics:\n"
            "            if metric.name == \"loss\":\n"
            "                metric.update_state(loss)\n"
        ),
        "new": (
            "        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))\n"
            "        for metric in self.metrics:\n"
            "            if metric.name == \"loss\":\n"
            "                metric.update_state(loss, sample_weight=tf.shape(x)[0])\n"
        ),
    },
    {
        "name": "StopAtThreshold in mode 'min' needs a value strictly below the threshold",
        "exercise": "callbacks",
        "old": "reached = value <= self.threshold if",
        "new": "reached = value < self.threshold if",
    },
    {
        "name": "StopAtThreshold in mode 'max' needs a value strictly above the threshold",
        "exercise": "callbacks",
        "old": "else value >= self.threshold",
        "new": "else value > self.threshold",
    },
    {
        "name": "train_house fits without shuffling (shuffle=False)",
        "exercise": "fit_callbacks",
        "old": "validation_split=val_fraction, shuffle=True,",
        "new": "validation_split=val_fraction, shuffle=False,",
    },
    {
        "name": "the extra callbacks run before EarlyStopping and ModelCheckpoint",
        "exercise": "fit_callbacks",
        "old": (
            "    callbacks = [\n"
            "        keras.callbacks.EarlyStopping(monitor=\"val_loss\", patience=patience, restore_best_weights=True),\n"
            "        keras.callbacks.ModelCheckpoint(ckpt_path, monitor=\"val_loss\", save_best_only=True, save_weights_only=True),\n"
            "        *extra_callbacks,\n"
        ),
        "new": (
            "    callbacks = [\n"
            "        *extra_callbacks,\n"
            "        keras.callbacks.EarlyStopping(monitor=\"val_loss\", patience=patience, restore_best_weights=True),\n"
            "        keras.callbacks.ModelCheckpoint(ckpt_path, monitor=\"val_loss\", save_best_only=True, save_weights_only=True),\n"
        ),
    },
    {
        "name": "train_rings' net ends with a sigmoid (probabilities, from_logits=False) and predict passes them on",
        "exercise": "book_tasks",
        "old": (
            "                            layers.Dense(8, activation=\"relu\"), layers.Dense(1)])\n"
            "    model = HouseModel(net, output_activation=\"sigmoid\")\n"
            "    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.05),\n"
            "                  loss=keras.losses.BinaryCrossentropy(from_logits=True),\n"
            "                  metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)])\n"
        ),
        "new": (
            "                            layers.Dense(8, activation=\"relu\"), layers.Dense(1, activation=\"sigmoid\")])\n"
            "    model = HouseModel(net)\n"
            "    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.05),\n"
            "                  loss=keras.losses.BinaryCrossentropy(),\n"
            "                  metrics=[keras.metrics.BinaryAccuracy()])\n"
        ),
    },
    {
        "name": "train_linreg does not seed (another global seed, other results)",
        "exercise": "book_tasks",
        "old": "    keras.utils.set_random_seed(0)\n    model = HouseModel(",
        "new": "    model = HouseModel(",
    },
]
