"""Probes for 04_fit_api: build tiny nets and data, call the notebook's high-level API, return plain data.

No expected values and no verdicts live here.  The helper modules below (a metric that averages
predictions, a one-parameter "counter" net with a scripted loss, ...) only make the student's code
produce observable, reproducible numbers; the tests decide what those numbers should be.
"""
from __future__ import annotations

import contextlib
import io
import math
import os
import tempfile
from collections import OrderedDict

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from autograder.probe.meta_device import MetaAccelerator


# ---------------------------------------------------------------- helpers (no verdicts)

def _placed(device):
    """On "meta" run under MetaAccelerator: "meta" stands for a second GPU (cuda:1) of a machine with CUDA, so
    a tensor left on the CPU raises there, and code that picks "cuda" itself leaves its tensors off the device."""
    return MetaAccelerator(cuda_available=True) if torch.device(device).type == "meta" else contextlib.nullcontext()


class MeanMetric(nn.Module):
    """A protocol-following metric: the mean of all prediction elements since the last reset."""

    def __init__(self):
        super().__init__()
        self.devices = []  # (preds, targets) devices of every update, across resets
        self.reset()

    def forward(self, preds, targets):
        self.devices.append((str(preds.device), str(targets.device)))
        s, n = float(preds.detach().double().sum()), preds.numel()
        self.total += s
        self.count += n
        return torch.tensor(s / n, dtype=torch.float32)

    def compute(self):
        return torch.tensor(self.total / self.count, dtype=torch.float32)

    def reset(self):
        self.total, self.count = 0.0, 0


class ScriptedScore(nn.Module):
    """A metric whose value is table[round(mean of the last batch's predictions)]."""

    def __init__(self, table):
        super().__init__()
        self.table = [float(v) for v in table]
        self.reset()

    def _lookup(self, value):
        k = min(max(int(round(value)), 0), len(self.table) - 1)
        return torch.tensor(self.table[k], dtype=torch.float32)

    def forward(self, preds, targets):
        self.last = float(preds.detach().double().mean())
        return self._lookup(self.last)

    def compute(self):
        return self._lookup(self.last)

    def reset(self):
        self.last = 0.0


class Counter(nn.Module):
    """One parameter p; the output for every sample is p."""

    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.zeros(()))

    def forward(self, x):
        return self.p + 0.0 * x[:, :1]


class ScriptedLoss(nn.Module):
    """Training batches (targets all 0): loss = -mean(preds), so SGD(lr=1) adds 1 to p per batch.
    Validation batches (targets all 1): loss = table[round(p)]."""

    def __init__(self, table):
        super().__init__()
        self.table = [float(v) for v in table]

    def forward(self, preds, targets):
        if bool((targets == 0).all()):
            return -preds.mean()
        k = min(max(int(round(float(preds.detach().double().mean()))), 0), len(self.table) - 1)
        return 0.0 * preds.mean() + self.table[k]


class Recorder(nn.Module):
    """Wraps a net and records, at every forward, (training mode, grad enabled, batch size)."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.calls = []

    def forward(self, x):
        self.calls.append([bool(self.training), bool(torch.is_grad_enabled()), int(x.shape[0])])
        return self.net(x)


def mlp(state, dropout=0.0):
    """Linear(d, h) - Tanh - [Dropout] - Linear(h, o), loaded with `state` (keys 0.* and 2.*)."""
    d, h = state["0.weight"].shape[1], state["0.weight"].shape[0]
    o = state["2.weight"].shape[0]
    net = nn.Sequential(nn.Linear(d, h), nn.Tanh(), nn.Linear(h, o))
    net.load_state_dict(state)
    if dropout:  # same parameter names (0.*, 2.*), with a dropout layer before the last Linear
        net = nn.Sequential(OrderedDict([("0", net[0]), ("1", net[1]), ("drop", nn.Dropout(dropout)), ("2", net[2])]))
    return net


def _state(net):
    return {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}


def _history(hist):
    out = {"type": type(hist).__name__}
    try:
        out["columns"] = [str(c) for c in hist.columns]
        out["table"] = {str(k): list(v) for k, v in hist.to_dict("list").items()}
    except Exception as exc:  # noqa: BLE001 - not a DataFrame: report what it was
        out["columns"], out["table"] = [], {}
        out["error"] = type(exc).__name__
    return out


def _loader(X, Y, batch_size):
    return DataLoader(TensorDataset(X, Y), batch_size=batch_size, shuffle=False)


def _tmp(name):
    return os.path.join(tempfile.mkdtemp(prefix="fitapi-"), name)


@contextlib.contextmanager
def _captured():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        yield buf


# ---------------------------------------------------------------- metrics

def metric_run(ns, name, batches, reset_before=(), layout="plain", device="cpu", grad=False):
    """Feed `batches` [(preds, targets), ...] to a fresh ns[name](); reset before the listed batch indices."""
    metric = ns[name]()
    forward, computed = [], []
    for i, (preds, targets) in enumerate(batches):
        if i in reset_before:
            metric.reset()
        if layout == "transposed":  # non-contiguous views of the same values
            preds, targets = preds.t(), targets.t()
        preds, targets = preds.to(device), targets.to(device)
        if grad:
            preds = preds.clone().requires_grad_(True) * 1.0
        out = metric(preds, targets)
        forward.append(out.detach().cpu() if isinstance(out, torch.Tensor) else out)
        c = metric.compute()
        computed.append(c.detach().cpu() if isinstance(c, torch.Tensor) else c)
    if not grad:
        return {"forward": forward, "compute": computed}
    # "must not keep the graph of preds alive": no state tensor of the metric may still hang on autograd
    state = [*vars(metric).values(), *metric.buffers()]
    keeps = any(isinstance(v, torch.Tensor) and (v.requires_grad or v.grad_fn is not None) for v in state)
    return {"forward": forward, "compute": computed, "keeps_graph": keeps}


# ---------------------------------------------------------------- run_epoch

def run_epoch_train(ns, state, X, Y, batch_size, lr, momentum=0.0, clip=None, passes=2, device="cpu"):
    """Train an MLP for `passes` calls of run_epoch with SGD; return each call's dict and the final weights."""
    with _placed(device):
        net = mlp(state).to(device)
        opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum)
        metrics = {"pmean": MeanMetric()}
        results = []
        for _ in range(passes):
            results.append(ns["run_epoch"](net, nn.MSELoss(), _loader(X, Y, batch_size), metrics, opt, device, clip))
        return {"results": results, "state": _state(net), "device": str(next(net.parameters()).device),
                "metric_devices": sorted(set(metrics["pmean"].devices))}


def run_epoch_eval(ns, state, X, Y, batch_size, device="cpu", passes=2):
    """Evaluation passes (no optimizer) of a recording MLP with dropout."""
    net = Recorder(mlp(state, dropout=0.5)).to(device)
    net.train()
    metrics = {"pmean": MeanMetric(), "score": MeanMetric()}
    results = [ns["run_epoch"](net, nn.MSELoss(), _loader(X, Y, batch_size), metrics, None, device)
               for _ in range(passes)]
    grads = [p.grad is not None for p in net.parameters()]
    return {"results": results, "state": _state(net.net), "calls": net.calls, "grads": grads}


def run_epoch_batches(ns, weight, bias, batches):
    """Evaluation pass of a fixed nn.Linear over an explicit list of batches of any sizes."""
    net = nn.Linear(weight.shape[1], weight.shape[0])
    with torch.no_grad():
        net.weight.copy_(weight)
        net.bias.copy_(bias)
    return ns["run_epoch"](net, nn.MSELoss(), [tuple(b) for b in batches], None, None, "cpu")


# ---------------------------------------------------------------- early stopping

def early(ns, values, patience, mode="min", container="list"):
    """best_index and should_stop for every prefix of `values` (given as list/tuple/numpy/pandas)."""
    import numpy as np
    import pandas as pd

    convert = {"list": list, "tuple": tuple, "numpy": np.asarray, "series": pd.Series}[container]
    out = []
    for k in range(1, len(values) + 1):
        prefix = convert(list(values[:k]))
        out.append([ns["best_index"](prefix, mode), ns["should_stop"](prefix, patience, mode)])
    return out


def early_bad_mode(ns):
    """What best_index does with an unknown mode: the exception's type name, or 'no error'."""
    try:
        ns["best_index"]([1.0, 2.0], "average")
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__
    return "no error"


# ---------------------------------------------------------------- KerasModel (no fit)

def construct(ns, how, cuda_available=None):
    """Build a KerasModel in one of several ways and report its attributes; with `cuda_available`, as on a
    machine that has CUDA (True) or not (False), whatever this one has."""
    if cuda_available is not None:
        with MetaAccelerator(cuda_available=bool(cuda_available)):
            return construct(ns, how)
    KerasModel = ns["KerasModel"]
    net, loss = nn.Linear(3, 1), nn.MSELoss()
    metrics = {"pmean": MeanMetric()}
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    returned = None
    if how == "init":
        model = KerasModel(net, loss, metrics, opt, sched, device="cpu", clip_grad_norm=0.5)
    elif how == "compile":
        model = KerasModel(net, device="cpu", clip_grad_norm=0.5)
        returned = model.compile(loss, metrics, opt, sched)
    elif how == "defaults":
        model = KerasModel(net, loss)
    else:
        raise ValueError(how)
    mo = model.optimizer
    net_params = list(net.parameters())
    return {
        "net_is_net": model.net is net,
        "loss_is_loss": model.loss_fn is loss,
        "optimizer_type": type(mo).__name__,
        "optimizer_is_given": mo is opt,
        "optimizer_lr": float(mo.param_groups[0]["lr"]),
        "optimizer_on_net": [any(p is q for q in net_params) for g in mo.param_groups for p in g["params"]],
        "scheduler_is_given": model.lr_scheduler is sched,
        "scheduler_is_none": model.lr_scheduler is None,
        "metrics_keys": list(model.metrics_dict),
        "device": model.device,
        "param_device": str(next(net.parameters()).device),
        "clip": model.clip_grad_norm,
        "compile_returns_model": returned is model if how == "compile" else None,
    }


def evaluate(ns, state, X, Y, batch_size, device="cpu"):
    """evaluate() twice on the same data with a dropout MLP; report results and weights before/after."""
    net = Recorder(mlp(state, dropout=0.5))
    model = ns["KerasModel"](net, nn.MSELoss(), {"pmean": MeanMetric(), "amean": MeanMetric()}, device=device)
    before = _state(net.net)
    first = model.evaluate(_loader(X, Y, batch_size))
    second = model.evaluate(_loader(X, Y, batch_size))
    return {"first": first, "second": second, "before": before, "after": _state(net.net), "calls": net.calls}


def predict(ns, state, X, batch_size, form, device="cpu"):
    """predict() of a dropout MLP; `form` picks what a batch looks like."""
    net = mlp(state, dropout=0.5)
    with _placed(device):
        model = ns["KerasModel"](net, nn.MSELoss(), device=device)
        net.train()
        if form == "x_loader":
            data = DataLoader(TensorDataset(X), batch_size=batch_size)
        elif form == "xy_loader":
            data = _loader(X, torch.zeros(len(X), 1), batch_size)
        else:  # a list of plain feature tensors
            data = list(torch.split(X, batch_size))
        out = model.predict(data)
    if isinstance(out, torch.Tensor) and out.is_meta:
        return {"out": {"shape": list(out.shape), "dtype": out.dtype}, "device": "meta"}
    if not isinstance(out, torch.Tensor):
        return {"out": out}
    return {"out": out, "device": str(out.device), "requires_grad": bool(out.requires_grad),
            "net_device": str(next(net.parameters()).device)}


def summary(ns, freeze_first):
    """summary() of a small net (optionally with a frozen first layer); table and printed text."""
    net = nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 2, bias=False))
    if freeze_first:
        for p in net[0].parameters():
            p.requires_grad_(False)
    model = ns["KerasModel"](net, nn.MSELoss(), device="cpu")
    with _captured() as buf:
        table = model.summary()
    out = _history(table)
    out["printed"] = buf.getvalue()
    return out


# ---------------------------------------------------------------- fit

def fit_scripted(ns, table, epochs, patience, mode="min", monitor="val_loss", train_batches=1, score=False,
                 with_val=True, verbose=False, patience_default=False, mean=False):
    """fit() a one-parameter Counter net whose validation loss (and 'score' metric) follow `table`.

    With SGD(lr=1), p grows by one per training batch, so after epoch k (one batch per epoch) p = k and
    the validation loss is table[k]; the optional metrics are a ScriptedScore and a MeanMetric."""
    net = Counter()
    opt = torch.optim.SGD(net.parameters(), lr=1.0)
    metrics = {}
    if score:
        metrics["score"] = ScriptedScore(table)
    if mean:
        metrics["mean"] = MeanMetric()
    model = ns["KerasModel"](net, ScriptedLoss(table), metrics or None, opt, device="cpu")
    train = [(torch.zeros(2, 1), torch.zeros(2, 1))] * train_batches
    val = [(torch.zeros(3, 1), torch.ones(3, 1))] if with_val else None
    ckpt = _tmp("best.pt")
    kwargs = {} if patience_default else {"patience": patience}
    with _captured() as buf:
        hist = model.fit(train, val, epochs=epochs, ckpt_path=ckpt, monitor=monitor, mode=mode,
                         verbose=verbose, **kwargs)
    out = _history(hist)
    out["p"] = float(net.p.detach())
    out["ckpt_p"] = float(torch.load(ckpt, map_location="cpu")["p"]) if os.path.exists(ckpt) else None
    out["stdout"] = buf.getvalue()
    return out


def fit_mlp(ns, state, Xtr, Ytr, Xva, Yva, batch_size, epochs, lr, momentum=0.0, gamma=None,
            clip=None, patience=None, with_val=True, device="cpu", verbose=False, metric=True, optimizer="sgd"):
    """fit() an MLP on given data with SGD (optionally StepLR(1, gamma) and gradient clipping)."""
    net = mlp(state)
    metrics = {"pmean": MeanMetric()} if metric else None
    if optimizer == "sgd":
        opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=gamma) if gamma is not None else None
        model = ns["KerasModel"](net, nn.MSELoss(), metrics, opt, sched, device=device, clip_grad_norm=clip)
    else:  # KerasModel's default optimizer
        model = ns["KerasModel"](net, nn.MSELoss(), metrics, device=device, clip_grad_norm=clip)
    val = _loader(Xva, Yva, batch_size) if with_val else None
    with _captured() as buf:
        hist = model.fit(_loader(Xtr, Ytr, batch_size), val, epochs=epochs, ckpt_path=_tmp("mlp.pt"),
                         patience=patience, verbose=verbose)
    out = _history(hist)
    out["state"] = _state(net)
    out["final_lr"] = float(model.optimizer.param_groups[0]["lr"])
    out["param_device"] = str(next(net.parameters()).device)
    out["stdout"] = buf.getvalue()
    return out


def fit_predict_device(ns, state, X, Y, batch_size, device):
    """fit() then predict() on `device`: where the net and the predictions end up."""
    net = mlp(state)
    with _placed(device):
        model = ns["KerasModel"](net, nn.MSELoss(), None, torch.optim.SGD(net.parameters(), lr=0.05), device=device)
        model.fit(_loader(X, Y, batch_size), _loader(X, Y, batch_size), epochs=2, ckpt_path=_tmp("dev.pt"),
                  verbose=False)
        pred = model.predict(_loader(X, Y, batch_size))
        state_after = _state(net)
    pred_device = str(pred.device) if isinstance(pred, torch.Tensor) else None
    if isinstance(pred, torch.Tensor) and pred.is_meta:
        pred = {"shape": list(pred.shape), "dtype": pred.dtype}
    return {"param_device": str(next(net.parameters()).device), "model_device": model.device,
            "pred": pred, "pred_device": pred_device, "state": state_after}


def resume(ns, state, other_state, Xtr, Ytr, Xva, Yva, batch_size, epochs1, epochs2, lr):
    """Train A with a checkpoint; load it into B (a net with other weights) and continue training B."""
    ckpt = _tmp("resume.pt")
    net_a = mlp(state)
    a = ns["KerasModel"](net_a, nn.MSELoss(), None, torch.optim.SGD(net_a.parameters(), lr=lr), device="cpu")
    a.fit(_loader(Xtr, Ytr, batch_size), _loader(Xva, Yva, batch_size), epochs=epochs1, ckpt_path=ckpt,
          patience=None, verbose=False)
    net_b = mlp(other_state)
    b = ns["KerasModel"](net_b, nn.MSELoss(), None, torch.optim.SGD(net_b.parameters(), lr=lr), device="cpu")
    b.load_ckpt(ckpt)
    loaded = _state(net_b)
    hist = b.fit(_loader(Xtr, Ytr, batch_size), _loader(Xva, Yva, batch_size), epochs=epochs2,
                 ckpt_path=_tmp("resume2.pt"), patience=None, verbose=False)
    out = _history(hist)
    out.update({"a_state": _state(net_a), "b_loaded": loaded, "b_final": _state(net_b)})
    return out


# ---------------------------------------------------------------- plot_history

def plot(ns, columns, metric):
    """plot_history on a DataFrame built from `columns`; report the figure's axes and lines."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import pandas as pd

    fig = ns["plot_history"](pd.DataFrame(columns), metric)
    kind = f"{type(fig).__module__}.{type(fig).__name__}"
    axes = []
    for ax in getattr(fig, "axes", []):
        axes.append({
            "lines": [{"label": str(line.get_label()),
                       "x": [float(v) for v in line.get_xdata()],
                       "y": [float(v) for v in line.get_ydata()]} for line in ax.get_lines()],
            "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(), "legend": ax.get_legend() is not None,
        })
    try:
        plt.close(fig)
    except Exception:  # noqa: BLE001
        pass
    return {"type": kind, "axes": axes}


# ---------------------------------------------------------------- the book's tasks

def linreg_data(g, n):
    """n points of the book's linear regression: X uniform on [-5, 5)^2, y = 2 x1 - 3 x2 + 10 + N(0, 2)."""
    X = 10 * torch.rand(n, 2, generator=g) - 5.0
    return X, X @ torch.tensor([[2.0], [-3.0]]) + 10.0 + torch.normal(0.0, 2.0, size=(n, 1), generator=g)


def ring_data(g, n):
    """n points of each of the book's two rings: radius 5 + N(0, 1) (label 1) and 8 + N(0, 1) (label 0)."""
    r = torch.cat([5.0 + torch.randn(n, 1, generator=g), 8.0 + torch.randn(n, 1, generator=g)])
    theta = 2 * math.pi * torch.rand(2 * n, 1, generator=g)
    return torch.cat([r * torch.cos(theta), r * torch.sin(theta)], dim=1), torch.cat([torch.ones(n, 1), torch.zeros(n, 1)])


def book_task(ns, function, Xtr, Ytr, Xva, Yva, batch_size, X):
    """Call the notebook's `function(train_data, val_data)` on loaders of the given data, as the notebook's own
    (shuffled training batches of `batch_size`, validation batches twice as large); report what it returned:
    the model's type, net structure, weights, loss, metrics, history, and the net's outputs (logits) on X."""
    train = DataLoader(TensorDataset(Xtr, Ytr), batch_size=batch_size, shuffle=True,
                       generator=torch.Generator().manual_seed(0))
    with _captured():  # fit's epoch lines
        returned = ns[function](train, _loader(Xva, Yva, 2 * batch_size))
    if not (isinstance(returned, tuple) and len(returned) == 2):
        return {"returned": type(returned).__name__}
    model, hist = returned
    net = model.net
    with torch.no_grad():
        was_training = net.training
        net.eval()
        device = next(net.parameters()).device
        outputs = net(X.to(device)).detach().cpu()
        net.train(was_training)
    out = _history(hist)
    out.update({
        "returned": "pair",
        "model_type": type(model).__name__,
        "modules": [type(m).__name__ for m in (net if isinstance(net, nn.Sequential) else [net])],
        "shapes": {k: list(v.shape) for k, v in net.state_dict().items()},
        "state": _state(net),
        "loss_type": type(model.loss_fn).__name__,
        "metric_types": {k: type(v).__name__ for k, v in (model.metrics_dict or {}).items()},
        "outputs": outputs,
    })
    return out
