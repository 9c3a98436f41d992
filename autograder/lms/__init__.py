"""Sending grades to learning management systems: Canvas REST API, LTI 1.3 Assignment and Grade Services."""
