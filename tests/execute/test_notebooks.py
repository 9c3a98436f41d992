"""Reading submissions and releasing student notebooks."""

import json
import re
import time
import zipfile

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.config.limits import Limits
from autograder.execute.runner import NotebookRunner
from autograder.execute.sandbox import choose_isolation
from autograder.intake.submissions import IntakeError, collect, safe_id
from autograder.notebook.parse import InvalidNotebook, load_cells, read_notebook
from autograder.student import public_checks as checks
from autograder.student.release import ReleaseError, release, strip_solutions


def _nb(path, *sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nbformat.write(nb, path)
    return path


def test_invalid_files_are_reported_with_reasons(tmp_path):
    (tmp_path / "trunc.ipynb").write_text('{"cells": [', encoding="utf-8")
    (tmp_path / "latin.ipynb").write_bytes(b'{"x": "\xe9"}')
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    (tmp_path / "schema.ipynb").write_text(
        json.dumps({"cells": "nope", "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    expected = {
        "trunc": "not valid notebook JSON",
        "latin": "not UTF-8",
        "list": "not a Jupyter notebook",
        "schema": "does not follow the Jupyter format",
    }
    for name, words in expected.items():
        with pytest.raises(InvalidNotebook, match=words):
            load_cells(tmp_path / f"{name}.ipynb")


# raw JSON tokens a hostile file can hold where any value goes, json.dumps could not write some of them
_TOKENS = [
    "7" * 5000,
    "-" + "9" * 4301,
    "1e999999",
    "-0",
    "NaN",
    "-Infinity",
    '"\\ud800"',
    '"\\u0000"',
    "[]",
    "{}",
    "null",
    "true",
    '"x"',
    "1.5",
    "[" * 50 + "]" * 50,
    '{"cell_type": "code"}',
    '["a", 1]',
    "12345678901234567890",
]
_PLACES = [
    "nbformat",
    "nbformat_minor",
    "metadata",
    "cells",
    "cell",
    "cell_type",
    "source",
    "source_line",
    "cell_metadata",
    "outputs",
    "execution_count",
    "extra",
]


def _notebook_with(place: str, token: str) -> str:
    cell = {
        "cell_type": "code",
        "source": ["x = 1\n", "y = 2"],
        "metadata": {},
        "outputs": [],
        "execution_count": 1,
        "id": "a",
    }
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}
    target, key = {
        "nbformat": (nb, "nbformat"),
        "nbformat_minor": (nb, "nbformat_minor"),
        "metadata": (nb, "metadata"),
        "cells": (nb, "cells"),
        "cell_type": (cell, "cell_type"),
        "source": (cell, "source"),
        "cell_metadata": (cell, "metadata"),
        "outputs": (cell, "outputs"),
        "execution_count": (cell, "execution_count"),
        "extra": (nb, "extra"),
    }.get(place, (None, None))
    if place == "cell":
        nb["cells"] = [cell, "@T@"]
    elif place == "source_line":
        cell["source"] = ["x = 1\n", "@T@"]
    else:
        target[key] = "@T@"
    return json.dumps(nb).replace('"@T@"', token)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(_PLACES), st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=3).map(",".join), st.booleans()
)
def test_any_json_anywhere_is_read_or_refused_as_invalid(tmp_path_factory, place, tokens, as_list):
    """Whatever a file holds where a value goes (numbers too long for Python to convert, NaN, lone
    surrogates, nesting, the wrong type), reading it gives code cells or `InvalidNotebook`, nothing else:
    any other exception would be a grader error the student caused (a 5000-digit number was one)."""
    path = tmp_path_factory.mktemp("nb") / "n.ipynb"
    path.write_text(_notebook_with(place, f"[{tokens}]" if as_list or "," in tokens else tokens), encoding="utf-8")
    try:
        cells = load_cells(path)
    except InvalidNotebook as e:
        assert str(e)
        return
    assert all(type(c.source) is str for c in cells)


def test_a_number_too_long_to_convert_is_an_invalid_notebook(tmp_path):
    path = tmp_path / "n.ipynb"
    path.write_text(_notebook_with("extra", "7" * 5000), encoding="utf-8")
    with pytest.raises(InvalidNotebook, match="a number too long to read"):
        load_cells(path)
    path.write_text(_notebook_with("extra", "7" * 4000), encoding="utf-8")  # under Python's limit: read
    assert [c.source for c in load_cells(path)] == ["x = 1\ny = 2"]


def test_nbformat_v3_is_upgraded(tmp_path):
    v3 = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {},
        "worksheets": [
            {"cells": [{"cell_type": "code", "input": "x = 1", "language": "python", "outputs": [], "metadata": {}}]}
        ],
    }
    (tmp_path / "old.ipynb").write_text(json.dumps(v3))
    cells = load_cells(tmp_path / "old.ipynb")
    assert [c.source.strip() for c in cells] == ["x = 1"]


def test_magics_and_shell_are_rewritten_by_the_worker_not_the_judge(tmp_path):
    from autograder.execute.worker import _python

    cells = load_cells(_nb(tmp_path / "m.ipynb", "%matplotlib inline\n!pip install foo\nx = 1", "%%time\ny = 2"))
    assert [c.source for c in cells] == ["%matplotlib inline\n!pip install foo\nx = 1", "%%time\ny = 2"]
    assert "get_ipython().run_line_magic('matplotlib'" in _python(cells[0].source)
    assert "get_ipython().system('pip install foo')" in _python(cells[0].source)
    assert "run_cell_magic('time'" in _python(cells[1].source)
    assert _python("x = (").strip() == "x = ("  # left to compile() to report


# IPython's transformer re-tokenizes the whole cell once per magic line: ~14 s of CPU for this cell
MAGIC_HEAVY = "%time x = 1\n" * 499 + "y = 1\n" * 2000


def test_parsing_a_magic_heavy_notebook_costs_the_judge_no_transform(tmp_path):
    path = _nb(tmp_path / "heavy.ipynb", *[MAGIC_HEAVY] * 3)
    t0 = time.process_time()
    cells = load_cells(path)
    assert time.process_time() - t0 < 1.0  # was ~40 s when the judge ran IPython's transformer
    assert [c.source for c in cells] == [MAGIC_HEAVY] * 3


def test_magics_run_in_the_worker_under_the_cells_deadline(tmp_path):
    """Shell escapes are noted, not run; a cell IPython cannot rewrite in time costs that cell a timeout."""
    path = _nb(tmp_path / "m.ipynb", "%time X = 1\n!touch pwned\n%pip install foo", MAGIC_HEAVY, "Y = X + 1")
    limits = Limits(cell_timeout=1.5, submission_timeout=120, max_restarts=2)
    with NotebookRunner(
        load_cells(path), probes=None, limits=limits, isolation=choose_isolation(allow_weak=True)
    ) as runner:
        runner.execute()
        records = {r.index: r for r in runner.cell_records}
        assert [records[i].status for i in (1, 2, 3)] == ["ok", "timeout", "ok"]
        assert any("!touch pwned was not run" in n for n in records[1].notes), records[1].notes
        assert any("%pip install foo was not run" in n for n in records[1].notes), records[1].notes
        assert records[2].source == MAGIC_HEAVY
        assert not (runner.workdir / "pwned").exists()


def _raw(tmp_path, data, name="nb.ipynb"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def _v4(*cells, **top):
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5, **top}


def _code(source="x = 1", **extra):
    return {
        "cell_type": "code",
        "source": source,
        "metadata": {},
        "outputs": [],
        "execution_count": None,
        "id": "c",
        **extra,
    }


@pytest.mark.parametrize(
    "data, words",
    [
        (_v4(_code(), nbformat_minor="5"), "`nbformat_minor` must be an integer, not a string"),
        (_v4(_code(), nbformat=4.0), "`nbformat` must be an integer, not a number"),
        (_v4(_code(), nbformat=True), "`nbformat` must be an integer, not true/false"),
        (_v4(_code(), nbformat=2), "nbformat 2 is not supported"),
        (_v4(_code(), metadata=["INJECTED<script>"]), "`metadata` must be an object, not a list"),
        (_v4(_code({"INJECTED<script>": 1})), "cell 1: `source` must be a string or a list of strings, not an object"),
        (_v4(_code(["x = 1\n", 2])), "cell 1: `source` must be a string or a list of strings, not a list"),
        (_v4({"cell_type": "markdown", "source": "", "metadata": {}}, _code(None)), "cell 2: `source` must be"),
        (_v4({k: v for k, v in _code().items() if k != "source"}), "cell 1: `source` must be"),
        (_v4(_code(), {"cell_type": 7, "source": ""}), "cell 2: `cell_type` must be a string, not a number"),
        (_v4(_code(metadata="INJECTED<script>")), "cell 1: `metadata` must be an object, not a string"),
        (_v4(_code(), "INJECTED<script>"), "cell 2 must be an object, not a string"),
        (
            {"cells": {"0": _code()}, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
            "`cells` must be a list, not an object",
        ),
        (
            {"worksheets": {"cells": []}, "metadata": {}, "nbformat": 3, "nbformat_minor": 0},
            "`worksheets` must be a list",
        ),
    ],
)
def test_malformed_fields_are_invalid_with_a_clear_message(tmp_path, data, words):
    with pytest.raises(InvalidNotebook, match=re.escape(words)) as e:
        load_cells(_raw(tmp_path, data))
    assert str(e.value).startswith("the notebook does not follow the Jupyter format")
    assert "INJECTED" not in str(e.value)  # messages name JSON types, never quote the file


def test_notebook_limits(tmp_path):
    from autograder.notebook import parse

    too_many = _raw(tmp_path, _v4(*[_code()] * (parse.MAX_CELLS + 1)), "cells.ipynb")
    big_cell = _raw(tmp_path, _v4(_code("#" * (parse.MAX_CELL_SOURCE + 1))), "cell.ipynb")
    brackets = _raw(tmp_path, _v4(_code(), metadata={"x": [[]] * parse.MAX_JSON_CONTAINERS}), "brackets.ipynb")
    deep = _raw(tmp_path, '{"cells": [], "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}", "deep.ipynb")
    for path, words in [
        (too_many, "over the limit of 2000"),
        (big_cell, "characters of code, over the limit"),
        (brackets, "JSON objects or brackets"),
        (deep, "nested too deeply"),
    ]:
        with pytest.raises(InvalidNotebook, match=words):
            load_cells(path)
    assert len(load_cells(_raw(tmp_path, _v4(*[_code()] * parse.MAX_CELLS)))) == parse.MAX_CELLS
    assert load_cells(_raw(tmp_path, _v4(_code("#" * parse.MAX_CELL_SOURCE))))[0].source.startswith("#")


def test_the_size_cap_holds_while_reading(tmp_path):
    """A file that grows, or a device that never ends, is read up to the cap only (no stat-then-read)."""
    endless = tmp_path / "endless.ipynb"
    endless.symlink_to("/dev/zero")
    with pytest.raises(InvalidNotebook, match="over the 1 MiB limit"):
        read_notebook(endless, max_bytes=2**20)
    with pytest.raises(InvalidNotebook, match="MiB limit"):
        read_notebook(_raw(tmp_path, _v4(_code("#" * 2**20))), max_bytes=2**20)


def test_strip_solutions_keeps_indentation_and_rejects_unbalanced():
    src = "def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n"
    assert strip_solutions(src) == "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    with pytest.raises(ReleaseError):
        strip_solutions("### BEGIN SOLUTION\nx = 1\n")


def test_release_is_byte_identical_and_has_nbgrader_metadata(toy_kit, tmp_path):
    a = release(toy_kit, "toy", tmp_path / "a")
    b = release(toy_kit, "toy", tmp_path / "b")
    for x, y in zip(a, b):
        assert x.read_bytes() == y.read_bytes()
    nb = nbformat.read(a[0], as_version=4)
    assert all(c.get("outputs", []) == [] for c in nb.cells)
    sol = [c for c in nb.cells if c.metadata["nbgrader"]["solution"]]
    assert sol and all("raise NotImplementedError()" in c.source for c in sol)
    # the checks ship in the student package, not beside the notebook; the notebook names their version
    assert [p.name for p in a] == ["toy.ipynb"] and not (tmp_path / "a" / "toy").exists()
    assert nb.metadata["autograder"] == {
        "assignment": "toy",
        "version": checks.version(toy_kit / "assignments" / "toy"),
    }


def test_submission_ids_are_safe_and_unique(tmp_path):
    assert safe_id("../../etc/passwd.ipynb") == "etc_passwd"
    assert safe_id("Zoë Ünïcode name.ipynb") == "Zoe_Unicode_name"
    assert safe_id(".hidden.ipynb") == "hidden"
    d = tmp_path / "in"
    d.mkdir()
    _nb(d / "a.ipynb", "x=1")
    (d / "sub").mkdir()
    _nb(d / "sub" / "a.ipynb", "x=2")
    (d / ".ipynb_checkpoints").mkdir()
    _nb(d / ".ipynb_checkpoints" / "a-checkpoint.ipynb", "x=3")
    subs = collect([d], tmp_path / "scratch")
    assert len(subs) == 2 and len({s.id for s in subs}) == 2 and subs[0].id == "a"


def test_zip_members_cannot_escape(tmp_path):
    z = tmp_path / "class.zip"
    src = _nb(tmp_path / "x.ipynb", "x=1")
    with zipfile.ZipFile(z, "w") as zf:
        zf.write(src, "../../evil.ipynb")
        zf.write(src, "dir/ok.ipynb")
        zf.writestr("notes.txt", "ignored")
    subs = collect([z], tmp_path / "scratch")
    assert [s.source for s in subs] == ["evil.ipynb", "dir/ok.ipynb"]  # the member's path, `..` dropped
    assert all(s.path.is_relative_to(tmp_path / "scratch") for s in subs)
    assert not (tmp_path.parent / "evil.ipynb").exists()


def test_missing_paths_are_usage_errors(tmp_path):
    with pytest.raises(IntakeError):
        collect([tmp_path / "nope"], tmp_path)


def test_a_small_notebook_costs_a_small_read(tmp_path):
    """The bounded read goes in chunks: `read(cap + 1)` would allocate the whole 20 MiB cap for any file."""
    import tracemalloc

    path = _nb(tmp_path / "small.ipynb", "x = 1")
    tracemalloc.start()
    try:
        load_cells(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * 2**20, peak


def test_json_is_parsed_with_the_cyclic_gc_paused_then_restored(tmp_path, monkeypatch):
    """Collecting while json.loads builds many containers costs 4-14x the parse itself."""
    import gc

    seen = []
    real = json.loads
    monkeypatch.setattr(json, "loads", lambda text: seen.append(gc.isenabled()) or real(text))
    load_cells(_nb(tmp_path / "ok.ipynb", "x = 1"))
    with pytest.raises(InvalidNotebook):
        load_cells(_raw(tmp_path, '{"cells": [', "trunc.ipynb"))
    assert seen == [False, False] and gc.isenabled()
