import pytest
import torch

from autograder.judge.checks import (CheckFailed, assert_close, assert_equal, as_tf, assert_tf, assert_true,
                                     tf_name)


def _value(outcome, what):
    """The value of one harness outcome, or a failure that says what the op did instead."""
    if type(outcome) is not dict:
        raise CheckFailed(f"{what}: the grader's harness got no answer for it.")
    if "value" in outcome:
        return outcome["value"]
    if "error" in outcome:
        raise CheckFailed(f"{what} raised {outcome['error']} (a kernel registered for DEVICE_CPU, for float and double?).")
    raise CheckFailed(f"{what}: the process running your kernel crashed ({outcome.get('crashed')}).")


def _group(got, key, what):
    part = got.get(key) if type(got) is dict else None
    if type(part) is dict and "crashed" in part:
        raise CheckFailed(f"{what}: the process running your kernel crashed ({part['crashed']}).")
    if type(part) is not list:
        raise CheckFailed(f"{what}: the grader's harness got no answer.")
    return part


def _scored(credit, parts):
    """Partial credit over (weight, check) parts; the first failure's message is the test's."""
    earned, first = 0.0, None
    for weight, fn in parts:
        try:
            fn()
            earned += weight
        except CheckFailed as e:
            first = first or e
    credit.award(earned / sum(w for w, _ in parts))
    if first is not None:
        raise first


@pytest.mark.points(22)
def test_ops_as_the_grader_builds_them(student, probes, rng, helpers, credit):
    """KitSilu and KitLogSumExp compiled by the grader from op_source() and called on fresh inputs: values
    (random shapes, dtypes, beta; rows near +-1000), traced shapes, and InvalidArgument for bad inputs"""
    plain, big = [], []
    for dtype in (torch.float32, torch.float64):
        for _ in range(3):
            beta = round(float(torch.rand((), generator=rng)) * 3 + 0.25, 3)
            plain.append(("silu", torch.randn(helpers.random_shape(rng, 0), generator=rng, dtype=dtype) * 4, beta))
            plain.append(("lse", torch.randn(helpers.random_shape(rng), generator=rng, dtype=dtype) * 3))
        shift = helpers.randint(rng, 300, 1000) * (1 if helpers.randint(rng, 0, 1) else -1)
        big.append(("lse", torch.randn(3, helpers.randint(rng, 2, 9), generator=rng, dtype=dtype) + shift))
        big.append(("lse", torch.full((2, 1, helpers.randint(rng, 1, 6)), float(-shift), dtype=dtype)))
    d = helpers.randint(rng, 2, 9)
    shapes = [("shape", "lse", [None, d, None]), ("shape", "lse", [helpers.randint(rng, 1, 5), d]), ("shape", "lse", [None]),
              ("shape", "silu", [None, d]), ("shape", "lse", [])]
    errors = [("lse", torch.tensor(float(d))), ("lse", torch.zeros(helpers.randint(rng, 1, 4), 0))]
    cases = plain + big
    got = probes.kit_build(student, cases=cases, errors=errors, shapes=shapes)
    assert_true(type(got) is dict and "error" not in got,
                f"The grader compiled the source op_source() returns on its own and could not use it: {got.get('error') if type(got) is dict else got}")

    def values(kind):
        out = _group(got, "out", "the ops on valid inputs")
        for case, outcome in zip(plain, out):
            if case[0] != kind:
                continue
            x = case[1]
            if kind == "silu":
                what = f"KitSilu(beta={case[2]}) of a {tf_name(x.dtype)} tensor of shape {tuple(x.shape)}"
                assert_tf(as_tf(_value(outcome, what)), as_tf(helpers.silu(x, case[2])), name=what)
            else:
                what = f"KitLogSumExp of a {tf_name(x.dtype)} tensor of shape {tuple(x.shape)}"
                assert_tf(as_tf(_value(outcome, what)), as_tf(torch.logsumexp(x, -1)), name=what)

    def stable():
        out = _group(got, "out", "the ops on valid inputs")
        for (_, x), outcome in zip(big, out[len(plain):]):
            what = f"KitLogSumExp of a {tf_name(x.dtype)} tensor of shape {tuple(x.shape)} with values near {x.mean().item():.0f}"
            assert_tf(as_tf(_value(outcome, what)), as_tf(torch.logsumexp(x, -1)), name=what)

    def traced():
        out = _group(got, "shapes", "the shape functions")
        assert_true(len(out) == len(shapes), "The grader's harness got no answer for every traced shape.")
        want = [[None, d], [shapes[1][2][0]], [], [None, d]]
        for case, outcome, w in zip(shapes, out, want):
            what = f"the static shape of {'KitLogSumExp' if case[1] == 'lse' else 'KitSilu'} traced for an input of shape {case[2]}"
            assert_equal(_value(outcome, what), w, name=what)
        assert_equal(out[4].get("error", out[4].get("crashed")) if type(out[4]) is dict else out[4], "ValueError",
                     name="the exception tracing KitLogSumExp for a scalar (rank 0) input raises (the shape function's rank check)")

    def refused():
        out = got.get("errors") if type(got) is dict else None
        assert_true(type(out) is list and len(out) == 2, "The grader's harness got no answer for the inputs the kernel must refuse.")
        for outcome, what in zip(out, ("a scalar", f"a tensor of shape {tuple(errors[1][1].shape)} (an empty last dimension)")):
            if type(outcome) is dict and "crashed" in outcome:
                raise CheckFailed(f"KitLogSumExp of {what} crashed the process running it ({outcome['crashed']}): refuse it with OP_REQUIRES.")
            assert_equal(outcome.get("error") if type(outcome) is dict else outcome, "InvalidArgumentError",
                         name=f"the exception KitLogSumExp raises (eagerly, in the kernel) for {what}")

    _scored(credit, [(8, lambda: values("silu")), (8, lambda: values("lse")), (4, stable), (5, traced), (5, refused)])


@pytest.mark.points(2)
def test_notebook_builds_its_library(student, probes, rng, helpers, credit):
    """build_op_library(op_source()) in the notebook gives working kit_silu and kit_log_sum_exp; a second build is
    compiled in a fresh folder (its own library, not the first one again), and a failed compile raises RuntimeError
    with the compiler's messages"""
    x = torch.randn(helpers.random_shape(rng, 2), generator=rng, dtype=torch.float64) * 3
    beta = round(float(torch.rand((), generator=rng)) * 2 + 0.5, 3)
    got = student(probes.notebook_ops, x, beta)
    assert_close(got, {"silu": helpers.silu(x, beta), "lse": torch.logsumexp(x, -1)},
                 name=f"the notebook's kit_ops on a {tuple(x.shape)} float64 input (beta = {beta})")
    credit.award(0.5)
    marker = f"kit_build_marker_{helpers.randint(rng, 1000, 9999)}"
    built = student(probes.build_library, marker)
    assert_true(type(built) is dict and type(built.get("ops")) is list, f"build_op_library gave no answer ({type(built).__name__}).")
    assert_true(not built["ops"],
                f"build_op_library on a second source that registers no op returned a library with {built['ops']}: it "
                "loaded the first build's library again (TensorFlow keeps one library per path). Write each build into a "
                "fresh temporary folder (tempfile.mkdtemp()).")
    failed = built.get("failed")
    assert_true(type(failed) is dict, "build_op_library on a source g++ refuses (#error) returned instead of raising "
                                      "RuntimeError: check the compiler's return code.")
    assert_true(failed.get("runtime_error") is True,
                f"build_op_library on a source g++ refuses raised {failed.get('type')!r}, expected a RuntimeError "
                "holding the compiler's messages.")
    message = failed.get("message")
    assert_true(type(message) is str and marker in message,
                "build_op_library on a source g++ refuses raised a RuntimeError without the compiler's messages: put g++'s "
                "stderr (the lines saying error: ...) in it.")
    credit.award(1.0)
