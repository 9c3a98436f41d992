"""Attacks on where the kit, the course file and the secret are found (trust rule 7; `config/locate.py`).

Another user of the host who can write a folder above the TA's working folder (a shared `/tmp` folder, a course
share writable by a group, an unpacked submission) plants `assignments/<id>/` and `solutions/` there, or a
`course.toml`.  Its `probes.py` writes a marker file (and would read the caller's secret) once imported.  Neither
`validate`, `check()` nor `grade` may import it, a planted course file is never read, even beside `--kit`, and
each refusal is one line saying what was found, why it is not used and how to name it.  "Another user" is played
two ways: a folder writable by every user (any caller), and one owned by `nobody` (needs root, as CI runs).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
from pathlib import Path

import nbformat
import pytest

from autograder.config import locate
from autograder.student import public_checks as checks

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534

PROBES = '''
import os, pathlib
pathlib.Path({marker!r}).write_text("planted probes ran as uid %d" % os.getuid())
'''
TEST = '''
def test_anything(student):
    assert True
'''


def _as_another_user(folder: Path, how: str) -> None:
    """What another user of the host could have made: every folder from `folder` down theirs, or writable by all."""
    for p in [folder, *folder.rglob("*")]:
        if how == "another user":
            os.chown(p, NOBODY, NOBODY)
        elif p == folder:
            p.chmod(0o777)  # writable by every user, without the sticky bit


HOW = [
    pytest.param("writable by all"),
    pytest.param("another user", marks=pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")),
]


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    """Each test sees its own refusals (they are said once per process), and names no kit in the environment."""
    monkeypatch.setattr(locate, "_said", set())
    monkeypatch.delenv(locate.KIT_ENV, raising=False)


def _plant(share: Path, marker: Path, assignment: str) -> Path:
    """A kit in `share`: `assignments/<assignment>/` (hostile probes, a public test, a manifest) and `solutions/`."""
    folder = share / "assignments" / assignment
    (folder / "public").mkdir(parents=True)
    (folder / "probes.py").write_text(PROBES.format(marker=str(marker)))
    (folder / "public" / "test_x.py").write_text(TEST)
    (folder / "manifest.toml").write_text('title = "planted"\n')
    (share / "solutions").mkdir()
    return folder


@pytest.fixture
def planted(tmp_path, monkeypatch, request):
    """(the TA's working folder below a planted kit, the marker, the planted assignment folder)."""
    share = tmp_path / "share"
    marker = tmp_path / "marker"
    folder = _plant(share, marker, "01_tensors")
    work = share / "ta"
    work.mkdir(mode=0o700)
    _as_another_user(share, request.param)
    os.chown(work, os.geteuid(), os.getegid())
    monkeypatch.chdir(work)
    return work, marker, folder, request.param


def _notebook(path: Path, assignment: str, version: str) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nb.metadata["autograder"] = {"assignment": assignment, "version": version}
    nbformat.write(nb, path)
    return path


@pytest.mark.parametrize("planted", HOW, indirect=True)
def test_validate_never_imports_checks_from_a_kit_above_it(planted, capsys):
    from autograder.student.validate import validate

    work, marker, folder, _ = planted
    path = _notebook(work / "student.ipynb", "01_tensors", checks.version(folder))
    lines: list[str] = []
    code = validate(path, out=lines.append)
    assert not marker.exists(), marker.read_text()
    # the installed checks ran (another version than the notebook names: said in a note), never the planted ones
    assert code != 0 and "the installed package has version" in "\n".join(lines), lines
    refusal = [ln for ln in capsys.readouterr().err.splitlines() if "not using" in ln]
    assert len(refusal) == 1 and str(work.parent) in refusal[0] and "--kit" in refusal[0], refusal


def test_validate_never_imports_checks_from_a_discovered_kit_even_the_callers_own(tmp_path, monkeypatch):
    """The rule is not only ownership: whoever validates may stand in a folder a student handed in."""
    from autograder.student.validate import validate

    marker = tmp_path / "marker"
    folder = _plant(tmp_path, marker, "01_tensors")
    monkeypatch.chdir(tmp_path)
    assert locate.kit() == tmp_path  # grading would take it: it is the caller's alone
    path = _notebook(tmp_path / "student.ipynb", "01_tensors", checks.version(folder))
    lines: list[str] = []
    assert validate(path, out=lines.append) != 0
    assert not marker.exists() and "the installed package has version" in "\n".join(lines), lines


@pytest.mark.parametrize("planted", HOW, indirect=True)
def test_check_never_imports_checks_from_a_kit_above_it(planted, monkeypatch, capsys):
    from autograder.student.selfcheck import Checker

    work, marker, folder, _ = planted
    monkeypatch.delenv("AUTOGRADER_WORKER", raising=False)
    monkeypatch.delenv("AUTOGRADER_VALIDATING", raising=False)
    Checker("01_tensors", version=checks.version(folder))("x", {})
    out = capsys.readouterr()
    assert not marker.exists(), marker.read_text()
    # the installed package's checks answer (they know no check "x"; the planted kit's does), and the refusal says why
    assert "no check called 'x'" in out.out and "views" in out.out and "--kit" in out.err


@pytest.mark.parametrize("planted", HOW, indirect=True)
def test_grade_without_kit_never_imports_a_planted_kit(planted, capsys):
    from autograder.cli import main

    work, marker, folder, _ = planted
    planted_only = folder.parent / "zz_planted"  # an id only the planted kit has
    shutil.copytree(folder, planted_only)
    code = main(["grade", "zz_planted", str(work / "none.ipynb"), "--out", str(work / "r"), "--allow-weak-isolation"])
    err = capsys.readouterr().err
    assert not marker.exists(), marker.read_text()
    assert code == 2 and "unknown assignment 'zz_planted'" in err, err
    refusal = [ln for ln in err.splitlines() if ln.startswith("autograder: not using")]
    assert len(refusal) == 1, err
    assert str(work.parent) in refusal[0] and f"autograder --kit {work.parent}" in refusal[0]
    assert ("another user" in refusal[0]) or ("written by" in refusal[0])


@pytest.mark.parametrize("planted", HOW, indirect=True)
def test_a_planted_course_file_is_never_read_beside_kit(planted, toy_kit, monkeypatch, capsys):
    """The planted file names its own secret and one set of hidden inputs for the whole class."""
    from autograder.cli import main

    work, marker, _, how = planted
    share = work.parent
    (share / "planted_secret").write_text("the planter knows this")
    (share / "course.toml").write_text('[course]\nsecret_file = "planted_secret"\nvariants = 1\n')
    _as_another_user(share, how)
    os.chown(work, os.geteuid(), os.getegid())
    for var in ("AUTOGRADER_SECRET", "AUTOGRADER_SECRET_FILE", "AUTOGRADER_VARIANTS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(work))
    code = main(
        [
            "--kit",
            str(toy_kit),
            "grade",
            "toy",
            str(work / "none.ipynb"),
            "--out",
            str(work / "r"),
            "--allow-weak-isolation",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2  # stopped at intake, after the course file was looked for
    assert os.environ.get("AUTOGRADER_SECRET_FILE") is None and os.environ.get("AUTOGRADER_VARIANTS") is None
    assert f"not using {share / 'course.toml'}" in err and "--course-file" in err, err
    assert "warning: no course secret" in err  # graded, if it were, under the caller's (here: none), said so


def test_a_course_file_named_with_course_file_is_used_as_named(tmp_path, monkeypatch):
    from autograder.config.course import load_course

    share = tmp_path / "share"
    share.mkdir(mode=0o777)
    share.chmod(0o777)
    (share / "course.toml").write_text('[course]\nvariants = 1\n')
    monkeypatch.chdir(share)
    assert locate.course_file() is None
    assert load_course(share / "course.toml").table("course")["variants"] == 1


def test_the_callers_own_kit_and_course_file_are_found_from_below(tmp_path, monkeypatch, capsys):
    """What the kit's own tests do (a kit in a tmp folder, the repository as the kit): found, nothing said."""
    (tmp_path / "assignments").mkdir()
    (tmp_path / "solutions").mkdir()
    (tmp_path / "course.toml").write_text("[course]\n")
    (tmp_path / "a" / "b").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "a" / "b")
    assert locate.kit() == tmp_path and locate.course_file() == tmp_path / "course.toml"
    assert locate.kit(start=ROOT / "autograder") == ROOT and locate.unsafe(ROOT) == ""
    assert capsys.readouterr().err == ""


def test_what_the_caller_names_is_used_as_named(tmp_path, monkeypatch):
    share = tmp_path / "share"
    (share / "assignments").mkdir(parents=True)
    (share / "solutions").mkdir()
    share.chmod(0o777)
    monkeypatch.chdir(share)
    assert locate.kit() == locate.installed_kit()
    assert locate.kit(share) == share
    monkeypatch.setenv(locate.KIT_ENV, str(share))
    assert locate.kit() == share


def test_ownership_rules(tmp_path):
    """ssh's StrictModes: the caller's or root's, writable by no one else, up to /; sticky only above."""
    own = tmp_path / "own"
    own.mkdir()
    (own / "x.toml").write_text("")
    assert locate.unsafe(own) == "" and locate.unsafe(own / "x.toml") == ""
    assert locate.unsafe(Path("/tmp")) != ""  # sticky and writable by all: fine above a folder, never as one
    for mode, word in ((0o775, "its group"), (0o757, "every user")):
        own.chmod(mode)
        assert word in locate.unsafe(own / "x.toml") and word in locate.unsafe(own)
    own.chmod(0o1777)
    (own / "inner").mkdir()
    (own / "inner").chmod(0o755)
    assert locate.unsafe(own / "inner") == ""  # a sticky folder above: nobody can swap `inner`
    assert "every user" in locate.unsafe(own)
    f = own / "inner" / "course.toml"
    f.write_text("")
    f.chmod(0o666)
    assert "every user" in locate.unsafe(f)
    link = tmp_path / "link"
    link.symlink_to(own / "inner")
    assert locate.unsafe(link) == ""
    (own / "inner").chmod(0o777)
    assert "every user" in locate.unsafe(link)  # the folder a link leads to is what counts
    if os.geteuid() == 0:
        os.chown(own / "inner", NOBODY, NOBODY)
        (own / "inner").chmod(0o755)
        assert "another user" in locate.unsafe(own / "inner")


def test_a_default_secret_file_others_can_write_is_refused(tmp_path, monkeypatch, capsys):
    from autograder.config.secret import find_secret

    def course_secret():
        found = find_secret()
        return found.value, found.source

    for var in ("AUTOGRADER_SECRET", "AUTOGRADER_SECRET_FILE"):
        monkeypatch.delenv(var, raising=False)
    home = tmp_path / "home"
    secret = home / ".config" / "autograder" / "secret"
    secret.parent.mkdir(parents=True)
    secret.write_text("mine")
    monkeypatch.setenv("HOME", str(home))
    assert course_secret() == (b"mine", "file")
    secret.chmod(secret.stat().st_mode | stat.S_IWOTH)
    assert course_secret()[1] == "default"
    assert f"not using {secret}" in capsys.readouterr().err
    monkeypatch.setenv("AUTOGRADER_SECRET_FILE", str(secret))  # named: used as named
    assert course_secret() == (b"mine", "file")


def test_validate_uses_a_kit_named_with_kit(tmp_path, monkeypatch):
    """`autograder --kit K validate`: the caller named K, so its checks are the ones run."""
    from autograder.student.verdicts import Checks

    marker = tmp_path / "marker"
    folder = _plant(tmp_path / "k", marker, "01_tensors")
    assert Checks("01_tensors", checks.version(folder), kit=tmp_path / "k").folder() == folder
    with contextlib.redirect_stderr(io.StringIO()):
        assert Checks("01_tensors", checks.version(folder)).folder() != folder  # not named: the installed checks


def test_a_refusal_shows_a_planted_folder_name_never_obeys_it(tmp_path, monkeypatch, capsys):
    share = tmp_path / "\x1b[2J\u202eshare\n"
    (share / "assignments").mkdir(parents=True)
    (share / "solutions").mkdir()
    share.chmod(0o777)
    monkeypatch.chdir(share)
    assert locate.kit() == locate.installed_kit()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "\u202e" not in err and "\\x1b[2J\\u202eshare\\n" in err
