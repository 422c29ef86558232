"""Augur: the ``augur`` command line that fronts the tracker (and, later, vision and the dashboard)."""
