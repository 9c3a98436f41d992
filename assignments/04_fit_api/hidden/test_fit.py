import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_history, assert_true


def _table(rng, n):
    """A scripted validation curve: multiples of 1/4 (exact in float32), with plateaus and bumps."""
    return [float(v) / 4 for v in torch.randint(0, 24, (n,), generator=rng)]


def _expected_run(values, patience, mode):
    """Trusted simulation of the contract: rows kept, and the index of the epoch whose weights are restored."""
    better = (lambda a, b: a < b) if mode == "min" else (lambda a, b: a > b)
    best = 0
    for k in range(len(values)):
        if better(values[k], values[best]):
            best = k
        if patience is not None and (k + 1) - best > patience:
            return k + 1, best
    return len(values), best


def _same_history(got, want, what):
    assert_equal(got["type"], "DataFrame", name=f"the type of fit's result ({what})")
    assert_history(got["table"], want["table"])


@pytest.mark.points(3)
def test_history_matches_reference(student, reference, probes, rng, draw):
    """the history (columns, order, values) and final weights agree with the reference"""
    for n_tr, n_va, d, h, o, bs, lr, mom in [(30, 11, 3, 5, 1, 8, 0.1, 0.5), (17, 9, 2, 4, 2, 4, 0.05, 0.0)]:
        state, data = draw.state(rng, d, h, o), draw.split(rng, n_tr, n_va, d, o)
        args = (state, *data, bs, 4, lr, mom)
        got, want = student(probes.fit_mlp, *args), reference(probes.fit_mlp, *args)
        what = f"{n_tr} training samples in batches of {bs}"
        _same_history(got, want, what)
        assert_close(got["state"], want["state"], rtol=1e-4, atol=1e-6, name=f"the weights after fit ({what})")


@pytest.mark.points(2)
def test_history_without_validation(student, reference, probes, rng, draw):
    """without val_data the history has only epoch, train_*, lr columns and every epoch runs"""
    state, (Xtr, Ytr, Xva, Yva) = draw.state(rng, 3, 4, 1), draw.split(rng, 21, 1, 3, 1)
    args = (state, Xtr, Ytr, Xva, Yva, 5, 5, 0.1)
    got = student(probes.fit_mlp, *args, patience=1, with_val=False)
    want = reference(probes.fit_mlp, *args, patience=1, with_val=False)
    assert_equal(got["columns"], ["epoch", "train_loss", "train_pmean", "lr"], name="the history's columns without val_data")
    _same_history(got, want, "without val_data")
    assert_close(got["state"], want["state"], rtol=1e-4, atol=1e-6, name="the weights after fit without val_data")


@pytest.mark.points(3)
def test_lr_schedule(student, reference, probes, rng, draw):
    """the scheduler steps once per epoch and the lr column holds the rate used in that epoch"""
    for lr, gamma, epochs in [(0.1, 0.5, 4), (0.2, 0.8, 3)]:
        state, data = draw.state(rng, 2, 3, 1), draw.split(rng, 14, 6, 2, 1)
        args = (state, *data, 3, epochs, lr, 0.0, gamma)
        got, want = student(probes.fit_mlp, *args), reference(probes.fit_mlp, *args)
        assert_history(got["table"], {"lr": [lr * gamma ** k for k in range(epochs)]}, columns_in_order=False,
                       rtol=1e-6, atol=1e-9)
        assert_close(got["final_lr"], lr * gamma ** epochs, rtol=1e-6, atol=1e-9,
                     name=f"the optimizer's lr after {epochs} epochs of StepLR(step_size=1, gamma={gamma})")
        _same_history(got, want, f"with StepLR(gamma={gamma})")
        assert_close(got["state"], want["state"], rtol=1e-4, atol=1e-6, name="the weights after fit with a scheduler")


@pytest.mark.points(4)
def test_early_stopping_scripted(student, reference, probes, rng):
    """fit stops at the right epoch on scripted validation curves (min and max modes, 1 or 2 batches per epoch)"""
    cases = [("val_loss", "min", 1, False), ("val_loss", "min", 2, False), ("val_score", "max", 1, True),
             ("val_loss", "min", 1, False), ("val_score", "max", 2, True)]
    for i, (monitor, mode, batches, score) in enumerate(cases):
        patience, epochs = 1 + i % 3, 9
        table = _table(rng, 2 * epochs + 2)
        got = student(probes.fit_scripted, table, epochs, patience, mode, monitor, batches, score)
        want = reference(probes.fit_scripted, table, epochs, patience, mode, monitor, batches, score)
        values = [table[k * batches] for k in range(1, epochs + 1)]
        rows, _ = _expected_run(values, patience, mode)
        what = f"monitor={monitor!r}, mode={mode!r}, patience={patience}"
        assert_equal(len(got["table"].get("epoch", [])), rows, name=f"the number of epochs run ({what})")
        assert_history(got["table"], want["table"])


@pytest.mark.points(3)
def test_restore_best_and_checkpoint(student, reference, probes, rng):
    """the best epoch's weights are in the checkpoint file and restored at the end of fit"""
    for i, (mode, monitor, score, patience) in enumerate([("min", "val_loss", False, 3), ("max", "val_score", True, 2),
                                                          ("min", "val_loss", False, None)]):
        epochs = 8
        table = _table(rng, epochs + 1)
        table[epochs] = 100.0 if mode == "min" else -100.0   # the last epoch is never the best
        got = student(probes.fit_scripted, table, epochs, patience, mode, monitor, 1, score)
        values = table[1:epochs + 1]
        _, best = _expected_run(values, patience, mode)
        what = f"mode={mode!r}, patience={patience}"
        assert_close(got["ckpt_p"], float(best + 1), name=f"the parameter saved in the checkpoint file ({what})")
        assert_close(got["p"], float(best + 1), name=f"the parameter after fit, which should be the best epoch's ({what})")


@pytest.mark.points(1)
def test_default_patience(student, probes):
    """the default patience is 5"""
    table = [9.0, 4.0, 3.0, 2.0, 2.5, 2.5, 3.0, 2.25, 3.0, 2.0, 1.0, 0.5, 0.25]
    got = student(probes.fit_scripted, table, 12, None, patience_default=True)
    assert_equal(len(got["table"].get("epoch", [])), 8, name="the number of epochs run with the default patience")
    assert_close(got["p"], 3.0, name="the parameter restored after fit")


@pytest.mark.points(1)
def test_missing_monitor(student, probes):
    """with monitor='val_loss' and no val_data: no checkpoint, no early stopping"""
    got = student(probes.fit_scripted, [0.0] * 8, 6, 1, with_val=False)
    assert_equal(len(got["table"].get("epoch", [])), 6, name="the number of epochs run without val_data")
    assert_equal(got["ckpt_p"], None, name="the checkpoint file (there should be none)")
    assert_close(got["p"], 6.0, name="the parameter after fit")


@pytest.mark.points(2)
def test_metrics_reset_each_epoch(student, probes):
    """metric columns belong to their epoch alone (metrics reset before every pass)"""
    # preds are p: during training epoch k they are k-1, at validation k; MeanMetric averages them.
    got = student(probes.fit_scripted, [0.0] * 6, 5, None, mean=True)
    assert_history(got["table"], {"epoch": [1, 2, 3, 4, 5], "train_loss": [0.0, -1.0, -2.0, -3.0, -4.0],
                                  "train_mean": [0.0, 1.0, 2.0, 3.0, 4.0], "lr": [1.0] * 5,
                                  "val_loss": [0.0] * 5, "val_mean": [1.0, 2.0, 3.0, 4.0, 5.0]})


@pytest.mark.points(2)
def test_resume_from_checkpoint(student, reference, probes, rng, draw):
    """load_ckpt restores a checkpoint into another model, and training continues from it"""
    state, other, data = draw.state(rng, 3, 4, 1), draw.state(rng, 3, 4, 1), draw.split(rng, 16, 8, 3, 1)
    args = (state, other, *data, 4, 3, 2, 0.1)
    got, want = student(probes.resume, *args), reference(probes.resume, *args)
    assert_close(got["b_loaded"], got["a_state"], name="the weights loaded by load_ckpt (vs the best weights of the first model)")
    _same_history(got, want, "after resuming")
    assert_close(got["b_final"], want["b_final"], rtol=1e-4, atol=1e-6, name="the weights after resuming training")


@pytest.mark.points(1)
def test_gradient_clipping(student, reference, probes, rng, draw):
    """fit with clip_grad_norm agrees with the reference"""
    state, (Xtr, Ytr, Xva, Yva) = draw.state(rng, 3, 5, 1), draw.split(rng, 20, 6, 3, 1)
    args = (state, Xtr, Ytr * 10, Xva, Yva * 10, 5, 3, 0.5)
    got, want = student(probes.fit_mlp, *args, clip=0.05), reference(probes.fit_mlp, *args, clip=0.05)
    _same_history(got, want, "with clip_grad_norm")
    assert_close(got["state"], want["state"], rtol=1e-4, atol=1e-6, name="the weights after fit with clip_grad_norm")


@pytest.mark.points(1)
def test_default_optimizer(student, reference, probes, rng, draw):
    """fit with the default optimizer agrees with the reference"""
    state, data = draw.state(rng, 2, 4, 1), draw.split(rng, 12, 5, 2, 1)
    args = (state, *data, 4, 3, 0.0)
    got, want = student(probes.fit_mlp, *args, optimizer="default"), reference(probes.fit_mlp, *args, optimizer="default")
    _same_history(got, want, "with the default optimizer")
    assert_close(got["state"], want["state"], rtol=1e-4, atol=1e-6, name="the weights after fit with the default optimizer")


@pytest.mark.points(1)
def test_device_after_fit(student, reference, probes, rng, device, draw):
    """after fit the net stays on the training device and predict returns CPU tensors"""
    state = draw.state(rng, 3, 4, 2)
    X, Y = torch.randn(10, 3, generator=rng), torch.randn(10, 2, generator=rng)
    got = student(probes.fit_predict_device, state, X, Y, 4, device)
    want = reference(probes.fit_predict_device, state, X, Y, 4, "cpu")
    assert_equal(got["param_device"].split(":")[0], device, name="the device of the net after fit")
    assert_equal(got["pred_device"], "cpu", name="the device of predict's result")
    assert_close(got["pred"], want["pred"], rtol=1e-4, atol=1e-5, name="predict's result after fit")
    # on 'meta', a stand-in GPU: a net, batch or checkpoint left on the CPU raises there as on a GPU
    got, want = student(probes.fit_predict_device, state, X, Y, 4, "meta"), reference(probes.fit_predict_device, state, X, Y, 4, "meta")
    assert_equal(got["param_device"], "meta", name="the device of the net after fit on 'meta'")
    assert_equal(got["pred_device"], "cpu", name="the device of predict's result after fit on 'meta'")
    assert_close(got["pred"], want["pred"], name="predict's result after fit on 'meta' (zeros of the right shape)")


@pytest.mark.points(1)
def test_progress_lines(student, reference, probes, rng, draw):
    """verbose=True prints one plain line per epoch; verbose=False prints nothing"""
    state, data = draw.state(rng, 2, 3, 1), draw.split(rng, 8, 4, 2, 1)
    got = student(probes.fit_mlp, state, *data, 4, 3, 0.1, verbose=True)
    _same_history(got, reference(probes.fit_mlp, state, *data, 4, 3, 0.1, verbose=True), "with verbose=True")
    lines = [line for line in got["stdout"].splitlines() if line.startswith("epoch ")]
    assert_equal(len(lines), 3, name="the number of printed lines starting with 'epoch '")
    for k, line in enumerate(lines, 1):
        assert_true(line.startswith(f"epoch {k}/3 "), f"printed line {k} should start with 'epoch {k}/3 '.")
        for col in ("train_loss=", "train_pmean=", "lr=", "val_loss=", "val_pmean="):
            assert_true(col in line, f"printed line {k} should show {col}...")
    assert_true("\r" not in got["stdout"], "the progress display should not use carriage returns.")
    quiet = student(probes.fit_mlp, state, *data, 4, 3, 0.1, verbose=False)
    assert_equal(quiet["stdout"], "", name="what fit(..., verbose=False) prints")
