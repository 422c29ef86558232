"""Typed errors of the tracker. The command line turns each into a one-line message."""


class AugurError(Exception):
    """Base class of every error a user can cause with bad input."""


class StateError(AugurError):
    """An observed board state is malformed or impossible (unknown region, negative count, ...)."""


class BoardError(AugurError):
    """A board data file is missing or inconsistent."""


class GameError(AugurError):
    """A game set-up or a game file is invalid (unknown player colour, bad option, ...)."""
