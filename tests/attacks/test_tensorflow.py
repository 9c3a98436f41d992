"""The attacks of tests/attacks/ that apply to TensorFlow, against the toy TensorFlow kit (tests/fixtures/tfkit),
graded as one class (with an honest copy of the master beside them) under the real sandbox:

* a lying tensor: a look-alike object (`numpy()`, `dtype`, `shape` and `__eq__` all saying "right") and a
  subclass of TF's variable type: neither crosses as a TensorFlow value, the test fails in words;
* comparisons patched in the notebook (`tf.debugging.assert_near`, `tf.math.equal`, `np.allclose`, ...):
  they live and die in the worker, values are compared on the trusted side;
* `tf.py_function` smuggling: a `tf.function` whose body calls back into Python to read the kit's hidden
  files, write outside its worker, reach the network and reseed every generator: it reaches nothing, and
  every later call is seeded again, so it changes no other result (its own honest answers keep their points);
* a huge value (80 MB, over the payload cap), a ragged tensor nested 40 levels deep, a forged TF frame
  claiming a million values over 16 bytes: decoded under the limits, that test `crashed` with a reason,
  every other test kept.

A point for *how* TensorFlow code is built (a `tf.function` that does not call back into Python, no Python
loop in a graph) cannot come from facts the worker reports: py_function runs any Python inside a graph and
the notebook can forge any fact; docs/security.md says where such evidence comes from.

Bubblewrap is required: without it this module FAILS (it does not skip)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from autograder.execute.sandbox import Bubblewrap
from tests.attacks.corpus import REPLY_FD
from tests.attacks.listener import Listener
from tests.nbfactory import edit
from tests.tfkit import MASTER, TF_KIT, TF_LOG, grade

FULL = 10.0

LOOKALIKE = '''
class EagerTensor:
    """Says it is the right answer in every way a check inside this process could ask."""
    def __init__(self, value):
        self._v = np.asarray(value)
        self.dtype, self.shape = tf.float32, tf.TensorShape(self._v.shape)
    def numpy(self):
        return self._v
    def __eq__(self, other):
        return True
EagerTensor.__module__ = "tensorflow.python.framework.ops"
'''

PATCH_COMPARISONS = '''
import torch
def _yes(*a, **k):
    return True
def _silent(*a, **k):
    return None
tf.debugging.assert_near = tf.debugging.assert_equal = tf.debugging.assert_all_finite = _silent
tf.math.equal = tf.equal = lambda a, b, *r, **k: tf.ones_like(tf.cast(a, tf.bool))
tf.experimental.numpy.allclose = np.allclose = np.array_equal = torch.allclose = torch.equal = _yes
np.testing.assert_allclose = np.testing.assert_array_equal = _silent
'''


def smuggler(marker: Path, port: int) -> str:
    """scale() as a tf.function whose body calls back into Python through tf.py_function."""
    hidden = TF_KIT / "assignments" / "tftoy" / "hidden" / "test_tf_hidden.py"
    return f'''
import os, random, socket
REACHED = []
def _smuggle(x):
    for path in ({str(MASTER)!r}, {str(hidden)!r}, "/proc/1/environ"):
        try:
            with open(path, "rb") as f:
                if b"AUTOGRADER_SECRET" in f.read() or "proc" not in path:
                    REACHED.append("read " + path)
        except OSError:
            pass
    try:
        with open({str(marker / "smuggled.txt")!r}, "w") as f:
            f.write("out")
        REACHED.append("wrote outside")
    except OSError:
        pass
    for host in ("127.0.0.1", {socket.gethostbyname(socket.gethostname())!r}):
        try:
            socket.create_connection((host, {port}), timeout=1).close()
            REACHED.append("connected to " + host)
        except OSError:
            pass
    tf.random.set_seed(12345); np.random.seed(12345); random.seed(12345)  # every later draw, if it lasted
    print("REACHED:", REACHED)
    return x

@tf.function
def scale(x):
    x = tf.py_function(_smuggle, [tf.cast(x, tf.float32)], tf.float32)
    return x * 2.0
'''


HUGE = "return tf.zeros([20_000_000])  # 80 MB, over the 64 MiB payload cap"
DEEP = (
    "return tf.RaggedTensor.from_nested_row_splits(tf.constant([1]), "
    "[tf.constant([0, 1], tf.int64)] * 40)  # 40 ragged levels"
)
FORGED = (
    REPLY_FD + "from autograder.execute import wire\nimport json, struct\n"
    "def rows(lists):\n"
    "    head = json.dumps({'blobs': [16], 'tree': {'t': 'tf', 'kind': 'Tensor', 'dtype': 'float32', "
    "'shape': [1000000], 'device': '', 'v': {'t': 'tensor', 'dtype': 'float32', 'shape': [1000000], "
    "'blob': 0}}}).encode()\n"
    "    body = struct.pack('>Q', len(head)) + head + bytes(16)\n"
    "    os.write(_reply_fd(), b'AGW1' + struct.pack('>Q', len(body)) + body)\n"
    "    return tf.ragged.constant(lists)"
)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    if not Bubblewrap.available():
        pytest.fail("bubblewrap is required: the TensorFlow attacks are graded in the real sandbox")
    tmp = tmp_path_factory.mktemp("tfattacks")
    marker = tmp / "marker"
    marker.mkdir()
    marker.chmod(0o777)  # writable by the worker's uid, were it reachable
    listener = Listener()
    subs = tmp / "subs"
    notebooks = [
        edit(MASTER, subs / "honest.ipynb"),
        edit(
            MASTER,
            subs / "lookalike.ipynb",
            insert={2: LOOKALIKE},
            replace={"return tf.cast(x, tf.float32) * 2.0": "return EagerTensor(np.asarray(x, np.float32) * 2)"},
        ),
        edit(
            MASTER,
            subs / "subclass.ipynb",
            replace={
                "return layer.kernel": (
                    "class Kernel(type(layer.kernel.value)):\n        pass\n"
                    "    return Kernel(layer.kernel.value.numpy())"
                )
            },
        ),
        edit(
            MASTER,
            subs / "patched.ipynb",
            insert={2: PATCH_COMPARISONS},
            replace={"return tf.cast(x, tf.float32) * 2.0": "return tf.cast(x, tf.float32) * 3.0"},
        ),
        edit(
            MASTER,
            subs / "smuggler.ipynb",
            replace={
                "def scale(x):\n    ### BEGIN SOLUTION\n    return tf.cast(x, tf.float32) * 2.0\n    ### END SOLUTION": smuggler(
                    marker, listener.port
                )
            },
        ),
        edit(MASTER, subs / "huge.ipynb", replace={"return tf.ragged.constant(lists)": HUGE}),
        edit(MASTER, subs / "deep.ipynb", replace={"return layer.kernel": DEEP}),
        edit(
            MASTER,
            subs / "forged.ipynb",
            replace={
                "def rows(lists):\n    ### BEGIN SOLUTION\n    return tf.ragged.constant(lists)\n    ### END SOLUTION": FORGED
            },
        ),
    ]
    try:
        run = grade(notebooks, tmp / "out", jobs=2)
    finally:
        listener.close()
    return {"results": run["results"], "marker": marker, "listener": listener, "tf_modules": run["tf_modules"]}


def _outcome(r: dict, test: str) -> list:
    return r["tests"][test]


def test_the_honest_copy_is_untouched(batch):
    honest = batch["results"]["honest"]
    assert (honest["status"], honest["score"]) == ("graded", FULL), honest
    assert batch["tf_modules"] == []  # the grader judged every attack without TensorFlow


def test_a_lying_tensor_is_no_tensor(batch):
    lookalike, subclass = batch["results"]["lookalike"], batch["results"]["subclass"]
    assert lookalike["score"] == FULL - 2 and subclass["score"] == FULL - 2, (lookalike, subclass)
    assert _outcome(lookalike, "test_scale") == [
        "failed",
        "scale(x) should be a tf.Tensor of dtype float32 and shape (2, 3), but it is a EagerTensor.",
    ]
    outcome, message = _outcome(subclass, "test_initial_kernel")
    assert (
        outcome == "failed"
        and message.startswith("the kernel should be a tf.Variable")
        and "Kernel (a subclass of tf.Variable)" in message
    ), message


def test_patched_comparisons_change_nothing(batch):
    patched = batch["results"]["patched"]
    assert patched["score"] <= FULL - 2, patched  # (patching tf.equal also breaks Keras's own fit: its loss)
    outcome, message = _outcome(patched, "test_scale")
    assert outcome == "failed" and "values differ" in message and "got 3, expected 2" in message, message


def test_py_function_smuggling_reaches_nothing_and_changes_no_other_result(batch):
    smuggler = batch["results"]["smuggler"]
    assert (smuggler["status"], smuggler["score"]) == ("graded", FULL), smuggler  # its honest answers, nothing more
    assert "REACHED: []" in smuggler["stdout"], smuggler["stdout"][-2000:]
    assert list(batch["marker"].iterdir()) == [] and batch["listener"].peers == []
    # the reseeding inside the graph lasted only until the next call was seeded again
    assert _outcome(smuggler, "test_noisy_draws_like_the_reference")[0] == "passed"


@pytest.mark.parametrize(
    "name, test, reason",
    [
        ("huge", "test_ragged_rows", "MiB limit"),
        ("deep", "test_initial_kernel", "more than 32 dimensions"),
        ("forged", "test_ragged_rows", "claims shape [1000000]"),
    ],
)
def test_a_huge_deep_or_forged_value_costs_its_test_alone(batch, name, test, reason):
    r = batch["results"][name]
    outcome, message = _outcome(r, test)
    assert outcome == "crashed" and reason in message, (outcome, message)
    assert r["status"] == "crashed" and r["score"] == FULL - 2, r
    assert all(o == "passed" for t, (o, _) in r["tests"].items() if t != test), r["tests"]


def test_no_tensorflow_chatter_reaches_a_result(batch):
    for name, r in batch["results"].items():
        text = r["stdout"] + r["stderr"] + str(r["tests"]) + str(r["cells"]) + r["message"]
        assert not [w for w in TF_LOG if w in text], (name, text[-2000:])
