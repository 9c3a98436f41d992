"""01_tensors: "no Python loops" is judged by the CPU time the grader reads from outside the worker, so a loop
hidden from a watcher inside the worker earns nothing a plain loop does not.

The honest plain-loop notebook (the master with pick, one_hot, scatter_sum, pairwise_distances and
nearest_neighbor written as Python loops) sets the bar: every attack below is that notebook plus a trick
that defeated the old in-worker cost probe (code compiled under a file name that is not a cell's, the trace
switched off, torch's function modes disabled), and `broadcast_shape` answered by `np.broadcast` bound as a
default argument ("apply the rules yourself" is advice now, worth no points either way).  Each must earn no
more than the honest loops, which lose the no-loop points.
"""

from __future__ import annotations

import pytest

from tests.attacks.evidence import assert_no_more_than_honest, grade_attacks, guarded, master_code, points

ASSIGNMENT = "01_tensors"
LOOP_TESTS = ("test_no_python_loops", "test_pairwise_distances_no_loops")

LOOPS = {
    "return scores.gather(1, labels.unsqueeze(1)).squeeze(1)": "return torch.stack([scores[i, labels[i]] for i in range(scores.shape[0])])",
    "    return out.scatter_(1, labels.unsqueeze(1), 1.0)": "    for i in range(labels.shape[0]):\n        out[i, labels[i]] = 1.0\n    return out",
    "    return out.scatter_add_(0, index, values)": "    for i in range(values.shape[0]):\n        out[index[i]] += values[i]\n    return out",
    "    diff = A[:, None, :] - B[None, :, :]\n    return (diff ** 2).sum(dim=-1).sqrt()": "    out = torch.empty(A.shape[0], B.shape[0], dtype=A.dtype, device=A.device)\n"
    "    for i in range(A.shape[0]):\n        out[i] = ((A[i] - B) ** 2).sum(dim=1).sqrt()\n    return out",
    "return pairwise_distances(A, B).argmin(dim=1)": "return torch.stack([((B - a) ** 2).sum(dim=1).argmin() for a in A])",
}
LOOPED = ("pick", "one_hot", "scatter_sum", "pairwise_distances", "nearest_neighbor")


def _wrapped(header: str, call: str) -> str:
    """A last cell that rebinds each looped function to a wrapper doing `call` around it."""
    return (
        header
        + "\n\ndef _hide(f):\n    def hidden(*args):\n"
        + call
        + "\n    return hidden\n\n\n"
        + "\n".join(f"{name} = _hide({name})" for name in LOOPED)
        + "\n"
    )


def _recompiled() -> str:
    """A last cell that defines the looped functions again, compiled under a file name that is not a cell's."""
    cells = master_code(ASSIGNMENT)
    sources = []
    for name in LOOPED:
        src = next(s for s in cells if f"def {name}(" in s)
        start = src.index(f"def {name}(")
        end = src.find("\ndef ", start + 1)
        body = src[start : end if end >= 0 else len(src)].split("\n\n\n")[0]
        for old, new in LOOPS.items():
            body = body.replace(old, new)
        sources.append(body)
    return f"exec(compile({chr(10).join(sources)!r}, 'helpers.py', 'exec'), globals())\n"


NP_BROADCAST = (
    "def broadcast_shape(a, b, _shape_of=np.broadcast):\n"
    "    try:\n"
    "        return tuple(_shape_of(np.empty(a), np.empty(b)).shape)\n"
    "    except ValueError as e:\n"
    "        raise ValueError(str(e)) from None\n"
)

ATTACKS = {
    "loops compiled under a file name that is not a cell's": _recompiled,
    "loops with the tracer switched off": lambda: _wrapped(
        "import sys", "        sys.settrace(None)\n        return f(*args)"
    ),
    "loops with torch's function modes disabled": lambda: _wrapped(
        "import torch", "        with torch._C.DisableTorchFunction():\n            return f(*args)"
    ),
    "broadcast_shape by np.broadcast bound as a default argument": lambda: NP_BROADCAST,
    "all of them": lambda: (
        _recompiled()
        + _wrapped(
            "import sys",
            "        sys.settrace(None)\n        with torch._C.DisableTorchFunction():\n            return f(*args)",
        )
        + NP_BROADCAST
    ),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return grade_attacks(
        tmp_path_factory.mktemp("loop-evidence"), ASSIGNMENT, LOOPS, {name: cell() for name, cell in ATTACKS.items()}
    )


def test_the_plain_loop_notebook_loses_the_no_loop_points(graded):
    r = graded["honest"]
    assert r.status in ("graded", "timeout"), r.message
    assert points(r, LOOP_TESTS) == 0, [(t.id, t.score) for t in guarded(r, LOOP_TESTS)]
    assert 80 < r.score < 100  # the loops give the right values: only the no-loop points go


@pytest.mark.parametrize("i", range(len(ATTACKS)), ids=list(ATTACKS))
def test_attack_earns_no_more_than_plain_loops(graded, i):
    assert_no_more_than_honest(graded["honest"], graded[f"attack{i}"], LOOP_TESTS)
