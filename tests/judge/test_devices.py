"""Device-parametrized checks of the engine: run on CUDA when present, reported as skipped otherwise."""

import pytest
import torch

from autograder.execute import wire
from autograder.judge.checks import CheckFailed, assert_tensor

DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param(
        "cuda",
        id="cuda",
        marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available on this machine"),
    ),
]


@pytest.mark.parametrize("device", DEVICES)
def test_results_cross_the_wire_on_cpu_with_their_device_recorded(device):
    t = torch.arange(6.0, device=device).reshape(2, 3).t()  # non-contiguous, on the device
    back = wire.decode_message(wire.encode({"y": t, "dev": t.device}))
    assert back["y"].device.type == "cpu" and torch.equal(back["y"], t.cpu())
    assert back["dev"] == t.device


@pytest.mark.parametrize("device", DEVICES)
def test_device_results_agree_with_cpu_within_dtype_tolerance(device):
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(64, 64, generator=g), torch.randn(64, 64, generator=g)
    on_device = (a.to(device) @ b.to(device)).cpu()
    assert_tensor(on_device, a @ b, rtol=1e-4, atol=1e-4)
    with pytest.raises(CheckFailed):
        assert_tensor(on_device + 1e-2, a @ b, rtol=1e-4, atol=1e-4)
