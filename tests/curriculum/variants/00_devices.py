"""Plausible student mistakes for 00_devices; each must lose points on the tests of its exercise."""

MUTANTS = [
    {
        "name": "pick_device ignores a CUDA preference on a machine without CUDA (no fallback)",
        "exercise": "pick_device",
        "old": '    if device.type == "cuda" and not torch.cuda.is_available():\n        return torch.device("cpu")\n',
        "new": "",
    },
    {
        "name": "pick_device returns a string instead of a torch.device",
        "exercise": "pick_device",
        "old": 'return torch.device("cuda" if torch.cuda.is_available() else "cpu")',
        "new": 'return "cuda" if torch.cuda.is_available() else "cpu"',
    },
    {
        "name": "to_device turns tuples into lists",
        "exercise": "to_device",
        "old": "return type(obj)(to_device(item, device) for item in obj)",
        "new": "return [to_device(item, device) for item in obj]",
    },
    {
        "name": "to_device forgets models (only tensors move)",
        "exercise": "to_device",
        "old": "if isinstance(obj, (torch.Tensor, nn.Module)):",
        "new": "if isinstance(obj, torch.Tensor):",
    },
    {
        "name": "to_device hard-codes the GPU: .cuda() when available, else leaves data where it is",
        "exercise": "to_device",
        "old": "        return obj.to(device)\n    if isinstance(obj, dict):",
        "new": "        return obj.cuda() if torch.cuda.is_available() else obj\n    if isinstance(obj, dict):",
    },
    {
        "name": "add_bias_column creates the ones with defaults (float32, CPU)",
        "exercise": "add_bias_column",
        "old": "ones = X.new_ones(*X.shape[:-1], 1)",
        "new": "ones = torch.ones(*X.shape[:-1], 1)",
    },
    {
        "name": "add_bias_column keeps the dtype but forgets the device",
        "exercise": "add_bias_column",
        "old": "ones = X.new_ones(*X.shape[:-1], 1)",
        "new": "ones = torch.ones(*X.shape[:-1], 1, dtype=X.dtype)",
    },
    {
        "name": "predict forgets model.eval() (dropout stays on)",
        "exercise": "predict",
        "old": "    model.eval()\n",
        "new": "",
    },
    {
        "name": "predict keeps autograd on",
        "exercise": "predict",
        "old": "    with torch.no_grad():\n        for X, _ in batches:\n            outputs.append(model(X.to(device)).cpu())",
        "new": "    for X, _ in batches:\n        outputs.append(model(X.to(device)).cpu())",
    },
    {
        "name": "time_it stops the clock without synchronising (measures only the kernel launches)",
        "exercise": "timing",
        "old": "    if on_cuda:\n        torch.cuda.synchronize(device)    # the timed kernels are really done\n",
        "new": "",
    },
    {
        "name": "time_it skips the warm-up call",
        "exercise": "timing",
        "old": "    fn()                                  # warm-up, not timed\n",
        "new": "",
    },
    {
        "name": "time_it returns the total time instead of the average per call",
        "exercise": "timing",
        "old": "return (time.perf_counter() - start) / repeats",
        "new": "return time.perf_counter() - start",
    },
    {
        "name": "time_matmul makes its matrices on the CPU whatever the device",
        "exercise": "timing",
        "old": "    A = torch.randn(n, n, device=device)\n    B = torch.randn(n, n, device=device)",
        "new": "    A = torch.randn(n, n)\n    B = torch.randn(n, n)",
    },
    {
        "name": "train_full_batch copies the book's hard-coded X.cuda(), y.cuda()",
        "exercise": "linear_regression",
        "old": "    X, y = X.to(device), y.to(device)",
        "new": "    X, y = X.cuda(), y.cuda()",
    },
    {
        "name": "train_full_batch stores loss tensors instead of Python floats",
        "exercise": "linear_regression",
        "old": "history.append(loss.item())",
        "new": "history.append(loss)",
    },
    {
        "name": "train_full_batch never zeroes the gradients",
        "exercise": "linear_regression",
        "old": "        optimizer.zero_grad()\n        loss = loss_fn(model(X), y)",
        "new": "        loss = loss_fn(model(X), y)",
    },
    {
        "name": "train_full_batch ignores its lr argument",
        "exercise": "linear_regression",
        "old": "    optimizer = torch.optim.Adam(model.parameters(), lr=lr)",
        "new": "    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)",
    },
    # device bugs that a CPU-only grader sees only through the 'meta' stand-in GPU
    {
        "name": "predict never moves the model to the device",
        "exercise": "predict",
        "old": "    model.to(device)\n    model.eval()\n",
        "new": "    model.eval()\n",
    },
    {
        "name": "predict never moves the batches to the device",
        "exercise": "predict",
        "old": "outputs.append(model(X.to(device)).cpu())",
        "new": "outputs.append(model(X).cpu())",
    },
    {
        "name": "predict leaves its outputs on the device",
        "exercise": "predict",
        "old": "outputs.append(model(X.to(device)).cpu())",
        "new": "outputs.append(model(X.to(device)))",
    },
    {
        "name": "predict moves the model with .cuda() when available instead of .to(device)",
        "exercise": "predict",
        "old": "    model.to(device)\n    model.eval()\n",
        "new": "    if torch.cuda.is_available():\n        model.cuda()\n    model.eval()\n",
    },
    {
        "name": "train_full_batch calls X.to(device) without assigning the result",
        "exercise": "linear_regression",
        "old": "    X, y = X.to(device), y.to(device)",
        "new": "    X.to(device)\n    y.to(device)",
    },
    {
        "name": "train_full_batch never moves the model",
        "exercise": "linear_regression",
        "old": "    model.to(device)\n    X, y = X.to(device), y.to(device)",
        "new": "    X, y = X.to(device), y.to(device)",
    },
    # .cuda() in place of .to(device): wrong for any device but the first GPU ('meta' stands for cuda:1, with CUDA
    # reported available); the points come from where the tensors end up, not from counting .cuda() calls
    {
        "name": "to_device uses .cuda() whenever CUDA is available (wrong for cuda:1)",
        "exercise": "to_device",
        "old": "    if isinstance(obj, (torch.Tensor, nn.Module)):\n        return obj.to(device)",
        "new": "    if isinstance(obj, (torch.Tensor, nn.Module)):\n        return obj.cuda() if torch.cuda.is_available() else obj.to(device)",
    },
    {
        "name": "train_full_batch moves model and data with .cuda() whenever CUDA is available",
        "exercise": "linear_regression",
        "old": "    model.to(device)\n    X, y = X.to(device), y.to(device)",
        "new": "    if torch.cuda.is_available():\n        model.cuda()\n        X, y = X.cuda(), y.cuda()\n"
        "    else:\n        model.to(device)\n        X, y = X.to(device), y.to(device)",
    },
]
