"""Shared fixtures: the board, and a compact way to write board states in tests."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tracker.board import load_board
from tracker.state import ObservedState

# The suite gates every landing, so the property tests draw the same examples on every run:
# a failure is then the code's, reproducible from a clean clone, never the luck of the draw.
# AUGUR_HYPOTHESIS=explore draws fresh examples each run, to hunt for new failures.
settings.register_profile("suite", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("AUGUR_HYPOTHESIS", "suite"))

# A failed browser test reports what its page showed (requests, images, console) with the failure.
# pytester runs a test file of its own in a fresh pytest (tests/test_browser.py checks that report).
pytest_plugins = ["pytester", "tests.browser_report"]

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def board():
    return load_board("spqrisiko")


def make_state(garrisons: dict[str, tuple[str, int]], triremes: dict | None = None, centres=(),
               fill: str | None = None, fill_legions: int = 3) -> ObservedState:
    """A state from ``province -> (colour, legions)``; ``fill`` gives every other province to that colour."""
    board = load_board("spqrisiko")
    full = dict(garrisons)
    if fill:
        for p in board.provinces:
            full.setdefault(p, (fill, fill_legions))
    return ObservedState.from_summary(board, full, triremes or {}, centres)


def swapped_map(geo, first: str, second: str):
    """``geo`` with two regions' pixels swapped: a print whose borders are not the committed map's."""
    from dataclasses import replace
    a, b = (geo.region_ids.index(r) + 1 for r in (first, second))
    labels = geo.labels.copy()
    labels[geo.labels == a], labels[geo.labels == b] = b, a
    return replace(geo, labels=labels)


def shared_file(*parts: str) -> Path:
    """A file under ../shared, or skip the test with the reason when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared reference not available: {path}")
    return path
