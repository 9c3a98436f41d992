import pytest

from autograder.judge.checks import assert_equal

CASES = [  # (prefer, pretend GPUs, expected)
    (None, 0, "/device:CPU:0"),
    (None, 1, "/device:GPU:0"),
    ("CPU:1", 0, "/device:CPU:1"),
    ("/GPU:0", 0, "/device:CPU:0"),
    ("gpu", 1, "/device:GPU:0"),
]


@pytest.mark.points(5)
@pytest.mark.hint("List tf.config.list_logical_devices() inside the function; read `prefer` with "
                  "tf.DeviceSpec.from_string (device_type, device_index: None means 0) and fall back to "
                  "'/device:CPU:0' for a device that is not listed.")
def test_pick_device_small(student, probes):
    """pick_device with and without a pretend GPU"""
    for prefer, gpus, expected in CASES:
        where = "with a GPU" if gpus else "without a GPU"
        call = "pick_device()" if prefer is None else f"pick_device({prefer!r})"
        got = student(probes.pick_device, prefer, gpus, prefer is not None)
        assert_equal(got, expected, name=f"{call} {where}")
