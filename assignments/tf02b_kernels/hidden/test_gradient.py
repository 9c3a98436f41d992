import pytest
import torch

from autograder.judge.checks import assert_close, assert_true, tf_name


@pytest.mark.points(9)
def test_registered_gradients_random(student, probes, rng, helpers):
    """the gradients registered for KitSilu and KitLogSumExp match the exact ones on random inputs, beta and weights"""
    for dtype in (torch.float32, torch.float64):
        for _ in range(2):
            shape = helpers.random_shape(rng, 1, 3, 9)
            x = torch.randn(shape, generator=rng, dtype=dtype) * 3
            beta = round(float(torch.rand((), generator=rng)) * 3 + 0.25, 3)
            v, w = torch.randn(shape, generator=rng, dtype=dtype), torch.randn(shape[:-1], generator=rng, dtype=dtype)
            xg = x.clone().requires_grad_(True)
            ((helpers.silu(xg, beta) * v).sum() + (torch.logsumexp(xg, -1) * w).sum()).backward()
            s = torch.sigmoid(beta * x)
            want = {"silu": v * (s + beta * x * s * (1 - s)), "lse": w[..., None] * torch.softmax(x, -1)}
            got = student(probes.op_grads, x, beta, v, w)
            assert_close(got, want, name=f"the gradients (silu with beta={beta}, lse) of a {tf_name(dtype)} input of shape {tuple(shape)}")


@pytest.mark.points(1)
def test_max_gradient_error_small(student, probes, rng):
    """max_gradient_error is the largest |theoretical - numerical| over the Jacobian of the op the text names (silu with
    beta = 1.5, lse), as tf.test.compute_gradient gives them (float64)"""
    for which in ("silu", "lse"):
        x = torch.randn(2, 3, generator=rng, dtype=torch.float64)
        err = student(probes.gradient_error, x, which)
        assert_true(type(err) is float and 0 <= err < 1e-4,
                    f"max_gradient_error({which!r}, x) returned {err!r}: expected a small float (theoretical vs numerical Jacobian).")
        # the numerical Jacobian's truncation error (~1e-7 for silu, ~1e-8 for lse) is the same for every correct op to
        # 1e-8 of itself; a mean is at most half of the largest, beta = 1 about half of beta = 1.5's
        want = probes.expected_gradient_error(x, which)
        assert_true(abs(err - want) <= 1e-3 * want + 1e-13,
                    f"max_gradient_error({which!r}, x) returned {err:.4g}, not the largest absolute difference between "
                    "the theoretical and the numerical Jacobian" + (" of kit_silu with beta=1.5" if which == "silu" else
                    " of kit_log_sum_exp") + " (the maximum over every entry, not a mean or a sum).")
