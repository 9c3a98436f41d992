import pytest
import torch

from autograder.judge.checks import advise, assert_equal, assert_tensor


@pytest.mark.points(2)
@pytest.mark.hint("In define_softmax_op: @torch.library.custom_op(\"kernels::softmax\", mutates_args=(), "
                  "device_types=\"cpu\") on a function with type hints (x: torch.Tensor) -> torch.Tensor that calls "
                  "c_softmax; return what custom_op returns.")
def test_op_forward(student, probes):
    """torch.ops.kernels.softmax exists and computes a softmax"""
    x = torch.tensor([[1.0, 2.0, 3.0], [3.0, 1.0, 0.0]], dtype=torch.float64)
    got = student(probes.op_apply, x, torch.zeros(2, 3, dtype=torch.float64))
    assert_tensor(got["y"], torch.softmax(x, -1), name="torch.ops.kernels.softmax of a 2 x 3 tensor")


@pytest.mark.points(3)
@pytest.mark.hint("register_autograd(backward, setup_context=...): save the output y; the gradient is "
                  "y * (g - sum(g * y, last dim)) with g the incoming gradient.")
def test_op_backward(student, probes):
    """the op's gradient for a given incoming gradient"""
    x = torch.tensor([[0.0, 1.0, 2.0]], dtype=torch.float64)
    v = torch.tensor([[1.0, -2.0, 0.5]], dtype=torch.float64)
    got = student(probes.op_apply, x, v)
    xr = x.clone().requires_grad_(True)
    (want,) = torch.autograd.grad(torch.softmax(xr, -1), xr, v)
    assert_tensor(got["grad"], want, name="the gradient of torch.ops.kernels.softmax")


@pytest.mark.points(2)
@pytest.mark.hint("The fake implementation (register_fake) returns an empty tensor with the real kernel's "
                  "shape, dtype and (contiguous) strides, whatever the input's layout.")
def test_op_on_meta_tensors(student, probes):
    """the op on a meta tensor gives the output's metadata"""
    got = student(probes.op_meta, [3, 5], torch.float32, "t")
    assert_equal(got, {"shape": [5, 3], "dtype": torch.float32, "device": "meta", "stride": [3, 1]},
                 name="the output metadata of the op on a transposed 3 x 5 meta tensor")


@pytest.mark.points(0)
def test_advice_backward_by_hand(student, probes):
    """advice: the backward computes the gradient from the saved output, without softmax or autograd again"""
    x = torch.tensor([[0.0, 1.0, 2.0]], dtype=torch.float64)
    calls = student(probes.op_backward_calls, x, torch.ones(1, 3, dtype=torch.float64))
    used = sorted({"softmax", "_softmax", "log_softmax", "grad", "backward", "kernels.softmax"} & set(calls)) \
        if type(calls) is list else ["?"]
    advise(not used, f"The op's backward calls {', '.join(used)}: compute y * (g - sum(g * y)) from the saved output "
                     "with a few torch operations instead (cheaper, and it is the point of the exercise).")
