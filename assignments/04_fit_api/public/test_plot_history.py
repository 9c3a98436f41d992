import pytest

from autograder.judge.checks import assert_close


@pytest.mark.points(2)
@pytest.mark.hint("One Axes, two lines (train_<metric> then val_<metric>) against the epoch column, labelled with "
                  "the column names, with a legend and axis labels; return the Figure.")
def test_plot_loss(student, probes):
    """plot_history of a 3-epoch history"""
    columns = {"epoch": [1, 2, 3], "train_loss": [3.0, 2.0, 1.5], "lr": [0.1, 0.1, 0.1], "val_loss": [3.5, 2.5, 2.0]}
    got = student(probes.plot, columns, "loss")
    assert_close(got, {"type": "matplotlib.figure.Figure", "axes": [{
        "lines": [{"label": "train_loss", "x": [1.0, 2.0, 3.0], "y": [3.0, 2.0, 1.5]},
                  {"label": "val_loss", "x": [1.0, 2.0, 3.0], "y": [3.5, 2.5, 2.0]}],
        "xlabel": "epoch", "ylabel": "loss", "legend": True}]}, name="the figure")
