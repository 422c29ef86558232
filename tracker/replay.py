"""Replay a recorded game: a JSON-lines file of observed states, through a :class:`~tracker.game.Game`.

Each line is one JSON object:

- optionally first, a header ``{"game": {"players": [...], "ruleset": "2005", "target_vp": 20}}``;
- then observed states, either bare (``{"board": ..., "regions": ...}``) or wrapped with what
  the tablet recorded beside them::

      {"state": {...}, "turn": "blue",
       "cards_played": {"player": "blue", "cards": ["legionary", "vexillum", "trireme"]},
       "card_drawn": true}

  ``cards_played`` is entered before the state is read (sets are played at the start of the
  reinforcements), ``card_drawn`` after it (drawing ends the turn); ``entries`` holds other
  tablet entries made before the state (``{"kind": "fellowship_roll", "value": 5}``, see
  :func:`tracker.rulesets.apply_entry`). Other keys (a simulator's ``truth``) are ignored.

The header may name ``neutrals`` (the tournament's neutral colour, the LotR 2-player neutral
army) and ``objectives`` (tournament: colour -> ``{"territories": [...], "continents": [...]}``).

The first state is the board after set-up.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from tracker.errors import GameError, StateError
from tracker.game import TransitionReport
from tracker.overrides import marked
from tracker.rulesets import apply_entry, make_game
from tracker.state import ObservedState, state_in
from tracker.verdicts import Verdict


@dataclass
class ReplayLine:
    """One parsed line of a game file."""

    number: int
    state: ObservedState
    turn: str | None = None
    cards_played: tuple[str, ...] = ()
    cards_player: str | None = None
    card_drawn: bool = False
    raw: dict = field(default_factory=dict)
    entries: tuple[dict, ...] = ()


def replay_lines(initial: ObservedState, steps: Sequence) -> list[ReplayLine]:
    """Replay lines for a simulated game: the set-up board, then each step with what the tablet
    would have recorded beside it (cards played, card drawn)."""
    return [ReplayLine(0, initial)] + [ReplayLine(i + 1, s.state, getattr(s, "turn_hint", None), s.cards_played,
                                                  s.actor, s.card_drawn, entries=tuple(getattr(s, "entries", ())))
                                       for i, s in enumerate(steps)]


def parse_lines(lines: Iterable[str]) -> tuple[dict, list[ReplayLine]]:
    """Split a game file into its header (possibly empty) and its state lines."""
    header: dict = {}
    out: list[ReplayLine] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StateError(f"line {number}: malformed JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(obj, dict):
            raise StateError(f"line {number}: expected a JSON object")
        if "game" in obj and not out:
            if not isinstance(obj["game"], dict):
                raise StateError(f"line {number}: 'game' header must be an object")
            header = obj["game"]
            continue
        try:
            state = ObservedState.from_dict(state_in(obj))
        except StateError as exc:
            raise StateError(f"line {number}: {exc}") from None
        played = obj.get("cards_played") or {}
        if not isinstance(played, dict) or not isinstance(played.get("cards", []), list) \
                or not isinstance(played.get("player", ""), str):
            raise StateError(f"line {number}: 'cards_played' must be {{\"player\": colour, \"cards\": [symbols]}}")
        entries = obj.get("entries") or []
        if not isinstance(entries, list) or not all(isinstance(e, dict) and isinstance(e.get("kind"), str)
                                                    for e in entries):
            raise StateError(f"line {number}: 'entries' must be a list of {{\"kind\": ..., ...}} objects")
        out.append(ReplayLine(number, state, obj.get("turn"), tuple(played.get("cards", ())), played.get("player"),
                              bool(obj.get("card_drawn")), obj, tuple(entries)))
    if not out:
        raise StateError("the game file holds no board state")
    return header, out


@dataclass
class ReplayStep:
    """What the tracker said about one line."""

    line: int
    report: TransitionReport | None
    extra_verdicts: list[Verdict]
    #: score claims made at this line (the first player's claim is made on the set-up board)
    start_scores: list = field(default_factory=list)
    #: provinces occupied at this line while the set-up was followed (§3.7; see :func:`iterate`)
    placements: list = field(default_factory=list)
    #: turn number -> the counts marked for a check (or unseen) at this line that the claim made
    #: at this line hangs on (:meth:`tracker.game.Game.claim_rests_on`), for the claims that do
    rests_on: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @property
    def scores(self) -> list:
        return self.start_scores + (self.report.scores if self.report else [])

    @property
    def verdicts(self) -> list[Verdict]:
        return (self.report.verdicts if self.report else []) + self.extra_verdicts


def replay(lines: Sequence[ReplayLine], players: Sequence[str], ruleset: str = "2005",
           target_vp: int | None = None, neutrals: Sequence[str] = (), objectives: dict | None = None):
    """Follow the whole file; return the game and one step per line (the first is the set-up)."""
    game = make_game(ruleset, players, target_vp, neutrals, objectives)
    steps: list[ReplayStep] = []
    for ln in iterate(game, lines):
        steps.append(ln)
    return game, steps


def iterate(game, lines: Sequence[ReplayLine]) -> Iterator[ReplayStep]:
    """One step per line. A file whose first board is a set-up being made (S.P.Q.RisiKo!,
    :meth:`tracker.game.Game.setup_under_way`) is followed placement by placement until the set-up
    is done, as the live game follows it (:class:`webui.live.LiveGame`); the game starts there.
    Each claim made at a line comes with the counts the dashboard would mark there that it hangs
    on (no count is set over the camera's in a file, so the marks are the camera's doubts, the
    rules' questions and what it could not see)."""
    for step in _steps(game, lines):
        if step.scores and game.state is not None:
            marks = marked(game.state, game.questioned, {}, game.vouched)
            step.rests_on = {e.turn_no: on for e in step.scores if (on := game.claim_rests_on(e, marks))}
        yield step


def _steps(game, lines: Sequence[ReplayLine]) -> Iterator[ReplayStep]:
    first, rest = lines[0], lines[1:]
    if game.setup_under_way(first.state):
        yield ReplayStep(first.number, None, game.begin_setup(first.state))
    else:
        verdicts = game.start(first.state, first.turn)
        yield ReplayStep(first.number, None, verdicts, list(game.score_track))
    for ln in rest:
        if game.placing:
            over = game.setup_over(ln.state)
            if over is None:
                events, verdicts = game.observe_setup(ln.state)
                yield ReplayStep(ln.number, None, verdicts, placements=events)
                continue
            if over == "now":
                events = game.setup_placements(game.state, ln.state)
                verdicts = game.start(ln.state, ln.turn)
                yield ReplayStep(ln.number, None, verdicts, list(game.score_track), events)
                continue
            start = game.start(game.state, ln.turn)      # the first turn began: the set-up was done
            scores = list(game.score_track)
        else:
            start, scores = [], []
        extra: list[Verdict] = []
        for entry in ln.entries:
            extra += apply_entry(game, entry["kind"], {k: v for k, v in entry.items() if k != "kind"})
        if ln.cards_played:
            extra += game.play_cards(ln.cards_player or ln.turn or game.current, ln.cards_played)
        report = game.observe(ln.state, ln.turn)
        if ln.card_drawn:
            extra += game.draw_card(game.current)
        yield ReplayStep(ln.number, report, start + extra, scores)


def load_game_file(path: str | Path, players: Sequence[str] | None = None, ruleset: str | None = None,
                   target_vp: int | None = None):
    """Read and replay a game file; players and ruleset come from the header unless given."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise StateError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise StateError(f"{path} is not a text file") from None
    header, lines = parse_lines(text.splitlines())
    players = players or header.get("players")
    if not players:
        raise GameError("the players are unknown: give --players or a 'game' header line")
    ruleset = ruleset or header.get("ruleset", "2005")
    neutrals = header.get("neutrals") or ()
    objectives = header.get("objectives") or None
    if not isinstance(neutrals, list | tuple) or not isinstance(objectives, dict | None):
        raise StateError("the 'game' header's 'neutrals' must be a list and 'objectives' an object")
    return replay(lines, players, ruleset, target_vp if target_vp is not None else header.get("target_vp"),
                  neutrals, objectives)
