"""Reading submissions and releasing student notebooks."""
import json
import zipfile

import nbformat
import pytest

from autograder.intake.submissions import IntakeError, collect, safe_id
from autograder.notebook.parse import InvalidNotebook, load_cells, read_notebook
from autograder.notebook.release import ReleaseError, release, strip_solutions


def _nb(path, *sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nbformat.write(nb, path)
    return path


def test_invalid_files_are_reported_with_reasons(tmp_path):
    (tmp_path / "trunc.ipynb").write_text('{"cells": [', encoding="utf-8")
    (tmp_path / "latin.ipynb").write_bytes(b'{"x": "\xe9"}')
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    (tmp_path / "schema.ipynb").write_text(json.dumps({"cells": "nope", "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    expected = {"trunc": "not valid notebook JSON", "latin": "not UTF-8", "list": "not a Jupyter notebook",
                "schema": "does not follow the Jupyter format"}
    for name, words in expected.items():
        with pytest.raises(InvalidNotebook, match=words):
            read_notebook(tmp_path / f"{name}.ipynb")


def test_nbformat_v3_is_upgraded(tmp_path):
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "code", "input": "x = 1", "language": "python", "outputs": [], "metadata": {}}]}]}
    (tmp_path / "old.ipynb").write_text(json.dumps(v3))
    cells = load_cells(tmp_path / "old.ipynb")
    assert [c.source.strip() for c in cells] == ["x = 1"]


def test_magics_and_shell_are_rewritten_not_run(tmp_path):
    cells = load_cells(_nb(tmp_path / "m.ipynb", "%matplotlib inline\n!pip install foo\nx = 1", "%%time\ny = 2"))
    assert "get_ipython().run_line_magic('matplotlib'" in cells[0].source
    assert "get_ipython().system('pip install foo')" in cells[0].source
    assert "run_cell_magic('time'" in cells[1].source
    assert cells[0].original.startswith("%matplotlib")


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
    assert (tmp_path / "a" / "toy" / "public" / "test_double.py").is_file()
    assert (tmp_path / "a" / "toy" / "probes.py").is_file()


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
    assert [s.source for s in subs] == ["evil.ipynb", "ok.ipynb"]
    assert all(s.path.is_relative_to(tmp_path / "scratch") for s in subs)
    assert not (tmp_path.parent / "evil.ipynb").exists()


def test_missing_paths_are_usage_errors(tmp_path):
    with pytest.raises(IntakeError):
        collect([tmp_path / "nope"], tmp_path)
