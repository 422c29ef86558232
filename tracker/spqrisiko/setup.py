"""Initial placement (§3): players, neutral armies and the opening occupation of provinces."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

from tracker.board import Board
from tracker.errors import GameError
from tracker.pieces import ARMY_COLOURS
from tracker.readings import soften_low_confidence
from tracker.spqrisiko.options import SpqrOptions
from tracker.state import ObservedState
from tracker.verdicts import Verdict

PLAYER_START_LEGIONS = 2     # §3.7
NEUTRAL_GROUP = 3            # §3.3, §3.7
NEUTRAL_LEGIONARIES = 27     # §3.3–3.4: 27 per unused colour
MIN_PLAYERS, MAX_PLAYERS = 3, 5


@dataclass(frozen=True)
class SetupPlan:
    """How many provinces each army ends the set-up with (§3.9)."""

    players: tuple[str, ...]
    neutrals: tuple[str, ...]
    player_provinces: int
    neutral_groups: dict[str, int]
    fixed_neutral: str | None  # province pre-occupied by a neutral group (4 players, §3.4)


def check_players(players: Sequence[str]) -> tuple[str, ...]:
    players = tuple(players)
    unknown = [c for c in players if c not in ARMY_COLOURS]
    if unknown:
        raise GameError(f"unknown player colour '{unknown[0]}' (expected {', '.join(ARMY_COLOURS)})")
    if len(set(players)) != len(players):
        raise GameError("a colour is listed twice among the players")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise GameError(f"S.P.Q.RisiKo! is for 3 to 5 players, got {len(players)}")
    return players


def setup_plan(board: Board, players: Sequence[str], options: SpqrOptions = SpqrOptions()) -> SetupPlan:
    """§2.6: all five armies always play; unused colours become neutral armies."""
    players = check_players(players)
    neutrals = tuple(c for c in ARMY_COLOURS if c not in players)
    groups = {c: NEUTRAL_LEGIONARIES // NEUTRAL_GROUP for c in neutrals}
    per_player = (len(board.provinces) - sum(groups.values())) // len(players)
    fixed = options.four_player_neutral_start if len(players) == 4 else None
    return SetupPlan(players, neutrals, per_player, groups, fixed)


def validate_setup(state: ObservedState, plan: SetupPlan) -> list[Verdict]:
    """Check a finished set-up (§3.9): 9 provinces of 2 per player, neutral provinces of 3.

    What the camera could not see is not held against the table. A province marked unseen and
    empty is not free: it is named in one warning, and an army short of its provinces by no more
    than the unseen ones is not reported. A violation that rests only on regions the camera is
    unsure of is a warning, as for every change (:func:`tracker.readings.soften_low_confidence`)."""
    verdicts = []
    board = state.board
    unseen = tuple(p for p in board.provinces if p not in state.owners and p in state.unseen)
    empty = [p for p in board.provinces if p not in state.owners and p not in state.unseen]
    if empty:
        verdicts.append(Verdict.violation("§3.8", f"{len(empty)} provinces are still free after the set-up",
                                          tuple(sorted(empty))))
    if unseen:
        verdicts.append(Verdict.warning("§3.8", f"{len(unseen)} provinces are not seen by the camera: "
                                                f"the set-up is checked without them", unseen))

    def holds(rule: str, who: str, owned: int, expected: int) -> None:
        if owned != expected and not owned < expected <= owned + len(unseen):
            verdicts.append(Verdict.violation(rule, f"{who} holds {owned} provinces, expected {expected}"))

    for colour in plan.players:
        owned = state.provinces_of(colour)
        holds("§3.9", colour, len(owned), plan.player_provinces)
        wrong = sorted(p for p in owned if state.legions[p] != PLAYER_START_LEGIONS)
        if wrong:
            verdicts.append(Verdict.violation("§3.7", f"{colour} provinces without exactly 2 legionaries", tuple(wrong)))
    for colour, groups in plan.neutral_groups.items():
        owned = state.provinces_of(colour)
        holds("§3.3", f"neutral {colour}", len(owned), groups)
        wrong = sorted(p for p in owned if state.legions[p] != NEUTRAL_GROUP)
        if wrong:
            verdicts.append(Verdict.violation("§3.7", f"neutral {colour} provinces without exactly 3 legionaries",
                                              tuple(wrong)))
    if plan.fixed_neutral and plan.fixed_neutral not in state.unseen and \
            state.owners.get(plan.fixed_neutral) not in plan.neutrals:
        verdicts.append(Verdict.violation("§3.4", f"with 4 players {board.name(plan.fixed_neutral)} starts neutral",
                                          (plan.fixed_neutral,)))
    if state.triremes:
        verdicts.append(Verdict.violation("§3.10", "no triremes are in play at the start", tuple(sorted(state.triremes))))
    if state.centres:
        verdicts.append(Verdict.violation("§3.11", "power centres stay beside the board at the start",
                                          tuple(sorted(state.centres))))
    return soften_low_confidence(verdicts, state, state)


def random_setup(board: Board, players: Sequence[str], rng: random.Random,
                 options: SpqrOptions = SpqrOptions()) -> ObservedState:
    """A legal finished set-up (§3.7–3.9), each free province chosen at random."""
    plan = setup_plan(board, players, options)
    free = list(board.provinces)
    rng.shuffle(free)
    garrisons: dict[str, tuple[str, int]] = {}
    if plan.fixed_neutral:
        free.remove(plan.fixed_neutral)
        garrisons[plan.fixed_neutral] = (plan.neutrals[0], NEUTRAL_GROUP)
    groups = [c for c, n in plan.neutral_groups.items() for _ in range(n)]
    if plan.fixed_neutral:
        groups.remove(plan.neutrals[0])
    for colour in groups:
        garrisons[free.pop()] = (colour, NEUTRAL_GROUP)
    for i, prov in enumerate(free):
        garrisons[prov] = (plan.players[i % len(plan.players)], PLAYER_START_LEGIONS)
    return ObservedState.from_summary(board, garrisons)
