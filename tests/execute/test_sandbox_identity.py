"""Inside the sandbox every uid has a name: libraries look their user up (getpass, pwd, `~`), and torch's
compile cache does so when torch._dynamo is imported (torch 2.11 at import time: no worker started on a GPU box
whose sandbox had no /etc/passwd).  The sandbox shows its own two accounts, never the host's."""

import ast

import pytest

from autograder.config.limits import Limits
from autograder.execute.runner import NotebookRunner
from autograder.notebook.parse import Cell

LIMITS = Limits(cell_timeout=60, submission_timeout=180, max_restarts=1)

WHO = """
import getpass, os, pwd, grp
from torch._inductor.runtime.cache_dir_utils import default_cache_dir
me = (getpass.getuser(), pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name,
      sorted(p.pw_name for p in pwd.getpwall()), default_cache_dir())
print("WHO", me)
"""


@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_the_sandbox_user_has_a_name_and_the_hosts_accounts_are_hidden(kind, sandbox):
    with NotebookRunner([Cell(index=1, source=WHO)], probes=None, limits=LIMITS, isolation=sandbox(kind)) as runner:
        runner.execute()
        (rec,) = runner.cell_records
        assert rec.status == "ok", rec.error
    line = next(x for x in runner.stdout.splitlines() if x.startswith("WHO "))
    user, name, group, accounts, cache = ast.literal_eval(line[4:])
    assert (user, name, group, accounts) == ("nobody", "nobody", "nogroup", ["nobody", "root"])
    assert cache.endswith("/torchinductor_nobody")  # under the worker's own bounded /tmp or work folder
