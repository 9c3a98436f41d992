"""Probes for 02_autograd: call the student's functions and return plain data (no verdicts).

Functions handed to student code (f in `grad_at(f, x)` etc.) are picked by name from the tables
below, so the trusted side only ever sends strings and tensors.  Call counts and the names of the
torch functions the student's code ran (recorded with a TorchFunctionMode) come back as data.
Arguments arrive contiguous; a probe makes a tensor non-contiguous itself when asked (`layout`), or
moves it to "meta", a stand-in GPU that makes a tensor left on the CPU raise (`autograder.probe.meta_device`).
"""
from __future__ import annotations

import contextlib
import math

import torch
from torch.overrides import TorchFunctionMode

from autograder.probe.meta_device import MetaAccelerator, describe

# ---------------------------------------------------------------- functions given to student code

SCALAR_FUNCS = {
    "square_sum": lambda x: (x ** 2).sum(),
    "poly": lambda x: (x ** 3 - 2 * x).sum(),
    "logsumexp": lambda x: torch.logsumexp(x.reshape(-1), 0),
    "sin_mean": lambda x: (torch.sin(x) * x ** 2).mean(),
    "norm": lambda x: x.pow(2).sum().add(1.0).sqrt(),
}

TENSOR_FUNCS = {
    "square": lambda x: x ** 2,
    "sin_x": lambda x: torch.sin(x) * x,
    "cumsum": lambda x: torch.cumsum(x, dim=-1) * x,
    "softmax": lambda x: torch.softmax(x, dim=-1),
    "gram": lambda x: x.reshape(x.shape[0], -1) @ x.reshape(x.shape[0], -1).T,
}

ELEMENTWISE = {
    "cube": lambda x: x ** 3,
    "sin_x": lambda x: torch.sin(x) * x,
    "gauss": lambda x: torch.exp(-x ** 2),
    "tanh": torch.tanh,
    "log1p_sq": lambda x: torch.log1p(x ** 2),
}

PAIR_FUNCS = {
    "prod_square": lambda a, b: ((a * b).sum(), (a ** 2).sum()),
    "mixed": lambda a, b: ((torch.sin(a) * b).sum(), (a * b ** 2).mean()),
    "only_b": lambda a, b: ((b ** 3).sum(), (torch.exp(a) * b).sum()),
}


def _layout(x: torch.Tensor, layout: str) -> torch.Tensor:
    """'c': as is; 't': transpose the last two dims (non-contiguous); 's': every other column."""
    if layout == "t":
        return x.transpose(-1, -2)
    if layout == "s":
        return x[..., ::2]
    return x


def _counted(fn):
    calls = [0]

    def wrapped(*args):
        calls[0] += 1
        return fn(*args)

    return wrapped, calls


class _Recorder(TorchFunctionMode):
    """Records the name of every torch function / Tensor method called while active."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(str(getattr(func, "__name__", func)))
        return func(*args, **(kwargs or {}))


def _maybe(t):
    return None if t is None else t


def _on(device):
    """On "meta" (a stand-in GPU: a tensor left on the CPU raises there) run under MetaAccelerator."""
    return MetaAccelerator() if torch.device(device).type == "meta" else contextlib.nullcontext()


# ---------------------------------------------------------------- 1 backward

def _gradient_call(ns, fname, f, x, extra, layout, stale_grad):
    """ns[fname](f, x, *extra) on a laid-out x (with stale_grad: one that requires grad and has an old .grad),
    with what it left of x and how often it called f and backward."""
    x = _layout(x, layout)
    if stale_grad:
        x.requires_grad_(True)
        x.grad = torch.full_like(x, 100.0)
    before = x.detach().clone()
    f, calls = _counted(f)
    with _Recorder() as rec:
        g = ns[fname](f, x, *extra)
    return {"grad": g, "calls": calls[0], "x": x.detach().clone(), "x_before": before, "x_grad": _maybe(x.grad),
            "backward_calls": rec.names.count("backward")}


def grad_at(ns, x, name, layout="c", stale_grad=False):
    return _gradient_call(ns, "grad_at", SCALAR_FUNCS[name], x, (), layout, stale_grad)


def vjp(ns, x, v, name, layout="c", stale_grad=False):
    return _gradient_call(ns, "vjp", TENSOR_FUNCS[name], x, (v,), layout, stale_grad)


# ---------------------------------------------------------------- 2 higher order

def derivatives(ns, x, name, layout="c"):
    x = _layout(x, layout)
    out = ns["derivatives"](ELEMENTWISE[name], x)
    if type(out) in (list, tuple):
        return tuple(out)
    return out


# ---------------------------------------------------------------- 3 several inputs / outputs

def multi_grads(ns, a, b, name):
    f, calls = _counted(PAIR_FUNCS[name])
    out = ns["multi_grads"](f, a, b)
    return {"result": out, "calls": calls[0]}


# ---------------------------------------------------------------- 4 leaf / retain_grad / hooks

def inspect_graph(ns, x, w, b):
    out = ns["inspect_graph"](x, w, b)
    return out


def scaled_grads(ns, x, w, b, scale):
    out = ns["scaled_grads"](x, w, b, scale)
    return tuple(out) if type(out) in (list, tuple) else out


# ---------------------------------------------------------------- 5 detach / no_grad / retain_graph

def straight_through(ns, x, v, layout="c"):
    x = _layout(x, layout).detach().requires_grad_(True)
    y = ns["straight_through_round"](x)
    rg = bool(getattr(y, "requires_grad", False))
    if rg:
        y.backward(v)
    return {"y": y.detach() if isinstance(y, torch.Tensor) else y, "requires_grad": rg, "grad": _maybe(x.grad)}


def predict(ns, w, x, device="cpu"):
    """On "meta" (a stand-in GPU) the result's shape, dtype and device instead of its values."""
    w = w.to(device).detach().requires_grad_(True)
    with _on(device):
        out = ns["predict"](w, x.to(device))
    rg = bool(getattr(out, "requires_grad", False))
    if device == "meta":
        return {"out": describe(out), "requires_grad": rg}
    return {"out": out.detach() if isinstance(out, torch.Tensor) else out, "requires_grad": rg}


def backward_twice(ns, x, name):
    f, calls = _counted(SCALAR_FUNCS[name])
    g = ns["backward_twice"](f, x)
    return {"grad": g, "calls": calls[0]}


def _burn(seconds_of_work: int) -> None:
    """A fixed amount of pure-Python work (about 0.05 s per unit on a 2020s CPU)."""
    n = 0
    for i in range(seconds_of_work * 1_000_000):
        n ^= i


def _costly(name, work):
    """SCALAR_FUNCS[name] doing `work` units of fixed work each time it is called."""
    base = SCALAR_FUNCS[name]

    def f(t):
        _burn(work)
        return base(t)

    return f


def backward_twice_costly(ns, x, name, work):
    """backward_twice with an f that costs `work` units of fixed work per call (its CPU time is read by the
    grader from outside the worker: `student.cost`)."""
    return ns["backward_twice"](_costly(name, work), x)


def costly_once(ns, x, name, work):
    """One call of that f, and its backward, without student code: what one evaluation of f costs in this
    worker now (the grader measures it from outside, next to the student's call)."""
    x = x.detach().clone().requires_grad_(True)
    _costly(name, work)(x).backward()
    return x.grad


# ---------------------------------------------------------------- 6 custom Function

def sigmoid_on(ns, x, v, device):
    """MySigmoid's output and gradient on `device`: on "meta" (a stand-in GPU) their shape, dtype and device."""
    xd = x.to(device).requires_grad_(True)
    with _on(device):
        y = ns["MySigmoid"].apply(xd)
        (grad,) = torch.autograd.grad(y, xd, v.to(device))
    return {"y": describe(y), "grad": describe(grad)}


def sigmoid_apply(ns, x, v, layout="c"):
    """Forward and backward of MySigmoid, with the torch calls each phase made."""
    cls = ns["MySigmoid"]
    is_function = isinstance(cls, type) and issubclass(cls, torch.autograd.Function)
    x = _layout(x, layout).detach().requires_grad_(True)
    rec_f = _Recorder()
    with rec_f:
        y = cls.apply(x)
    node = y.grad_fn
    try:
        saved = len(node.saved_tensors)
    except Exception:  # noqa: BLE001 - no saved tensors, or not a custom node
        saved = -1
    (grad,) = torch.autograd.grad(y, x, v, retain_graph=True)
    rec_b = _Recorder()
    try:
        with rec_b:
            node.apply(v)
    except Exception:  # noqa: BLE001 - the gradient above already tells right from wrong
        pass
    return {"y": y.detach(), "grad": grad, "is_function": is_function, "saved": saved,
            "forward_calls": sorted(set(rec_f.names)), "backward_calls": sorted(set(rec_b.names))}


def my_sigmoid(ns, x):
    return ns["my_sigmoid"](x).detach()


def sigmoid_finite_diff(ns, x, v, eps):
    """Autograd gradient of sum(v * MySigmoid(x)) and its central-difference estimate (float64)."""
    apply = ns["MySigmoid"].apply
    xl = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad((apply(xl) * v).sum(), xl)
    numeric = torch.empty_like(x)
    flat_x, flat_n = x.reshape(-1), numeric.view(-1)
    with torch.no_grad():
        for i in range(flat_x.numel()):
            xp, xm = flat_x.clone(), flat_x.clone()
            xp[i] += eps
            xm[i] -= eps
            fp = (apply(xp.view_as(x)) * v).sum()
            fm = (apply(xm.view_as(x)) * v).sum()
            flat_n[i] = (fp - fm) / (2 * eps)
    return {"analytic": analytic, "numeric": numeric}


# ---------------------------------------------------------------- 7 minimize

def minimize(ns, x0, lr, steps, optimizer="sgd"):
    return ns["minimize_quadratic"](x0, lr, steps, optimizer)


# ---------------------------------------------------------------- 8 linear regression

def linreg_loss(ns, y_pred, y_true):
    y_pred = y_pred.detach().requires_grad_(True)
    loss = ns["linreg_loss"](y_pred, y_true)
    (g,) = torch.autograd.grad(loss, y_pred)
    return {"loss": loss.detach(), "grad": g}


def linreg_steps(ns, X, Y, w, b, lr, n_steps=2):
    w = w.detach().clone().requires_grad_(True)
    b = b.detach().clone().requires_grad_(True)
    losses = [ns["linreg_step"](X, Y, w, b, lr) for _ in range(n_steps)]
    return {"losses": losses, "w": w.detach().clone(), "b": b.detach().clone(),
            "w_grad": _maybe(w.grad), "b_grad": _maybe(b.grad),
            "is_leaf": [w.is_leaf, b.is_leaf], "requires_grad": [w.requires_grad, b.requires_grad]}


def linreg_fit(ns, X, Y, w, b, lr, epochs, batch_size, gen_seed):
    w = w.detach().clone().requires_grad_(True)
    b = b.detach().clone().requires_grad_(True)
    g = torch.Generator().manual_seed(gen_seed)
    hist = ns["fit_linreg"](X, Y, w, b, lr, epochs, batch_size, g)
    return {"history": list(hist) if isinstance(hist, (list, tuple)) else hist,
            "w": w.detach().clone(), "b": b.detach().clone()}


# ---------------------------------------------------------------- 9 BCE

def bce(ns, y_pred, y_true, eps=None):
    y_pred = y_pred.detach().requires_grad_(True)
    rec = _Recorder()
    with rec:
        loss = ns["bce_loss"](y_pred, y_true) if eps is None else ns["bce_loss"](y_pred, y_true, eps)
    (g,) = torch.autograd.grad(loss, y_pred, allow_unused=True)
    return {"loss": loss.detach(), "grad": g, "calls": sorted(set(rec.names))}


# ---------------------------------------------------------------- 10 DNN

def dnn_structure(ns):
    model = ns["DNNModel"]()
    return {
        "is_module": isinstance(model, torch.nn.Module),
        "params": [[n, list(p.shape), str(p.dtype).removeprefix("torch."), type(p).__name__]
                   for n, p in model.named_parameters()],
        "submodules": [n for n, _ in model.named_modules() if n],
        "state_keys": list(model.state_dict()),
    }


def _load(ns, state, dtype):
    model = ns["DNNModel"]()
    model.to(dtype)
    model.load_state_dict(state)
    return model


def dnn_forward(ns, state, X, v):
    model = _load(ns, state, X.dtype)
    y = model(X)
    (y * v).sum().backward()
    return {"y": y.detach(), "grads": {n: _maybe(p.grad) for n, p in model.named_parameters()}}


def dnn_steps(ns, state, X, Y, lr, n_steps=2):
    model = _load(ns, state, X.dtype)
    losses = [ns["dnn_train_step"](model, X, Y, lr) for _ in range(n_steps)]
    return {"losses": losses,
            "state": {n: p.detach().clone() for n, p in model.named_parameters()},
            "grads": {n: _maybe(p.grad) for n, p in model.named_parameters()},
            "leaf": [p.is_leaf and p.requires_grad for p in model.parameters()]}


def dnn_fit(ns, state, X, Y, lr, epochs, batch_size, gen_seed):
    model = _load(ns, state, X.dtype)
    g = torch.Generator().manual_seed(gen_seed)
    hist = ns["fit_dnn"](model, X, Y, lr, epochs, batch_size, g)
    with torch.no_grad():
        pred = model(X)
    return {"history": list(hist) if isinstance(hist, (list, tuple)) else hist,
            "state": {n: p.detach().clone() for n, p in model.named_parameters()},
            "pred": pred}


# ---------------------------------------------------------------- data (used by the tests to build inputs)

def make_linreg_data(n=400, seed=0, dtype=torch.float32):
    """The book's regression data: X ~ U[-5, 5)^2, y = X @ (2, -3) + 10 + N(0, 2)."""
    g = torch.Generator().manual_seed(seed)
    X = 10 * torch.rand(n, 2, generator=g, dtype=dtype) - 5.0
    w0 = torch.tensor([[2.0], [-3.0]], dtype=dtype)
    b0 = torch.tensor([[10.0]], dtype=dtype)
    Y = X @ w0 + b0 + torch.normal(0.0, 2.0, size=(n, 1), generator=g, dtype=dtype)
    return X, Y


def make_rings(n_pos=2000, n_neg=2000, seed=0, dtype=torch.float32):
    """The book's two rings: inner r = 5 + N(0,1) label 1, outer r = 8 + N(0,1) label 0."""
    g = torch.Generator().manual_seed(seed)
    r_p = 5.0 + torch.normal(0.0, 1.0, size=(n_pos, 1), generator=g, dtype=dtype)
    t_p = 2 * math.pi * torch.rand(n_pos, 1, generator=g, dtype=dtype)
    r_n = 8.0 + torch.normal(0.0, 1.0, size=(n_neg, 1), generator=g, dtype=dtype)
    t_n = 2 * math.pi * torch.rand(n_neg, 1, generator=g, dtype=dtype)
    Xp = torch.cat([r_p * torch.cos(t_p), r_p * torch.sin(t_p)], dim=1)
    Xn = torch.cat([r_n * torch.cos(t_n), r_n * torch.sin(t_n)], dim=1)
    X = torch.cat([Xp, Xn], dim=0)
    Y = torch.cat([torch.ones(n_pos, 1, dtype=dtype), torch.zeros(n_neg, 1, dtype=dtype)], dim=0)
    return X, Y
