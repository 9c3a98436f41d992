import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true


@pytest.mark.points(5)
def test_training_passes(student, reference, probes, rng, device, draw):
    """two training passes agree with the reference (losses, metric, weights), uneven last batch"""
    for n, d, h, o, bs, lr, momentum in [(23, 3, 5, 1, 5, 0.1, 0.0), (40, 2, 4, 2, 8, 0.05, 0.9), (9, 4, 3, 1, 9, 0.2, 0.0)]:
        state, (X, Y) = draw.state(rng, d, h, o), draw.data(rng, n, d, o)
        got = student(probes.run_epoch_train, state, X, Y, bs, lr, momentum, None, 2, device)
        want = reference(probes.run_epoch_train, state, X, Y, bs, lr, momentum, None, 2, "cpu")
        what = f"training on {n} samples in batches of {bs} (momentum {momentum})"
        assert_close(got["results"], want["results"], rtol=1e-4, atol=1e-6, name=f"run_epoch's results, {what}")
        assert_close(got["state"], want["state"], rtol=1e-4, atol=1e-6, name=f"the weights after {what}")
        assert_equal(got["device"].split(":")[0], device, name="the device of the net after training")
        meta = student(probes.run_epoch_train, state, X, Y, bs, lr, momentum, None, 2, "meta")  # a stand-in GPU
        for preds_at, targets_at in meta.get("metric_devices", []):
            assert_true(preds_at == targets_at == "meta", f"run_epoch gave the metric predictions on {preds_at} and targets on "
                        f"{targets_at}, expected the device meta for both: keep them on the device (no .cpu() before the metric).")
        assert_close(meta, reference(probes.run_epoch_train, state, X, Y, bs, lr, momentum, None, 2, "meta"),
                     name=f"run_epoch on 'meta' (batches must be moved to the device), {what}")


@pytest.mark.points(3)
def test_evaluation_passes(student, reference, probes, rng, draw):
    """evaluation passes agree with the reference and change nothing"""
    for n, d, h, bs in [(17, 3, 6, 4), (32, 2, 5, 32), (5, 4, 2, 2)]:
        state, (X, Y) = draw.state(rng, d, h, 1), draw.data(rng, n, d, 1)
        got = student(probes.run_epoch_eval, state, X, Y, bs)
        want = reference(probes.run_epoch_eval, state, X, Y, bs)
        assert_close(got["results"], want["results"], rtol=1e-5, atol=1e-6, name=f"two evaluation passes over {n} samples")
        assert_equal([[t, b] for t, _, b in got["calls"]], [[t, b] for t, _, b in want["calls"]],
                     name="(net.training, batch size) at each forward")
        assert_true(not any(got["grads"]), "an evaluation pass must not compute gradients.")
        assert_close(got["state"], state, name="the weights after evaluation passes")


@pytest.mark.points(2)
def test_epoch_loss_uneven_batches(student, reference, probes, rng):
    """the epoch loss over batches of very different sizes agrees with the reference"""
    for sizes in ([7, 1, 3], [1, 12], [5, 5, 2, 1], [20]):
        weight, bias = torch.randn(1, 3, generator=rng), torch.randn(1, generator=rng)
        batches = [(torch.randn(s, 3, generator=rng), torch.randn(s, 1, generator=rng) * 2) for s in sizes]
        assert_close(student(probes.run_epoch_batches, weight, bias, batches),
                     reference(probes.run_epoch_batches, weight, bias, batches), rtol=1e-5,
                     name=f"the epoch loss over batches of sizes {sizes}")


@pytest.mark.points(2)
def test_gradient_clipping(student, reference, probes, rng, draw):
    """training with clip_grad_norm agrees with the reference"""
    for clip, lr in [(0.05, 1.0), (0.5, 0.3)]:
        state, (X, Y) = draw.state(rng, 3, 5, 1), draw.data(rng, 20, 3, 1)
        Y = Y * 10
        got = student(probes.run_epoch_train, state, X, Y, 6, lr, 0.0, clip, 2)
        want = reference(probes.run_epoch_train, state, X, Y, 6, lr, 0.0, clip, 2)
        assert_close(got["results"], want["results"], rtol=1e-4, atol=1e-6, name=f"run_epoch's results with clip_grad_norm={clip}")
        assert_close(got["state"], want["state"], rtol=1e-4, atol=1e-6, name=f"the weights after training with clip_grad_norm={clip}")
