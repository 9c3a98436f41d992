"""MetaAccelerator: 'meta' behaves like a GPU for placement, and code written for a GPU runs to its end."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from autograder.probe.meta_device import MetaAccelerator


def test_misplaced_tensor_raises_like_on_a_gpu():
    net = nn.Linear(2, 1).to("meta")
    with MetaAccelerator(), pytest.raises(RuntimeError):
        net(torch.randn(3, 2))  # the batch was never moved


def test_reads_back_give_zeros_of_the_right_shape_and_dtype():
    with MetaAccelerator():
        x = torch.randn(3, 2).to("meta")
        back = x.cpu()
        as64 = x.to("cpu", torch.float64)
        loss = (x * 2).sum()
        assert loss.item() == 0.0 and float(loss) == 0.0 and int(loss) == 0
        assert x.tolist() == [[0.0, 0.0]] * 3
    assert back.device.type == "cpu" and back.shape == (3, 2) and back.dtype == torch.float32 and not back.any()
    assert as64.dtype == torch.float64


def test_cuda_calls_are_counted_and_uploads_recorded():
    with MetaAccelerator() as acc:
        t = torch.ones(4, 4)
        t.cuda()  # a no-op without CUDA, counted either way
        t.to("meta")
        torch.zeros(2, device="meta")  # made on the device: not an upload
        t.to(torch.float64)  # a dtype change: not an upload
    assert acc.cuda_calls == 1
    assert acc.uploads == [[4, 4]]


def test_training_on_meta_runs_to_its_end():
    model = nn.Linear(2, 1)
    X, y = torch.randn(8, 2), torch.randn(8, 1)
    with MetaAccelerator():
        model.to("meta")
        Xd, yd = X.to("meta"), y.to("meta")
        opt = torch.optim.Adam(model.parameters(), lr=0.1)
        history = []
        for _ in range(2):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(Xd), yd)
            loss.backward()
            opt.step()
            history.append(loss.item())
    assert history == [0.0, 0.0] and model.weight.is_meta


def test_matrix_products_mixing_meta_and_cpu_raise_as_on_a_gpu():
    w = torch.ones(4, 2)  # left on the CPU
    x = torch.ones(3, 4, device="meta")
    for product in (
        lambda: x @ w,
        lambda: torch.mm(x, w),
        lambda: torch.einsum("ij,jk->ik", x, w),
        lambda: torch.nn.functional.linear(x, w.T),
    ):
        product()  # torch itself lets these through
        with MetaAccelerator(), pytest.raises(RuntimeError, match="same device.*cpu and meta"):
            product()
    with MetaAccelerator():
        assert (x @ w.to("meta")).device.type == "meta"
        assert (torch.ones(3, 4) @ w).device.type == "cpu"


def test_a_reported_cuda_makes_meta_a_second_gpu():
    real = torch.cuda.is_available()
    with MetaAccelerator(cuda_available=True):
        assert torch.cuda.is_available() and torch.cuda.device_count() == 1
        if not real:  # .cuda() and .to("cuda") go nowhere: code that picks "cuda" itself stays off the target
            assert torch.ones(2).cuda().device.type == "cpu"
            assert torch.ones(2).to("cuda").device.type == "cpu"
            assert next(nn.Linear(2, 1).to(torch.device("cuda")).parameters()).device.type == "cpu"
    assert torch.cuda.is_available() == real
    with MetaAccelerator(cuda_available=False):
        assert not torch.cuda.is_available()
    assert torch.cuda.is_available() == real
