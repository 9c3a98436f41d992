"""Scores, statuses and their result schemas."""
