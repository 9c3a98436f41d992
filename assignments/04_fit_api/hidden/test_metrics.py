import pytest
import torch

from autograder.judge.checks import assert_close, assert_true


def _batches(rng, shapes, kind):
    """Random (preds, targets) batches; for BinaryAccuracy preds are logits, many of them in (0, 0.5]."""
    out = []
    for i, shape in enumerate(shapes):
        if kind == "acc":
            preds = torch.randn(shape, generator=rng) * 0.8
            labels = torch.rand(shape, generator=rng) < 0.5
            targets = [labels.float(), labels.long(), labels][i % 3]
        else:
            preds = torch.randn(shape, generator=rng) * 3
            targets = torch.randn(shape, generator=rng) * 3
        out.append((preds, targets))
    return out


CASES = [
    ("plain", [(16, 1), (5, 1), (40, 1), (1, 1), (9, 1)]),
    ("plain", [(12,), (3,), (30,), (7,), (2,)]),
    ("transposed", [(2, 20), (2, 3), (2, 11), (2, 1), (2, 6)]),   # the probe hands over [N, 2] non-contiguous views
]


@pytest.mark.points(4)
def test_binary_accuracy_random(student, reference, probes, rng):
    """BinaryAccuracy agrees with the reference on random logits over several batches and resets"""
    for layout, shapes in CASES:
        for reset_before in ([], [2], [1, 4]):
            batches = _batches(rng, shapes, "acc")
            got = student(probes.metric_run, "BinaryAccuracy", batches, reset_before, layout)
            want = reference(probes.metric_run, "BinaryAccuracy", batches, reset_before, layout)
            assert_close(got, want, name=f"BinaryAccuracy on {layout} batches of shapes {shapes}")


@pytest.mark.points(4)
def test_mean_absolute_error_random(student, reference, probes, rng):
    """MeanAbsoluteError agrees with the reference on random batches and resets"""
    for layout, shapes in CASES:
        for reset_before in ([], [3], [1, 2]):
            batches = _batches(rng, shapes, "mae")
            got = student(probes.metric_run, "MeanAbsoluteError", batches, reset_before, layout)
            want = reference(probes.metric_run, "MeanAbsoluteError", batches, reset_before, layout)
            assert_close(got, want, rtol=1e-5, atol=1e-6, name=f"MeanAbsoluteError on {layout} batches of shapes {shapes}")


@pytest.mark.points(2)
def test_metrics_device_and_graph(student, reference, probes, rng, device):
    """both metrics work on the given device and with predictions that require grad"""
    shapes = [(10, 1), (3, 1), (8, 1)]
    for name, kind in (("BinaryAccuracy", "acc"), ("MeanAbsoluteError", "mae")):
        batches = _batches(rng, shapes, kind)
        got = student(probes.metric_run, name, batches, [1], "plain", device, True)
        want = reference(probes.metric_run, name, batches, [1], "plain", "cpu", False)
        keeps = got.pop("keeps_graph", None) if isinstance(got, dict) else None
        assert_close(got, want, rtol=1e-5, atol=1e-6, name=f"{name} on {device} with predictions that require grad")
        assert_true(keeps is False, f"{name} keeps a tensor attached to the autograd graph of preds in its state "
                                    "(use .item() or .detach() before accumulating), so every batch's graph stays alive.")
