import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal


@pytest.mark.points(2)
@pytest.mark.hint("tf.function(kit_ops.kit_log_sum_exp, input_signature=[tf.TensorSpec([None, None], tf.float32)]).")
def test_lse_graph_known(student, probes):
    """make_lse_graph's function on two shapes, traced once"""
    xs = [torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[0.0, 0.0], [1000.0, 1000.0]])]
    got = student(probes.lse_graph, xs)
    assert_close(got, {"values": [torch.logsumexp(x, -1) for x in xs], "traces": 1, "static": [None]},
                 name="lse_graph on a [1, 3] and a [2, 2] input" + " (values, traces of lse_graph, its static output shape)")


@pytest.mark.points(2)
@pytest.mark.hint("call(x) returns kit_ops.kit_silu(x, beta=self.beta); get_config() returns {**super().get_config(), 'beta': ...}.")
def test_silu_layer_known(student, probes):
    """KitSiluLayer(beta=2.0) and a copy from its config"""
    x = torch.tensor([[-1.0, 0.0, 2.0]])
    want = x * torch.sigmoid(2.0 * x)
    assert_close(student(probes.silu_layer, 2.0, x), {"y": want, "beta": 2.0, "copy": want}, name="KitSiluLayer(beta=2.0)")
