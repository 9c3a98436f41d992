"""Plausible student mistakes for 02_autograd; each must lose points on its exercise's tests."""

MUTANTS = [
    {
        "name": "vjp ignores the gradient argument (sums the output instead)",
        "exercise": "backward",
        "old": "    y.backward(gradient=v)\n",
        "new": "    y.sum().backward()\n",
    },
    {
        "name": "grad_at differentiates the caller's tensor in place (old .grad leaks in)",
        "exercise": "backward",
        "old": "    x = x.detach().clone().requires_grad_(True)\n    y = f(x)\n    y.backward()\n",
        "new": "    x.requires_grad_(True)\n    y = f(x)\n    y.backward()\n",
    },
    {
        "name": "first derivative taken without create_graph",
        "exercise": "higher_order",
        "old": "(dy,) = torch.autograd.grad(y.sum(), x, create_graph=True)",
        "new": "(dy,) = torch.autograd.grad(y.sum(), x, retain_graph=True)",
    },
    {
        "name": "unused input left as None instead of zeros",
        "exercise": "several_io",
        "old": "gw = torch.autograd.grad(w, [a, b], retain_graph=True, materialize_grads=True)",
        "new": "gw = torch.autograd.grad(w, [a, b], retain_graph=True, allow_unused=True)",
    },
    {
        "name": "no retain_grad on the intermediate z",
        "exercise": "leaf_hooks",
        "old": "    z.retain_grad()\n",
        "new": "",
    },
    {
        "name": "scaling hook registered on w instead of z",
        "exercise": "leaf_hooks",
        "old": "z.register_hook(lambda g: g * scale)",
        "new": "w.register_hook(lambda g: g * scale)",
    },
    {
        "name": "straight-through estimator without the detach trick",
        "exercise": "detach_retain",
        "old": "    return x + (torch.round(x) - x).detach()\n",
        "new": "    return torch.round(x)\n",
    },
    {
        "name": "backward_twice re-runs the forward instead of retaining the graph",
        "exercise": "detach_retain",
        "old": "    y.backward(retain_graph=True)\n    y.backward()\n",
        "new": "    y.backward()\n    f(x).backward()\n",
    },
    {
        "name": "custom backward forgets to multiply by grad_output",
        "exercise": "custom_function",
        "old": "        return grad_output * y * (1.0 - y)\n",
        "new": "        return y * (1.0 - y)\n",
    },
    {
        "name": "custom backward in the overflow-prone exp form",
        "exercise": "custom_function",
        "old": "        (y,) = ctx.saved_tensors\n        return grad_output * y * (1.0 - y)\n",
        "new": "        (y,) = ctx.saved_tensors\n        e = 1.0 / y - 1.0\n        return grad_output * e / (1.0 + e) ** 2\n",
    },
    {"name": "optimizer.zero_grad() forgotten", "exercise": "minimize", "old": "        opt.zero_grad()\n", "new": ""},
    {
        "name": "linear-regression loss summed instead of averaged",
        "exercise": "linreg",
        "old": "    return torch.mean((y_pred - y_true) ** 2 / 2)\n",
        "new": "    return torch.sum((y_pred - y_true) ** 2 / 2)\n",
    },
    {
        "name": "linreg_step never zeroes the gradients (accumulation across steps)",
        "exercise": "linreg",
        "old": "        w.grad.zero_()\n        b.grad.zero_()\n",
        "new": "",
    },
    {
        "name": "linreg_step updates outside no_grad by rebinding (w = w - lr * grad)",
        "exercise": "linreg",
        "old": "    with torch.no_grad():\n        w -= lr * w.grad\n        b -= lr * b.grad\n        w.grad.zero_()\n        b.grad.zero_()\n",
        "new": "    w = w - lr * w.grad\n    b = b - lr * b.grad\n",
    },
    {
        "name": "BCE without clamping",
        "exercise": "bce",
        "old": "    p = torch.clamp(y_pred, eps, 1.0 - eps)\n",
        "new": "    p = y_pred\n",
    },
    {
        "name": "the book's bug: loss called with labels and predictions swapped",
        "exercise": "dnn",
        "old": "    loss = bce_loss(model(X), Y)\n",
        "new": "    loss = bce_loss(Y, model(X))\n",
    },
    {
        "name": "forward forces float32 (breaks float64 models)",
        "exercise": "dnn",
        "old": "        x = torch.relu(x @ self.w1 + self.b1)\n",
        "new": "        x = torch.relu(x.float() @ self.w1.float() + self.b1.float())\n",
    },
    {
        "name": "dnn_train_step never zeroes the gradients",
        "exercise": "dnn",
        "old": "    model.zero_grad()\n",
        "new": "",
    },
    # points for how come only from evidence outside the worker: calling f twice shows in the CPU time the
    # grader measures, whatever the notebook does to the call counter
    {
        "name": "backward_twice re-runs the forward and puts the probe's call counter back",
        "exercise": "detach_retain",
        "old": "    y.backward(retain_graph=True)\n    y.backward()\n",
        "new": "    y.backward()\n    f(x).backward()\n"
        "    for cell in getattr(f, '__closure__', None) or ():\n"
        "        if type(cell.cell_contents) is list and cell.cell_contents and type(cell.cell_contents[0]) is int:\n"
        "            cell.cell_contents[0] = 1\n",
    },
    # device rules, visible on a CPU-only grader through the 'meta' stand-in GPU
    {
        "name": "sigmoid backward builds its ones on the CPU",
        "exercise": "custom_function",
        "old": "        return grad_output * y * (1.0 - y)\n",
        "new": "        return grad_output * y * (torch.ones(y.shape, dtype=y.dtype) - y)\n",
    },
    {
        "name": "predict with the weights on the CPU",
        "exercise": "detach_retain",
        "old": "    with torch.no_grad():\n        return x @ w\n",
        "new": "    with torch.no_grad():\n        return x @ w.cpu()\n",
    },
]
