"""Second thoughts: a doubtful count, read again once the camera sees the region clearly.

The camera's worst misreads are brief. On a hard frame it reads a province's army in the wrong
colour or a piece short, at a low confidence, and its next clear view of the province reads it
right. Taken as a move, the misread puts the tracker out of step with the game. In a rendered
hard game (the game bench, seed 23) blue attacked Syria and lost; the camera read Syria as taken
by blue, at a confidence of 0.79. The tracker then saw blue conquer it, so blue's reinforcements
placed a little later were "outside the reinforcement phase" and "beyond the entitlement": three
violations for one doubtful count, on a game played by the rules.

So the tracker keeps the last few committed states, each with a copy of itself as it stood
before it (:class:`Journal`). Take a region that changed at a count the camera doubted, has not
changed since, and is now read confidently otherwise. The tracker reads the recent past again
twice: with the region as the clear view shows it, and as it stood before the doubtful change.
(A change the camera was sure of but the rules refused is read again only when the clear view
shows the region back as it was before: one that is not undone may be a real breach.) Whichever
reading of the past and the present costs least, by the costs readings are ranked by
(:mod:`tracker.readings`), is kept, provided it saves at least a warning's worth and adds no
violation; one that wins says so in a warning on the new commit, naming the region, what was
read and what is now taken. Nothing recorded is rewritten: the recorded states stay as the camera
read them, and replaying them replays the same second thoughts. This is the camera-chess
systems' rule of keeping the position legal rather than the frame's guess, applied a few
commits back.

Tablet entries and re-sightings between the commits are journaled (:func:`journaled`) and
replayed in their places.
"""
from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Any, Callable

from tracker.errors import AugurError
from tracker.readings import EVENT_COST, LOW_CONFIDENCE, TURN_CHANGE_COST, WARNING_COST, verdicts_cost
from tracker.state import ObservedState
from tracker.verdicts import VIOLATION, Verdict

#: How many committed states back a second thought may reach.
DEPTH = 6
#: The least a re-reading must save (in reading costs) to be kept: a warning's worth, so that a
#: re-reading that only trades one event for another leaves the past as it was read.
SAVING = WARNING_COST
#: Regions weighed again per commit, the most doubtful first.
MAX_REGIONS = 3
#: Attributes of a tracker its copies share: fixed for the whole game.
SHARED = ("board", "options", "rules", "plan")


@dataclass
class Step:
    """One call that changed the tracker: a committed state (``observe``, with a copy of the
    tracker as it stood before it and the report it made), a tablet entry or a re-sighting."""

    method: str
    args: tuple
    kwargs: dict
    before: Any = None
    report: Any = None

    @property
    def state(self) -> ObservedState:
        return self.args[0]


@dataclass
class Journal:
    """The tracker's recent calls, back to the DEPTH-th last committed state."""

    steps: list[Step] = field(default_factory=list)
    #: set while a journaled call runs, so that the calls it makes itself are not journaled twice
    busy: bool = False

    def add(self, step: Step) -> None:
        self.steps.append(step)
        observed = [i for i, s in enumerate(self.steps) if s.method == "observe"]
        if len(observed) > DEPTH:
            del self.steps[:observed[-DEPTH]]


def journal_of(game) -> Journal:
    journal = game.__dict__.get("_journal")
    if journal is None:
        journal = game._journal = Journal()
    return journal


def journaled(method: Callable) -> Callable:
    """Record a call that changes the tracker (a tablet entry, a re-sighting) in its journal, so
    that a second thought replays it where it was made."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        journal = journal_of(self)
        if journal.busy:
            return method(self, *args, **kwargs)
        journal.busy = True
        try:
            out = method(self, *args, **kwargs)
        finally:
            journal.busy = False
        journal.add(Step(method.__name__, copy.deepcopy(args), copy.deepcopy(kwargs)))
        return out
    return wrapper


def snapshot(game):
    """A copy of the tracker ``game`` that nothing it does later changes; the board, the rules,
    the committed states (immutable) and the reports (never changed once recorded) are shared,
    and the copy has no journal of its own."""
    memo: dict[int, Any] = {id(game.__dict__.get("_journal")): None}
    for name in SHARED:
        if name in game.__dict__:
            memo[id(game.__dict__[name])] = game.__dict__[name]
    for name in ("history", "score_track"):
        if name in game.__dict__:
            memo[id(game.__dict__[name])] = list(game.__dict__[name])
    return copy.deepcopy(game, memo)


def observe(game, state: ObservedState, turn_hint: str | None = None):
    """``game.observe``: read the committed ``state``, with second thoughts about the recent past
    where the camera now contradicts a doubtful count (see the module doc)."""
    journal = journal_of(game)
    doubts = _doubts(game, journal, state)
    if not doubts:
        return _observe_step(game, journal, state, turn_hint)
    plain = _trial(game, list(journal.steps))
    _observe_step(plain, journal_of(plain), state, turn_hint)
    best, best_saving, note = plain, 0.0, None
    for region, k, value in doubts:
        trial = _replayed(journal, k, region, value)
        if trial is None:
            continue
        try:
            _observe_step(trial, journal_of(trial), state, turn_hint)
        except AugurError:
            continue
        # the reports of the committed states read again, the new one with them, as first read and now
        span = 1 + sum(s.method == "observe" for s in journal.steps[k:])
        was, now = plain.history[-span:], trial.history[-span:]
        saving = _cost(was) - _cost(now)
        if saving >= SAVING and saving > best_saving and _violations(now) <= _violations(was):
            best, best_saving = trial, saving
            note = _note(game, journal.steps[k], region, value, state, span - 1)
    game.__dict__.clear()
    game.__dict__.update(best.__dict__)
    report = game.history[-1]
    if note is not None:
        report.verdicts.append(note)
    return report


# -- the pieces --------------------------------------------------------------------------------
def _observe_step(game, journal: Journal, state: ObservedState, turn_hint: str | None):
    before = snapshot(game)
    journal.busy = True         # what the reading calls itself (a game's end) is part of it
    try:
        report = game._observe_now(state, turn_hint)
    finally:
        journal.busy = False
    journal.add(Step("observe", (state, turn_hint), {}, before, report))
    return report


def _trial(game, steps: list[Step]):
    """A copy of ``game`` to try a reading on, with a journal of ``steps``."""
    trial = snapshot(game)
    trial._journal = Journal(steps)
    return trial


def _replayed(journal: Journal, k: int, region: str, value: dict):
    """The tracker as it stood before step ``k``, with the steps since replayed and ``region``
    read as ``value`` in every state they committed; None when a step no longer goes through."""
    trial = _trial(journal.steps[k].before, journal.steps[:k])
    try:
        for step in journal.steps[k:]:
            if step.method == "observe":
                _observe_step(trial, journal_of(trial), _with(step.state, region, value), *step.args[1:])
            else:
                getattr(trial, step.method)(*copy.deepcopy(step.args), **copy.deepcopy(step.kwargs))
    except AugurError:
        return None
    return trial


def _with(state: ObservedState, region: str, value: dict) -> ObservedState:
    data = state.to_dict()
    if value:
        data["regions"][region] = copy.deepcopy(value)
    else:
        data["regions"].pop(region, None)
    return ObservedState.from_dict(data, state.board)


def _doubts(game, journal: Journal, state: ObservedState) -> list[tuple[str, int, dict]]:
    """(region, step, value) to read the past again with: a region ``state`` reads confidently
    otherwise than the last commit, whose count last changed at a step, with the values it may
    have had since. Where the camera doubted the count at that step: the one now read, and the one
    before that step. Where it was sure of it but the rules refused the change: the one before,
    when it is what the camera sees now (a change refused and undone is a misread or a retracted
    act; one that is not undone may be a breach, and stays as read). The most doubtful first."""
    if game.state is None:
        return []
    observed = [i for i, s in enumerate(journal.steps) if s.method == "observe"]
    if not observed or not _recorded(game, journal):
        return []
    last = journal.steps[observed[-1]].state
    found = []
    for region in sorted(state.changed_regions(last) - state.unseen):
        if state.confidence_of(region) < LOW_CONFIDENCE:
            continue
        for i in reversed(observed):
            step = journal.steps[i]
            if region in step.state.unseen or region in step.before.state.unseen:
                break
            read, before = step.state.regions.get(region, {}), step.before.state.regions.get(region, {})
            if read == before:
                continue
            sure = step.state.confidence_of(region)
            refused = any(v.level == VIOLATION and region in v.regions for v in step.report.verdicts)
            now = state.regions.get(region, {})
            if sure < LOW_CONFIDENCE:
                values = [now] if now == before else [now, before]
                found += [(sure, region, i, dict(v)) for v in values if v != read]
            elif refused and now == before:     # read surely, refused, and now back as it was
                found.append((sure, region, i, dict(before)))
            break
    found.sort(key=lambda f: f[0])
    regions = list(dict.fromkeys(f[1] for f in found))[:MAX_REGIONS]
    return [(region, i, value) for _, region, i, value in found if region in regions]


def _recorded(game, journal: Journal) -> bool:
    """Whether the journal's committed states are the tracker's latest reports (a restarted
    game, or one whose history was changed outside ``observe``, has no past to read again)."""
    reports = [s.report for s in journal.steps if s.method == "observe"]
    return len(game.history) >= len(reports) and all(a is b for a, b in zip(game.history[-len(reports):], reports))


def _cost(reports) -> float:
    """What ``reports`` cost as the tracker read them: their verdicts, their events, a turn change each."""
    return sum(verdicts_cost(r.verdicts) + EVENT_COST * len(r.events) + TURN_CHANGE_COST * r.turn_changed
               for r in reports)


def _violations(reports) -> int:
    return sum(v.level == VIOLATION for r in reports for v in r.verdicts)


def _note(game, step: Step, region: str, value: dict, state: ObservedState, span: int) -> Verdict:
    """The warning that tells the table the tracker changed its mind about ``region``, read at
    ``step``, ``span`` commits back, and now read clearly in ``state``."""
    board = game.board

    def describe(counts: dict) -> str:
        return board.pieces.describe(counts) if counts else "empty"
    back = "at the last commit" if span <= 1 else f"{span} commits back"
    rule = next((v.rule for v in step.report.verdicts if region in v.regions), "§4.2")
    return Verdict.warning(rule, f"second thoughts: {board.name(region)}, read {back} as "
                                 f"{describe(step.state.regions.get(region, {}))} (confidence "
                                 f"{step.state.confidence_of(region):.2f}), now reads clearly as "
                                 f"{describe(state.regions.get(region, {}))}; it is taken to have been "
                                 f"{describe(value)} since then, and the moves since are read again (check it)",
                           (region,))
