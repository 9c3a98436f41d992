"""What the kit keeps of a grading run: per-submission result files, the SQLite gradebook, every graded version."""
