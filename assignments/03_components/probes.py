"""Probes for 03_components: build the student's components, run them, return plain data (no verdicts).

The trusted side sends tensors, numbers and strings; each probe builds the student's module /
optimizer / loader itself, runs it, and returns outputs, gradients, state dicts, optimizer state and
class names.  The tests compare them with the real `torch.nn` / `torch.optim` components (run on the
trusted side) or with the reference notebook.  Arguments arrive contiguous; `_layout` makes a
non-contiguous input when a test asks for one.
"""
from __future__ import annotations

import math

import torch
from torch.utils.data import TensorDataset


def _layout(x: torch.Tensor, layout: str) -> torch.Tensor:
    """'c': as is; 't': the same values stored transposed (non-contiguous)."""
    if layout == "t" and x.dim() >= 2:
        return x.transpose(-1, -2).contiguous().transpose(-1, -2)
    return x


def _classes(obj) -> list:
    return [f"{c.__module__}.{c.__qualname__}" for c in type(obj).__mro__]


def _state_dict(module) -> dict:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


# ---------------------------------------------------------------- running_norm

def running_norm_run(ns, num_features, weight, bias, batches, modes, upstreams, device="cpu"):
    """Feed `batches` through RunningNorm in the given modes ('train'/'eval'); backward with `upstreams`."""
    m = ns["RunningNorm"](num_features)
    m = m.to(device=device, dtype=weight.dtype)
    with torch.no_grad():
        m.weight.copy_(weight.to(device))
        m.bias.copy_(bias.to(device))
    steps = []
    for x, mode, up in zip(batches, modes, upstreams):
        m.train(mode == "train")
        x = x.to(device).requires_grad_(True)
        m.zero_grad()
        y = m(x)
        (y * up.to(device)).sum().backward()
        steps.append({
            "out": y.detach(),
            "x_grad": x.grad,
            "weight_grad": m.weight.grad.detach().clone() if m.weight.grad is not None else None,
            "bias_grad": m.bias.grad.detach().clone() if m.bias.grad is not None else None,
            "state": _state_dict(m),
        })
    return {
        "steps": steps,
        "parameters": [name for name, _ in m.named_parameters()],
        "buffers": [name for name, _ in m.named_buffers()],
        "training": [bool(mod.training) for mod in [m.train()]] + [bool(mod.training) for mod in [m.eval()]],
    }


def running_norm_fresh(ns, num_features):
    """A fresh RunningNorm: its state dict and the names of its parameters and buffers."""
    m = ns["RunningNorm"](num_features)
    return {
        "state": _state_dict(m),
        "parameters": [name for name, _ in m.named_parameters()],
        "buffers": [name for name, _ in m.named_buffers()],
        "requires_grad": {name: bool(p.requires_grad) for name, p in m.named_parameters()},
    }


# ---------------------------------------------------------------- module_tools

def _tool_net(kind: str, sizes):
    a, b, c = sizes
    if kind == "seq":
        return torch.nn.Sequential(torch.nn.Linear(a, b), torch.nn.ReLU(), torch.nn.Linear(b, c, bias=False))
    enc = torch.nn.Module()
    enc.fc1 = torch.nn.Linear(a, b)
    enc.norm = torch.nn.BatchNorm1d(b)
    net = torch.nn.Module()
    net.encoder = enc
    net.head = torch.nn.Linear(b, c)
    net.forward = lambda x: net.head(torch.relu(enc.norm(enc.fc1(x))))
    return net


def module_tools_run(ns, kind, sizes, prefixes, x, target):
    """count_parameters before/after freeze, a training step, and a snapshot/restore round trip."""
    torch.manual_seed(0)
    net = _tool_net(kind, sizes)
    out = {"count_all": ns["count_parameters"](net), "count_trainable": ns["count_parameters"](net, trainable_only=True)}
    out["frozen"] = ns["freeze"](net, list(prefixes))
    out["requires_grad"] = {name: bool(p.requires_grad) for name, p in net.named_parameters()}
    out["count_all_after"] = ns["count_parameters"](net)
    out["count_trainable_after"] = ns["count_parameters"](net, trainable_only=True)
    params_before = {name: id(p) for name, p in net.named_parameters()}
    original = _state_dict(net)
    snap = ns["snapshot"](net)
    out["snapshot"] = {k: v for k, v in snap.items()} if isinstance(snap, dict) else snap
    opt = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        loss = ((net(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
    out["snapshot_after_training"] = {k: v.detach().clone() for k, v in snap.items()} if isinstance(snap, dict) else snap
    out["grads"] = {name: (p.grad.detach().clone() if p.grad is not None else None) for name, p in net.named_parameters()}
    ns["restore"](net, snap)
    out["restored"] = _state_dict(net)
    out["same_objects"] = [id(p) == params_before[name] for name, p in net.named_parameters()]
    out["original"] = original
    return out


# ---------------------------------------------------------------- linear

def linear_init(ns, in_features, out_features, bias, seed):
    """Parameters of Linear(in, out, bias) created right after torch.manual_seed(seed)."""
    torch.manual_seed(seed)
    m = ns["Linear"](in_features, out_features, bias=bias)
    return {
        "names": [name for name, _ in m.named_parameters()],
        "weight": m.weight.detach().clone(),
        "bias": None if m.bias is None else m.bias.detach().clone(),
        "is_param": [type(p) is torch.nn.Parameter for p in m.parameters()],
    }


def linear_run(ns, weight, bias, x, upstream, layout="c", device="cpu"):
    """Linear with the given weight/bias: output and gradients for the upstream gradient."""
    out_f, in_f = weight.shape
    m = ns["Linear"](in_f, out_f, bias=bias is not None)
    m = m.to(device=device, dtype=weight.dtype)
    with torch.no_grad():
        m.weight.copy_(weight.to(device))
        if bias is not None:
            m.bias.copy_(bias.to(device))
    xd = _layout(x, layout).to(device).requires_grad_(True)
    y = m(xd)
    (y * upstream.to(device)).sum().backward()
    return {
        "out": y.detach(),
        "x_grad": xd.grad,
        "weight_grad": m.weight.grad,
        # with bias=False a bias the student registered anyway shows up here
        "bias_grad": m.bias.grad if isinstance(getattr(m, "bias", None), torch.Tensor) else None,
        "device": str(y.device),
    }


def relu_run(ns, x, upstream, device="cpu"):
    """ReLU forward/backward, the parameter count, and the torch functions it called."""
    from torch.overrides import TorchFunctionMode

    called = []

    class Record(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            called.append(getattr(func, "__name__", str(func)))
            return func(*args, **(kwargs or {}))

    m = ns["ReLU"]()
    xd = x.to(device).requires_grad_(True)
    with Record():
        y = m(xd)
    (y * upstream.to(device)).sum().backward()
    return {"out": y.detach(), "x_grad": xd.grad, "n_params": len(list(m.parameters())), "called": called}


def sequential_run(ns, sizes, state, x, upstream, dtype_name="float64"):
    """Sequential(Linear, ReLU, Linear, ...) loaded with `state`: names, output, gradients by name."""
    dtype = getattr(torch, dtype_name)
    layers = []
    for i in range(len(sizes) - 1):
        if i:
            layers.append(ns["ReLU"]())
        layers.append(ns["Linear"](sizes[i], sizes[i + 1]))
    model = ns["Sequential"](*layers).to(dtype)
    names = [name for name, _ in model.named_parameters()]
    children = [name for name, _ in model.named_children()]
    model.load_state_dict(state)
    xd = x.clone().requires_grad_(True)
    y = model(xd)
    (y * upstream).sum().backward()
    return {
        "names": names,
        "children": children,
        "out": y.detach(),
        "x_grad": xd.grad,
        "grads": {name: p.grad for name, p in model.named_parameters()},
        "classes": _classes(model),
    }


# ---------------------------------------------------------------- losses

def loss_run(ns, name, a, b, reduction, device="cpu"):
    """A loss (mse_loss / bce_with_logits): value and gradients w.r.t. both inputs."""
    ad = a.to(device).requires_grad_(True)
    bd = b.to(device).requires_grad_(True)
    value = ns[name](ad, bd, reduction=reduction)
    value.sum().backward() if value.dim() else value.backward()
    return {"value": value.detach(), "grad_a": ad.grad, "grad_b": bd.grad}


def loss_run_upstream(ns, name, a, b, upstream, device="cpu"):
    """reduction='none' with a non-trivial upstream gradient."""
    ad = a.to(device).requires_grad_(True)
    bd = b.to(device).requires_grad_(True)
    value = ns[name](ad, bd, reduction="none")
    (value * upstream.to(device)).sum().backward()
    return {"value": value.detach(), "grad_a": ad.grad, "grad_b": bd.grad}


# ---------------------------------------------------------------- devices

def on_device(ns, component, shape, dtype_name, bias=True, device="meta"):
    """`component` ('running_norm', 'linear', 'relu', 'mse_loss', 'bce_with_logits') run forward and
    backward on `device`; on 'meta', a stand-in GPU, a tensor left on or made on the CPU raises as on a
    GPU.  Returns devices, shapes, dtypes and values (none on meta) of outputs, gradients and state."""
    from autograder.probe.meta_device import MetaAccelerator, describe

    dtype = getattr(torch, dtype_name)
    x = torch.randn(shape, dtype=dtype).to(device).requires_grad_(True)
    with MetaAccelerator():
        if component in ("mse_loss", "bce_with_logits"):
            target = torch.rand(shape, dtype=dtype).to(device)
            out, module = ns[component](x, target, reduction="none"), None
        else:
            module = {"running_norm": lambda: ns["RunningNorm"](shape[-1]),
                      "linear": lambda: ns["Linear"](shape[-1], 3, bias=bias),
                      "relu": lambda: ns["ReLU"]()}[component]()
            module = module.to(device=device, dtype=dtype)
            out = module(x)
            if component == "running_norm":
                module.eval()  # the running statistics are used now: buffers left on the CPU raise
                out = out + module(x)
        out.sum().backward()
        state = {} if module is None else {k: describe(v) for k, v in module.state_dict().items()}
        grads = {} if module is None else {k: describe(p.grad) for k, p in module.named_parameters()}
    return {"out": describe(out), "x_grad": describe(x.grad), "state": state, "grads": grads}


# ---------------------------------------------------------------- optimizers

def optimizer_run(ns, name, inits, groups, defaults, grads, device="cpu", access_state_each_step=False):
    """Step the student's optimizer `name` on copies of `inits` with the given per-step gradients.

    groups: list of {"idx": [parameter indices], <hyper-parameter overrides>}; grads: per step, one
    tensor or None per parameter.  Returns parameters and optimizer state after every step.
    """
    params = [t.to(device).clone().requires_grad_(True) for t in inits]
    param_groups = [dict({k: v for k, v in g.items() if k != "idx"}, params=[params[i] for i in g["idx"]]) for g in groups]
    opt = ns[name](param_groups, **defaults)
    history = []
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = None if g is None else g.to(device).clone()
        opt.step()
        history.append({
            "params": [p.detach().clone() for p in params],
            "state": [{k: (v.detach().clone() if isinstance(v, torch.Tensor) else v) for k, v in opt.state[p].items()}
                      if p in opt.state else {} for p in params],
        })
    return {
        "history": history,
        "classes": _classes(opt),
        "is_optimizer": isinstance(opt, torch.optim.Optimizer),
        "defines_step": "step" in type(opt).__dict__,
        "groups": [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups],
    }


def optimizer_on_meta(ns, name, shapes, dtype_name, defaults, n_steps=3):
    """The student's optimizer `name` stepped `n_steps` times on parameters and gradients on "meta", a stand-in
    GPU (a tensor left on or made on the CPU raises there as on a GPU): devices, shapes and dtypes of the
    parameters and of every tensor of the optimizer's state."""
    from autograder.probe.meta_device import MetaAccelerator, describe

    dtype = getattr(torch, dtype_name)
    params = [torch.zeros(s, dtype=dtype, device="meta").requires_grad_(True) for s in shapes]
    with MetaAccelerator():
        opt = ns[name](params, **defaults)
        for _ in range(n_steps):
            for p in params:
                p.grad = torch.zeros_like(p)
            opt.step()
    return {"params": [describe(p.detach()) for p in params],
            "state": [{k: describe(v) for k, v in opt.state[p].items() if isinstance(v, torch.Tensor)}
                      if p in opt.state else {} for p in params]}


def optimizer_closure(ns, name, init, target, steps, defaults):
    """Minimise ||p - target||^2 with a closure; returns the closure's losses and the final parameter."""
    p = init.clone().requires_grad_(True)
    opt = ns[name]([p], **defaults)
    losses = []

    def closure():
        opt.zero_grad()
        loss = ((p - target) ** 2).sum()
        loss.backward()
        return loss

    for _ in range(steps):
        out = opt.step(closure)
        losses.append(out.detach().clone() if isinstance(out, torch.Tensor) else out)
    return {"losses": losses, "param": p.detach().clone()}


def torch_optimizer_run(ns, name, inits, groups, defaults, grads):
    """torch.optim's own `name` stepped as `optimizer_run` steps the student's: its history, what the hidden tests
    compare the student's with.  Asked of the reference (the master's worker, which runs no student code), where
    torch's optimizers are ready: a judge's first one imported torch._dynamo, 2.2 s of its CPU."""
    return optimizer_run({name: getattr(torch.optim, name)}, name, inits, groups, defaults, grads)["history"]


def torch_optimizer_closure(ns, name, init, target, steps, defaults):
    """torch.optim's own `name` through `optimizer_closure`: its losses and final parameter."""
    return optimizer_closure({name: getattr(torch.optim, name)}, name, init, target, steps, defaults)


# ---------------------------------------------------------------- data

def ring_dataset_run(ns, n_pos, n_neg, seed, indices):
    ds = ns["RingDataset"](n_pos, n_neg, seed=seed)
    items = [ds[i] for i in indices]
    return {
        "len": len(ds),
        "X": ds.X,
        "Y": ds.Y,
        "items": [list(item) if isinstance(item, (tuple, list)) else item for item in items],
        "is_dataset": isinstance(ds, torch.utils.data.Dataset),
    }


def collate_run(ns, xs, ys):
    batch = [(x, y) for x, y in zip(xs, ys)]
    return ns["collate_rings"](batch)


def loaders_run(ns, X, Y, val_fraction, batch_size, seed, epochs=2):
    """Batches of make_loaders' loaders: twice with the same seed under different global seeds, once with seed+1."""
    ds = TensorDataset(X, Y)

    def collect(s, global_seed):
        torch.manual_seed(global_seed)
        train, val = ns["make_loaders"](ds, val_fraction=val_fraction, batch_size=batch_size, seed=s)
        return {"train": [[b for b in train] for _ in range(epochs)], "val": [b for b in val],
                "train_len": len(train.dataset), "val_len": len(val.dataset)}

    return {"a": collect(seed, 11), "b": collect(seed, 12), "c": collect(seed + 1, 11)}


# ---------------------------------------------------------------- book tasks

def linreg_data(g, n, w_true=(2.0, -3.0), b_true=10.0):
    """n points of the book's linear regression: X uniform on [-5, 5)^2, y = X @ w_true + b_true + N(0, 2)."""
    X = 10 * torch.rand(n, 2, generator=g) - 5.0
    y = X @ torch.tensor([[w_true[0]], [w_true[1]]]) + b_true + 2.0 * torch.randn(n, 1, generator=g)
    return X, y


def rings(n_pos, n_neg, g):
    """The book's two rings: n_pos points of radius 5 + N(0, 1) (label 1), then n_neg of radius 8 + N(0, 1)."""
    r_p = 5.0 + torch.randn(n_pos, 1, generator=g)
    t_p = 2 * math.pi * torch.rand(n_pos, 1, generator=g)
    r_n = 8.0 + torch.randn(n_neg, 1, generator=g)
    t_n = 2 * math.pi * torch.rand(n_neg, 1, generator=g)
    X = torch.cat([torch.cat([r_p * torch.cos(t_p), r_p * torch.sin(t_p)], 1),
                   torch.cat([r_n * torch.cos(t_n), r_n * torch.sin(t_n)], 1)])
    Y = torch.cat([torch.ones(n_pos, 1), torch.zeros(n_neg, 1)])
    return X, Y


def linear_regression_run(ns, X, y, kwargs):
    model = ns["train_linear_regression"](X, y, **kwargs)
    return {
        "classes": _classes(model),
        "weight": model.weight.detach().clone(),
        "bias": model.bias.detach().clone(),
    }


def ring_classifier_fit(ns, X, Y, X_val, kwargs):
    model = ns["train_ring_classifier"](X, Y, **kwargs)
    with torch.no_grad():
        logits = model(X_val)
    pred = model.predict(X_val)
    return {
        "classes": _classes(model),
        "logits": logits.detach().clone(),
        "pred": pred.detach().clone() if isinstance(pred, torch.Tensor) else pred,
        "training": bool(model.training),
    }


def ring_classifier_structure(ns):
    model = ns["RingClassifier"]()
    return {
        "params": {name: tuple(p.shape) for name, p in model.named_parameters()},
        "loss_class": _classes(model.loss_fn)[0],
        "optimizer_class": _classes(model.optimizer)[0],
        "lr": float(model.optimizer.param_groups[0]["lr"]),
        "n_opt_params": sum(len(g["params"]) for g in model.optimizer.param_groups),
    }


def ring_optimizer_state(ns, x, y, n_steps, weights=None):
    """Adam's state across `n_steps` train_step calls: object identity, step counts, losses.

    `weights` (one tensor per parameter, in order) makes the losses comparable with the reference."""
    model = ns["RingClassifier"]()
    params = list(model.parameters())
    if weights is not None and [tuple(p.shape) for p in params] == [tuple(w.shape) for w in weights]:
        with torch.no_grad():
            for p, w in zip(params, weights):
                p.copy_(w)
    seen = [model.optimizer, model.optimizer]  # kept alive, so that ids are not recycled
    losses = []
    for _ in range(n_steps):
        losses.append(ns["train_step"](model, x, y))
        seen.append(model.optimizer)
    ids = [id(o) for o in seen]
    opt = model.optimizer
    steps = []
    for p in model.parameters():
        s = opt.state.get(p, {}).get("step") if hasattr(opt.state, "get") else None
        steps.append(float(s) if s is not None else None)
    return {"n_distinct_optimizers": len(set(ids)), "steps": steps, "losses": losses,
            "loss_types": [type(v).__name__ for v in losses]}
