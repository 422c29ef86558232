"""Piece colours, piece kinds and their values: the one place these names are defined.

Every other module (the tracker, vision, the dashboard) imports these constants rather
than spelling the strings itself. Each game family has a :class:`PieceSet` saying which
kinds stand on its board, what each is worth and which colours its armies come in; a
board file names its piece set.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Mapping

RED: Final = "red"
BLUE: Final = "blue"
YELLOW: Final = "yellow"
GREEN: Final = "green"
BLACK: Final = "black"
PURPLE: Final = "purple"
#: Colour of the pieces that belong to no army (power centres, the One Ring).
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

# -- classic Risiko (Editrice Giochi): tanks and flags in six colours ---------------------
TANK: Final = "tank"
FLAG: Final = "flag"
#: A flag (bandierina) stands for ten tanks, like the S.P.Q.RisiKo! vexillum.
FLAG_VALUE: Final = 10
#: The six army colours of the Italian box (rosso, blu, giallo, verde, nero, viola).
RISIKO_COLOURS: Final[tuple[str, ...]] = (RED, BLUE, YELLOW, GREEN, BLACK, PURPLE)

# -- Risiko - Il Signore degli Anelli: battalions, leaders and the One Ring ---------------
INFANTRY: Final = "infantry"     # elf archer / orc: 1 battalion
CAVALRY: Final = "cavalry"       # rider of Rohan / black rider: 3 battalions
CREATURE: Final = "creature"     # eagle / cave troll: 5 battalions
LEADER: Final = "leader"
RING: Final = "ring"
#: Good armies are green and yellow, evil ones red and black (seed 004, "DISPOSIZIONE INIZIALE" 4).
LOTR_GOOD: Final[tuple[str, ...]] = (GREEN, YELLOW)
LOTR_EVIL: Final[tuple[str, ...]] = (RED, BLACK)
LOTR_COLOURS: Final[tuple[str, ...]] = LOTR_GOOD + LOTR_EVIL

#: Kinds whose plural is not the name with an "s" (or "-y" made "-ies": legionaries, armies).
PLURALS: Final[Mapping[str, str]] = {VEXILLUM: "vexilla", INFANTRY: INFANTRY, CAVALRY: CAVALRY}


def plural(kind: str) -> str:
    """The word for several pieces of ``kind`` (or units: "armies", "battalions")."""
    if kind in PLURALS:
        return PLURALS[kind]
    return kind[:-1] + "ies" if kind.endswith("y") else kind + "s"


def pieces_of(n: int, kind: str, colour: str | None = None) -> str:
    """``n`` pieces of ``kind`` as the players read them: "1 red trireme", "3 vexilla"."""
    return f"{n} {colour + ' ' if colour else ''}{kind if n == 1 else plural(kind)}"


@dataclass(frozen=True)
class PieceSet:
    """The pieces of one game family.

    ``garrison`` maps the kinds that make up a territory's strength to what each counts for;
    ``tokens`` are army-coloured pieces that are not strength (a leader); ``neutral`` are
    pieces of no army (a power centre, the Ring); ``naval`` stand only at sea.
    """

    id: str
    colours: tuple[str, ...]
    garrison: Mapping[str, int]
    tokens: tuple[str, ...] = ()
    neutral: tuple[str, ...] = ()
    naval: tuple[str, ...] = ()
    #: the word for one unit of strength, for sentences ("legionary", "army", "battalion")
    unit: str = "army"

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.garrison) + self.tokens + self.neutral + self.naval

    @property
    def all_colours(self) -> tuple[str, ...]:
        return self.colours + ((NEUTRAL,) if self.neutral else ())

    def strength(self, kinds: Mapping[str, int]) -> int:
        return sum(v * kinds.get(k, 0) for k, v in self.garrison.items())

    def tidy(self, strength: int) -> dict[str, int]:
        """The pieces players use to show ``strength``: the biggest pieces first."""
        out: dict[str, int] = {}
        for kind, value in sorted(self.garrison.items(), key=lambda kv: -kv[1]):
            n, strength = divmod(strength, value)
            if n:
                out[kind] = n
        return out

    def unit_word(self, n: int) -> str:
        return self.unit if n == 1 else plural(self.unit)

    def describe(self, content: Mapping[str, Mapping[str, int]]) -> str:
        """A region's pieces (``colour -> kind -> count``) in words, for the players:
        "2 red legionaries, 1 red vexillum, 1 neutral centre", or "nothing". The armies come in
        the set's order of colours, then the neutral pieces; each army's kinds in the set's order."""
        def rank(order: tuple[str, ...], name: str) -> tuple[int, str]:
            return (order.index(name) if name in order else len(order), name)
        return ", ".join(pieces_of(n, k, c)
                         for c, kinds in sorted(content.items(), key=lambda ck: rank(self.all_colours, ck[0]))
                         for k, n in sorted(kinds.items(), key=lambda kn: rank(self.kinds, kn[0]))) or "nothing"


SPQR_PIECES: Final = PieceSet("spqrisiko", ARMY_COLOURS, {LEGIONARY: 1, VEXILLUM: VEXILLUM_VALUE},
                              neutral=(CENTRE,), naval=(TRIREME,), unit="legionary")
RISIKO_PIECES: Final = PieceSet("risiko", RISIKO_COLOURS, {TANK: 1, FLAG: FLAG_VALUE}, unit="army")
LOTR_PIECES: Final = PieceSet("lotr", LOTR_COLOURS, {INFANTRY: 1, CAVALRY: 3, CREATURE: 5},
                              tokens=(LEADER,), neutral=(RING,), unit="battalion")
PIECE_SETS: Final[dict[str, PieceSet]] = {p.id: p for p in (SPQR_PIECES, RISIKO_PIECES, LOTR_PIECES)}
