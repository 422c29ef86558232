"""Events inferred from one observed board state to the next, and the turn phases they belong to.

One :class:`Event` type with a ``kind`` (like a chess move, whatever piece moved): the
fields an event kind does not use stay at their defaults.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tracker.board import Board
from tracker.pieces import LEGIONARY, TRIREME, pieces_of


class Phase(IntEnum):
    """The phases of a turn, in the order §4.2 makes binding."""

    SETUP = -1
    SCORING = 0
    REINFORCEMENT = 1
    NAVAL_MOVEMENT = 2
    NAVAL_COMBAT = 3
    SEA_ATTACK = 4
    LAND_ATTACK = 5
    STRATEGIC_MOVE = 6
    CARD_DRAW = 7
    #: LotR: the Fellowship moves on at the very end of a turn
    FELLOWSHIP = 8


# Event kinds
SETUP_PLACEMENT = "setup_placement"
TURN_START = "turn_start"
REINFORCEMENT = "reinforcement"
TRIREME_TO_LEGIONARIES = "trireme_to_legionaries"
LEGIONARIES_TO_TRIREME = "legionaries_to_trireme"
CARD_TRIREME = "card_trireme"
CENTRE_PLACED = "centre_placed"
VEXILLUM_EXCHANGE = "vexillum_exchange"
NAVAL_MOVE = "naval_move"
NAVAL_COMBAT = "naval_combat"
SEA_ATTACK = "sea_attack"
LAND_ATTACK = "land_attack"
STRATEGIC_MOVE = "strategic_move"
ELIMINATION = "elimination"
CARD_DRAWN = "card_drawn"
CARD_SET = "card_set"
# Middle-earth board
LEADER_MOVE = "leader_move"
LEADER_PLACED = "leader_placed"
LEADER_LOST = "leader_lost"
RING_MOVE = "ring_move"

PHASE_OF = {
    SETUP_PLACEMENT: Phase.SETUP,
    TURN_START: Phase.SCORING,
    REINFORCEMENT: Phase.REINFORCEMENT,
    TRIREME_TO_LEGIONARIES: Phase.REINFORCEMENT,
    LEGIONARIES_TO_TRIREME: Phase.REINFORCEMENT,
    CARD_TRIREME: Phase.REINFORCEMENT,
    CENTRE_PLACED: Phase.REINFORCEMENT,
    CARD_SET: Phase.REINFORCEMENT,
    NAVAL_MOVE: Phase.NAVAL_MOVEMENT,
    NAVAL_COMBAT: Phase.NAVAL_COMBAT,
    SEA_ATTACK: Phase.SEA_ATTACK,
    LAND_ATTACK: Phase.LAND_ATTACK,
    STRATEGIC_MOVE: Phase.STRATEGIC_MOVE,
    CARD_DRAWN: Phase.CARD_DRAW,
    RING_MOVE: Phase.FELLOWSHIP,
}
#: Kinds that happen inside any phase (they follow another event) and do not move the phase on.
PHASELESS = {VEXILLUM_EXCHANGE, ELIMINATION, LEADER_MOVE, LEADER_PLACED, LEADER_LOST}


@dataclass(frozen=True)
class Event:
    """Something that happened on the table, as the tracker reads it."""

    kind: str
    actor: str
    source: str | None = None      # province or sea the pieces came from
    target: str | None = None      # province or sea they went to / that was attacked
    sea: str | None = None         # the sea area used as a bridge (sea attack, strategic move)
    amount: int = 0                # legionaries placed or moved, triremes moved or made
    defender: str | None = None
    attacker_losses: int = 0
    defender_losses: int = 0
    conquered: bool = False
    #: A land attack between provinces that also share a sea where the attacker had superiority:
    #: the camera cannot tell it from a sea attack (§12.1), so it must not close the sea-attack phase.
    maybe_by_sea: bool = False
    #: An attack that killed nobody could have aimed at several enemies; the target is a guess
    #: and must not count for once-per-turn limits (§12.6).
    target_guessed: bool = False

    @property
    def phase(self) -> Phase | None:
        return PHASE_OF.get(self.kind)

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in (None, 0, False) or k in ("kind", "actor")}

    def describe(self, board: Board | None = None) -> str:
        """One plain-language sentence for the dashboard and the replay log."""
        def n(r: str | None) -> str:
            return board.name(r) if board and r in board.regions else str(r)

        def units(x: int) -> str:
            return pieces_of(x, board.pieces.unit if board else LEGIONARY)

        k, a = self.kind, self.actor
        if k == SETUP_PLACEMENT:
            return f"{a} occupies {n(self.target)} with {self.amount}"
        if k == TURN_START:
            return f"{a}'s turn begins"
        if k == REINFORCEMENT:
            return f"{a} places {units(self.amount)} in {n(self.target)}"
        if k == TRIREME_TO_LEGIONARIES:
            return f"{a} turns {pieces_of(self.amount, TRIREME)} in {n(self.source)} into {2 * self.amount} legionaries in {n(self.target)}"
        if k == LEGIONARIES_TO_TRIREME:
            return f"{a} turns {3 * self.amount} legionaries of {n(self.source)} into {pieces_of(self.amount, TRIREME)} in {n(self.target)}"
        if k == CARD_TRIREME:
            return f"{a} launches {pieces_of(self.amount, TRIREME)} from a card set in {n(self.target)}"
        if k == CENTRE_PLACED:
            return f"{a} builds a power centre in {n(self.target)}"
        if k == VEXILLUM_EXCHANGE:
            return f"{a} exchanges pieces in {n(self.target)} (strength unchanged)"
        if k == NAVAL_MOVE:
            return f"{a} sails {pieces_of(self.amount, TRIREME)} from {n(self.source)} to {n(self.target)}"
        if k == NAVAL_COMBAT:
            return (f"{a} fights {self.defender}'s fleet in {n(self.target)}: loses {self.attacker_losses}, "
                    f"sinks {self.defender_losses}")
        if k in (SEA_ATTACK, LAND_ATTACK):
            how = f"by sea across {n(self.sea)}" if k == SEA_ATTACK else "by land"
            # no source: no province of the attacker's that the camera sees borders it (a verdict says
            # why: none does, or the one that may have is out of sight)
            whence = f" from {n(self.source)} {how}" if self.source else f", from no province of {a}'s the camera sees beside it"
            out = (f"{a} attacks {n(self.target)} ({self.defender}){whence}: "
                   f"loses {self.attacker_losses}, kills {self.defender_losses}")
            if self.target_guessed:
                out = out.replace(f"attacks {n(self.target)}", f"attacks (probably) {n(self.target)}")
            if self.maybe_by_sea:
                out = out.replace(" by land:", " by land (or by sea):")
            return out + (f"; conquers it and moves in {self.amount}" if self.conquered else "")
        if k == STRATEGIC_MOVE:
            via = f" across {n(self.sea)}" if self.sea else ""
            return f"{a} moves {units(self.amount)} from {n(self.source)} to {n(self.target)}{via}"
        if k == ELIMINATION:
            return f"{a} eliminates {self.defender}"
        if k == CARD_DRAWN:
            return f"{a} draws a card"
        if k == CARD_SET:
            return f"{a} plays a card set worth {units(self.amount)}"
        if k == LEADER_MOVE:
            return f"{a}'s leader goes from {n(self.source)} to {n(self.target)}"
        if k == LEADER_PLACED:
            return f"{a} places a leader in {n(self.target)}"
        if k == LEADER_LOST:
            return f"{self.defender}'s leader falls in {n(self.target)}"
        if k == RING_MOVE:
            return (f"the Fellowship leaves Middle-earth from {n(self.source)}" if self.target is None
                    else f"the Fellowship moves from {n(self.source)} to {n(self.target)}")
        return f"{a}: {k}"
