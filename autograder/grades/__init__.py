"""What counts: the counted version of each submission, overrides, the late policy applied, one row per student."""
