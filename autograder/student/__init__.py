"""The student's side: released notebooks, `check()` in a notebook, `autograder validate`, the public checks the
student package carries.

`PUBLIC` is the student-facing API, in one place: every module a notebook of any release imports, with the
names it imports from it, and `CHECKER` the methods its `check` object is called by.  A student keeps the
notebook given out for the whole term while the package is upgraded under it, so these names stay where they
are, with the same meaning: a module that moves leaves a shim at the old name (`autograder/selfcheck.py`),
and a name is never removed from here.  `tests/student/test_public_api.py` fails when a name a released
notebook imports is not here or not importable, and `tests/e2e/test_released_notebooks.py` runs earlier
releases' notebooks (`tests/fixtures/released/`) against this package.
"""
PUBLIC: dict[str, tuple[str, ...]] = {
    "autograder.student.selfcheck": ("Checker", "quiet_stderr"),
    "autograder.selfcheck": ("Checker", "quiet_stderr"),  # where they were before the move into student/
}
# `check = Checker("<id>", version="<checks' version>")`, then `check("x")`, `check.passed("x", ...)`, `check.all()`
CHECKER: tuple[str, ...] = ("__call__", "passed", "all")
