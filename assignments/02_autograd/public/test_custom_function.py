import pytest
import torch

from autograder.judge.checks import advise, assert_equal, assert_tensor


@pytest.mark.points(2)
@pytest.mark.hint("sigmoid(x) = 1 / (1 + exp(-x)), elementwise, keeping x's dtype; forward is a @staticmethod "
                  "taking (ctx, x).")
def test_my_sigmoid_known_values(student, probes):
    """my_sigmoid on a few known values"""
    got = student(probes.my_sigmoid, torch.tensor([0.0, 1.0, -1.0]))
    assert_tensor(got, torch.tensor([0.5, 0.7310586, 0.2689414]), name="my_sigmoid([0, 1, -1])")


@pytest.mark.points(2)
@pytest.mark.hint("backward(ctx, grad_output) returns grad_output * s * (1 - s), with s saved in forward by "
                  "ctx.save_for_backward and read back from ctx.saved_tensors.")
def test_my_sigmoid_gradient_known_values(student, probes):
    """MySigmoid's backward at two points"""
    x = torch.tensor([0.0, 2.0], dtype=torch.float64)
    got = student(probes.sigmoid_apply, x, torch.tensor([1.0, 3.0], dtype=torch.float64))
    assert_equal(got["is_function"], True, name="whether MySigmoid is a subclass of torch.autograd.Function")
    assert_tensor(got["grad"], torch.tensor([0.25, 3 * 0.10499358540350662], dtype=torch.float64),
                  name="the gradient of MySigmoid at [0, 2] with grad_output [1, 3]")


@pytest.mark.points(1)
@pytest.mark.hint("exp(-x) overflows to inf for x = -1000: 1 / (1 + inf) is still 0, but a formula that divides "
                  "inf by inf (or computes exp(x) / (1 + exp(x))) gives nan.  Pick the form that never overflows, "
                  "and compute the gradient from the saved output s as s * (1 - s).")
def test_my_sigmoid_extreme_inputs(student, probes):
    """MySigmoid stays finite and correct at +-30 and +-1000 (values and gradient)"""
    x = torch.tensor([-1000.0, -30.0, 0.0, 30.0, 1000.0])
    got = student(probes.sigmoid_apply, x, torch.ones(5))
    s = torch.sigmoid(x)
    assert_tensor(got["y"], s, name="MySigmoid of [-1000, -30, 0, 30, 1000] (float32)")
    assert_tensor(got["grad"], s * (1 - s), name="the gradient of MySigmoid at [-1000, -30, 0, 30, 1000] (float32)")


FORBIDDEN = {"sigmoid", "special_expit", "expit", "log_sigmoid", "logsigmoid", "backward", "grad",
             "_sigmoid_backward", "sigmoid_backward", "vjp", "jacobian"}


@pytest.mark.points(0)
def test_advice_by_hand(student, probes):
    """advice: MySigmoid computes the sigmoid and its derivative itself and saves what backward needs"""
    x = torch.tensor([[0.0, 2.0], [-1.0, 0.5]], dtype=torch.float64)
    got = student(probes.sigmoid_apply, x, torch.ones(2, 2, dtype=torch.float64))
    advise(type(got["saved"]) is int and got["saved"] >= 1,
           "MySigmoid's forward should keep what backward needs with ctx.save_for_backward(...).")
    for phase in ("forward", "backward"):
        used = sorted(set(got[f"{phase}_calls"]) & FORBIDDEN)
        advise(not used, f"MySigmoid's {phase} calls {', '.join(used)}; compute the sigmoid and its derivative yourself "
                         "from elementary operations.")
