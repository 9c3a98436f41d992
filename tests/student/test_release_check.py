"""`autograder release --check`: student notebooks follow the public checks they were released with."""
from __future__ import annotations

import shutil

from autograder.cli import main


def test_check_flags_changed_public_checks_and_leftover_copies(toy_kit, tmp_path, capsys):
    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit, ignore=shutil.ignore_patterns("__pycache__"))
    assert main(["--kit", str(kit), "release"]) == 0
    assert all(p.suffix == ".ipynb" for p in (kit / "student").iterdir())  # notebooks only
    assert main(["--kit", str(kit), "release", "--check"]) == 0

    test = kit / "assignments" / "toy" / "public" / "test_double.py"
    test.write_text(test.read_text() + "\n# a public test changed: released notebooks name other checks now\n")
    capsys.readouterr()
    assert main(["--kit", str(kit), "release", "--check"]) == 1
    assert "student/toy.ipynb" in capsys.readouterr().err

    assert main(["--kit", str(kit), "release"]) == 0
    (kit / "student" / "toy" / "public").mkdir(parents=True)  # a copy left from older releases
    capsys.readouterr()
    assert main(["--kit", str(kit), "release", "--check"]) == 1
    assert "student/toy/ (the student package carries the checks now" in capsys.readouterr().err


LINK = "https://course.example.edu/handouts/torch_course_autograder-0.1.0-py3-none-any.whl"


def test_the_course_file_fills_the_install_line_of_released_notebooks(toy_kit, tmp_path, capsys):
    """course.toml `[course] package` is the link released notebooks (and nbgrader's source) tell students to
    install; without it they keep the placeholder LINK and say the course gives it."""
    import json

    from autograder.interop.nbgrader import source_notebook

    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit, ignore=shutil.ignore_patterns("__pycache__"))
    course = tmp_path / "course.toml"

    def first_cell() -> str:
        cells = json.loads((kit / "student" / "toy.ipynb").read_text(encoding="utf-8"))["cells"]
        return "".join(next(c for c in cells if c["cell_type"] == "code")["source"])

    assert main(["--kit", str(kit), "release"]) == 0
    assert '[course] @ LINK"  (LINK: the link your course gives)' in first_cell()
    course.write_text(f'[course]\npackage = "{LINK}"\n')
    assert main(["--course-file", str(course), "--kit", str(kit), "release", "--check"]) == 1  # the link is news
    assert main(["--course-file", str(course), "--kit", str(kit), "release"]) == 0
    cell = first_cell()
    assert cell.count(f'%pip install "torch-course-autograder[course] @ {LINK}"') == 2   # the comment and the error
    assert "LINK" not in cell.replace(LINK, "")
    compile("\n".join(ln for ln in cell.splitlines() if not ln.startswith("%")), "<setup cell>", "exec")  # no magics
    assert main(["--course-file", str(course), "--kit", str(kit), "release", "--check"]) == 0
    assert f"@ {LINK}" in "".join(c.source for c in source_notebook(kit, "toy", {"double": 1.0}, LINK).cells)

    for bad in ('https://x.edu/a.whl"; import os', "https://x.edu/a b.whl", "ftp://x.edu/a.whl", "a.whl", 3):
        course.write_text(f"[course]\npackage = {json.dumps(bad)}\n")
        capsys.readouterr()
        assert main(["--course-file", str(course), "--kit", str(kit), "release"]) == 2
        assert "course.package" in capsys.readouterr().err
    assert LINK in first_cell()   # nothing was written
