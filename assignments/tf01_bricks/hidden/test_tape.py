import pytest
import torch

from autograder.judge.checks import assert_close, tf_name

NAMES = ["square_sum", "poly", "logsumexp", "sin_mean", "norm"]


@pytest.mark.points(2)
def test_value_and_grad_random(student, reference, probes, rng):
    """value_and_grad agrees with the reference for several functions, shapes and dtypes"""
    for i, (shape, dtype) in enumerate([((4,), torch.float32), ((2, 3), torch.float64), ((), torch.float32),
                                        ((3, 1, 2), torch.float64), ((5,), torch.float64)]):
        x = torch.randn(shape, generator=rng, dtype=dtype)
        name = NAMES[i]
        got, want = student(probes.value_and_grad, x, name), reference(probes.value_and_grad, x, name)
        assert_close(got["result"], want["result"], name=f"value_and_grad of {name} at a {tf_name(dtype)} tensor of shape {list(shape)}",
                     rtol=1e-5, atol=1e-6)


@pytest.mark.points(2)
def test_two_grads_random(student, reference, probes, rng):
    """two_grads agrees with the reference for pairs of functions"""
    for f, g, shape, dtype in [("poly", "sin_mean", (3,), torch.float32), ("norm", "square_sum", (2, 2), torch.float64),
                               ("logsumexp", "poly", (6,), torch.float64)]:
        x = torch.randn(shape, generator=rng, dtype=dtype)
        got, want = student(probes.two_grads, x, f, g), reference(probes.two_grads, x, f, g)
        assert_close(got["result"], want["result"], name=f"two_grads of {f} and {g} at a {tf_name(dtype)} tensor of shape {list(shape)}",
                     rtol=1e-5, atol=1e-6)


@pytest.mark.points(2)
def test_two_grads_under_one_tape(student, reference, probes, rng):
    """two_grads runs f and g under one tape, each once: g reuses a tensor f computed, a link only a tape that
    recorded both sees (and f's value changes if it runs twice)"""
    for shape, dtype in (((4,), torch.float32), ((2, 3), torch.float64)):
        x = torch.randn(shape, generator=rng, dtype=dtype)
        got, want = student(probes.two_grads_linked, x), reference(probes.two_grads_linked, x)
        assert_close(got, want, rtol=1e-5, atol=1e-6,
                     name=f"two_grads of a pair of functions that share an intermediate, at a {tf_name(dtype)} tensor of shape "
                          f"{list(shape)} (run f(x) and g(x) once each, both inside the same `with tf.GradientTape`)")
