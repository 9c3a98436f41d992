"""Similarity of submitted notebooks (code cells, boilerplate removed, winnowed fingerprints): a signal for a
person to read, never a grade change.  `pairs.compare` ranks the pairs; `winnow` fingerprints code."""
