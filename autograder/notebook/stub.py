"""The release's stub: what a solution block becomes in the student's notebook, and how it is known again.

`autograder.student.release` writes it in place of each `### BEGIN SOLUTION` block; an exercise that still holds
it, or raises the error it raises, is "not answered yet" wherever a student or a TA reads about it (check(),
validate, the grader's test messages, the feedback page, the instructor's report), never "wrong" or "an error".
"""

from __future__ import annotations

import re

MARKER = "# YOUR CODE HERE"
STUB = "raise NotImplementedError()"
ERROR = "NotImplementedError"  # the type of what an untouched stub raises
PATTERN = re.compile(r"^[ \t]*" + re.escape(MARKER) + r"[ \t]*\n[ \t]*" + re.escape(STUB), re.M)
NOT_ANSWERED = "not answered yet"


def stub(indent: str) -> str:
    """The stub at `indent`, without the line end that follows it."""
    return f"{indent}{MARKER}\n{indent}{STUB}"


def not_answered(names: list[str]) -> str:
    """What a student reads for an untouched stub, the same in check(), validate and feedback pages:
    `names` are what still raises (already quoted as the student wrote them), none for the whole exercise."""
    what = ", ".join(names) or "this exercise"
    return (
        f"{NOT_ANSWERED}: {what} still {'raise' if len(names) > 1 else 'raises'} {ERROR} "
        f"(replace the `{MARKER}` stub with your code)"
    )
