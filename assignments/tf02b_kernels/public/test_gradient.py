import pytest
import torch

from autograder.judge.checks import assert_close, assert_true


@pytest.mark.points(3)
@pytest.mark.hint("KitSilu: grad * (s + beta * x * s * (1 - s)) with s = sigmoid(beta * x), beta = op.get_attr('beta') cast to "
                  "x's dtype. KitLogSumExp: grad[..., None] * exp(x - y[..., None]) with y = op.outputs[0].")
def test_registered_gradients_known(student, probes):
    """the gradients of both ops on a small input"""
    x = torch.tensor([[-1.0, 0.0, 2.0], [3.0, -2.0, 0.5]], dtype=torch.float64)
    v, w = torch.ones_like(x), torch.tensor([1.0, -2.0], dtype=torch.float64)
    s = torch.sigmoid(1.5 * x)
    want = {"silu": v * (s + 1.5 * x * s * (1 - s)), "lse": w[:, None] * torch.softmax(x, -1)}
    assert_close(student(probes.op_grads, x, 1.5, v, w), want, name="the gradients of kit_silu(x, beta=1.5) and kit_log_sum_exp(x)")


@pytest.mark.points(1)
@pytest.mark.hint("theoretical, numerical = tf.test.compute_gradient(f, [x]) with f = kit_silu(t, beta=1.5) or kit_log_sum_exp; "
                  "the largest |a - b| over every entry of the pairs, as a float.")
def test_max_gradient_error_known(student, probes):
    """max_gradient_error is the largest |theoretical - numerical| for both ops (silu with beta = 1.5)"""
    x = torch.tensor([[0.5, -1.0, 2.0]], dtype=torch.float64)
    for which in ("silu", "lse"):
        err = student(probes.gradient_error, x, which)
        assert_true(type(err) is float and 0 <= err < 1e-4, f"max_gradient_error({which!r}, x) returned {err!r}.")
        want = probes.expected_gradient_error(x, which)
        assert_true(abs(err - want) <= 1e-3 * want + 1e-13,
                    f"max_gradient_error({which!r}, {x.tolist()}) returned {err:.4g}, expected {want:.4g}: the largest "
                    "absolute difference between the theoretical and the numerical Jacobian" +
                    (" of kit_silu with beta=1.5" if which == "silu" else " of kit_log_sum_exp") +
                    " (the maximum over every entry, not a mean or a sum).")
