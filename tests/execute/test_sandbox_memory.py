"""A worker's memory is capped with or without a GPU.  Without one the cap is its address space; with one it
is its private writable data (CUDA reserves far more address space at start than any cap: on an H100 an
address-space cap made every CUDA test fail with "cudaGetDeviceCount(): out of memory").  Either way a
notebook that allocates past `memory_mb` fails in that cell, and the next cell runs."""

import pytest

from autograder.config.limits import Limits
from autograder.execute.runner import NotebookRunner
from autograder.notebook.parse import Cell

pytestmark = pytest.mark.serial  # memory limits met on purpose

LIMITS = Limits(memory_mb=1024, cell_timeout=60, submission_timeout=180, max_restarts=1)
BOMB = "import torch\nx = torch.empty(3 * 2**30, dtype=torch.uint8)\nx.fill_(1)"
CAPS = "import resource\nprint('CAPS', resource.getrlimit(resource.RLIMIT_AS)[0], resource.getrlimit(resource.RLIMIT_DATA)[0])"


@pytest.mark.parametrize("gpu", [False, True], ids=["cpu", "gpu"])
@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_memory_is_capped_with_and_without_a_gpu(kind, gpu, sandbox):
    iso = sandbox(kind, gpu=gpu)
    iso.sees_gpu = lambda: gpu  # which cap is chosen for a GPU; no GPU is needed to see that it holds
    cells = [Cell(index=1, source=BOMB), Cell(index=2, source=CAPS)]
    with NotebookRunner(cells, probes=None, limits=LIMITS, isolation=iso) as runner:
        runner.execute()
        bomb, caps = runner.cell_records
    assert bomb.status == "error" and "allocate" in bomb.error["message"], bomb.error
    assert caps.status == "ok"
    line = next(x for x in runner.stdout.splitlines() if x.startswith("CAPS "))
    address_space, data = (int(v) for v in line.split()[1:])
    cap = LIMITS.memory_mb * 2**20
    assert (address_space, data) == ((-1, cap) if gpu else (cap, -1)), line
