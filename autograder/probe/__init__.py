"""Calling probes: on a student worker, on the (cached) reference, or in-process for self-checks."""
