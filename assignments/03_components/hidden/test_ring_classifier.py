import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true


# the accuracy difference between two correct runs on the same data: most lie within 0.03, a stuck start's
# tail goes further (the second seed below covers it; measured in docs/writing-tests.md)
MARGIN = 0.055


@pytest.mark.points(3)
def test_adam_state_accumulates(student, reference, probes, rng):
    """model.optimizer is one Adam object whose state counts every train_step (and the losses agree with the reference)"""
    X, Y = probes.rings(64, 64, rng)
    weights = [torch.randn(shape, generator=rng) * 0.5 for shape in ((4, 2), (4,), (8, 4), (8,), (1, 8), (1,))]
    for k in (1, 5):
        got = student(probes.ring_optimizer_state, X, Y, k, weights)
        assert_close(got["losses"], reference(probes.ring_optimizer_state, X, Y, k, weights)["losses"],
                     rtol=1e-5, atol=1e-6, name=f"the losses of {k} train_step calls from the same starting weights")
        assert_equal(got["n_distinct_optimizers"], 1, name="the number of different optimizer objects model.optimizer gave")
        assert_equal(got["steps"], [float(k)] * 6, name=f"state[p]['step'] of the six parameters after {k} train_step calls")
        assert_equal(got["loss_types"], ["float"] * k, name="the types train_step returned")


@pytest.mark.points(4)
def test_heldout_accuracy(student, reference, probes, rng):
    """trained on fresh rings, the classifier's held-out accuracy is within a margin of the reference's"""
    X, Y = probes.rings(500, 500, rng)
    Xv, Yv = probes.rings(1000, 1000, rng)
    # three seeds: 1 draw in 50 fell out of the margin on its first, and three independent draws bound the rate under
    # 1e-3 even at that rate's 95 % upper bound (docs/writing-tests.md, "False failures")
    seeds = [int(s) for s in torch.randint(0, 1000, (3,), generator=rng)]
    for seed in seeds:
        got = student(probes.ring_classifier_fit, X, Y, Xv, {"seed": seed})
        exp = reference(probes.ring_classifier_fit, X, Y, Xv, {"seed": seed})
        assert_true(not got["training"], "train_ring_classifier should return the model in eval mode")
        logits, pred = got["logits"], got["pred"]
        assert_true(type(logits) is torch.Tensor and tuple(logits.shape) == (2000, 1), "forward should return logits of shape [N, 1]")
        assert_true(type(pred) is torch.Tensor and tuple(pred.shape) == (2000, 1), "predict should return a tensor of shape [N, 1]")
        assert_true(bool(((logits > 0).float() == pred.float()).float().mean() > 0.99),
                    "predict should be 1 exactly where sigmoid(logit) > 0.5 (forward returns logits, not probabilities)")
        acc = float((pred.float() == Yv).float().mean())
        ref_acc = float((exp["pred"].float() == Yv).float().mean())
        # judged against the reference on the same data and seed; MARGIN covers a correct recipe whose random
        # draws differ from the reference's. The 2-4-8-1 net sometimes starts stuck, so such a recipe can fall
        # out of the margin once; a second seed makes that a second, independent draw (docs/writing-tests.md)
        need = ref_acc - MARGIN
        if acc >= need:
            break
    assert_true(acc >= need, f"held-out accuracy {acc:.3f} is below {need:.3f} (the reference reached {ref_acc:.3f} "
                             f"on the same data with the same seed, minus a margin of {MARGIN}), with three different seeds")
