import pytest
import torch

from autograder.judge.checks import assert_tensor, assert_true


@pytest.mark.points(2)
def test_sgd_paths(student, reference, probes, rng):
    """SGD paths agree with the reference from random starts and learning rates"""
    for _ in range(4):
        x0 = float(torch.empty(()).uniform_(-5.0, 5.0, generator=rng))
        lr = float(torch.empty(()).uniform_(0.01, 0.3, generator=rng))
        steps = int(torch.randint(5, 40, (), generator=rng))
        assert_tensor(student(probes.minimize, x0, lr, steps, "sgd"), reference(probes.minimize, x0, lr, steps, "sgd"),
                      name="the SGD path from a random start", rtol=1e-5, atol=1e-6)


@pytest.mark.points(2)
def test_adam_paths_and_convergence(student, reference, probes, rng):
    """Adam paths agree with the reference, and a longer run ends near the minimum x = 1"""
    for _ in range(3):
        x0 = float(torch.empty(()).uniform_(-5.0, 5.0, generator=rng))
        lr = float(torch.empty(()).uniform_(0.01, 0.2, generator=rng))
        assert_tensor(student(probes.minimize, x0, lr, 30, "adam"), reference(probes.minimize, x0, lr, 30, "adam"),
                      name="the Adam path from a random start", rtol=1e-5, atol=1e-6)
    x0 = float(torch.empty(()).uniform_(-5.0, 5.0, generator=rng))
    # 400 steps: the master ends within 5e-4 of 1 from every start in [-5, 5] (a grid of 201; 300 steps
    # leave 0.02 at the edges), well inside the 1e-2 asked
    path = student(probes.minimize, x0, 0.05, 400, "adam")
    assert_true(type(path) is torch.Tensor and path.numel() == 400 and abs(float(path[-1]) - 1.0) < 1e-2,
                "after 400 Adam steps with lr 0.05, x should have settled near the minimum x = 1.")
