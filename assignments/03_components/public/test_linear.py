import pytest
import torch

from autograder.judge.checks import advise, assert_equal, assert_tensor, assert_true


@pytest.mark.points(2)
@pytest.mark.hint("weight has shape [out_features, in_features]; y = x W^T + b over the last dimension.")
def test_linear_known_values(student, probes):
    """Linear(3, 2) with known weights: output and gradients"""
    w = torch.tensor([[1.0, 0.0, -1.0], [2.0, 1.0, 0.5]])
    b = torch.tensor([0.5, -1.0])
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]])
    got = student(probes.linear_run, w, b, x, torch.ones(2, 2))
    assert_tensor(got["out"], torch.tensor([[-1.5, 4.5], [-3.5, 0.0]]), name="Linear's output")
    assert_tensor(got["weight_grad"], torch.tensor([[1.0, 1.0, 7.0], [1.0, 1.0, 7.0]]), name="weight's gradient")
    assert_tensor(got["bias_grad"], torch.tensor([2.0, 2.0]), name="bias's gradient")
    assert_tensor(got["x_grad"], torch.tensor([[3.0, 1.0, -0.5], [3.0, 1.0, -0.5]]), name="the input's gradient")


@pytest.mark.points(1)
@pytest.mark.hint("With bias=False register no bias parameter (self.bias = None) and skip adding it in forward.")
def test_linear_without_bias(student, probes):
    """Linear(3, 2, bias=False) with known weights: output and gradients, and no bias"""
    w = torch.tensor([[1.0, 0.0, -1.0], [2.0, 1.0, 0.5]])
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]])
    got = student(probes.linear_run, w, None, x, torch.ones(2, 2))
    assert_tensor(got["out"], torch.tensor([[-2.0, 5.5], [-4.0, 1.0]]), name="the output of Linear(3, 2, bias=False)")
    assert_tensor(got["weight_grad"], torch.tensor([[1.0, 1.0, 7.0], [1.0, 1.0, 7.0]]),
                  name="weight's gradient in Linear(3, 2, bias=False)")
    assert_tensor(got["x_grad"], torch.tensor([[3.0, 1.0, -0.5], [3.0, 1.0, -0.5]]),
                  name="the input's gradient in Linear(3, 2, bias=False)")
    assert_true(got["bias_grad"] is None, "Linear(3, 2, bias=False) should have no bias (self.bias = None), "
                                          "but a bias received a gradient.")


@pytest.mark.points(1)
@pytest.mark.hint("Draw the weight first, then the bias, each with one uniform draw in U(-1/sqrt(in), 1/sqrt(in)).")
def test_linear_init_like_torch(student, probes):
    """under the same seed, Linear(4, 3) starts with nn.Linear(4, 3)'s numbers"""
    got = student(probes.linear_init, 4, 3, True, 0)
    torch.manual_seed(0)
    ref = torch.nn.Linear(4, 3)
    assert_equal(got["names"], ["weight", "bias"], name="the parameter names")
    assert_tensor(got["weight"], ref.weight.detach(), name="the initial weight", rtol=1e-5, atol=1e-6)
    assert_tensor(got["bias"], ref.bias.detach(), name="the initial bias", rtol=1e-5, atol=1e-6)


@pytest.mark.points(1)
@pytest.mark.hint("Register layer i as the submodule named str(i) (add_module), and call the layers in order.")
def test_sequential_names(student, probes):
    """Sequential(Linear(2, 3), ReLU(), Linear(3, 1)) names its parameters like nn.Sequential"""
    ref = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1)).double()
    state = {k: v.detach().clone() for k, v in ref.state_dict().items()}
    x = torch.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=torch.float64)
    got = student(probes.sequential_run, [2, 3, 1], state, x, torch.ones(2, 1, dtype=torch.float64))
    assert_equal(got["names"], ["0.weight", "0.bias", "2.weight", "2.bias"], name="the parameter names")
    assert_tensor(got["out"], ref(x).detach(), name="Sequential's output")
    assert_true(got["out"].shape == (2, 1), "the output should have shape [2, 1]")


@pytest.mark.points(0)
def test_advice_built_yourself(student, probes):
    """advice: ReLU and Sequential are built from elementary operations, not torch.nn's"""
    got = student(probes.relu_run, torch.tensor([-1.0, 0.5]), torch.ones(2))
    used = sorted({c for c in got["called"] if "relu" in c.lower()})
    advise(not used, f"ReLU calls {', '.join(used)}: build it from elementary tensor operations, not torch.relu / F.relu.")
    ref = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1)).double()
    state = {k: v.detach().clone() for k, v in ref.state_dict().items()}
    got = student(probes.sequential_run, [2, 3, 1], state, torch.ones(4, 2, dtype=torch.float64), torch.ones(4, 1, dtype=torch.float64))
    advise(not any(c.startswith("torch.nn.modules.container.") for c in got["classes"]),
           "Sequential should be your own container, not a subclass of torch.nn's containers.")
