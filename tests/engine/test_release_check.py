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
