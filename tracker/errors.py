"""Typed errors of the tracker. The command line turns each into a one-line message."""
from __future__ import annotations

import json
from pathlib import Path


class AugurError(Exception):
    """Base class of every error a user can cause with bad input."""


class StateError(AugurError):
    """An observed board state is malformed or impossible (unknown region, negative count, ...)."""


class BoardError(AugurError):
    """A board data file is missing or inconsistent."""


class GameError(AugurError):
    """A game set-up or a game file is invalid (unknown player colour, bad option, ...)."""


def read_json(path: Path, what: str, error: type[AugurError] = AugurError):
    """A JSON file's content, or ``error`` with a one-line message naming ``what`` it should be."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path} is not a{'n' if what[0] in 'aeiou' else ''} {what} ({exc.__class__.__name__})") from None
