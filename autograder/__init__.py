"""A grading kit for PyTorch courses: notebooks in, trustworthy scores out.

Pipeline (one package per stage): intake -> execute (sandboxed worker) -> probe ->
judge (pytest in the trusted process) -> score -> report.
"""
__version__ = "0.1.0"
