"""One way to name a notebook cell to a student, and the exercises in the order the notebook has them."""

import json

from autograder.notebook.cells import cell_name, exercise_order, first_line


def test_a_cell_is_named_by_its_position_and_first_line():
    assert cell_name(18, "\n\n  def double(x):\n    return 2 * x") == "cell 18 (def double(x):)"
    assert cell_name(3) == "cell 3" and cell_name(3, "   \n") == "cell 3"
    long = "x = " + "1 + " * 30
    assert first_line(long) == long[:60] + "…" and first_line(first_line(long)) == first_line(long)


def test_exercises_in_notebook_order(tmp_path):
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": 'check("nope")'},
            {"cell_type": "code", "source": ["x = 1\n", 'check("views")']},
            {"cell_type": "code", "source": "check('dtypes'); check(\"views\")"},
        ]
    }
    path = tmp_path / "a.ipynb"
    path.write_text(json.dumps(nb))
    assert exercise_order(path) == ["views", "dtypes"]
    path.write_text("not json")
    assert exercise_order(path) == [] and exercise_order(tmp_path / "missing.ipynb") == []
