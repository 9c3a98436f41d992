import pytest

from autograder.judge.checks import assert_close, assert_equal, assert_history, assert_true

# The probe trains a one-parameter net p (starting at 0) with SGD(lr=1) so that p grows by 1 per epoch,
# and its validation loss after epoch k is TABLE[k].
TABLE = [9.0, 5.0, 3.0, 4.0, 4.0, 1.0, 0.0, 0.0]


@pytest.mark.points(3)
@pytest.mark.hint("Columns epoch, train_loss, lr, val_loss; save a checkpoint when the latest epoch is the best, "
                  "stop when should_stop says so, and load the best checkpoint back at the end.")
def test_fit_book_example(student, probes):
    """fit on a scripted validation curve 5, 3, 4, 4, ... with patience 2"""
    got = student(probes.fit_scripted, TABLE, 7, 2)
    assert_equal(got["type"], "DataFrame", name="the type of fit's result")
    assert_history(got["table"], {"epoch": [1, 2, 3, 4], "train_loss": [0.0, -1.0, -2.0, -3.0],
                                  "lr": [1.0, 1.0, 1.0, 1.0], "val_loss": [5.0, 3.0, 4.0, 4.0]})
    assert_close(got["ckpt_p"], 2.0, name="the parameter saved in the checkpoint file")
    assert_close(got["p"], 2.0, name="the parameter after fit (the best epoch's weights must be restored)")


@pytest.mark.points(2)
@pytest.mark.hint("Without val_data there are no val_ columns, no checkpoint and no early stopping; with "
                  "verbose=True print one plain line per epoch starting with 'epoch <k>/<epochs>'.")
def test_fit_without_validation(student, probes):
    """fit without validation data runs every epoch and prints one line per epoch"""
    got = student(probes.fit_scripted, TABLE, 3, 1, with_val=False, verbose=True)
    assert_history(got["table"], {"epoch": [1, 2, 3], "train_loss": [0.0, -1.0, -2.0], "lr": [1.0, 1.0, 1.0]})
    assert_close(got["p"], 3.0, name="the parameter after fit (all 3 epochs, nothing to restore)")
    lines = [line for line in got["stdout"].splitlines() if line.startswith("epoch ")]
    assert_equal(len(lines), 3, name="the number of printed lines starting with 'epoch '")
    for k, line in enumerate(lines, 1):
        assert_true(line.startswith(f"epoch {k}/3 "), f"printed line {k} should start with 'epoch {k}/3 '.")
        assert_true("train_loss=" in line and "lr=" in line, f"printed line {k} should show train_loss=... and lr=...")
