"""Piece colours, piece kinds and their values: the one place these names are defined.

Every other module (the tracker, vision, the dashboard) imports these constants rather
than spelling the strings itself.
"""
from __future__ import annotations

from typing import Final

RED: Final = "red"
BLUE: Final = "blue"
YELLOW: Final = "yellow"
GREEN: Final = "green"
BLACK: Final = "black"
#: Colour of the power centres (arenas): they belong to no army.
NEUTRAL: Final = "neutral"

#: The five army colours in S.P.Q.RisiKo! (rulebook §1.2; names as used by the third-party sources).
ARMY_COLOURS: Final[tuple[str, ...]] = (RED, BLUE, YELLOW, GREEN, BLACK)
ALL_COLOURS: Final[tuple[str, ...]] = ARMY_COLOURS + (NEUTRAL,)

LEGIONARY: Final = "legionary"
VEXILLUM: Final = "vexillum"
TRIREME: Final = "trireme"
CENTRE: Final = "centre"

PIECE_KINDS: Final[tuple[str, ...]] = (LEGIONARY, VEXILLUM, TRIREME, CENTRE)
#: Kinds that stand on a province and count as its garrison.
LAND_KINDS: Final[tuple[str, ...]] = (LEGIONARY, VEXILLUM)

#: A vexillum stands for ten legionaries (rulebook §3.10).
VEXILLUM_VALUE: Final = 10
#: The physical supply of power centres (rulebook §1.3, §16.1).
CENTRE_SUPPLY: Final = 12
#: The victory-point track runs from box 0 to box XL.
VP_TRACK_MAX: Final = 40
