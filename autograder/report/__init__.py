"""Where results go: per-submission files, the gradebook, CSVs, terminal tables."""
