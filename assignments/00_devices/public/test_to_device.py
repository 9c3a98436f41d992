import pytest
import torch

from autograder.judge.checks import advise, assert_equal, assert_tensor, assert_true


@pytest.mark.points(4)
@pytest.mark.hint("Handle each kind of value: tensors and modules move with .to(device); dicts, lists and "
                  "tuples are rebuilt as the same kind of container with their items moved; other values pass through.")
def test_to_device_batches(student, probes):
    """to_device moves an (X, y) tuple and a dict batch"""
    X = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    y = torch.tensor([0, 1])
    got = student(probes.to_device, (X, y), "cpu")["out"]
    assert_equal(got["kind"], "tuple", name="to_device((X, y), 'cpu') container type")
    assert_tensor(got["items"][0]["value"], X, name="X after to_device")
    assert_tensor(got["items"][1]["value"], y, name="y after to_device")

    batch = {"x": X, "label": y, "id": "sample-7"}
    got = student(probes.to_device, batch, "meta")["out"]
    assert_equal(got["kind"], "dict", name="to_device(dict, 'meta') container type")
    for key in ("x", "label"):
        item = got["items"].get(key, {})
        assert_true(item.get("kind") == "tensor" and item.get("device") == "meta",
                    f"batch[{key!r}] should be a tensor on the 'meta' device after to_device(batch, 'meta').")
    assert_equal(got["items"]["label"]["dtype"], torch.int64, name="the dtype of integer labels")
    assert_equal(got["items"]["id"].get("value"), "sample-7", name="a string field of the batch")


@pytest.mark.points(0)
def test_advice_no_cuda_calls(student, probes):
    """advice: to_device moves with .to(device), never .cuda()"""
    got = student(probes.to_device, (torch.ones(2), [torch.zeros(3)]), "meta")
    module = student(probes.to_device_module, "meta")
    calls = got["cuda_calls"] + module["cuda_calls"]
    advise(calls == 0, f"to_device called .cuda() {calls} time(s); use .to(device), so the caller's device is used "
                       "(.cuda() always means the first GPU).")
