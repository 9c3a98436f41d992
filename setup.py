"""Build hook: the wheel carries each assignment's public checks (never hidden tests or solutions).

Everything else about the package is in pyproject.toml.  Which files are copied is decided by
`autograder/student/public_checks/__init__.py`, loaded by path since no dependency is installed at build time.
"""
import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _checks():
    spec = importlib.util.spec_from_file_location("_autograder_checks", ROOT / "autograder" / "student" / "public_checks" / "__init__.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class BuildWithChecks(build_py):
    def run(self):
        super().run()
        # An editable install reads the kit's assignments/ directly (autograder.student.public_checks.find).
        if not getattr(self, "editable_mode", False) and (ROOT / "assignments").is_dir():
            _checks().package(ROOT, Path(self.build_lib) / "autograder" / "student" / "public_checks")


setup(cmdclass={"build_py": BuildWithChecks})
