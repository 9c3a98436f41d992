"""Random inputs several hidden test files draw alike: the weights of the probes' Linear-Tanh-Linear net (`mlp` in
probes.py) and a smooth regression target for it, drawn from the test's `rng` in a fixed order."""
from types import SimpleNamespace

import pytest
import torch


def _state(rng, d, h, o):
    """Weights for probes.mlp: Linear(d, h) - Tanh - Linear(h, o)."""
    return {"0.weight": torch.randn(h, d, generator=rng) * 0.6, "0.bias": torch.randn(h, generator=rng) * 0.2,
            "2.weight": torch.randn(o, h, generator=rng) * 0.6, "2.bias": torch.randn(o, generator=rng) * 0.2}


def _data(rng, n, d, o):
    """n points in d dimensions and their o targets sin(sum of x) plus a little noise."""
    X = torch.randn(n, d, generator=rng)
    return X, torch.sin(X.sum(dim=1, keepdim=True)).repeat(1, o) + 0.1 * torch.randn(n, o, generator=rng)


def _split(rng, n_train, n_val, d, o):
    """_data of n_train + n_val points, as (X_train, Y_train, X_val, Y_val)."""
    X, Y = _data(rng, n_train + n_val, d, o)
    return X[:n_train], Y[:n_train], X[n_train:], Y[n_train:]


@pytest.fixture
def draw() -> SimpleNamespace:
    return SimpleNamespace(state=_state, data=_data, split=_split)
