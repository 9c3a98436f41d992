import pytest

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(4)
@pytest.mark.hint("Count tf.config.list_physical_devices('CPU') and ('GPU') with len(...), and take the .name of "
                  "each device in tf.config.list_logical_devices(); ask TensorFlow inside the function, each call.")
def test_inventory_here_and_with_a_gpu(student, probes):
    """inventory() on this machine, and with a pretend GPU"""
    for gpus, where in ((None, "on this machine"), (1, "with one GPU")):
        got = student(probes.inventory, gpus)
        seen = student(probes.devices, gpus)
        assert_true(type(got) is dict, f"inventory() {where} should return a dict, but it returned {type(got).__name__}.")
        assert_equal(sorted(got), ["logical", "physical_cpus", "physical_gpus"], name=f"the keys of inventory() {where}")
        assert_equal(got["physical_cpus"], seen["physical"].count("CPU"), name=f'inventory()["physical_cpus"] {where}')
        assert_equal(got["physical_gpus"], seen["physical"].count("GPU"), name=f'inventory()["physical_gpus"] {where}')
        assert_equal(got["logical"], seen["logical"], name=f'inventory()["logical"] {where}')
        assert_true(type(got["physical_cpus"]) is int and got["physical_cpus"] >= 1 and "/device:CPU:0" in got["logical"],
                    f"inventory() {where}: every machine has a physical CPU and /device:CPU:0 among its logical devices.")
        if gpus:
            assert_true(got["physical_gpus"] == 1 and "/device:GPU:0" in got["logical"],
                        f"inventory() {where}: one physical GPU, and /device:GPU:0 among the logical devices.")
