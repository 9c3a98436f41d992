"""A grading kit for PyTorch courses: notebooks in, trustworthy scores out.

Layers, bottom to top (docs/architecture.md, checked by `lint-imports`): config -> notebook -> intake ->
execute (sandboxed worker) -> probe -> score -> judge (pytest in the trusted process) -> store -> grades ->
report | lms | similarity -> pipeline -> the faces: student, serve | interop, cli.
"""

__version__ = "0.1.0"
