"""Probes for tf03_walls: build the student's Keras components, run them, return plain data (no verdicts).

The trusted side sends numpy arrays, numbers, strings and lists of them; each probe builds the student's
layer / loss / metric / optimizer / pipeline itself, runs it and returns numpy arrays, floats, names and
shapes.  The tests compare them with values they compute with numpy or with the reference notebook.
TensorFlow is imported inside each probe, never at module level: the trusted side imports this module
too, and must not pay for (or trust) TensorFlow.  Probes whose results depend on random draws seed
Python, numpy and TensorFlow themselves (`keras.utils.set_random_seed`) from a seed the test sends, so the
reference and the student draw the same.
"""
from __future__ import annotations

import numpy as np


def _tf():
    import keras
    import tensorflow as tf

    return tf, keras


def _seed(seed) -> None:
    _, keras = _tf()
    keras.utils.set_random_seed(int(seed))


def _np(x) -> np.ndarray:
    """A tensor, variable or array as a numpy array (what the wire carries)."""
    return np.array(x.numpy() if hasattr(x, "numpy") else x)


def _classes(obj) -> list:
    return [f"{c.__module__}.{c.__qualname__}" for c in type(obj).__mro__]


# ---------------------------------------------------------------- dense_layer

def dense_run(ns, units, activation, x, kernel=None, bias=None, seed=0):
    """MyDense(units, activation) on x: its weights before and after the first call, its initial values,
    its output with `kernel`/`bias` set, and a copy made from its config on the same weights."""
    tf, keras = _tf()
    _seed(seed)
    layer = ns["MyDense"](units, activation=activation)
    out = {"weights_before_call": len(layer.weights)}
    x = tf.constant(x)
    layer(x)
    out["weights"] = [[str(w.name), [int(d) for d in w.shape], bool(w.trainable)] for w in layer.weights]
    out["init"] = [_np(w) for w in layer.weights]
    if kernel is not None:
        layer.set_weights([np.asarray(kernel, "float32"), np.asarray(bias, "float32")])
    out["out"] = _np(layer(x))
    config = layer.get_config()
    out["config"] = {k: config.get(k) for k in ("units", "activation")}
    out["config_keys"] = sorted(str(k) for k in config) if isinstance(config, dict) else None
    clone = type(layer).from_config(config)
    out["clone_name_kept"] = clone.name == layer.name
    clone(x)
    clone.set_weights(layer.get_weights())
    out["clone_out"] = _np(clone(x))
    return out


# ---------------------------------------------------------------- huber_loss

def huber_run(ns, y_true, y_pred, delta=1.0, reduction="sum_over_batch_size", sample_weight=None):
    """Huber(delta, reduction)(y_true, y_pred, sample_weight) as a numpy array."""
    tf, _ = _tf()
    loss = ns["Huber"](delta=delta, reduction=reduction)
    sw = None if sample_weight is None else tf.constant(sample_weight)
    return _np(loss(tf.constant(y_true), tf.constant(y_pred), sample_weight=sw))


# ---------------------------------------------------------------- accuracy_metric

def metric_run(ns, threshold, batches, graph=False):
    """ThresholdAccuracy(threshold) fed `batches` ([y_true, y_pred, sample_weight or None], eagerly or inside a
    tf.function): its state variables, result after each batch, after reset_state, and after one more batch."""
    tf, _ = _tf()
    m = ns["ThresholdAccuracy"](threshold=threshold)
    out = {"variables": [str(v.name) for v in m.variables], "fresh": float(m.result())}
    update = tf.function(m.update_state) if graph else m.update_state

    def feed(y_true, y_pred, sw):
        if sw is None:
            update(tf.constant(y_true), tf.constant(y_pred))
        else:
            update(tf.constant(y_true), tf.constant(y_pred), sample_weight=tf.constant(sw))

    results = []
    for y_true, y_pred, sw in batches:
        feed(y_true, y_pred, sw)
        results.append(float(m.result()))
    out["results"] = results
    m.reset_state()
    out["after_reset"] = float(m.result())
    out["state_after_reset"] = [float(_np(v)) for v in m.variables]
    feed(*batches[-1])
    out["after_reset_and_one_batch"] = float(m.result())
    return out


# ---------------------------------------------------------------- momentum_sgd

def sgd_run(ns, learning_rate, momentum, inits, grads, dtype="float32"):
    """MomentumSGD stepping tf.Variables made from `inits` with `grads` (one list per step, None for a
    variable without a gradient): the variables' values after each step."""
    tf, _ = _tf()
    variables = [tf.Variable(np.asarray(a, dtype)) for a in inits]
    opt = ns["MomentumSGD"](learning_rate=learning_rate, momentum=momentum)
    history = []
    for step in grads:
        opt.apply_gradients([(None if g is None else tf.constant(np.asarray(g, dtype)), v)
                             for g, v in zip(step, variables)])
        history.append([_np(v) for v in variables])
    return history


# ---------------------------------------------------------------- pipeline

def _epoch(ds) -> list:
    return [[_np(xb), _np(yb)] for xb, yb in ds]


def pipeline_run(ns, X, y, batch_size, shuffle, seed, global_seed=0, epochs=2):
    """make_dataset(X, y, ...) read for `epochs` epochs; a second dataset with the same arguments and a third
    with seed + 1, one epoch each; and the class of the dataset returned."""
    _seed(global_seed)
    make = ns["make_dataset"]
    ds = make(X, y, batch_size=batch_size, shuffle=shuffle, seed=seed)
    out = {"epochs": [_epoch(ds) for _ in range(epochs)], "kind": type(ds).__name__}
    out["again"] = _epoch(make(X, y, batch_size=batch_size, shuffle=shuffle, seed=seed))
    out["other_seed"] = _epoch(make(X, y, batch_size=batch_size, shuffle=shuffle, seed=seed + 1))
    return out


# ---------------------------------------------------------------- features

def features_run(ns, numeric, cities, age_boundaries, numeric_new, cities_new, ages_new):
    """make_feature_encoder adapted to (numeric, cities), applied to new rows: the matrix and its dtype."""
    encode = ns["make_feature_encoder"](np.asarray(numeric, "float32"), list(cities), list(age_boundaries))
    got = encode(np.asarray(numeric_new, "float32"), list(cities_new), np.asarray(ages_new, "float32"))
    return {"dtype": str(getattr(getattr(got, "dtype", None), "name", type(got).__name__)), "out": _np(got)}


# ---------------------------------------------------------------- linear_regression

class _SeedChecked:
    """While a training runs: the notebook's make_dataset serves the data only when it is called with the seed the
    training was given (the text: `make_dataset(X, y, batch_size, seed=seed)`); called with another (the default 0
    of a call that leaves it out) it serves corrupted labels, so a pipeline that ignores its seed trains a model
    the trusted side sees is wrong.  `others` counts those calls (for the message only)."""

    def __init__(self, ns, seed, corrupt):
        self.ns, self.seed, self.corrupt, self.others = ns, int(seed), corrupt, 0

    def __enter__(self):
        real = self.real = self.ns["make_dataset"]

        def make_dataset(X, y, batch_size=32, shuffle=True, seed=0):
            try:
                same = int(seed) == self.seed
            except Exception:  # noqa: BLE001 - not a number: not the seed it was given
                same = False
            if not same:
                self.others += 1
                y = self.corrupt(np.asarray(y, "float32"))
            return real(X, y, batch_size=batch_size, shuffle=shuffle, seed=seed)

        self.ns["make_dataset"] = make_dataset
        return self

    def __exit__(self, *exc):
        self.ns["make_dataset"] = self.real
        return False


def linear_regression_run(ns, X, y, kwargs):
    """train_linear_regression(X, y, **kwargs): the class of what it returns and its weights.  With a seed in
    kwargs, its make_dataset must get that seed (`_SeedChecked`: else the targets are shifted by 100)."""
    if "seed" in kwargs:
        with _SeedChecked(ns, kwargs["seed"], lambda t: t + 100.0) as checked:
            model = ns["train_linear_regression"](np.asarray(X, "float32"), np.asarray(y, "float32"), **kwargs)
        other = checked.others
    else:
        model, other = ns["train_linear_regression"](np.asarray(X, "float32"), np.asarray(y, "float32"), **kwargs), 0
    return {"classes": _classes(model), "weights": [_np(w) for w in model.get_weights()], "unseeded_pipelines": other}


def linear_regression_twice(ns, X, y, seed, ambient):
    """train_linear_regression(X, y, seed=seed) once after each global seed of `ambient` (set here before the call,
    which a function that seeds itself replaces): the weights each time."""
    _, keras = _tf()
    out = []
    for a in ambient:
        keras.utils.set_random_seed(int(a))
        model = ns["train_linear_regression"](np.asarray(X, "float32"), np.asarray(y, "float32"), seed=seed)
        out.append([_np(w) for w in model.get_weights()])
    return out


# ---------------------------------------------------------------- ring_classifier

def ring_train_run(ns, X, y, X_val, kwargs):
    """train_ring_classifier(X, y, **kwargs), then the model's probabilities on X_val at inference.  With a seed in
    kwargs, its make_dataset must get that seed (`_SeedChecked`: else the labels are flipped)."""
    tf, _ = _tf()
    if "seed" in kwargs:
        with _SeedChecked(ns, kwargs["seed"], lambda t: 1.0 - t):
            model = ns["train_ring_classifier"](np.asarray(X, "float32"), np.asarray(y, "float32"), **kwargs)
    else:
        model = ns["train_ring_classifier"](np.asarray(X, "float32"), np.asarray(y, "float32"), **kwargs)
    return _np(tf.sigmoid(model(tf.constant(X_val, tf.float32), training=False)))


def ring_predict_run(ns, weights, X, seed=0):
    """build_ring_classifier() with `weights` set: its layers, predict_rings twice, and its logits at inference."""
    tf, _ = _tf()
    _seed(seed)
    model = ns["build_ring_classifier"]()
    model.set_weights([np.asarray(w, "float32") for w in weights])
    x = np.asarray(X, "float32")
    probs = [_np(ns["predict_rings"](model, x)) for _ in range(2)]
    return {
        "layers": [type(layer).__name__ for layer in model.layers],
        "probs": probs,
        "logits": _np(model(tf.constant(x), training=False)),
    }


def ring_train_twice(ns, X, y, X_val, seed, ambient):
    """train_ring_classifier(X, y, seed=seed, epochs=2) once after each global seed of `ambient`: its
    probabilities on X_val at inference each time."""
    tf, keras = _tf()
    out = []
    for a in ambient:
        keras.utils.set_random_seed(int(a))
        model = ns["train_ring_classifier"](np.asarray(X, "float32"), np.asarray(y, "float32"), epochs=2, seed=seed)
        out.append(_np(tf.sigmoid(model(tf.constant(X_val, tf.float32), training=False))))
    return out


def ring_train_gated(ns, X, y, seed):
    """train_ring_classifier(X, y, epochs=1, seed=seed) with build_ring_classifier's net behind a gate that passes
    the logits on only when the model is called with training=True (zeros, and zero gradients, otherwise): the
    weights before and after training, and whether the model returned is the one the (gated) builder made."""
    tf, keras = _tf()

    class TrainingGate(keras.layers.Layer):
        def call(self, x, training=None):
            return x if training else x * 0.0

    built, real = [], ns["build_ring_classifier"]

    def gated():
        model = keras.Sequential([keras.Input((2,)), real(), TrainingGate()])
        built.append((model, [_np(w) for w in model.get_weights()]))
        return model

    ns["build_ring_classifier"] = gated
    try:
        model = ns["train_ring_classifier"](np.asarray(X, "float32"), np.asarray(y, "float32"), epochs=1, seed=seed)
    finally:
        ns["build_ring_classifier"] = real
    if len(built) != 1 or model is not built[0][0]:
        return {"gated": False}
    return {"gated": True, "before": built[0][1], "after": [_np(w) for w in model.get_weights()]}
