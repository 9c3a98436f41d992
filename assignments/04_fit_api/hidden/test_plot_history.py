import pytest
import torch

from autograder.judge.checks import assert_close


def _history(rng, epochs, metric, with_val=True):
    cols = {"epoch": list(range(1, epochs + 1)), "train_loss": torch.rand(epochs, generator=rng).tolist()}
    if metric != "loss":
        cols[f"train_{metric}"] = torch.rand(epochs, generator=rng).tolist()
    cols["lr"] = [0.01] * epochs
    if with_val:
        cols["val_loss"] = torch.rand(epochs, generator=rng).tolist()
        if metric != "loss":
            cols[f"val_{metric}"] = torch.rand(epochs, generator=rng).tolist()
    return cols


def _expected(cols, metric):
    xs = [float(e) for e in cols["epoch"]]
    lines = [{"label": f"{s}_{metric}", "x": xs, "y": [float(v) for v in cols[f"{s}_{metric}"]]}
             for s in ("train", "val") if f"{s}_{metric}" in cols]
    return {"type": "matplotlib.figure.Figure",
            "axes": [{"lines": lines, "xlabel": "epoch", "ylabel": metric, "legend": True}]}


@pytest.mark.points(3)
def test_plot_random_histories(student, reference, probes, rng):
    """plot_history draws the right two curves for random histories and metrics"""
    for epochs, metric in [(5, "loss"), (3, "acc"), (8, "mae"), (1, "loss")]:
        cols = _history(rng, epochs, metric)
        got = student(probes.plot, cols, metric)
        assert_close(got, _expected(cols, metric), name=f"the figure of {metric!r} over {epochs} epochs")
        assert_close(got, reference(probes.plot, cols, metric), name=f"the figure of {metric!r} (vs the reference)")


@pytest.mark.points(1)
def test_plot_without_validation(student, probes, rng):
    """plot_history draws only the training curve when there is no validation column"""
    cols = _history(rng, 4, "acc", with_val=False)
    assert_close(student(probes.plot, cols, "acc"), _expected(cols, "acc"), name="the figure of a history without val_ columns")
