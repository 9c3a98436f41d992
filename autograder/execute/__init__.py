"""Executing untrusted notebooks: the worker process, its sandbox, limits and wire format."""
