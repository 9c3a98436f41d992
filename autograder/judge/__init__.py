"""Deciding scores in the trusted process: the pytest plugin, torch- and TF-aware checks, one notebook graded
(`session`), the master's gate (`gate`), the results it hands on (`results`), the options and the judge processes
(`options`, `pool`)."""
