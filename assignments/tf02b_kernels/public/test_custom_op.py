import pytest
import torch

from autograder.judge.checks import CheckFailed, assert_equal, as_tf, assert_tf, assert_true, tf_name


def _value(outcome, what):
    if type(outcome) is dict and "value" in outcome:
        return outcome["value"]
    if type(outcome) is dict and "error" in outcome:
        raise CheckFailed(f"{what} raised {outcome['error']} (a kernel registered for DEVICE_CPU, for float and double?).")
    raise CheckFailed(f"{what}: the process running your kernel crashed ({outcome.get('crashed') if type(outcome) is dict else outcome}).")


@pytest.mark.points(8)
@pytest.mark.hint("The grader compiles op_source() itself (TensorFlow's framework headers and <cmath>-like standard headers "
                  "only) and calls kit_silu(x, beta=...) and kit_log_sum_exp(x). Subtract each row's maximum before exp; "
                  "the shape function drops the last dimension (c->Subshape(s, 0, -1, &out)); OP_REQUIRES refuses a "
                  "scalar and an empty last dimension with errors::InvalidArgument.")
def test_ops_as_the_grader_builds_them(student, probes):
    """KitSilu and KitLogSumExp, compiled and called by the grader: values, a row near 1000, traced shapes, bad inputs"""
    x = torch.tensor([[-2.0, 0.0, 1.0, 3.0], [1000.0, 999.0, 998.0, -5.0]])
    cases = [("silu", x, 1.0), ("silu", x.double(), 2.5), ("lse", x), ("lse", x.double())]
    shapes = [("shape", "lse", [None, 4, None]), ("shape", "silu", [None, 3])]
    errors = [("lse", torch.tensor(3.0)), ("lse", torch.zeros(2, 0))]
    got = probes.kit_build(student, cases=cases, errors=errors, shapes=shapes)
    assert_true(type(got) is dict and "error" not in got,
                f"The grader compiled the source op_source() returns on its own and could not use it: {got.get('error') if type(got) is dict else got}")
    out = got.get("out")
    assert_true(type(out) is list and len(out) == len(cases), f"The process running your kernel crashed: {out}")
    for (kind, x, *beta), outcome in zip(cases, out):
        what = f"KitSilu(beta={beta[0]})" if kind == "silu" else "KitLogSumExp"
        want = x * torch.sigmoid(beta[0] * x) if kind == "silu" else torch.logsumexp(x, -1)
        assert_tf(as_tf(_value(outcome, f"{what} of {x.tolist()} ({tf_name(x.dtype)})")), as_tf(want), name=f"{what} of {x.tolist()} ({tf_name(x.dtype)})")
    shaped = got.get("shapes")
    assert_true(type(shaped) is list and len(shaped) == 2, f"The process tracing your ops crashed: {shaped}")
    assert_equal(_value(shaped[0], "tracing KitLogSumExp"), [None, 4], name="the static shape of KitLogSumExp traced for [None, 4, None]")
    assert_equal(_value(shaped[1], "tracing KitSilu"), [None, 3], name="the static shape of KitSilu traced for [None, 3]")
    errs = got.get("errors")
    assert_true(type(errs) is list and len(errs) == 2, f"The grader's harness got no answer for the bad inputs: {errs}")
    for outcome, what in zip(errs, ("a scalar", "a [2, 0] tensor")):
        assert_equal(outcome.get("error", outcome.get("crashed")) if type(outcome) is dict else outcome, "InvalidArgumentError",
                     name=f"the exception KitLogSumExp raises for {what}")
