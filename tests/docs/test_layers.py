"""The folder tree is the architecture (docs/architecture.md): `lint-imports` checks the layers and that no
module imports one that imports it back (`make test`, contracts in pyproject.toml).  What stays here is
what a contract cannot say."""


def test_an_override_is_made_where_grades_are_written():
    """Both writers of an assignment's grades (grading, an override) are the pipeline's: the grades layer holds
    the override rules and their trail only."""
    from autograder.grades import overrides
    from autograder.pipeline import set_override

    assert callable(set_override) and not hasattr(overrides, "set_override")
