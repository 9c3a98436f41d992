"""Plausible student mistakes in 01_tensors; each must lose points on the tests of its exercise."""

MUTANTS = [
    {
        "name": "keeps numpy's float64",
        "exercise": "dtypes",
        "old": "return torch.as_tensor(arr).to(torch.float32)",
        "new": "return torch.as_tensor(arr)",
    },
    {
        "name": "casts to uint8 without rounding (truncates)",
        "exercise": "dtypes",
        "old": "return (img.clamp(0, 1) * 255).round().to(torch.uint8)",
        "new": "return (img.clamp(0, 1) * 255).to(torch.uint8)",
    },
    {
        "name": "assumes 4 bytes per element",
        "exercise": "shapes",
        "old": '"nbytes": t.numel() * t.element_size()',
        "new": '"nbytes": t.numel() * 4',
    },
    {
        "name": "view on a non-contiguous tensor",
        "exercise": "views",
        "old": "return x.reshape(x.shape[0], -1)",
        "new": "return x.view(x.shape[0], -1)",
    },
    {
        "name": "copies even when a view is possible",
        "exercise": "views",
        "old": "return x.reshape(x.shape[0], -1)",
        "new": "return x.clone().reshape(x.shape[0], -1)",
    },
    {
        "name": "numpy copy that still shares memory (no clone)",
        "exercise": "numpy_bridge",
        "old": "return t.detach().clone().numpy()",
        "new": "return t.detach().numpy()",
    },
    {
        "name": "off-by-one crop offset",
        "exercise": "indexing",
        "old": "top, left = (H - size) // 2, (W - size) // 2",
        "new": "top, left = H // 2 - size // 2, W // 2 - size // 2",
    },
    {
        "name": "scatter_ overwrites instead of adding",
        "exercise": "gather_scatter",
        "old": "return out.scatter_add_(0, index, values)",
        "new": "return out.scatter_(0, index, values)",
    },
    {
        "name": "one-hot with a Python loop",
        "exercise": "gather_scatter",
        "old": "    return out.scatter_(1, labels.unsqueeze(1), 1.0)",
        "new": "    for i in range(labels.shape[0]):\n        out[i, labels[i]] = 1.0\n    return out",
    },
    {
        "name": "reshape instead of permute",
        "exercise": "reshape_ops",
        "old": "return x.permute(0, 2, 3, 1)",
        "new": "return x.reshape(x.shape[0], x.shape[2], x.shape[3], x.shape[1])",
    },
    {
        "name": "squeeze() drops the batch dimension of one",
        "exercise": "reshape_ops",
        "old": "return pred.squeeze(-1)",
        "new": "return pred.squeeze()",
    },
    {
        "name": "sum instead of mean",
        "exercise": "reductions",
        "old": "return ((pred - target) ** 2 / 2).mean()",
        "new": "return ((pred - target) ** 2 / 2).sum()",
    },
    {
        "name": "centres each row instead of each column",
        "exercise": "reductions",
        "old": "(X - X.mean(dim=0, keepdim=True))",
        "new": "(X - X.mean(dim=1, keepdim=True))",
    },
    {
        "name": "aligns shapes on the left",
        "exercise": "broadcast_matmul",
        "old": "    a = (1,) * (rank - len(a)) + a\n    b = (1,) * (rank - len(b)) + b",
        "new": "    a = a + (1,) * (rank - len(a))\n    b = b + (1,) * (rank - len(b))",
    },
    {
        "name": "mean instead of sum in the bilinear form",
        "exercise": "broadcast_matmul",
        "old": 'return torch.einsum("nd,de,ne->n", x, W, y)',
        "new": "return (x @ W * y).mean(dim=1)",
    },
    {
        "name": "pairwise distances with a Python loop",
        "exercise": "vectorised",
        "old": "    diff = A[:, None, :] - B[None, :, :]\n    return (diff ** 2).sum(dim=-1).sqrt()",
        "new": "    out = torch.empty(A.shape[0], B.shape[0], dtype=A.dtype, device=A.device)\n"
        "    for i in range(A.shape[0]):\n        out[i] = ((A[i] - B) ** 2).sum(dim=1).sqrt()\n    return out",
    },
    {
        "name": "distances always in float32",
        "exercise": "vectorised",
        "old": "return (diff ** 2).sum(dim=-1).sqrt()",
        "new": "return (diff ** 2).sum(dim=-1).sqrt().float()",
    },
    {
        "name": "nearest neighbour along the wrong dimension",
        "exercise": "vectorised",
        "old": "return pairwise_distances(A, B).argmin(dim=1)",
        "new": "return pairwise_distances(A, B).argmin(dim=0)",
    },
    # device rules, visible on a CPU-only grader through the 'meta' stand-in GPU
    {
        "name": "one_hot creates its zeros on the CPU, not on the labels' device",
        "exercise": "gather_scatter",
        "old": "out = torch.zeros(labels.shape[0], num_classes, dtype=torch.float32, device=labels.device)",
        "new": "out = torch.zeros(labels.shape[0], num_classes, dtype=torch.float32)",
    },
    {
        "name": "scatter_sum creates its zeros on the CPU, not on the values' device",
        "exercise": "gather_scatter",
        "old": "out = torch.zeros(n, dtype=values.dtype, device=values.device)",
        "new": "out = torch.zeros(n, dtype=values.dtype)",
    },
    {
        "name": "add_bias_column creates its ones on the CPU, not on X's device",
        "exercise": "reshape_ops",
        "old": "ones = torch.ones(X.shape[0], 1, dtype=X.dtype, device=X.device)",
        "new": "ones = torch.ones(X.shape[0], 1, dtype=X.dtype)",
    },
    # "no Python loops" is judged by CPU time measured outside the worker: hiding a loop from a watcher inside
    # it (the trace switched off, torch's function modes disabled, code compiled under another file name) or
    # looping over plain Python lists changes nothing
    {
        "name": "pairwise distances looping over the rows, with the tracer switched off",
        "exercise": "vectorised",
        "old": "    diff = A[:, None, :] - B[None, :, :]\n    return (diff ** 2).sum(dim=-1).sqrt()",
        "new": "    import sys\n    sys.settrace(None)\n    with torch._C.DisableTorchFunction():\n"
        "        return torch.stack([((a - B) ** 2).sum(dim=1).sqrt() for a in A])",
    },
    {
        "name": "pairwise distances as a comprehension over plain lists",
        "exercise": "vectorised",
        "old": "    diff = A[:, None, :] - B[None, :, :]\n    return (diff ** 2).sum(dim=-1).sqrt()",
        "new": "    import math\n    rows = B.tolist()\n"
        "    return torch.tensor([[math.dist(a, b) for b in rows] for a in A.tolist()], dtype=A.dtype, device=A.device)",
    },
    {
        "name": "pairwise distances looping over the coordinates, compiled under another file name",
        "exercise": "vectorised",
        "old": "    diff = A[:, None, :] - B[None, :, :]\n    return (diff ** 2).sum(dim=-1).sqrt()",
        "new": "    scope = {'A': A, 'B': B, 'torch': torch}\n"
        "    exec(compile('acc = torch.zeros(A.shape[0], B.shape[0], dtype=A.dtype, device=A.device)\\n'\n"
        "                 'for k in range(A.shape[1]):\\n    acc += (A[:, None, k] - B[None, :, k]) ** 2\\n', 'helpers.py', 'exec'), scope)\n"
        "    return scope['acc'].sqrt()",
    },
    {
        "name": "pick with a comprehension over plain lists",
        "exercise": "gather_scatter",
        "old": "return scores.gather(1, labels.unsqueeze(1)).squeeze(1)",
        "new": "return torch.tensor([row[i] for row, i in zip(scores.tolist(), labels.tolist())], dtype=scores.dtype)",
    },
    {
        "name": "scatter_sum accumulating in a Python loop over plain lists",
        "exercise": "gather_scatter",
        "old": "    out = torch.zeros(n, dtype=values.dtype, device=values.device)\n    return out.scatter_add_(0, index, values)",
        "new": "    out = [0] * n\n    for v, i in zip(values.tolist(), index.tolist()):\n        out[i] += v\n"
        "    return torch.tensor(out, dtype=values.dtype, device=values.device)",
    },
    # edges the exercise text states
    {
        "name": "fill_missing with nan_to_num, which also rewrites +-inf",
        "exercise": "indexing",
        "old": "return torch.where(torch.isnan(x), torch.full_like(x, value), x)",
        "new": "return torch.nan_to_num(x, nan=value)",
    },
    {
        "name": "to_python unwraps every size-1 level ([1, k] becomes a flat list)",
        "exercise": "numpy_bridge",
        "old": "    if t.numel() == 1:\n        return t.item()\n    return t.tolist()",
        "new": "    while t.dim() > 0 and t.shape[0] == 1:\n        t = t[0]\n    return t.item() if t.dim() == 0 else t.tolist()",
    },
]
