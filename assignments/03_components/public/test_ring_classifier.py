import pytest
import torch

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("fc1 = Linear(2, 4), fc2 = Linear(4, 8), fc3 = Linear(8, 1); loss_fn = nn.BCEWithLogitsLoss(); "
                  "the optimizer is torch.optim.Adam over all parameters.")
def test_structure(student, probes):
    """RingClassifier has the 2-4-8-1 layers, BCEWithLogitsLoss and Adam"""
    got = student(probes.ring_classifier_structure)
    assert_equal(got["params"], {"fc1.weight": (4, 2), "fc1.bias": (4,), "fc2.weight": (8, 4), "fc2.bias": (8,),
                                 "fc3.weight": (1, 8), "fc3.bias": (1,)}, name="the parameters and their shapes")
    assert_equal(got["loss_class"], "torch.nn.modules.loss.BCEWithLogitsLoss", name="loss_fn's class")
    assert_equal(got["optimizer_class"], "torch.optim.adam.Adam", name="the optimizer's class")
    assert_equal(got["n_opt_params"], 6, name="the number of parameters the optimizer updates")


@pytest.mark.points(2)
@pytest.mark.hint("forward returns logits; predict thresholds the probability at 0.5; train every batch of every epoch.")
def test_accuracy(student, probes):
    """trained on 2000 ring points, the classifier reaches 0.87 accuracy on held-out rings"""
    X, Y = probes.rings(1000, 1000, torch.Generator().manual_seed(0))
    Xv, Yv = probes.rings(1000, 1000, torch.Generator().manual_seed(1))
    # the 2-4-8-1 net sometimes starts stuck: a correct recipe whose random draws differ from the master's can
    # land below the bar once in ~40 runs, so it gets a second run with another seed (docs/writing-tests.md)
    for kwargs in ({}, {"seed": 1}, {"seed": 2}):  # three starts: docs/writing-tests.md, "False failures"
        got = student(probes.ring_classifier_fit, X, Y, Xv, kwargs)
        assert_true(type(got["pred"]) is torch.Tensor and tuple(got["pred"].shape) == (2000, 1),
                    f"predict(x) on 2000 held-out points should return a tensor of shape [2000, 1], but returned "
                    f"{list(got['pred'].shape) if type(got['pred']) is torch.Tensor else type(got['pred']).__name__}")
        acc = float((got["pred"].float() == Yv).float().mean())
        # 0.87: the master's recipe averages 0.917 over draws of data and seed; 1 run in 80 fell below it
        if acc >= 0.87:
            break
    assert_true(acc >= 0.87, f"held-out accuracy {acc:.3f} on rings(1000, 1000, seed 1) after training on "
                             "rings(1000, 1000, seed 0) with train_ring_classifier(X, Y), and again with seeds 1 and 2, "
                             "is below 0.87")
