"""The worker runs a cell as IPython would (`worker._python`): IPython's transformer where the cell may
hold IPython syntax, and for plain Python the same text without tokenizing the cell (what IPython
would leave of it: the cell dedented, a newline at its end).  Held equal to IPython's own
`TransformerManager` (or, for a cell IPython cannot tokenize, the same syntax error: `_runs_alike`) on every
code cell of the kit's notebooks, on cells made to be tricky, and on cells made of random lines; and cells
compile as in Jupyter, not under the worker's own `__future__`."""

from __future__ import annotations

import glob
import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from IPython.core.inputtransformer2 import TransformerManager

from autograder.config.limits import Limits
from autograder.execute import worker
from autograder.execute.runner import NotebookRunner
from autograder.execute.sandbox import choose_isolation
from autograder.notebook.parse import Cell

KIT = Path(__file__).resolve().parents[2]


def _ipython(source: str) -> str:
    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - as the worker: the source as written
        return source


def _syntax_error(source: str) -> tuple | None:
    try:
        compile(source, "<cell>", "exec")
    except SyntaxError as e:
        return type(e), e.msg, e.lineno, e.offset
    return None


def _runs_alike(ours: str, theirs: str) -> bool:
    """The same text; or, where IPython hands back a cell it cannot tokenize as it was written (no newline added,
    e.g. a line indented to no enclosing level), that text with the newline the worker adds (and its lines of
    blanks emptied, as the worker's dedent does): the same syntax error either way, at the same place."""
    if ours == theirs:
        return True
    error = _syntax_error(theirs)
    written = ours in (theirs + "\n", textwrap.dedent(theirs + "\n"))
    return written and error is not None and _syntax_error(ours) == error


def _kit_cells() -> list[str]:
    cells = []
    for path in sorted(glob.glob(str(KIT / "solutions" / "*.ipynb"))) + sorted(
        glob.glob(str(KIT / "tests" / "**" / "*.ipynb"), recursive=True)
    ):
        try:
            nb = json.loads(Path(path).read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        for c in nb.get("cells", []):
            if isinstance(c, dict) and c.get("cell_type") == "code":
                src = c.get("source", "")
                cells.append("".join(src) if isinstance(src, list) else str(src))
    return cells


TRICKY = [
    "x = 1",
    "x = 1\n",
    "%time x = 1",
    "%%time\nx = 1\n",
    "!ls",
    "files = !ls",
    "t = %timeit -o 1+1",
    "x?",
    "x??\n",
    "len?  ",
    "print(1) # why?",
    "a = 3 % 2\nb = a != 1",
    "s = '%d' % 3",
    "y = f'{x!r} {x=}'",
    "  # an indented comment first\nx = '''\n  kept\n'''",
    "\n\nx = 1",
    "   \nx = 1",
    "x = 1\n   \ny = 2",
    "s = '''\n    \n'''",
    "s = '''\n\t\n'''",
    "s = '''\n...: not a prompt?\n'''",
    "s = '''\nIn [3]: kept\n'''",
    "s = '''\n[ins] In [3]: kept\n'''",
    ">>> x = 1",
    ">>> x = 1\n... y = 2",
    "In [1]: x = 1",
    "def f():\n    ...\n",
    "x = (1,\n     2)",
    "x = (1\n/ 2)",
    "x = (4\n% 3)",
    "x = [1\n, 2]",
    "x = 1; y = 2",
    "x = 1\r\ny = 2",
    "x = 1\ry = 2",
    "x = 1\u2028%ls",
    "x = 1\x0c%ls",
    "x = '\\\n>>> y'",
    "s = 'a'\\\n  '?'",
    "def f(x: int) -> 'str':\n    return x\n",
    "if True:\n    %time 1\n",
    "for i in range(2):\n    !echo\n",
    "x = ''' unterminated",
    "x = (1,",
    "",
    "/print 1",
    ",print a b",
    ";print a b",
    "x = %who_ls",
    "a = 1 if b else 2  # ok?\n",
]


@pytest.mark.filterwarnings("ignore::UserWarning")  # IPython on a cell whose lines break at U+2028
@pytest.mark.parametrize("source", TRICKY)
def test_tricky_cells_run_as_ipython_would(source):
    assert _runs_alike(worker._python(source), _ipython(source)), source


def test_every_cell_of_the_kit_runs_as_ipython_would_and_most_skip_the_tokenizer():
    cells = _kit_cells()
    assert len(cells) > 100
    for source in cells:
        assert _runs_alike(worker._python(source), _ipython(source)), source
    plain = [s for s in cells if worker._plain(s if s.endswith("\n") else s + "\n")]
    assert len(plain) > len(cells) // 2  # the fast path is the common one


_LINES = st.one_of(
    st.sampled_from(
        [
            "x = 1",
            "",
            "   ",
            "\t",
            "# c?",
            "  y = x",
            "%time 1",
            "!ls",
            "a = !ls",
            "x?",
            ">>> 1",
            "... 2",
            "...: 3",
            "In [4]: 5",
            "'''",
            '"""',
            "s = '''",
            "f(a,",
            "b)",
            "/f 1",
            ",f a",
            ";f a",
            "if x:",
            "    pass",
            "z = a % b",
            "w = a != b",
            "q = {x=}",
            "\\",
            "[nav] In [2]: 1",
            "...",
        ]
    ),
    st.text(alphabet="ab =%!?/,;.>[]In'\"#()\\ \t\x0c1", max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINES, min_size=1, max_size=6), st.booleans())
def test_random_cells_run_as_ipython_would(lines, newline_at_end):
    source = "\n".join(lines) + ("\n" if newline_at_end else "")
    assert _runs_alike(worker._python(source), _ipython(source)), source


def test_a_cell_ipython_cannot_tokenize_fails_alike():
    """Found by the property above: IPython returns `x = 1\\n    pass\\n 1` as written (its tokenizer
    refuses the last line's indent), the worker with a newline: the same IndentationError at line 2."""
    source = "x = 1\n    pass\n 1"
    assert _ipython(source) == source and worker._python(source) == source + "\n"
    assert _runs_alike(worker._python(source), _ipython(source))
    assert not _runs_alike("x = 2\n", "x = 1\n") and not _runs_alike(
        "x = 1\n\n", "x = 1\n"
    )  # a cell that compiles: equal text


def test_a_cell_ipython_cannot_tokenize_with_a_line_of_blanks_fails_alike():
    """Found by the property above: IPython hands `x = 1\\n   \\n  y = x\\n 1` back as written, the worker
    dedents it (a line of blanks emptied: `textwrap.dedent`) with a newline: the same IndentationError at line 3."""
    source = "x = 1\n   \n  y = x\n 1"
    assert _ipython(source) == source and worker._python(source) == "x = 1\n\n  y = x\n 1\n"
    assert _runs_alike(worker._python(source), _ipython(source))
    assert not _runs_alike("x = 1\n\n  y = 2\n 1\n", source)  # another text: not the same cell


def test_cells_compile_as_in_jupyter_not_under_the_workers_future_imports(tmp_path):
    """worker.py has `from __future__ import annotations`; a cell compiled with it inherited would get
    string annotations, which Jupyter does not give it."""
    probes = tmp_path / "probes.py"
    probes.write_text("def kinds(ns):\n    return ns['kinds']\n")
    cells = [Cell(1, "def f(x: int) -> float:\n    return x\nkinds = [str(v) for v in f.__annotations__.values()]\n")]
    with NotebookRunner(
        cells,
        probes=probes,
        limits=Limits(cell_timeout=20, submission_timeout=60),
        isolation=choose_isolation(allow_weak=True),
    ) as runner:
        assert runner.call("kinds") == ["<class 'int'>", "<class 'float'>"]
