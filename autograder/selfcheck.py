"""Where `Checker` and `quiet_stderr` lived before they moved into `autograder.student.selfcheck`.

Notebooks released before that move import them from here (`from autograder.selfcheck import Checker`) and
students keep the notebook they were given for the whole term, so this module stays: the same objects,
nothing of its own.  `autograder.student.PUBLIC` lists it among the names released notebooks import.
"""

from autograder.student.selfcheck import Checker, quiet_stderr

__all__ = ["Checker", "quiet_stderr"]
