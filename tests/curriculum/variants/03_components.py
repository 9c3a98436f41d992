"""Plausible student mistakes for 03_components; each must lose points on its exercise's tests."""

MUTANTS = [
    {
        "name": "running_var updated with the biased batch variance",
        "exercise": "running_norm",
        "old": "self.running_var.mul_(1 - m).add_(m * var * n / (n - 1))",
        "new": "self.running_var.mul_(1 - m).add_(m * var)",
    },
    {
        "name": "running_mean kept as a plain attribute instead of a buffer",
        "exercise": "running_norm",
        "old": 'self.register_buffer("running_mean", torch.zeros(num_features))',
        "new": "self.running_mean = torch.zeros(num_features)",
    },
    {
        "name": "running statistics kept as plain tensors (stay on the CPU after .to(device)), state_dict still right",
        "exercise": "running_norm",
        "old": 'self.register_buffer("running_mean", torch.zeros(num_features))\n        self.register_buffer("running_var", torch.ones(num_features))',
        "new": 'self.running_mean = torch.zeros(num_features)\n        self.running_var = torch.ones(num_features)\n'
        '        self._register_state_dict_hook(lambda mod, sd, prefix, _: sd.update({prefix + "running_mean": mod.running_mean,'
        ' prefix + "running_var": mod.running_var}))',
    },
    {
        "name": "RunningNorm's eps made as a tensor on the CPU in forward",
        "exercise": "running_norm",
        "old": "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias",
        "new": "return (x - mean) / torch.sqrt(var + torch.full((self.num_features,), self.eps)) * self.weight + self.bias",
    },
    {
        "name": "Linear without bias adds zeros made on the CPU in forward",
        "exercise": "linear",
        "old": "        if self.bias is not None:\n            y = y + self.bias\n        return y",
        "new": "        y = y + (self.bias if self.bias is not None else torch.zeros(self.out_features, dtype=x.dtype))\n        return y",
    },
    {
        "name": "ReLU's zeros made on the CPU (torch.zeros(x.shape))",
        "exercise": "linear",
        "old": "return torch.where(x > 0, x, torch.zeros_like(x))",
        "new": "return torch.where(x > 0, x, torch.zeros(x.shape, dtype=x.dtype))",
    },
    {
        "name": "bce_with_logits' clamp as a maximum with zeros made on the CPU",
        "exercise": "losses",
        "old": "    loss = z.clamp(min=0) - z * target",
        "new": "    loss = torch.maximum(z, torch.zeros(z.shape, dtype=z.dtype)) - z * target",
    },
    {
        "name": "snapshot returns the live state_dict (no copy)",
        "exercise": "module_tools",
        "old": "    return {k: v.detach().clone() for k, v in module.state_dict().items()}",
        "new": "    return module.state_dict()",
    },
    {
        "name": "Linear computes x @ W instead of x @ W.T",
        "exercise": "linear",
        "old": "        y = x @ self.weight.T",
        "new": "        y = x @ self.weight",
    },
    {
        "name": "Linear initialised with bound 1/fan_in instead of 1/sqrt(fan_in)",
        "exercise": "linear",
        "old": "bound = 1.0 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0",
        "new": "bound = 1.0 / self.in_features if self.in_features > 0 else 0.0",
    },
    {
        "name": "MSE summed instead of averaged",
        "exercise": "losses",
        "old": "        return err.mean()",
        "new": "        return err.sum()",
    },
    {
        "name": "naive BCE through sigmoid and log (overflows on extreme logits)",
        "exercise": "losses",
        "old": "    loss = z.clamp(min=0) - z * target + torch.log1p(torch.exp(-z.abs()))",
        "new": "    prob = 1 / (1 + torch.exp(-z))\n    loss = -(target * torch.log(prob) + (1 - target) * torch.log(1 - prob))",
    },
    {
        "name": "SGD momentum as an exponential average (1 - momentum instead of 1 - dampening)",
        "exercise": "sgd",
        "old": "buf.mul_(momentum).add_(g, alpha=1 - dampening)",
        "new": "buf.mul_(momentum).add_(g, alpha=1 - momentum)",
    },
    {
        "name": "SGD weight decay added after the momentum buffer",
        "exercise": "sgd",
        "old": (
            "                if weight_decay != 0:\n"
            "                    g = g.add(p, alpha=weight_decay)\n"
            "                if momentum != 0:\n"
            "                    state = self.state[p]\n"
            "                    buf = state.get(\"momentum_buffer\")\n"
            "                    if buf is None:\n"
            "                        buf = torch.clone(g).detach()\n"
            "                        state[\"momentum_buffer\"] = buf\n"
            "                    else:\n"
            "                        buf.mul_(momentum).add_(g, alpha=1 - dampening)\n"
            "                    g = buf\n"
        ),
        "new": (
            "                if momentum != 0:\n"
            "                    state = self.state[p]\n"
            "                    buf = state.get(\"momentum_buffer\")\n"
            "                    if buf is None:\n"
            "                        buf = torch.clone(g).detach()\n"
            "                        state[\"momentum_buffer\"] = buf\n"
            "                    else:\n"
            "                        buf.mul_(momentum).add_(g, alpha=1 - dampening)\n"
            "                    g = buf\n"
            "                if weight_decay != 0:\n"
            "                    g = g.add(p, alpha=weight_decay)\n"
        ),
    },
    {
        "name": "Adam without bias correction",
        "exercise": "adam",
        "old": (
            "                denom = (exp_avg_sq / bias_correction2).sqrt().add_(eps)\n"
            "                p.addcdiv_(exp_avg, denom, value=-lr / bias_correction1)"
        ),
        "new": (
            "                denom = exp_avg_sq.sqrt().add_(eps)\n                p.addcdiv_(exp_avg, denom, value=-lr)"
        ),
    },
    {
        "name": "ring angles drawn before radii",
        "exercise": "ring_dataset",
        "old": (
            "        r_pos = 5.0 + torch.randn(n_pos, 1, generator=g)\n"
            "        theta_pos = 2 * math.pi * torch.rand(n_pos, 1, generator=g)\n"
        ),
        "new": (
            "        theta_pos = 2 * math.pi * torch.rand(n_pos, 1, generator=g)\n"
            "        r_pos = 5.0 + torch.randn(n_pos, 1, generator=g)\n"
        ),
    },
    {
        "name": "training DataLoader shuffled with the global generator",
        "exercise": "loaders",
        "old": "                              generator=torch.Generator().manual_seed(seed), collate_fn=collate_rings)",
        "new": "                              collate_fn=collate_rings)",
    },
    {
        "name": "linear regression without zero_grad (gradients accumulate)",
        "exercise": "linear_regression",
        "old": "            optimizer.zero_grad()\n            loss = loss_fn(model(xb), yb)",
        "new": "            loss = loss_fn(model(xb), yb)",
    },
    {
        "name": "the book's bug: optimizer property building a new Adam on every access",
        "exercise": "ring_classifier",
        "old": "        self.optimizer = torch.optim.Adam(self.parameters(), lr=lr)",
        "new": (
            "        self.lr = lr\n"
            "\n"
            "    @property\n"
            "    def optimizer(self):\n"
            "        return torch.optim.Adam(self.parameters(), lr=self.lr)"
        ),
    },
    # optimizer state on the parameters' device ('meta', a stand-in GPU: state made on the CPU raises there)
    {
        "name": "Adam's state created with torch.zeros(shape) (on the CPU)",
        "exercise": "adam",
        "old": "                    state[\"exp_avg\"] = torch.zeros_like(p)\n                    state[\"exp_avg_sq\"] = torch.zeros_like(p)",
        "new": "                    state[\"exp_avg\"] = torch.zeros(p.shape, dtype=p.dtype)\n"
        "                    state[\"exp_avg_sq\"] = torch.zeros(p.shape, dtype=p.dtype)",
    },
    {
        "name": "SGD's momentum buffer created on the CPU",
        "exercise": "sgd",
        "old": "                        buf = torch.clone(g).detach()",
        "new": "                        buf = torch.zeros(g.shape, dtype=g.dtype).add_(g)",
    },
]
