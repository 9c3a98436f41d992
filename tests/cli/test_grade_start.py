"""The grade command's own start: with local judges it imports no torch (about 2 s of CPU that competed, on a
2-core host, with the judges' and the zygote's imports of it, which do the grading)."""

import subprocess
import sys
import textwrap

NO_TORCH = textwrap.dedent("""
    import sys

    class NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] == "torch":
                raise ImportError("the grade command imported " + name)

    sys.meta_path.insert(0, NoTorch())
    from autograder.cli import entry

    sys.argv[0] = "autograder"
    entry()
""")


def test_the_grade_command_grades_with_judges_without_importing_torch(toy_kit, tmp_path):
    cmd = [
        sys.executable,
        "-c",
        NO_TORCH,
        "--kit",
        str(toy_kit),
        "grade",
        "toy",
        str(toy_kit / "solutions" / "toy.ipynb"),
        "--out",
        str(tmp_path / "r"),
        "--jobs",
        "2",
        "--memory-budget",
        "64",
    ]  # two judges whatever the host has free: jobs=1 judges in this process
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "10/10" in r.stdout and "imported torch" not in r.stderr
