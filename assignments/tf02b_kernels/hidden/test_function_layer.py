import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true


@pytest.mark.points(3)
def test_lse_graph_random(student, probes, rng, helpers):
    """make_lse_graph's function: KitLogSumExp's values on random 2-d shapes, one trace for all, output traced as [None]"""
    xs = [torch.randn(helpers.randint(rng, 1, 6), helpers.randint(rng, 1, 12), generator=rng) * 5 for _ in range(3)]
    got = student(probes.lse_graph, xs)
    assert_close(got, {"values": [torch.logsumexp(x, -1) for x in xs], "traces": 1, "static": [None]},
                 name=f"lse_graph on shapes {[tuple(x.shape) for x in xs]}" + " (values, traces of lse_graph, its static output shape)")


@pytest.mark.points(2)
def test_silu_layer_random(student, probes, rng, helpers):
    """KitSiluLayer(beta) computes silu with its beta, and from_config(get_config()) rebuilds the same layer"""
    for _ in range(2):
        beta = round(float(torch.rand((), generator=rng)) * 3 + 0.25, 3)
        x = torch.randn(helpers.random_shape(rng, 2, 3, 8), generator=rng) * 3
        got = student(probes.silu_layer, beta, x)
        want = helpers.silu(x, beta)
        assert_close(got, {"y": want, "beta": beta, "copy": want}, name=f"KitSiluLayer(beta={beta}) on a {tuple(x.shape)} input")


@pytest.mark.points(1)
def test_config_keeps_the_base_config(student, reference, probes, rng):
    """get_config() holds the base Layer's config (name, trainable, dtype) beside beta: every key of the reference's,
    and from_config keeps the layer's name"""
    beta = round(float(torch.rand((), generator=rng)) * 3 + 0.25, 3)
    got, want = student(probes.silu_layer_config, beta), reference(probes.silu_layer_config, beta)
    keys = got.get("config_keys") if type(got) is dict else None
    missing = sorted(set(want["config_keys"]) - set(keys)) if type(keys) is list else want["config_keys"]
    assert_true(not missing, f"KitSiluLayer's get_config() lacks {missing}: start from super().get_config() "
                             "(the base layer's name, trainable and dtype) and add beta.")
    assert_equal(got["clone_name_kept"], True, name="KitSiluLayer.from_config(layer.get_config()).name == layer.name")
