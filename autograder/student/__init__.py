"""The student's side: released notebooks, `check()` in a notebook, `autograder validate`, the public checks the
student package carries."""
