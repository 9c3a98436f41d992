import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(2)
@pytest.mark.hint("View x as [rows, cols], allocate the output on x's device (device=x.device), launch "
                  "softmax_kernel[(rows,)](...), and return the output in x's shape.")
def test_triton_softmax_known(student, probes, kernel_device):
    """triton_softmax on a row whose length is not a power of two, and where it puts its output"""
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0], [0.0, -1.0, 0.0, 1.0, 0.0]])
    got = student(probes.triton_apply, x, kernel_device)
    assert_tensor(got["y"], torch.softmax(x, -1), name="triton_softmax of a 2 x 5 float32 tensor")
    assert_true(got["x_unchanged"] is True, "triton_softmax must not modify its input.")
    # a meta tensor stands for a GPU's: a tensor not on the CPU, whose output must stay on its device
    got = student(probes.triton_launch_on_meta, [3, 5])
    assert_true("error" not in got, f"triton_softmax raised {got.get('error')} for a float32 tensor on the device meta "
                                    "(a device that is not the CPU; the kernel launch was stood in for).")
    assert_equal(got["device"], "meta", name="the device of triton_softmax's output for an input on meta "
                                             "(it should be on the input's device)")


@pytest.mark.points(3)
@pytest.mark.hint("The grader launches softmax_kernel itself, from its source: one @triton.jit function using tl.* "
                  "and its arguments only. Subtract the row's maximum before tl.exp: exp(100) overflows float32.")
def test_triton_kernel_as_the_grader_launches_it(student, probes, kernel_device):
    """softmax_kernel itself, launched by the grader on a transposed input and on float32 logits of +-100"""
    x = torch.arange(12.0).reshape(3, 4) / 4
    big = torch.tensor([[100.0, -100.0, 50.0, 0.0, 99.5], [-100.0, -100.0, -99.0, -100.0, -100.0]])
    cases = [(x, "t"), (big, "c")]
    got = probes.kit_launch(student, cases, kernel_device)
    assert_true("error" not in got, f"The grader could not launch softmax_kernel on its own: {got.get('error')}")
    for (x, layout), y in zip(cases, got["y"]):
        xl = x.t() if layout == "t" else x
        assert_tensor(y, torch.softmax(xl, -1), name=f"softmax_kernel on {'a transposed' if layout == 't' else 'a'} "
                                                     f"{tuple(xl.shape)} float32 input {xl.tolist()}")
