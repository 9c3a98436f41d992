import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal


def _batches(rng):
    X = torch.randn(5, 3, generator=rng)
    y = torch.randint(0, 4, (5,), generator=rng)
    X64 = torch.randn(4, 2, generator=rng, dtype=torch.float64)
    mask = torch.rand(4, generator=rng) > 0.5
    half = torch.randn(3, generator=rng).to(torch.float16)
    return [
        (X, y),
        [X64, mask, 3, "id-3"],
        {"input": X, "target": y, "weight": 0.5},
        {"features": {"dense": X64, "flags": mask}, "pair": (y, [half, None]), "name": "b1"},
        [(X, y), (X64, mask)],
        (),
        X,
    ]


def _norm(mirror, device_type=None):
    """Device strings reduced to their type ("cuda:0" -> "cuda"), or all set to `device_type`."""
    if isinstance(mirror, dict):
        out = {}
        for k, v in mirror.items():
            if k == "device" and isinstance(v, str):
                out[k] = device_type or v.split(":")[0]
            elif k == "devices" and isinstance(v, list):
                out[k] = sorted({device_type or str(d).split(":")[0] for d in v})
            else:
                out[k] = _norm(v, device_type)
        return out
    if isinstance(mirror, (list, tuple)):
        return type(mirror)(_norm(v, device_type) for v in mirror)
    return mirror


@pytest.mark.points(4)
def test_nested_batches_to_meta(student, reference, probes, rng):
    """tuples, lists, dicts and nested mixes all end up on the target device, containers kept"""
    for i, batch in enumerate(_batches(rng)):
        device = "meta" if i % 2 == 0 else torch.device("meta")
        got = student(probes.to_device, batch, device)["out"]
        exp = reference(probes.to_device, batch, device)["out"]
        assert_close(got, exp, name=f"to_device(batch #{i + 1}, 'meta')")


@pytest.mark.points(4)
def test_values_and_dtypes(student, reference, probes, rng, device):
    """values and dtypes are unchanged by the move, on every device (and on 'meta', which shows a missed move)"""
    for i, batch in enumerate(_batches(rng)):
        got = student(probes.to_device, batch, device)["out"]
        exp = reference(probes.to_device, batch, "cpu")["out"]
        assert_close(_norm(got), _norm(exp, torch.device(device).type), name=f"to_device(batch #{i + 1}, {device!r})")
        assert_close(student(probes.to_device, batch, "meta")["out"], reference(probes.to_device, batch, "meta")["out"],
                     name=f"to_device(batch #{i + 1}, 'meta')")


@pytest.mark.points(2)
def test_models(student, reference, probes):
    """a model's parameters and buffers move, alone and inside a dict"""
    got = student(probes.to_device_module, "meta")
    exp = reference(probes.to_device_module, "meta")
    assert_close(got["alone"], exp["alone"], name="to_device(model, 'meta')")
    assert_close(got["nested"], exp["nested"], name="to_device({'model': model, 'x': x}, 'meta')")


@pytest.mark.points(2)
def test_no_hardcoded_cuda(student, reference, probes, rng, device):
    """the target device decides (on the device, and on 'meta' standing for a second GPU, cuda:1, with CUDA
    available: .cuda() would put the data on the first)"""
    batch = _batches(rng)[3]
    for where in (device, "meta"):
        got = student(probes.to_device, batch, where)
        exp = reference(probes.to_device, batch, "cpu" if where == device else where)["out"]
        assert_close(_norm(got["out"]), _norm(exp, torch.device(where).type), name=f"to_device(batch, {where!r})")
        module = student(probes.to_device_module, where)
        assert_equal(_norm(module)["alone"].get("devices"), [torch.device(where).type],
                     name=f"the devices of a model's parameters and buffers after to_device(model, {where!r})")
