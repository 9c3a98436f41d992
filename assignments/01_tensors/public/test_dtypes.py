import numpy as np
import pytest
import torch

from autograder.judge.checks import assert_close, assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("torch's default float is float32, numpy's is float64; a tensor made from numpy keeps numpy's dtype until you cast it.")
def test_to_float32_known(student, probes):
    """to_float32 turns int64 and float64 arrays into float32 tensors"""
    assert_tensor(student(probes.to_float32, np.array([1, 2, 3])), torch.tensor([1.0, 2.0, 3.0]), name="to_float32 of an int64 array")
    arr = np.array([[0.5, -1.25], [3.0, 4.0]])
    assert_tensor(student(probes.to_float32, arr), torch.tensor([[0.5, -1.25], [3.0, 4.0]]), name="to_float32 of a float64 array")


@pytest.mark.points(1)
@pytest.mark.hint("torch has no string dtype: map each distinct string to an integer code (sorted classes, int64 codes).")
def test_encode_labels_known(student, probes):
    """encode_labels gives sorted classes and int64 codes"""
    got = student(probes.encode_labels, ["dog", "cat", "dog", "bird"])
    assert_close(got, (["bird", "cat", "dog"], torch.tensor([2, 1, 2, 0])), name="encode_labels(['dog', 'cat', 'dog', 'bird'])")


@pytest.mark.points(1)
@pytest.mark.hint("Casting float to an integer dtype truncates and does not saturate: clamp, scale, round, then cast.")
def test_to_uint8_image_known(student, probes):
    """to_uint8_image clamps, scales, rounds and casts"""
    img = torch.tensor([0.0, 0.25, 0.33, 0.66, 1.0, 1.2, -0.3])
    want = torch.tensor([0, 64, 84, 168, 255, 255, 0], dtype=torch.uint8)
    assert_tensor(student(probes.to_uint8_image, img), want, name="to_uint8_image([0, 0.25, 0.33, 0.66, 1, 1.2, -0.3])")
