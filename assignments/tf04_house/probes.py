"""Probes for tf04_house: build small Keras nets with the test's weights, call the notebook's house, return data.

No expected values and no verdicts live here.  The nets are made by the kit (`_net`) from the weights a test
sends, so the student's class only wraps them and every number it produces can be compared with the
reference's (or with what a public test computes itself).  TensorFlow is imported inside the functions: the
trusted side imports this module too, and must never import TensorFlow.

The book's two data sets (`linreg_data`, `rings_data`) are drawn here too, with numpy only, from the generator a
test passes: the public tests pass a fixed seed's, the hidden ones the secret's (`np_rng`).
"""
from __future__ import annotations

import os
import tempfile

import numpy as np


def _keras():
    import keras  # seeded for every call by the kit (keras.utils.set_random_seed): dropout draws the same masks

    return keras


def _net(keras, weights, dropout=0.0):
    """Dense(h, tanh) - [Dropout] - Dense(o) for weights [W1, b1, W2, b2]; Dense(o) alone for [W, b]."""
    weights = [np.asarray(w, dtype="float32") for w in weights]
    stack = [keras.Input((weights[0].shape[0],))]
    if len(weights) == 4:
        stack.append(keras.layers.Dense(weights[0].shape[1], activation="tanh"))
        if dropout:
            stack.append(keras.layers.Dropout(dropout))
    stack.append(keras.layers.Dense(weights[-1].shape[0]))
    net = keras.Sequential(stack)
    net.set_weights(weights)
    return net


def _compiled(keras, model, task, lr):
    if task == "binary":
        loss, metrics = keras.losses.BinaryCrossentropy(from_logits=True), [keras.metrics.BinaryAccuracy(threshold=0.0)]
    else:
        loss, metrics = "mse", ["mae"]
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=lr), loss=loss, metrics=metrics)
    return model


def _weights(model):
    return [np.asarray(w.numpy()) for w in model.trainable_weights]


def _history(h):
    return {"type": type(h).__name__, "history": {str(k): list(v) for k, v in h.history.items()},
            "epoch": list(h.epoch)}


def _house(ns, keras, weights, task, dropout=0.0):
    return ns["HouseModel"](_net(keras, weights, dropout), "sigmoid" if task == "binary" else None)


# ---------------------------------------------------------------- house_model

def house_fit(ns, weights, x, y, xv, yv, batch_size, epochs, lr, task="regression", dropout=0.0):
    """fit (no shuffling; validation data when xv is not None): the History and the trained weights."""
    keras = _keras()
    model = _compiled(keras, _house(ns, keras, weights, task, dropout), task, lr)
    h = model.fit(x, y, validation_data=None if xv is None else (xv, yv), batch_size=batch_size, epochs=epochs,
                  shuffle=False, verbose=0)
    return {**_history(h), "weights": _weights(model)}


def house_loss_metric(ns, weights, x, y, batch_size, lr):
    """fit one epoch with a partial last batch (no shuffling), the loss tracker read after every batch: the mean
    of the step losses (`update_state(loss)`) differs there from a mean weighted by each batch's size."""
    keras = _keras()
    model = _compiled(keras, _house(ns, keras, weights, "regression"), "regression", lr)
    seen = []

    class BatchLogs(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(float((logs or {}).get("loss", float("nan"))))

    h = model.fit(x, y, batch_size=batch_size, epochs=1, shuffle=False, verbose=0, callbacks=[BatchLogs()])
    return {**_history(h), "batch_losses": seen, "weights": _weights(model)}


def house_evaluate(ns, weights, x, y, batch_size, task="regression", dropout=0.0):
    """evaluate twice (a dict each time) and the weights after."""
    keras = _keras()
    model = _compiled(keras, _house(ns, keras, weights, task, dropout), task, 0.1)
    first = model.evaluate(x, y, batch_size=batch_size, verbose=0, return_dict=True)
    again = model.evaluate(x, y, batch_size=batch_size, verbose=0, return_dict=True)
    return {"first": first, "again": again, "weights": _weights(model)}


def house_predict(ns, weights, x, task="regression", dropout=0.0):
    """predict twice and call the model once (training=False by default)."""
    keras = _keras()
    model = _house(ns, keras, weights, task, dropout)
    first = model.predict(x, batch_size=8, verbose=0)
    again = model.predict(x, batch_size=8, verbose=0)
    return {"predict": np.asarray(first), "again": np.asarray(again), "call": np.asarray(model(x))}


# ---------------------------------------------------------------- callbacks

def stop_fit(ns, weights, x, y, xv, yv, epochs, lr, monitor, threshold, mode):
    """A plain Keras model fit with the student's StopAtThreshold; then a second fit with an unreachable threshold."""
    keras = _keras()
    model = _compiled(keras, _net(keras, weights), "regression", lr)
    cb = ns["StopAtThreshold"](monitor, threshold, mode)
    attrs = [cb.monitor, cb.threshold, cb.mode, cb.stopped_epoch]
    h = model.fit(x, y, validation_data=(xv, yv), batch_size=len(x), epochs=epochs, shuffle=False, verbose=0,
                  callbacks=[cb])
    first = {**_history(h), "stopped_epoch": cb.stopped_epoch}
    cb.threshold = float("-inf") if mode == "min" else float("inf")
    h = model.fit(x, y, validation_data=(xv, yv), batch_size=len(x), epochs=2, shuffle=False, verbose=0,
                  callbacks=[cb])
    return {"attrs": attrs, "first": first, "second": {**_history(h), "stopped_epoch": cb.stopped_epoch}}


def stop_exact(ns, weights, x, y, epochs, lr, monitor, threshold, mode):
    """A plain Keras model fit (full batches) with the student's StopAtThreshold at `threshold`, which the test
    takes from a first run's own history: a monitored value exactly equal to it."""
    keras = _keras()
    model = _compiled(keras, _net(keras, weights), "regression", lr)
    cb = ns["StopAtThreshold"](monitor, threshold, mode)
    h = model.fit(x, y, batch_size=len(x), epochs=epochs, shuffle=False, verbose=0, callbacks=[cb])
    return {**_history(h), "stopped_epoch": cb.stopped_epoch}


def stop_bad_mode(ns):
    """What StopAtThreshold(mode="average") raises (the exception's class name), or None."""
    try:
        ns["StopAtThreshold"]("loss", 0.0, "average")
    except Exception as exc:  # noqa: BLE001 - the class name is the answer
        return type(exc).__name__
    return None


# ---------------------------------------------------------------- fit_callbacks

def train_house_run(ns, weights, x, y, epochs, patience, lr, val_fraction=0.25, batches=1):
    """train_house on a plain linear Keras model (`batches` batches per epoch: 1 is full batches): its History, the
    weights of every epoch, the weights it ends with and those of its checkpoint file; and what the extra callback,
    which runs after Keras's two, sees: at each epoch's end whether training is to stop and whether the checkpoint
    file exists yet, and at the end of training the weights (the best epoch's, once EarlyStopping restored them)."""
    keras = _keras()
    model = _compiled(keras, _net(keras, weights), "regression", lr)
    per_epoch, order, at_end = [], [], []
    folder = tempfile.mkdtemp(prefix="tf04-")
    ckpt = os.path.join(folder, "best.weights.h5")

    class EpochWeights(keras.callbacks.Callback):  # the extra callback: the weights after each epoch
        def on_epoch_end(self, epoch, logs=None):
            per_epoch.append(_weights(self.model))
            order.append([bool(self.model.stop_training), os.path.exists(ckpt)])

        def on_train_end(self, logs=None):
            at_end.append(_weights(self.model))

    n_train = int(np.floor(len(x) * (1.0 - val_fraction)))  # as validation_split cuts
    batch_size = -(-n_train // batches)
    h = ns["train_house"](model, x, y, epochs, batch_size, patience, ckpt, val_fraction, [EpochWeights()])
    out = {**_history(h), "per_epoch": per_epoch, "final": _weights(model), "ckpt": None,
           "seen_by_extra": order, "extra_at_end": at_end}
    if os.path.exists(ckpt):
        other = _net(keras, [np.zeros_like(np.asarray(w)) for w in weights])
        other.load_weights(ckpt)
        out["ckpt"] = _weights(other)
    return out


# ---------------------------------------------------------------- book_tasks

def linreg_data(rng, n):
    """The book's linear-regression data: n points x in [-5, 5]^2, y = 2 x1 - 3 x2 + 10 + noise (sd 2)."""
    x = rng.uniform(-5.0, 5.0, size=(n, 2))
    y = x @ np.array([[2.0], [-3.0]]) + 10.0 + rng.normal(0.0, 2.0, size=(n, 1))
    return x.astype("float32"), y.astype("float32")


def rings_data(rng, n):
    """The book's two rings: n points around radius 5 (label 1), then n around radius 8 (label 0)."""
    r = np.concatenate([5.0 + rng.normal(size=(n, 1)), 8.0 + rng.normal(size=(n, 1))])
    theta = rng.uniform(0.0, 2 * np.pi, size=(2 * n, 1))
    x = np.concatenate([r * np.cos(theta), r * np.sin(theta)], axis=1)
    return x.astype("float32"), np.concatenate([np.ones((n, 1)), np.zeros((n, 1))]).astype("float32")


def book_task(ns, function, x, y, x_test):
    """Train with the notebook's train_linreg / train_rings; predict x_test; and the model's raw output on x_test
    (`model(x)`: for train_rings the net's logits, of which predict is the sigmoid)."""
    model = ns[function](x, y)
    out = {"is_house": isinstance(model, ns["HouseModel"]),
           "predict": np.asarray(model.predict(x_test, batch_size=256, verbose=0))}
    try:
        out["raw"] = np.asarray(model(x_test))
    except Exception:  # noqa: BLE001 - no raw output: the test says what it expected
        out["raw"] = None
    return out


def book_runs(ns, function, x, y, x_test, ambient):
    """The notebook's train_linreg / train_rings called once after each of the global seeds `ambient` (the seeds
    set before the call, which a seeded function replaces by its own); each run as `book_task` reports it.  One
    call serves every hidden test of the task (`student.once`): the accuracy, the reproducibility, the logits."""
    keras = _keras()
    out = []
    for seed in ambient:
        keras.utils.set_random_seed(int(seed))
        out.append(book_task(ns, function, x, y, x_test))
    return out
