"""An assignment's `warm_up()` (in its probes.py) runs once in the zygote, before any worker exists.

Workers forked from it inherit what it set up (02b_kernels: torch.compile's first trace, ~1.4 s a
worker) but nothing that could change their results: torch.compile's caches and counters are
cleared after it, and a warm-up that leaves a thread running is refused (a thread does not survive
fork), as is one that initialized CUDA (forked workers could not use the GPU), so grading goes on in
cold sandboxes with a warning that names the hook.
"""

import pytest

from autograder.config.limits import Limits
from autograder.execute.runner import NotebookRunner
from autograder.notebook.parse import Cell

LIMITS = Limits(cell_timeout=30, submission_timeout=120, max_restarts=1)

PROBES = '''
import torch


def warm_up():
    torch.warm_up_runs = getattr(torch, "warm_up_runs", 0) + 1
    compiled = torch.compile(lambda t: (t.sin() * 2.0).sum(), backend="aot_eager", fullgraph=True)
    compiled(torch.ones(3, requires_grad=True)).backward()
{extra}

def state(ns):
    from torch._dynamo.utils import counters

    return {{"runs": getattr(torch, "warm_up_runs", 0), "counters": sorted(k for k, v in counters.items() if v),
             "x": ns["x"]}}
'''

LEAVES_A_THREAD = '''
    import threading, time
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
'''
# (no GPU here: the hook reports CUDA as initialized, as a hook that made a CUDA tensor would)
INITIALIZES_CUDA = '''
    torch.cuda.is_initialized = lambda: True
'''


def _states(isolation, probes, n: int = 2) -> list[dict]:
    out = []
    for k in range(n):
        with NotebookRunner(
            [Cell(index=1, source=f"x = {k}")], probes=probes, limits=LIMITS, isolation=isolation
        ) as runner:
            runner.execute()
            out.append(runner.call("state"))
    return out


def test_warm_up_runs_once_for_all_workers_and_leaves_no_compile_state(sandbox, tmp_path):
    probes = tmp_path / "probes.py"
    probes.write_text(PROBES.format(extra=""))
    states = _states(sandbox("warm"), probes)
    assert [s["x"] for s in states] == [0, 1]
    assert [s["runs"] for s in states] == [1, 1], "each worker inherits the one run in the zygote"
    assert [s["counters"] for s in states] == [[], []], "torch.compile's counters are cleared"


def test_cold_sandboxes_do_not_run_it(sandbox, tmp_path):
    probes = tmp_path / "probes.py"
    probes.write_text(PROBES.format(extra=""))
    assert [s["runs"] for s in _states(sandbox("cold"), probes, 1)] == [0]


@pytest.mark.parametrize(
    "prefix, extra, why",
    [
        ("", LEAVES_A_THREAD, "warm_up() left 1 thread(s) running"),
        (LEAVES_A_THREAD.replace("\n    ", "\n"), "", "warm_up() left 1 thread(s) running"),  # probes.py's own import
        ("", INITIALIZES_CUDA, "warm_up() initialized CUDA"),
    ],
    ids=["hook-thread", "import-thread", "cuda"],
)
def test_a_warm_up_that_leaves_a_thread_or_cuda_is_refused(sandbox, tmp_path, capfd, prefix, extra, why):
    probes = tmp_path / "probes.py"
    probes.write_text(prefix + PROBES.format(extra=extra))
    states = _states(sandbox("warm"), probes)
    assert [s["runs"] for s in states] == [0, 0], "workers come from cold sandboxes, which never ran it"
    assert [s["x"] for s in states] == [0, 1]
    err = capfd.readouterr().err
    assert why in err and "falling back to one cold sandbox per worker" in err


@pytest.mark.parametrize("source", ["", "def warm_up():\n    raise RuntimeError('broken hook')\n"])
def test_without_a_hook_or_with_a_broken_one_grading_goes_on(sandbox, tmp_path, capfd, source):
    probes = tmp_path / "probes.py"
    probes.write_text(source + "def state(ns):\n    return ns['x']\n")
    iso = sandbox("warm")
    for k in range(2):
        with NotebookRunner([Cell(index=1, source=f"x = {k}")], probes=probes, limits=LIMITS, isolation=iso) as runner:
            runner.execute()
            assert runner.call("state") == k
    assert ("broken hook" in capfd.readouterr().err) == bool(source)


PRELOAD_PROBES = '''
import gc
import sys


def loaded(ns):
    return sorted(m for m in ("pandas", "matplotlib", "matplotlib.pyplot", "autograder.student.selfcheck") if m in sys.modules)


def collector(ns):
    return {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}
'''


def _kit(tmp_path, name: str, master_imports: str):
    """An assignment folder as the kit lays it out: assignments/<name>/probes.py beside solutions/<name>.ipynb."""
    import nbformat

    probes = tmp_path / "assignments" / name / "probes.py"
    probes.parent.mkdir(parents=True)
    probes.write_text(PRELOAD_PROBES)
    (tmp_path / "solutions").mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(master_imports + "\nx = 1")])
    nbformat.write(nb, tmp_path / "solutions" / f"{name}.ipynb")
    return probes


def test_the_zygote_imports_what_the_master_imports_and_nothing_else(sandbox, tmp_path):
    """A worker starts with the modules its assignment's master imports already loaded, as the master names them
    (one import per class, in the zygote: `matplotlib.pyplot`, whose font list each worker built again when the
    zygote imported `matplotlib` alone; the kit's own modules), and without the ones it does not (each cost every
    class's first worker its import)."""
    plotting = _kit(
        tmp_path,
        "plots",
        "import pandas as pd\nimport matplotlib.pyplot as plt\nfrom autograder.student.selfcheck import Checker",
    )
    bare = _kit(tmp_path, "bare", "import torch")
    isolation = sandbox("warm")
    seen = {}
    for probes in (plotting, bare):
        with NotebookRunner(
            [Cell(index=1, source="y = 2")], probes=probes, limits=LIMITS, isolation=isolation
        ) as runner:
            runner.execute()
            seen[probes.parent.name] = runner.call("loaded")
    assert seen == {"plots": ["autograder.student.selfcheck", "matplotlib", "matplotlib.pyplot", "pandas"], "bare": []}


def test_a_worker_collects_its_own_objects_not_the_zygotes(sandbox, tmp_path):
    """What the zygote imported is frozen out of the collector's reach before it forks: a worker's full collection
    walked the objects of torch and TensorFlow (770,000) and wrote to each one's header (0.4 s of CPU and
    134 MB of the zygote's pages copied into the worker, each time).  The worker still collects its own."""
    probes = _kit(tmp_path, "bare", "import torch")
    with NotebookRunner(
        [Cell(index=1, source="y = 2")], probes=probes, limits=LIMITS, isolation=sandbox("warm")
    ) as runner:
        runner.execute()
        state = runner.call("collector")
    assert state["enabled"] is True and state["frozen"] > 100_000, state  # numpy and torch alone leave about 250,000
