import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true


@pytest.mark.points(2)
def test_construction(student, reference, probes):
    """the constructor, compile() and the defaults (Adam(lr=1e-3), automatic device) agree with the reference"""
    for how in ("init", "compile", "defaults"):
        got, want = student(probes.construct, how), reference(probes.construct, how)
        assert_close(got, want, name=f"the attributes of a model built with {how!r}")
    for cuda in (True, False):  # as on a machine with CUDA and on one without, whatever the grader has
        got = student(probes.construct, "defaults", cuda)
        auto = "cuda" if cuda else "cpu"
        assert_true(isinstance(got["device"], torch.device) and got["device"].type == auto,
                    f"with device=None the model should choose {auto!r} on a machine {'with' if cuda else 'without'} CUDA, "
                    f"but chose {got['device']!r}.")


@pytest.mark.points(3)
def test_evaluate_random(student, reference, probes, rng, device, draw):
    """evaluate agrees with the reference, twice in a row, without touching the weights"""
    for n, d, h, bs in [(19, 3, 4, 5), (8, 2, 6, 8), (33, 5, 3, 10)]:
        state = draw.state(rng, d, h, 1)
        X, Y = torch.randn(n, d, generator=rng), torch.randn(n, 1, generator=rng)
        got = student(probes.evaluate, state, X, Y, bs, device)
        want = reference(probes.evaluate, state, X, Y, bs, "cpu")
        for which in ("first", "second"):
            assert_close(got[which], want[which], rtol=1e-5, atol=1e-6, name=f"evaluate's result ({which} call, {n} samples)")
        assert_close(got["after"], state, name="the weights after evaluate")
        assert_equal([[t, b] for t, _, b in got["calls"]], [[t, b] for t, _, b in want["calls"]],
                     name="(net.training, batch size) at each forward")


@pytest.mark.points(3)
def test_predict_random(student, reference, probes, rng, device, draw):
    """predict agrees with the reference for every kind of batch; result detached on the CPU"""
    for n, d, h, o, bs in [(13, 3, 5, 1, 4), (6, 2, 3, 3, 6), (25, 4, 4, 2, 7)]:
        state, X = draw.state(rng, d, h, o), torch.randn(n, d, generator=rng)
        for form in ("x_loader", "xy_loader", "tensors"):
            got = student(probes.predict, state, X, bs, form, device)
            want = reference(probes.predict, state, X, bs, form, "cpu")
            assert_close(got.get("out"), want["out"], rtol=1e-5, atol=1e-6,
                         name=f"predict on {n} samples of dim {d} with batches of the kind {form!r}")
            assert_equal(got.get("device"), "cpu", name="the device of predict's result")
            assert_equal(got.get("requires_grad"), False, name="whether predict's result requires grad")
            assert_equal(str(got.get("net_device")).split(":")[0], device, name="the device of the net")
            meta = student(probes.predict, state, X, bs, form, "meta")  # a stand-in GPU: misplaced tensors raise
            assert_close(meta, reference(probes.predict, state, X, bs, form, "meta"),
                         name=f"predict on 'meta' with batches of the kind {form!r} (the result's shape, dtype and device)")


@pytest.mark.points(2)
def test_summary(student, reference, probes):
    """summary agrees with the reference, with and without frozen parameters"""
    for freeze in (False, True):
        got, want = student(probes.summary, freeze), reference(probes.summary, freeze)
        what = "with a frozen first layer" if freeze else "with every parameter trainable"
        assert_equal(got["columns"], want["columns"], name=f"the columns of summary() {what}")
        assert_close(got["table"], want["table"], name=f"the summary table {what}")
        assert_equal(got["printed"].strip().splitlines()[-1:], want["printed"].strip().splitlines()[-1:],
                     name=f"the last line printed by summary() {what}")
