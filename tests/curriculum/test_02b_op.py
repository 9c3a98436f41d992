"""02b_kernels: how the probes find the notebook's operator, kernels::softmax, which lives in torch's op registry, not
in the notebook's namespace.  With no such operator and no define_softmax_op (the cell that defines it raised before
the def, or was deleted), the probes say what a probe says of any name no cell defined (a MissingAnswer): the test's
message is "the notebook does not define `define_softmax_op`" instead of torch's AttributeError, and the points are
0 on every input, so the grade command owes no variant proof for them (`pipeline._prove_variant`; a notebook whose
custom-op cell raised cost the master 0.8 s of CPU per student before).

Each case runs in a child Python: the registry is the process's, and another test may have registered the op here;
its folders in the test's own (TMPDIR), as a worker's are its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.curriculum.probes_child import load_probes

KIT = Path(__file__).resolve().parents[2]
CHILD = (
    load_probes("02b_kernels")
    + r"""
import torch
from autograder.execute.namespace import StudentNamespace
x, v = torch.randn(3, 5), torch.randn(3, 5)

def outcome(probe, ns, *args):
    try:
        probe(ns, *args)
    except Exception as e:
        return [type(e).__name__, str(e)]
    return ["ok", ""]

out = {}
out["no def, no op"] = outcome(p.op_apply, StudentNamespace(), x, v)
out["no def, no op: its CUDA kernel"] = outcome(p.cuda_kernel_apply, StudentNamespace(), x, "cpu")
out["the stub"] = outcome(p.op_apply, StudentNamespace(define_softmax_op=lambda: None, softmax=None), x, v)

@torch.library.custom_op("kernels::softmax", mutates_args=(), device_types="cpu")
def softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, -1)

softmax.register_autograd(lambda ctx, g: g, setup_context=lambda ctx, inputs, output: None)
out["registered without define_softmax_op"] = outcome(p.op_apply, StudentNamespace(), x, v)
print(json.dumps(out))
"""
)


def test_an_operator_no_cell_registered_reads_as_a_name_no_cell_defined(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", CHILD, str(KIT)], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    for case in ("no def, no op", "no def, no op: its CUDA kernel"):
        kind, message = out[case]
        assert kind == "MissingAnswer" and message.startswith("the notebook does not define `define_softmax_op`"), (
            case,
            out[case],
        )
    assert out["the stub"][0] == "NotImplementedError"  # not answered yet, as before
    assert out["registered without define_softmax_op"] == ["ok", ""]  # the operator is what is graded, not the def


HARNESS_CHILD = (
    load_probes("02b_kernels")
    + r"""
import torch
cells = [c for c in json.load(open(sys.argv[1] + "/solutions/02b_kernels.ipynb"))["cells"] if c["cell_type"] == "code"]
ns = {}
exec(next("".join(c["source"]) for c in cells if "def c_source" in "".join(c["source"])), ns)
if sys.argv[2] == "warm":
    p._build_harness()  # as warm_up() does in the zygote
built, real = [], subprocess.run
subprocess.run = lambda argv, *a, **k: (built.append(" ".join(argv)), real(argv, *a, **k))[1]
x = torch.randn(7, dtype=torch.float64)
out = p.c_kernels_run(ns, ns["c_source"](), [("silu", x, "c")])
print(json.dumps({"close": bool(torch.allclose(out["y"][0], torch.nn.functional.silu(x))),
                  "harness builds": sum(p.HARNESS_BUILD == c.split()[:2] for c in built)}))
"""
)


def test_the_zygote_builds_the_kits_c_harness_once(tmp_path):
    """After warm_up's build, a fresh worker's c_kernels_run writes the harness out instead of compiling it (0.06 s of
    CPU each time); without it, it compiles it.  Either way the student's kernels run in it."""
    for how, builds in (("warm", 0), ("cold", 1)):
        env = {**os.environ, "TMPDIR": str(tmp_path)}
        run = subprocess.run(
            [sys.executable, "-c", HARNESS_CHILD, str(KIT), how], capture_output=True, text=True, timeout=300, env=env
        )
        assert run.returncode == 0, run.stderr[-3000:]
        assert json.loads(run.stdout.strip().splitlines()[-1]) == {"close": True, "harness builds": builds}, how
