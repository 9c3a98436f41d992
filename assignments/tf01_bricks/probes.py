"""Probes for tf01_bricks: call the student's TensorFlow code and return plain data (no verdicts).

The trusted side imports this module to name the probes but never runs one, so TensorFlow is imported only
inside the probes (`_tf()`), in the worker.  Inputs arrive as torch tensors, numpy arrays or Python values and
become TensorFlow tensors here; results go back as TensorFlow values (the trusted side reads them as
`autograder.execute.wire.TFTensor`, without TensorFlow), with the facts a test needs (a variable's identity,
a trace count) as Python values beside them.

Functions handed to student code (`f` in `value_and_grad(f, x)`) are picked by name from the tables below, and
optimizers are built here from a name and a learning rate: the trusted side only sends strings and numbers.
A trace count or a call count read here comes from the student's process, which can change it: tests use
such facts only as advice, or as the *what* of a call whose values the trusted side compares (the number of
times the student's own `traces` list grew is the answer of `make_traced`, not evidence of how it was built).
"""
from __future__ import annotations

import time

import numpy as np
import torch

tf = None  # tensorflow, imported by the first probe that runs (in the worker only)


def _tf():
    global tf
    if tf is None:
        import tensorflow

        tf = tensorflow
    return tf


# ---------------------------------------------------------------- functions given to student code

SCALAR_FUNCS = {
    "square_sum": lambda x: tf.reduce_sum(x ** 2),
    "poly": lambda x: tf.reduce_sum(x ** 3 - 2.0 * x),
    "logsumexp": lambda x: tf.reduce_logsumexp(tf.reshape(x, [-1])),
    "sin_mean": lambda x: tf.reduce_mean(tf.sin(x) * x ** 2),
    "norm": lambda x: tf.sqrt(tf.reduce_sum(x ** 2) + 1.0),
}

ELEMENTWISE = {
    "cube": lambda x: x ** 3,
    "sin_x": lambda x: tf.sin(x) * x,
    "gauss": lambda x: tf.exp(-x ** 2),
    "tanh": lambda x: tf.tanh(x),
    "log1p_sq": lambda x: tf.math.log1p(x ** 2),
}

TRACED_FUNCS = {
    "double": lambda x: x * 2,
    "square": lambda x: x * x,
    "plus_one": lambda x: x + 1,
}

DNN_SHAPES = {"w1": [2, 4], "b1": [1, 4], "w2": [4, 8], "b2": [1, 8], "w3": [8, 1], "b3": [1, 1]}  # DNNModel's variables
DNN_NAMES = list(DNN_SHAPES)


def _counted(fn):
    calls = [0]

    def wrapped(*args):
        calls[0] += 1
        return fn(*args)

    return wrapped, calls


def _in(x, dtype: str | None = None):
    """A value from the trusted side as a TensorFlow tensor: of `dtype` (a TF dtype name) when given, else a torch
    tensor's or numpy array's own dtype, and TensorFlow's defaults for Python lists (float32, int32)."""
    _tf()
    a = x.numpy() if isinstance(x, torch.Tensor) else x
    return tf.constant(a) if dtype is None else tf.constant(a, dtype=getattr(tf, dtype))


def tf_value(values, dtype: str = "float32", kind: str = "Tensor"):
    """An expected TensorFlow value as the trusted side receives one (`wire.TFTensor`), from nested lists:
    for public tests, which compute what they expect themselves (no TensorFlow on the trusted side)."""
    from autograder.execute.wire import TFTensor

    t = torch.tensor(values, dtype=getattr(torch, dtype))
    return TFTensor(kind, dtype, tuple(t.shape), "", t, trainable=True if kind == "Variable" else None)


def _optimizer(name: str, lr: float):
    import keras

    return {"sgd": keras.optimizers.SGD, "adam": keras.optimizers.Adam}[name](learning_rate=lr)


def _paced_optimizer(name: str, lr: float):
    """An optimizer whose apply_gradients, each time its *Python* body runs, sets the learning rate to lr / (that
    count): inside a tf.function the body runs once per trace, eagerly once per step.  A fit through one
    tf.function traced once per fit trains as the reference's; eager steps, or a new tf.function each epoch,
    train with other learning rates: values the trusted side compares, whatever the worker says of itself."""
    import keras

    base = {"sgd": keras.optimizers.SGD, "adam": keras.optimizers.Adam}[name]

    class Paced(base):
        def apply_gradients(self, grads_and_vars, *args, **kwargs):
            self._python_runs = getattr(self, "_python_runs", 0) + 1
            self.learning_rate = lr / self._python_runs
            return super().apply_gradients(grads_and_vars, *args, **kwargs)

    return Paced(learning_rate=lr)


# ---------------------------------------------------------------- 1 tensors

def scale_in_place(ns, x, factor):
    x = _in(x)
    v = tf.Variable(x)
    out = ns["scale_in_place"](v, factor)
    return {"same": out is v, "value": v}


def running_sum(ns, x0, xs):
    x0 = _in(x0)
    v = tf.Variable(x0)
    out = ns["running_sum"](v, [_in(x) for x in xs])
    snaps = list(out) if type(out) in (list, tuple) else out
    return {"snapshots": snaps, "final": v}


def int_mean(ns, x, dtype):
    return ns["int_mean"](_in(x, dtype))


# ---------------------------------------------------------------- 2 broadcasting

def center_columns(ns, x):
    return ns["center_columns"](_in(x))


def pairwise_sq_dists(ns, a, b):
    return ns["pairwise_sq_dists"](_in(a), _in(b))


# ---------------------------------------------------------------- 3 tape

def value_and_grad(ns, x, name):
    x = _in(x)
    f, calls = _counted(SCALAR_FUNCS[name])
    out = ns["value_and_grad"](f, x)
    return {"result": tuple(out) if type(out) in (list, tuple) else out, "calls": calls[0]}


def two_grads(ns, x, f_name, g_name):
    _tf()
    f, f_calls = _counted(SCALAR_FUNCS[f_name])
    g, g_calls = _counted(SCALAR_FUNCS[g_name])
    out = ns["two_grads"](f, g, _in(x))
    return {"result": tuple(out) if type(out) in (list, tuple) else out, "calls": [f_calls[0], g_calls[0]]}


def two_grads_linked(ns, x):
    """two_grads with a pair whose link only one tape sees: f (x -> sum(k * x**2) on its k-th call) keeps its
    intermediate x**2, and g (x -> sum(x**2 * x)) reuses it.  Under one tape, recording both, dg/dx = 3 x**2; a tape
    of its own for g, which did not record f, sees x**2 as a constant (dg/dx = x**2); a second call of f changes
    its value.  The gradients are compared with the reference's."""
    _tf()
    kept, calls = {}, [0]

    def f(x):
        calls[0] += 1
        kept["sq"] = x ** 2
        return tf.reduce_sum(calls[0] * kept["sq"])

    def g(x):
        return tf.reduce_sum(kept.get("sq", x ** 2) * x)

    out = ns["two_grads"](f, g, _in(x))
    return tuple(out) if type(out) in (list, tuple) else out


# ---------------------------------------------------------------- 4 higher order, 5 stop_gradient

def derivatives(ns, x, name):
    _tf()
    out = ns["derivatives"](ELEMENTWISE[name], _in(x))
    return tuple(out) if type(out) in (list, tuple) else out


def straight_through(ns, x, v):
    """The value of straight_through_round(x) and the gradient of sum(v * it) with respect to x."""
    x, v = _in(x), _in(v)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = ns["straight_through_round"](x)
        loss = tf.reduce_sum(y * v) if isinstance(y, tf.Tensor) else None
    grad = tape.gradient(loss, x) if loss is not None else None
    return {"y": y, "grad": grad}


# ---------------------------------------------------------------- 6 tracing

def _arg(spec):
    """("tensor", values, dtype) -> a tensor; ("float", v) / ("int", v) -> that Python number."""
    kind = spec[0]
    if kind == "tensor":
        return _in(spec[1], spec[2])
    return float(spec[1]) if kind == "float" else int(spec[1])


def traced(ns, name, calls):
    """Call make_traced's function with each argument in turn: its outputs, and len(traces) after each call."""
    _tf()
    g, traces = ns["make_traced"](TRACED_FUNCS[name])
    outputs, counts = [], []
    for spec in calls:
        outputs.append(g(_arg(spec)))
        counts.append(len(traces))
    return {"outputs": outputs, "traces": counts}


def call_counter(ns, xs):
    """A fresh CallCounter called on each x (tensors of several shapes): its outputs and `calls` after each call."""
    _tf()
    c = ns["CallCounter"]()
    outputs, calls = [], []
    for x in xs:
        outputs.append(c(_in(x)))
        calls.append(tf.convert_to_tensor(c.calls))  # a snapshot: the variable changes on
    return {"outputs": outputs, "calls": calls, "is_variable": isinstance(c.calls, tf.Variable)}


# ---------------------------------------------------------------- 7 signature

def signature_values(ns, xs, ps):
    """standardize(x) for each x; power_mean(x, p) with p as a tensor and as a Python float; the trace counts
    (read here, in the student's process: advice only)."""
    _tf()
    std, pm = ns["make_standardize"](), ns["make_power_mean"]()
    out = {"standardize": [std(_in(x, "float32")) for x in xs],
           "power_mean": [pm(tf.abs(_in(x, "float32")) + 0.5, p if i % 2 else tf.constant(p, tf.float32))
                          for i, (x, p) in enumerate(zip(xs, ps))]}
    out["tracing_counts"] = [_count(std), _count(pm)]
    return out


def _count(fn) -> int | None:
    get = getattr(fn, "experimental_get_tracing_count", None)
    return get() if callable(get) else None


def signature_warm(ns):
    """A first function of each kind made and called, so that the costed call below pays none of what the
    first tf.function traced in a process costs (TensorFlow's one-time set-up, a few tenths of a second)."""
    _tf()
    ns["make_standardize"]()(tf.constant([1.0, 2.0, 4.0]))
    ns["make_power_mean"]()(tf.constant([1.0, 2.0, 4.0]), 2.0)
    return None


def signature_many(ns, name, n, seed):
    """A fresh `name` ("standardize" or "power_mean", from its make_ function) called n times with what makes a
    function without an input_signature trace again each time: vectors of n new lengths, or n new Python-float
    exponents.  The results, and the CPU seconds spent here (only the reference's is believed; a student's cost is read by
    the grader from outside the worker: `student.cost`)."""
    _tf()
    rng = np.random.default_rng(seed)
    fn = ns[f"make_{name}"]()
    if name == "standardize":
        calls = [(tf.constant(rng.normal(size=k).astype(np.float32)),) for k in range(7, 7 + n)]
    else:
        x = tf.constant(rng.uniform(0.5, 3.0, size=9).astype(np.float32))
        calls = [(x, float(p)) for p in 0.5 + np.arange(n) * 0.05 + np.round(rng.uniform(0, 0.01), 4)]
    fn(*calls[0])  # a first trace (the reference's own, or a student's first with an input_signature) is not timed
    t0 = time.process_time()
    out = [fn(*args) for args in calls[1:]]
    return {"values": out, "cpu": time.process_time() - t0}


# ---------------------------------------------------------------- 8 autograph

def prefix_sum(ns, xs):
    """A fresh prefix_sum (make_prefix_sum()) called directly, and through one concrete function traced for
    float32 vectors of unknown length (one graph for every input), plus what that graph holds (advice only)."""
    _tf()
    fn = ns["make_prefix_sum"]()
    direct = [(fn(_in(x, "float32"))) for x in xs]
    cf = fn.get_concrete_function(tf.TensorSpec([None], tf.float32))
    graph = [(cf(_in(x, "float32"))) for x in xs]
    ops = sorted({op.type for op in cf.graph.get_operations()})
    return {"direct": direct, "graph": graph, "loop_ops": [o for o in ops if "While" in o]}


# ---------------------------------------------------------------- 9 linear regression

def make_linreg_data(n, seed):
    """The notebook's make_linreg_data (a copy, so tests do not depend on the student's)."""
    _tf()
    X = tf.random.stateless_uniform([n, 2], seed=[seed, 1], minval=-10.0, maxval=10.0)
    Y = X @ tf.constant([[2.0], [-3.0]]) + tf.constant([[3.0]]) + tf.random.stateless_normal([n, 1], seed=[seed, 2], stddev=2.0)
    return X, Y


def linreg_loss(ns, y_pred, y_true):
    return ns["linreg_loss"](_in(y_pred), _in(y_true))


def linreg_steps(ns, X, Y, w, b, opt, lr, steps, graph=False):
    """`steps` calls of linreg_train_step on the same batch (eagerly, or through tf.function when `graph`)."""
    _tf()
    X, Y = _in(X, "float32"), _in(Y, "float32")
    wv, bv = tf.Variable(_in(w, "float32")), tf.Variable(_in(b, "float32"))
    optimizer = _optimizer(opt, lr)
    step = tf.function(ns["linreg_train_step"]) if graph else ns["linreg_train_step"]
    losses = [(step(X, Y, wv, bv, optimizer)) for _ in range(steps)]
    return {"losses": losses, "w": wv.read_value(), "b": bv.read_value()}


def linreg_fit(ns, data, w, b, opt, lr, epochs, batch_size, seed, paced=False):
    """fit_linreg on the data make_linreg_data(*data) from the given start: the history and the variables
    (with `paced`, through `_paced_optimizer`, which trains as the reference's only when traced once per fit)."""
    _tf()
    X, Y = make_linreg_data(*data)
    wv, bv = tf.Variable(_in(w, "float32")), tf.Variable(_in(b, "float32"))
    hist = ns["fit_linreg"](X, Y, wv, bv, (_paced_optimizer if paced else _optimizer)(opt, lr), epochs, batch_size, seed)
    return {"history": list(hist) if type(hist) in (list, tuple) else hist, "w": wv.read_value(), "b": bv.read_value()}


# ---------------------------------------------------------------- 10 the two-ring DNN

def make_rings(n_pos, n_neg, seed):
    """The notebook's make_rings (a copy, so tests do not depend on the student's)."""
    _tf()
    import math

    r_p = 5.0 + tf.random.stateless_normal([n_pos, 1], seed=[seed, 1])
    t_p = tf.random.stateless_uniform([n_pos, 1], seed=[seed, 2], maxval=2 * math.pi)
    r_n = 8.0 + tf.random.stateless_normal([n_neg, 1], seed=[seed, 3])
    t_n = tf.random.stateless_uniform([n_neg, 1], seed=[seed, 4], maxval=2 * math.pi)
    Xp = tf.concat([r_p * tf.cos(t_p), r_p * tf.sin(t_p)], axis=1)
    Xn = tf.concat([r_n * tf.cos(t_n), r_n * tf.sin(t_n)], axis=1)
    return tf.concat([Xp, Xn], axis=0), tf.concat([tf.ones([n_pos, 1]), tf.zeros([n_neg, 1])], axis=0)


def _model(ns, state):
    """A DNNModel with its six variables set to `state` (name -> values), in place."""
    _tf()
    model = ns["DNNModel"]()
    for name in DNN_NAMES:
        getattr(model, name).assign(_in(state[name], "float32"))
    return model


def _state(model):
    return {name: getattr(model, name).read_value() for name in DNN_NAMES}


def dnn_structure(ns):
    _tf()
    model = ns["DNNModel"]()
    params = []
    for name in DNN_NAMES:
        v = getattr(model, name, None)
        params.append([name, list(v.shape), v.dtype.name, isinstance(v, tf.Variable)] if v is not None else [name, None])
    return {"is_module": isinstance(model, tf.Module), "params": params,
            "n_trainable": len(model.trainable_variables),
            "traced_call": hasattr(type(model).__call__, "get_concrete_function")}


def dnn_forward(ns, state, X, v):
    """The model's predictions on X and the gradients of sum(v * predictions) for the six variables."""
    model = _model(ns, state)
    X, v = _in(X, "float32"), _in(v, "float32")
    variables = [getattr(model, n) for n in DNN_NAMES]
    with tf.GradientTape() as tape:
        y = model(X)
        loss = tf.reduce_sum(y * v)
    grads = tape.gradient(loss, variables)
    return {"y": y, "grads": {n: g for n, g in zip(DNN_NAMES, grads)}}


def bce(ns, y_pred, y_true):
    return ns["bce_loss"](_in(y_pred, "float32"), _in(y_true, "float32"))


def dnn_steps(ns, state, data, opt, lr, steps):
    """`steps` calls of dnn_train_step on the rings make_rings(*data): the losses and the variables after."""
    model = _model(ns, state)
    X, Y = make_rings(*data)
    optimizer = _optimizer(opt, lr)
    losses = [(ns["dnn_train_step"](model, X, Y, optimizer)) for _ in range(steps)]
    return {"losses": losses, "state": _state(model)}


def dnn_fit(ns, state, data, opt, lr, epochs, batch_size, seed, eval_data=None, paced=False):
    """fit_dnn from `state` on make_rings(*data): the history, the variables, and the predictions on
    make_rings(*eval_data) (its labels are n_pos ones then n_neg zeros: the trusted side scores them); `paced`
    as in linreg_fit."""
    model = _model(ns, state)
    X, Y = make_rings(*data)
    hist = ns["fit_dnn"](model, X, Y, (_paced_optimizer if paced else _optimizer)(opt, lr), epochs, batch_size, seed)
    out = {"history": list(hist) if type(hist) in (list, tuple) else hist, "state": _state(model)}
    if eval_data is not None:
        out["pred"] = (model(make_rings(*eval_data)[0]))
    return out


def dnn_init(ns, seed, n_models):
    """The initial variables of n_models fresh DNNModels made after tf.random.set_seed(seed), name -> the values of
    all models stacked: the trusted side tests their distribution (truncated normal weights, zero biases)."""
    _tf()
    tf.random.set_seed(int(seed))
    models = [ns["DNNModel"]() for _ in range(n_models)]
    return {name: np.stack([np.asarray(getattr(m, name).numpy()) for m in models]) for name in DNN_NAMES}
