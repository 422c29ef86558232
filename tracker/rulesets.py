"""Every ruleset Augur follows, by name, behind one factory.

``2005``, ``english-sheet`` and ``short-sheet`` are S.P.Q.RisiKo! variants
(:mod:`tracker.spqrisiko.options`); ``classic``, ``tournament-2v2``, ``lotr`` and ``lotr-classic``
are the territory games of :mod:`tracker.risiko`. Both kinds of game share the interface the
replay, the command line and the dashboard use (``start``, ``observe``, ``play_cards``,
``draw_card``, ``history``, ``score``, ``vp``).
"""
from __future__ import annotations

from typing import Sequence

from tracker.errors import GameError
from tracker.risiko.rules import PRESETS as RISIKO_PRESETS
from tracker.spqrisiko.options import PRESETS as SPQR_PRESETS

RULESETS: tuple[str, ...] = tuple(SPQR_PRESETS) + tuple(RISIKO_PRESETS)


def is_risiko(ruleset: str) -> bool:
    return ruleset in RISIKO_PRESETS


def check_ruleset(ruleset: str) -> str:
    if ruleset not in RULESETS:
        raise GameError(f"unknown ruleset '{ruleset}' (known: {', '.join(RULESETS)})")
    return ruleset


def board_for(ruleset: str) -> str:
    """The board a ruleset is played on."""
    check_ruleset(ruleset)
    return RISIKO_PRESETS[ruleset].board if is_risiko(ruleset) else "spqrisiko"


def make_game(ruleset: str, players: Sequence[str], target_vp: int | None = None, neutrals: Sequence[str] = (),
              objectives: dict | None = None):
    """A fresh game of ``ruleset`` for ``players`` (colours in turn order)."""
    check_ruleset(ruleset)
    if is_risiko(ruleset):
        from tracker.risiko.game import RisikoGame
        from tracker.risiko.rules import risiko_rules
        from tracker.risiko.scoring import Objective
        objs = {c: o if isinstance(o, Objective) else Objective.from_dict(o) for c, o in (objectives or {}).items()}
        return RisikoGame(players, risiko_rules(ruleset), neutrals, objs, target_vp)
    from tracker.game import Game
    from tracker.spqrisiko.options import ruleset_options
    if neutrals:
        raise GameError("in S.P.Q.RisiKo! the neutral armies are the colours nobody plays; do not list them")
    return Game(players, ruleset_options(ruleset), target_vp=target_vp)


#: The entry the live loop records when the camera has seen the table settle with a card drawn
#: still to be judged (:meth:`tracker.game.TurnFollower.judge_draws`): recorded like a tablet
#: entry, so that a game resumed from its recording judges the card at the same point.
JUDGE_DRAWS = "judge_draws"


def apply_entry(game, kind: str, payload: dict) -> list:
    """A tablet entry: ``cards``, ``draw``, and per ruleset ``fellowship_roll``, ``adventure``,
    ``declare``, ``renounce``, ``extra_turn``. Returns the verdicts on it."""
    try:
        if kind == "cards":
            return game.play_cards(payload["player"], payload["cards"])
        if kind == "draw":
            return game.draw_card(payload["player"], payload.get("symbol"))
        if kind == JUDGE_DRAWS:
            return game.judge_draws()
        if kind == "fellowship_roll" and hasattr(game, "fellowship_roll"):
            return game.fellowship_roll(int(payload["value"]))
        if kind == "adventure" and hasattr(game, "adventure"):
            return game.adventure(payload.get("player") or game.current, payload["type"], int(payload.get("points", 0)),
                                  payload.get("site"))
        if kind == "declare" and hasattr(game, "declare_reinforcements"):
            return game.declare_reinforcements(payload["player"], int(payload["armies"]))
        if kind == "renounce" and hasattr(game, "renounce_bonus"):
            return game.renounce_bonus(payload["player"])
        if kind == "extra_turn" and hasattr(game, "extra_turn"):
            return game.extra_turn(payload["player"], bool(payload.get("play")))
    except (KeyError, TypeError, ValueError) as exc:
        raise GameError(f"tablet entry '{kind}' is malformed: {exc!r}") from None
    raise GameError(f"unknown tablet entry '{kind}' for this ruleset")


def describe_entry(kind: str, payload: dict) -> str:
    """One line for a tablet entry as a dispute review lists it ("blue played cards: legionary,
    legionary, trireme"). The payload has been accepted by :func:`apply_entry` (or the dice
    check), but a recording may be old: anything missing is left out, never a crash."""
    who = payload.get("player") or ""
    if kind == "cards":
        return f"{who} played cards: {', '.join(str(c) for c in payload.get('cards') or []) or '?'}".strip()
    if kind == "draw":
        return f"{who} drew a card" + (f" ({payload['symbol']})" if payload.get("symbol") else "")
    if kind == JUDGE_DRAWS:
        return "the table stood still after the card drawn: judged on the board as it stands"
    if kind == "dice":
        dice = lambda side: " ".join(str(d) for d in payload.get(side) or []) or "?"     # noqa: E731
        losses = payload.get("losses") or {}
        text = f"dice{' at sea' if payload.get('naval') else ''}: attacker {dice('attacker')}, defender {dice('defender')}"
        if losses:
            text += f" (attacker loses {losses.get('attacker', 0)}, defender loses {losses.get('defender', 0)})"
        return text
    if kind == "fellowship_roll":
        return f"the Fellowship rolled {payload.get('value')}"
    if kind == "adventure":
        where = f" at {payload['site']}" if payload.get("site") else ""
        points = f", {payload['points']} points" if payload.get("points") else ""
        return f"{who} adventure card: {payload.get('type')}{where}{points}".lstrip()
    if kind == "declare":
        return f"{who} declared {payload.get('armies')} reinforcements"
    if kind == "renounce":
        return f"{who} renounced continent bonuses"
    if kind == "extra_turn":
        return f"{who} {'played' if payload.get('play') else 'passed'} the extra turn"
    return f"{kind} {who}".strip()
