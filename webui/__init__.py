"""Augur's table-side dashboard: live view, corrections, recording and dispute review."""
