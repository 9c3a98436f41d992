"""Deciding scores in the trusted process: the pytest plugin, torch-aware checks, sessions."""
