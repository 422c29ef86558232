"""What every ruleset's event inference shares: a reading, its cost, the ranking of readings,
the province-by-province accounting of a change, and the softening of doubtful verdicts.

A reading is one explanation of a change between two board states. Readings are ranked by
cost (a violation 100, a warning 10, an event 1, an unexplained change 20), so the tracker
reads a doubtful camera count the way the rules make likeliest, as the best
chess-from-camera systems filter moves by legality.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
from dataclasses import dataclass, field
from typing import Callable, Iterable

from tracker import events as ev
from tracker.board import Board
from tracker.events import Event, Phase
from tracker.pieces import TRIREME, pieces_of
from tracker.state import ObservedState
from tracker.verdicts import VIOLATION, WARNING, Verdict

VIOLATION_COST = 100
WARNING_COST = 10
EVENT_COST = 1
#: Below this per-region confidence, a violation about the region is reported as a warning.
LOW_CONFIDENCE = 0.8
#: Below this confidence (and at LOW_CONFIDENCE or more), a violation that the count read one
#: piece more or fewer would not make is a warning that names the count: on three sets of hard
#: games the counts committed at 0.8 to 0.95 were right about 96.5 % of the time (session 55 in
#: models/README.md), one in thirty wrong and most often by one piece, while a breach of the
#: rules is rare at a table (:func:`tracker.hindsight._one_off`,
#: :func:`tracker.spqrisiko.setup.validate_setup`).
ONE_OFF_BELOW = 0.95
MAX_READINGS = 8
#: A reading in which the next player has started their turn costs a little more than an
#: equally good reading in which the current player goes on (:meth:`tracker.game.TurnFollower._weigh_turns`).
TURN_CHANGE_COST = 5
#: The least a reading of a change as anything but the player in turn going on can cost: a turn
#: change at least TURN_CHANGE_COST, a change read in two parts more. Reading costs are never
#: negative, so a going-on reading that costs no more than this is the best there is, and the
#: tracker need not read the change the other ways (on whole simulated games it reads 41 % fewer
#: changes so, with the same reports).
LEAST_OTHER_TURN_COST = TURN_CHANGE_COST
#: A reading in which the player in turn made their last moves and the next player began theirs
#: within one change (the camera committed nothing between the two: the next hand came in before
#: the board had been still long enough, or the last move was made under a card) costs a warning
#: more than a plain turn change, so that a gain of the next player's that the camera doubts does
#: not end a turn the player in turn is seen going on with.
SPLIT_TURN_COST = WARNING_COST
#: Extra cost of a change that no event explains (pieces of a player not in turn appearing,
#: a province changing hands without an attack): a reading that explains the change, even as
#: an illegal act, is preferred, so that a turn change is not missed for one over-placement.
UNEXPLAINED_COST = 20


@dataclass(frozen=True)
class Reading:
    """One explanation of a transition: its events, the verdicts on them, and its cost."""

    events: tuple[Event, ...]
    verdicts: tuple[Verdict, ...]
    cost: float

    @property
    def violations(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.level == VIOLATION]

    @property
    def warnings(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.level == WARNING]


#: What a breach of the order of the turn's phases costs where only earlier moves read on doubtful
#: counts ended the phase it belongs to (:func:`phase_doubt_note`): a warning to the table, but
#: weighed as half a breach, since either the player broke the order or the camera misread an
#: earlier commit, so that a reading of the change that needs neither still comes first (a
#: rendered hard game, seed 126: red's strategic move from Belgica, which the camera read
#: unchanged, is read as a move from there, not as a placement after the attacks).
PHASE_DOUBT_COST = VIOLATION_COST / 2
#: What such a breach's warning says, with the counts, after its message.
PHASE_DOUBT_MARK = ", ended that phase: check them)"


def phase_doubt_note(board: Board, doubts: dict[str, float]) -> str:
    """What a breach of the phases' order says that only moves resting on ``doubts`` (the counts
    read in doubt, with their confidence) made: it is then a warning of PHASE_DOUBT_COST."""
    read = ", ".join(f"{board.name(r)} at {c:.2f}" for r, c in sorted(doubts.items()))
    return f" (only a move read on counts the camera doubted, {read}{PHASE_DOUBT_MARK}"


def verdicts_cost(verdicts: Iterable[Verdict]) -> float:
    """What a reading's verdicts add to its cost: a violation far more than a warning."""
    return sum(VIOLATION_COST if v.level == VIOLATION else PHASE_DOUBT_COST if PHASE_DOUBT_MARK in v.message
               else WARNING_COST for v in verdicts)


def make_reading(events: list[Event], verdicts: list[Verdict], unexplained: int) -> Reading:
    """Cost the reading and put its events in phase order."""
    cost = (verdicts_cost(verdicts)
            + UNEXPLAINED_COST * unexplained
            + EVENT_COST * sum(1 for e in events if e.kind != ev.VEXILLUM_EXCHANGE))
    order = sorted(events, key=lambda e: (e.phase if e.phase is not None else 99))
    return Reading(tuple(order), tuple(verdicts), cost)


def joined(first: Reading, then: Reading) -> Reading:
    """One reading of a change read in two parts (the ending turn's last moves, then the next
    turn's first), its events and verdicts in that order."""
    return Reading(first.events + then.events, first.verdicts + then.verdicts, first.cost + then.cost)


def rank_readings(readings: Iterable[Reading]) -> list[Reading]:
    """Cheapest first, each distinct set of events once."""
    unique, seen = [], set()
    for r in sorted(readings, key=lambda r: r.cost):
        key = tuple(sorted(map(repr, r.events)))
        if key not in seen:
            seen.add(key)
            unique.append(r)
    return unique


#: What a verdict the camera's doubt turned into a warning says after its message.
DOUBT_NOTE = " (low camera confidence: check the count)"


def sureness(region: str, prev: ObservedState, nxt: ObservedState) -> float:
    """The least confidence the camera read ``region`` at, before or after the change."""
    return min(prev.confidence_of(region), nxt.confidence_of(region))


def doubted(region: str, prev: ObservedState, nxt: ObservedState) -> bool:
    """Whether the camera was unsure of ``region`` before or after the change (LOW_CONFIDENCE)."""
    return sureness(region, prev, nxt) < LOW_CONFIDENCE


def fairly_sure(state: ObservedState, region: str) -> bool:
    """Whether ``state`` reads ``region``, in sight, fairly surely: at LOW_CONFIDENCE or more but
    below ONE_OFF_BELOW, where a count is right about 29 times in 30 and wrong most often by one."""
    return region not in state.unseen and LOW_CONFIDENCE <= state.confidence_of(region) < ONE_OFF_BELOW


def recounted(region: str, prev: ObservedState, nxt: ObservedState) -> bool:
    """Whether the camera counted ``region`` again in the change ``prev -> nxt`` and read it as it
    stood: in sight both times, the same pieces, at another confidence (the pipeline keeps an
    untouched count as committed, at its confidence, so a hand was over it)."""
    return region not in nxt.unseen and region not in prev.unseen \
        and nxt.regions.get(region, {}) == prev.regions.get(region, {}) \
        and nxt.confidence_of(region) != prev.confidence_of(region)


def doubted_beside(region: str, colour: str, prev: ObservedState, nxt: ObservedState) -> list[str]:
    """The provinces touching ``region`` by land, held by ``colour`` and in sight, whose count the
    camera doubts (:func:`doubted`): pieces that left ``region`` with no combat may stand there,
    under a count the camera went on misreading. (A rendered hard game on the print, seed 27:
    red moved a legionary from Mauretania to Numidia, which the camera kept reading at its old
    count, at 0.48; the move read as "1 red legionary vanished from Mauretania with no combat".)"""
    return sorted(q for q in nxt.board.land_neighbours.get(region, ())
                  if nxt.owners.get(q) == colour and q not in nxt.unseen and doubted(q, prev, nxt))


def doubted_move(event: Event, prev: ObservedState | None, nxt: ObservedState | None) -> dict[str, float]:
    """The counts that a move read in the change ``prev -> nxt`` rests on (the regions it names
    that changed), each with the least confidence the camera read it at, where every one of them
    was read below ONE_OFF_BELOW; {} where any was read surely, or none changed, or the change is
    not given. Such a move may be the camera's misread, and the phase it ended may not have ended
    (:meth:`PhaseDoubts.late_on_doubt`). An attack that cost its source nothing and took nothing
    rests on its target alone: what the source's count did in the same change (a placement) says
    nothing of it. (A rendered hard game, seed 234: green placed two in Moesia as the camera read
    red's Dacia beside it one fewer, at 0.62 before; taken for green's attack, that loss ended
    green's reinforcements, and green's trireme turned into legionaries next was "outside the
    reinforcement phase".) An attack on a guessed target that killed nothing, from a province on
    the coast of seas the camera doubts, rests on those seas: the legionaries its source lost may
    have been turned into a trireme there that the camera missed. (A rendered hard game, seed
    402: green built a trireme in the Cantabricum from three of Terraconensis's legionaries, the
    sea read empty at 0.41; taken for an attack on Baetica, lost, it ended green's naval moves,
    and that trireme's sailing next was "after the land attack phase".)"""
    if prev is None or nxt is None:
        return {}
    if event.kind == ev.LAND_ATTACK and event.target_guessed and not event.conquered and not event.defender_losses:
        seas = {q: sureness(q, prev, nxt) for q in sorted(nxt.board.coast_of.get(event.source, ()))
                if q not in nxt.unseen and doubted(q, prev, nxt)}
        if seas:
            return seas
    changed = nxt.changed_regions(prev)
    named = (event.source, event.target)
    if event.kind in (ev.LAND_ATTACK, ev.SEA_ATTACK) and not event.conquered and not event.attacker_losses:
        named = (event.target,)
    basis = {r: sureness(r, prev, nxt) for r in named if r is not None and r in changed}
    return basis if basis and all(c < ONE_OFF_BELOW for c in basis.values()) else {}


@dataclass(kw_only=True)
class PlacedInDoubt:
    """What a turn's context keeps of its reinforcements the camera doubted (a ruleset's context
    inherits it): the provinces they were read placed in with a count below LOW_CONFIDENCE, each
    with its pieces and the camera's confidence as then read. Where the pieces the turn leaves
    unplaced may stand (:meth:`tracker.game.Game._end_of_turn_checks`), and counts the turn's due
    may vouch for (:meth:`tracker.game.TurnFollower._accounted_for`). S.P.Q.RisiKo!'s context also
    keeps the provinces counted again, unchanged, as its reinforcements went elsewhere
    (:meth:`note_recounted`), which the end of a turn placed short names too."""

    placed_in_doubt: dict[str, tuple[dict, float]] = field(default_factory=dict)
    #: the provinces of the player in turn that the camera counted again, and read as they stood,
    #: in a change that placed its reinforcements elsewhere, each with its pieces as read then: a
    #: pile counted again is one a hand was over, and a legionary put on it may have been missed
    recounted: dict[str, dict] = field(default_factory=dict)
    #: whether a reading may take reinforcements the change does not show as placed where an
    #: attack began and lost in it (S.P.Q.RisiKo!: :meth:`tracker.spqrisiko.explain._ReadingBuilder.attacks`):
    #: not for a whole turn read inside one change beside the next one's start
    #: (:meth:`tracker.game.TurnFollower._split_turn`), where a property test found that story
    #: reading another player's legal attack as that turn, to excuse a bystander's pieces as the
    #: next one's placement
    unseen_reinforcements: bool = True

    def note_placed(self, target: str, nxt: ObservedState | None) -> None:
        """A reinforcement of the player in turn read placed in ``target`` in the change to ``nxt``."""
        if nxt is not None and target not in nxt.unseen and nxt.confidence_of(target) < LOW_CONFIDENCE:
            self.placed_in_doubt[target] = (copy.deepcopy(nxt.regions.get(target, {})), nxt.confidence_of(target))

    def note_recounted(self, actor: str, prev: ObservedState | None, nxt: ObservedState | None) -> None:
        """After a change ``prev -> nxt`` in which ``actor``, in turn, placed reinforcements: keep
        its provinces the camera counted again and read as they stood (:func:`recounted`)."""
        if prev is None or nxt is None:
            return
        for p in nxt.provinces_of(actor):
            if recounted(p, prev, nxt):
                self.recounted[p] = copy.deepcopy(nxt.regions.get(p, {}))


@dataclass(kw_only=True)
class PhaseDoubts:
    """What a turn's context keeps of the moves that ended its phases (a ruleset's context, which
    has a ``phase``, inherits it): the phase the moves the camera read surely have brought the
    turn to, and, where ``phase`` stands higher only on moves resting on counts read in doubt
    (:func:`doubted_move`), the phase those reached and the counts, each with the least
    confidence it was read at. A breach of the phases' order that only those moves make may be
    the camera's misread of them (:func:`soften_phase_doubted`)."""

    sure_phase: Phase = Phase.SCORING
    doubted_phase: Phase = Phase.SCORING
    phase_doubts: dict[str, float] = field(default_factory=dict)

    def reach(self, phase: Phase, doubts: dict[str, float]) -> None:
        """Bring the turn to ``phase`` by a move resting only on the counts ``doubts`` (none: a
        move read surely)."""
        self.phase = max(self.phase, phase)
        if not doubts:
            self.sure_phase = max(self.sure_phase, phase)
            if self.sure_phase >= self.doubted_phase:
                self.phase_doubts = {}
        elif phase > self.sure_phase:
            self.doubted_phase = max(self.doubted_phase, phase)
            for r, c in doubts.items():
                self.phase_doubts[r] = min(c, self.phase_doubts.get(r, c))

    def late_on_doubt(self, phase: Phase) -> dict[str, float]:
        """The counts read in doubt that alone make an act of ``phase`` come late in the turn: only
        moves resting on them ended the phase it belongs to, and they may be the camera's
        misreads; {} where a move read surely ended it, or the turn went on otherwise (a card
        drawn). (A rendered hard game, seed 147: blue placed in Germania Inferior as the camera
        read neutral Belgica beside it one short, at 0.94; read as blue's attack on Belgica,
        blue's next trireme was "pieces outside the reinforcement phase", and its naval move
        after that a second breach.)"""
        if self.phase_doubts and self.phase <= self.doubted_phase and phase >= self.sure_phase:
            return self.phase_doubts
        return {}


def soften_phase_doubted(verdicts: list[Verdict], doubted: dict[int, dict[str, float]], board: Board) -> list[Verdict]:
    """``verdicts`` with each breach of the phases' order (their index in ``doubted``) that is
    still a violation, and that only earlier moves resting on counts read in doubt made (those
    counts, :meth:`PhaseDoubts.late_on_doubt`), made a warning that names those counts, which the
    dashboard then asks the table to check (:func:`phase_doubt_note`, PHASE_DOUBT_COST). The
    regions of the move it judged are then its context: that move is not in doubt, the order is
    (on the print's hard seed 364 the two seas of yellow's naval move, read at 0.99, were marked
    twice with the province in doubt; over 34 filmed hard games, 7 marks of right counts)."""
    out = list(verdicts)
    for i, doubts in doubted.items():
        v = out[i]
        if v.level == VIOLATION:
            v = v.softened(phase_doubt_note(board, doubts))
            out[i] = dataclasses.replace(v, regions=v.regions + tuple(sorted(set(doubts) - set(v.regions))),
                                         context=v.context + tuple(r for r in v.regions if r not in doubts),
                                         checks=tuple(sorted(doubts)))
    return out


def refilled_beside(region: str, colour: str, prev: ObservedState, nxt: ObservedState) -> list[str]:
    """The provinces touching ``region`` by land that the camera read empty, in doubt, before the
    change and now reads held by an army other than ``colour``, in sight: a pile it had missed
    whole, which ``colour``'s pieces that left ``region`` with no combat may have attacked. (A
    rendered hard game on the print, seed 543: neutral Lusitania's three legionaries were read as
    nothing at 0.02 since the set-up; green attacked them from Galicia and lost four, as the camera
    read Lusitania as two black legionaries at 0.23: "4 green legionaries vanished from Galicia
    with no combat".)"""
    return sorted(q for q in nxt.board.land_neighbours.get(region, ())
                  if prev.owners.get(q) is None and q not in prev.unseen and q not in nxt.unseen
                  and nxt.owners.get(q) not in (None, colour) and doubted(q, prev, nxt))


def refilled_note(beside: list[str], prev: ObservedState, nxt: ObservedState) -> str:
    """What a verdict says after its message about the provinces :func:`refilled_beside` names."""
    board = nxt.board
    where = " or ".join(f"{board.name(q)}, read empty at {prev.confidence_of(q):.2f} before and as "
                        f"{board.pieces.describe(nxt.regions[q])} at {nxt.confidence_of(q):.2f} now" for q in beside)
    return f" (they may have attacked {where}, beside it: a pile the camera had missed; check)"


def beside_doubt_note(beside: list[str], nxt: ObservedState) -> str:
    """What a verdict says after its message about the provinces :func:`doubted_beside` names."""
    where = " or ".join(f"{nxt.board.name(q)} (read at {nxt.confidence_of(q):.2f})" for q in beside)
    return f" (they may stand in {where} beside it, whose count the camera doubts: check)"


def misread_families(diff: "ProvinceDiff", choices: list[list]) -> list[tuple[list[list], frozenset[str]]]:
    """The attack sources to read a change with: ``choices`` (one list of candidates per target
    of ``diff``), and, where enemy provinces that lost pieces were read in doubt, the same with
    those losses taken for the camera's misread, no attack at all (returned with them). (A
    rendered hard game on the print, seed 71: green moved a legionary from Terraconensis to
    Baetica as the camera read Galicia beside them one short, at 0.47. Read as green's attack on
    Galicia, Baetica's legionary was a placement after the attacks, two violations.)"""
    misread = frozenset(t for t, c in zip(diff.targets, choices)
                        if t in diff.damaged and c != [None] and doubted(t, diff.prev, diff.next))
    families = [(choices, frozenset())]
    if misread:
        families.append(([[None] if t in misread else c for t, c in zip(diff.targets, choices)], misread))
    return families


def misread_boards(diff_type: type["ProvinceDiff"], prev: ObservedState, nxt: ObservedState,
                   actor: str) -> list[tuple["ProvinceDiff", tuple[tuple[str, str, str], ...]]]:
    """The differences to read a change with: ``prev -> nxt`` as the camera read it and, where
    its doubtful counts allow a misread that nobody's moves explain otherwise, the same change
    with those counts as they likely stood, each with the warnings that say so: (regions, topic,
    message), the topic ``turn`` (who moves in a turn), ``move`` (the move at its end), ``sail``
    (a naval move) or ``land`` (triremes landing), which each ruleset cites.
    Six kinds of such misreads, each read into a board of its own, and all into one:

    - A province ``actor`` held, read after in another colour in doubt, is taken for theirs
      still, its pieces as counted: nobody but the player in turn moves in their turn (another
      reading covers the turn having changed). (A rendered hard game, seed 85: red attacked
      Judea from Mesopotamia and moved in three; the camera read Mesopotamia's remaining
      legionary as two green ones, at 0.50. With no red province left to attack from, the
      conquest read as red placing three in Arabia and moving them in: "placed 3 but entitled
      to 0".)
    - Pieces ``actor`` gained in a province beside one of theirs read unchanged in doubt
      ("beside": one move apart, :meth:`ProvinceDiff.move_partners`, across a sea too where the
      ruleset's moves cross it) are taken to have come from there, that count the gain fewer:
      the camera went on reading the source as it stood. (The same hard game, seed 88: red
      moved a legionary from Mauretania to Numidia; Mauretania read 2 still, at 0.39, and the
      move read as red placing after its conquest: two violations. Session 68 read the mirror case, pieces gone beside a count that
      stayed, with :func:`doubted_beside`.) With several such provinces beside it, the least
      sure is taken and the warning names them all: the camera cannot tell which one it was
      (the print's hard seed 71, game 73: yellow moved from Ponto, read unchanged at 0.50,
      beside Asia, read so at 0.21).
    - Its mirror: pieces ``actor`` lost in a province it still holds, beside one of theirs read
      unchanged in doubt, are taken to have gone there, that count the loss more: the camera
      went on reading the destination as it stood. (A rendered hard game, seed 126: blue moved a
      legionary from Bithinya to Cappadocia, read 4 before and after, at 0.34 and 0.82; the loss
      read as an attack on Ponto repelled, "Bithinya could roll 2 dice against 3 defending
      Ponto". With no attack to read it as, the loss is a warning anyway, see
      :func:`doubted_beside`.)
    - The same at sea: ``actor``'s triremes gone from a sea with no combat, beside a sea read
      unchanged in doubt, are taken to have sailed there (:func:`_fleets_missed`).
    - And ashore: ``actor``'s triremes gone from a sea with no combat, beside a province of
      theirs read in doubt that gained fewer legionaries than they leave when they land, are taken
      to have landed there (:func:`_landings_missed`).
    - And where they stood: ``actor``'s triremes gone from a sea read in doubt after the change,
      with no combat there and no sea beside it gaining any, are taken to stand there still
      (:func:`_fleets_read_gone`).

    A seventh kind is read into a board of its own, whose state before the change is the one
    taken otherwise:

    - A fleet of another army, read in doubt before the change, that is gone (or fewer) after it,
      while ``actor``'s fleet grew by as many in a sea beside it, is taken for ``actor``'s fleet
      read in the wrong colour, which sailed: nobody else's fleet leaves in ``actor``'s turn
      (:func:`_fleets_recoloured`). (A rendered hard game, seed 101: green turned three
      legionaries into a trireme in the Pontus Euxinus, read as blue's at 0.32; ten commits later
      it sailed to the Aegeum, read as green turning three legionaries of Asia into a trireme
      there and placing three more: "placed 3 but entitled to 0".)

    The plain board is read too, and the readings are ranked by cost, so a doubtful count is
    taken for a misread only where that makes the story cheaper (a legal placement beside a
    doubted province stays a placement)."""
    plain = diff_type(prev, nxt, actor)
    boards = [(plain, ())]
    # the regions :func:`doubted` holds in doubt, found at once (below, ``in low`` is ``doubted``)
    low = {r for state in (prev, nxt) for r, c in state.confidence.items() if c < LOW_CONFIDENCE}
    low |= prev.unseen | nxt.unseen
    if not low:     # most changes: the camera sure of every count
        return boards
    board = nxt.board
    recoloured_before = _fleets_recoloured(prev, nxt, actor)
    if recoloured_before is not None:
        boards.append((diff_type(recoloured_before[0], nxt, actor), recoloured_before[1]))
    #: each kind of misread: the counts it takes as they likely stood, and its warnings
    recoloured: tuple[dict, list] = ({}, [])
    for p in sorted(low & set(board.provinces)):
        read_as = nxt.owners.get(p)
        if prev.owners.get(p) == actor and read_as not in (None, actor) and p not in nxt.unseen:
            recoloured[0][p] = {(actor if c == read_as else c): kinds for c, kinds in nxt.regions[p].items()}
            sure = sureness(p, prev, nxt)
            recoloured[1].append(((p,), "turn", f"{board.name(p)} read in {read_as}'s colour (confidence {sure:.2f}) during "
                             f"{actor}'s turn: taken for {actor}'s still, the camera's misread; check the count"))
    moved_from = _moves_misread(plain, low, into=False, taken=set())
    moved_to = _moves_misread(plain, low, into=True, taken=set(moved_from[0]))
    sailed_to = _fleets_missed(prev, nxt, actor, low)
    landed = _landings_missed(plain, low, taken=set(moved_from[0]) | set(moved_to[0]))
    kept = _fleets_read_gone(prev, nxt, actor, sailed_to=set(sailed_to[0]))
    kinds_found = [k for k in (recoloured, moved_from, moved_to, sailed_to, landed, kept) if k[1]]
    # each kind alone, and all together: one true misread beside a false one of another kind is
    # read alone, and a change with several is read whole
    for chosen in [[k] for k in kinds_found] + ([kinds_found] if len(kinds_found) > 1 else []):
        counts, notes = dict(nxt.regions), []
        for changes, warnings in chosen:
            counts.update(changes)
            notes += warnings
        seen_as = ObservedState(board, counts, nxt.confidence, nxt.unseen)
        boards.append((diff_type(prev, seen_as, actor), tuple(notes)))
    return boards


def _moves_misread(plain: "ProvinceDiff", low: set[str], *, into: bool, taken: set[str]
                   ) -> tuple[dict[str, dict], list[tuple[tuple[str, ...], str, str]]]:
    """:func:`misread_boards`' second kind (``into`` False: pieces the player in turn gained
    beside a province of theirs read unchanged in doubt came from there) or its third (``into``
    True: pieces they lost went there), read on ``plain``'s change; ``low`` the regions read in
    doubt, ``taken`` the provinces another kind already reads otherwise. Returns the counts so
    taken and their warnings (both empty where there are none)."""
    prev, nxt, actor, board = plain.prev, plain.next, plain.actor, plain.board
    counts: dict[str, dict] = {}
    notes: list[tuple[tuple[str, ...], str, str]] = []
    for g, change in sorted(plain.residual.items()):
        if g in plain.conquests or (change >= 0 if into else change <= 0):
            continue
        n = abs(change)

        def then(q: str) -> int:
            """What ``q`` held, had it given or taken the ``n`` pieces."""
            return nxt.legions.get(q, 0) + (n if into else -n)

        doubts = _least_sure_first((q for q in plain.move_partners(g)
                                    if q in low and q not in taken and q not in counts and plain.residual.get(q) == 0
                                    and q not in plain.conquests and q not in nxt.unseen and then(q) >= 1), prev, nxt)
        if not doubts:
            continue
        q = doubts[0]
        counts[q] = with_strength(nxt, q, actor, then(q))
        read = _named_in_doubt(doubts, prev, nxt)
        near = "beside it" if board.land_adjacent(g, q) else "across the sea from it"
        if into:
            message = (f"{read} read unchanged as {board.name(g)} {near} lost {n} with no conquest: taken to "
                       f"have gone to {board.name(q)}, {n} more than read; check the count")
        else:
            message = (f"{read} read unchanged as {board.name(g)} {near} gained {n}: taken to have come from "
                       f"{board.name(q)}, {n} fewer than read; check the count")
        notes.append((tuple(doubts), "move", message))
    return counts, notes


def _fleets_missed(prev: ObservedState, nxt: ObservedState, actor: str, low: set[str]
                   ) -> tuple[dict[str, dict], list[tuple[tuple[str, ...], str, str]]]:
    """:func:`misread_boards`' fourth kind, the seas' mirror of its third: ``actor``'s fleet fewer
    in a sea beside which no sea gained any of ``actor``'s triremes, and a sea beside it that the
    camera read in doubt (``low``), in sight, with ``actor``'s fleet there as it stood: the
    triremes are taken to have sailed there (§9.3), under a count the camera went on misreading.
    With several such seas, the least sure is taken and the warning names them all. Returns the
    counts so taken and their warnings (both empty where there are none). (A rendered hard game,
    seed 122: green sailed a trireme from the Tyrrenum to the Sinus Gallicus, read empty still at
    0.37: "1 green trireme(s) left Tyrrenum with no combat and no legionaries landed".) Where the
    triremes became legionaries on the shore (§6.6) or sank in a combat, the plain reading says
    so for less, and it is ranked first."""
    board, trireme = nxt.board, _the_fleet_kind(nxt.board)
    if trireme is None:
        return {}, []
    counts: dict[str, dict] = {}
    notes: list[tuple[tuple[str, ...], str, str]] = []

    def grew(s: str) -> int:
        return nxt.triremes_of(actor, s) - prev.triremes_of(actor, s)

    for sea in sorted(board.seas):
        lost = -grew(sea)
        beside = board.sea_neighbours.get(sea, ())
        if lost <= 0 or sea in nxt.unseen or any(grew(t) > 0 for t in beside):
            continue
        doubts = _least_sure_first((t for t in beside if t in low and t not in counts and grew(t) == 0
                                    and t not in prev.unseen and t not in nxt.unseen), prev, nxt)
        if not doubts:
            continue
        t = doubts[0]
        there = nxt.regions.get(t, {})
        counts[t] = {**there, actor: {**there.get(actor, {}), trireme: nxt.triremes_of(actor, t) + lost}}
        read = _named_in_doubt(doubts, prev, nxt)
        notes.append((tuple(doubts), "sail", f"{pieces_of(lost, TRIREME, actor)} left {board.name(sea)} with no combat as "
                                              f"{read} beside it read unchanged: taken to have sailed to "
                                              f"{board.name(t)}, {lost} more than read there; check the count"))
    return counts, notes


def _fleets_read_gone(prev: ObservedState, nxt: ObservedState, actor: str, sailed_to: set[str]
                      ) -> tuple[dict[str, dict], list[tuple[tuple[str, ...], str, str]]]:
    """:func:`misread_boards`' sixth kind, the seas' mirror of an enemy province read a piece
    short in doubt: ``actor``'s fleet gone with nothing to explain it (:func:`_fleet_gone_alone`)
    from a sea the camera read in doubt after the change, where no sea beside it was taken by the
    fourth kind to have gained it (``sailed_to``): the triremes are taken to stand there still,
    the camera's misread. (A rendered hard game, seed 226: yellow's trireme in the Creticum, read
    at 0.72 as it was built, read gone at 0.17 as yellow moved a legionary from Cipro across that
    sea to Judea, under a cover: "1 yellow legionary vanished from Cipro with no combat", and the
    trireme lost to the tracker for the rest of the game.) Where the triremes became legionaries
    on the shore (§6.6), the plain reading says so for less, and it is ranked first."""
    board, trireme = nxt.board, _the_fleet_kind(nxt.board)
    counts: dict[str, dict] = {}
    notes: list[tuple[tuple[str, ...], str, str]] = []
    for sea in sorted(board.seas) if trireme is not None else ():
        lost = _fleet_gone_alone(prev, nxt, actor, sea)
        if not lost or nxt.confidence_of(sea) >= LOW_CONFIDENCE \
                or any(t in sailed_to for t in board.sea_neighbours.get(sea, ())):
            continue
        there = nxt.regions.get(sea, {})
        counts[sea] = {**there, actor: {**there.get(actor, {}), trireme: prev.triremes_of(actor, sea)}}
        notes.append(((sea,), "land", f"{board.name(sea)} read with {pieces_of(lost, TRIREME, actor)} fewer (confidence "
                                      f"{nxt.confidence_of(sea):.2f}) and no combat or move to explain it: "
                                      f"taken for a misread; check the count"))
    return counts, notes


def other_fleets(prev: ObservedState, nxt: ObservedState, sea: str, colour: str) -> set[str]:
    """The armies other than ``colour`` with triremes in ``sea`` before or after the change."""
    return (set(prev.triremes.get(sea, {})) | set(nxt.triremes.get(sea, {}))) - {colour}


def _fleet_gone_alone(prev: ObservedState, nxt: ObservedState, actor: str, sea: str) -> int:
    """How many of ``actor``'s triremes left ``sea``, in sight, with nothing of the change to
    explain it: no other army's fleet there before or after (no combat), no sea beside it gaining
    any of ``actor``'s (no move); 0 where none did so."""
    lost = prev.triremes_of(actor, sea) - nxt.triremes_of(actor, sea)
    if lost <= 0 or sea in prev.unseen or sea in nxt.unseen or other_fleets(prev, nxt, sea, actor) \
            or any(nxt.triremes_of(actor, t) > prev.triremes_of(actor, t) for t in nxt.board.sea_neighbours.get(sea, ())):
        return 0
    return lost


def _the_fleet_kind(board: Board) -> str | None:
    """The one naval piece kind of ``board`` (the trireme), or None on a board with no fleets or
    more kinds than one: the misread kinds at sea read only such boards."""
    naval = tuple(board.pieces.naval)
    return naval[0] if len(naval) == 1 else None


def _least_sure_first(regions: Iterable[str], prev: ObservedState, nxt: ObservedState) -> list[str]:
    """``regions`` the least surely read first (by name among equals): the one a misread kind takes."""
    return sorted(regions, key=lambda r: (sureness(r, prev, nxt), r))


def _named_in_doubt(doubts: list[str], prev: ObservedState, nxt: ObservedState) -> str:
    """The regions a misread's warning names, each with the least confidence it was read at."""
    return " or ".join(f"{nxt.board.name(r)} (confidence {sureness(r, prev, nxt):.2f})" for r in doubts)


def with_strength(state: ObservedState, province: str, colour: str, strength: int) -> dict:
    """``province``'s pieces in ``state`` with ``colour``'s garrison made ``strength`` strong (its
    other pieces, a leader, as they are)."""
    kinds = state.regions[province][colour]
    board = state.board
    return {**state.regions[province], colour: {**{k: m for k, m in kinds.items() if k not in board.pieces.garrison},
                                                **board.pieces.tidy(strength)}}


def _landings_missed(plain: "ProvinceDiff", low: set[str], taken: set[str]
                     ) -> tuple[dict[str, dict], list[tuple[tuple[str, ...], str, str]]]:
    """:func:`misread_boards`' fifth kind: ``actor``'s triremes gone from a sea with nothing to
    explain it (:func:`_fleet_gone_alone`), and a province of ``actor``'s on its shore, read in
    doubt (``low``) and in sight, that gained fewer legionaries than the triremes leave when they
    land (``diff.landed_per_trireme`` each; none on a board whose ruleset lands no triremes): the
    triremes are taken to have landed there, the count as landing leaves it. With several such
    provinces, the least sure is taken and the warning names them all; ``taken``: the provinces
    another kind already reads otherwise. (A rendered hard game, seed 206: green's trireme in the
    Ibericum landed two legionaries in Baetica, read one more at 0.46: "1 green trireme(s) left
    Ibericum with no combat and no legionaries landed".)"""
    prev, nxt, actor, board = plain.prev, plain.next, plain.actor, plain.board
    counts: dict[str, dict] = {}
    notes: list[tuple[tuple[str, ...], str, str]] = []
    per = plain.landed_per_trireme
    if not per or _the_fleet_kind(board) is None:
        return counts, notes
    for sea in sorted(board.seas):
        lost = _fleet_gone_alone(prev, nxt, actor, sea)
        if not lost:
            continue
        need = per * lost
        doubts = _least_sure_first((p for p in board.shores_of.get(sea, ())
                                    if p in low and p not in taken and p not in counts and p in plain.residual
                                    and p not in plain.conquests and p not in prev.unseen and p not in nxt.unseen
                                    and 0 <= plain.residual[p] < need), prev, nxt)
        if not doubts:
            continue
        p = doubts[0]
        counts[p] = with_strength(nxt, p, actor, prev.legions[p] + need)
        read = _named_in_doubt(doubts, prev, nxt)
        notes.append((tuple(doubts), "land", f"{pieces_of(lost, TRIREME, actor)} left {board.name(sea)} with no combat as {read} "
                                             f"on its shore gained {plain.residual[p]}: taken to have landed in "
                                             f"{board.name(p)}, {need - plain.residual[p]} more than read; check the count"))
    return counts, notes


def _fleets_recoloured(prev: ObservedState, nxt: ObservedState, actor: str
                      ) -> tuple[ObservedState, tuple[tuple[str, str, str], ...]] | None:
    """``prev`` with the fleets of other armies that :func:`misread_boards`' seventh kind takes for
    ``actor``'s, and the warnings that say so; None where there are none. A sea qualifies where
    the camera read it below LOW_CONFIDENCE before the change, it held one other army's fleet
    and nothing of ``actor``'s, that fleet is fewer by ``n`` after the change (nothing else of it
    changed), and a sea beside it gained ``n`` or more of ``actor``'s triremes."""
    board = prev.board
    trireme = _the_fleet_kind(board)
    if trireme is None:
        return None             # a board without fleets (or with more kinds than one)
    counts, notes = dict(prev.regions), []
    for sea in sorted(board.seas):
        before = prev.regions.get(sea, {})
        if prev.confidence_of(sea) >= LOW_CONFIDENCE or sea in prev.unseen or sea in nxt.unseen \
                or len(before) != 1 or actor in before:
            continue
        (other, kinds), = before.items()
        lost = kinds.get(trireme, 0) - nxt.triremes_of(other, sea)
        after = nxt.regions.get(sea, {})
        if lost <= 0 or set(after) - {other} or set(kinds) != {trireme}:
            continue
        if not any(nxt.triremes_of(actor, s) - prev.triremes_of(actor, s) >= lost
                   for s in board.sea_neighbours.get(sea, ())):
            continue
        counts[sea] = {**({other: {trireme: kinds[trireme] - lost}} if kinds[trireme] > lost else {}),
                       actor: {trireme: lost}}
        notes.append(((sea,), "turn", f"{board.name(sea)} read with {pieces_of(lost, TRIREME, other)} before (confidence "
                                      f"{prev.confidence_of(sea):.2f}), gone as {actor}'s fleet grew beside it: taken "
                                      f"for {actor}'s, the camera's misread; check the count"))
    if not notes:
        return None
    return ObservedState(board, counts, prev.confidence, prev.unseen), tuple(notes)


def every_reading(diff_type: type["ProvinceDiff"], prev: ObservedState, nxt: ObservedState, actor: str,
                  build: Callable[..., Reading]) -> list[Reading]:
    """Every reading of ``prev -> nxt`` with ``actor`` in turn, best first: for each board
    :func:`misread_boards` gives, each choice of attack sources (the two likeliest per target,
    ``diff_type.source_candidates``) in each of :func:`misread_families`, with and without a
    strategic move where one may hide. ``build(diff, sources, with_move, misread, misreads)``
    makes one reading by the ruleset's rules, with the warnings ``misreads`` on the board."""
    readings = []
    for diff, misreads in misread_boards(diff_type, prev, nxt, actor):
        # a conquest beside a province out of sight may have come from there: no source seen
        choices = [(diff.source_candidates(t)[:2] + ([None] if diff.hidden_sources(t) else [])) or [None]
                   for t in diff.targets]
        moves = [False, True] if diff.may_hold_move() else [False]
        for family, misread in misread_families(diff, choices):
            for combo in itertools.islice(itertools.product(*family), MAX_READINGS):
                for with_move in moves:
                    readings.append(build(diff, dict(zip(diff.targets, combo)), with_move, misread, misreads))
    return rank_readings(readings)


def misread_loss_note(region: str, losses: str, prev: ObservedState, nxt: ObservedState) -> str:
    """What a reading that took a doubtful loss for a misread (:func:`misread_families`) says."""
    sure = sureness(region, prev, nxt)
    return (f"{nxt.board.name(region)} read with {losses} fewer (confidence {sure:.2f}) and no attack to "
            "explain it: taken for a misread; check the count")


def verdict_basis(verdict: Verdict, changed: set[str]) -> list[str]:
    """The regions ``verdict`` rests on, where ``changed`` are the regions the change it judges
    changed: those it names that changed; the unchanged ones are its context (the sea whose
    triremes a sea attack needed, the province a move left from), and a verdict naming no changed
    region rests on all it names. Regions the verdict itself names as context
    (``Verdict.context``) are context even where they changed: a sea whose trireme was turned
    into legionaries in the same commit does not make a sure breach of an attack on the
    province beside it that only a doubtful count shows (a rendered hard game, seed 108)."""
    named = [r for r in verdict.regions if r not in verdict.context] or list(verdict.regions)
    return [r for r in named if r in changed] or named


def soften_low_confidence(verdicts: list[Verdict], prev: ObservedState, nxt: ObservedState) -> list[Verdict]:
    """A violation that rests only on counts the camera is unsure of (:func:`verdict_basis`)
    becomes a warning. (A hard game read Baleares a legionary short at a
    confidence of 0.5: "attacked by sea without more triremes than yellow in Balearicum" stood as
    a violation because the seas it named, unchanged, were read surely.) So does one whose
    context (``Verdict.context``: the seas a crossing or a sea attack lacked triremes in) the
    camera doubts, every region of it: the move is surely read, but its breach is the triremes
    those seas hold, and a trireme the camera missed there makes it legal. (A rendered hard game,
    seed 465: green built a trireme in the Pontus Euxinus that the camera missed, read empty as
    before at 0.83 and so asked for on the tablet; green's strategic move across it from Thracia
    to Bithynia stood as a sure breach of §15.2.) Those seas are the counts to check."""
    changed = nxt.changed_regions(prev)
    out = []
    for v in verdicts:
        basis = verdict_basis(v, changed)
        if v.level == VIOLATION and basis and all(doubted(r, prev, nxt) for r in basis):
            v = v.softened(DOUBT_NOTE)
        elif v.level == VIOLATION and v.context and all(doubted(r, prev, nxt) for r in v.context):
            v = dataclasses.replace(v.softened(DOUBT_NOTE), checks=(*v.checks, *v.context))
        out.append(v)
    return out


def soften_beside_unseen(verdicts: list[Verdict], prev: ObservedState, nxt: ObservedState) -> list[Verdict]:
    """A violation about regions that each touch one the camera could not see before or after
    the change (a cup, a card or a resting hand over it) becomes a warning that names it: pieces
    may have gone there or come from there unseen, and the camera cannot tell such a move from a
    breach of the rules. (A rendered medium game had a cover over Galicia all game long; red's
    legionaries moved out of it into Terraconensis read as "red places 1 legionary outside the
    reinforcement phase", two violations that put the dashboard out of step.)"""
    hidden = prev.unseen | nxt.unseen
    if not hidden:
        return verdicts
    board = prev.board
    return soften_near_hidden(verdicts, lambda r: board.touching(r) & hidden, board,
                              " (beside {names}, which the camera could not see: pieces may have moved there or "
                              "from there unseen; check)")


def soften_near_hidden(verdicts: list[Verdict], near: Callable[[str], set[str]], board: Board, note: str
                       ) -> list[Verdict]:
    """``verdicts`` with each violation about regions that each have regions out of sight
    ``near`` them (``near(region)``: those regions) made a warning, its message followed by
    ``note`` with ``{names}`` the names of all of them."""
    out = []
    for v in verdicts:
        close = [near(r) for r in v.regions]
        if v.level == VIOLATION and v.regions and all(close):
            v = v.softened(note.format(names=", ".join(board.name(r) for r in sorted(set().union(*close)))))
        out.append(v)
    return out


def soften_for_the_camera(verdicts: list[Verdict], prev: ObservedState, nxt: ObservedState) -> list[Verdict]:
    """What a change's verdicts allow for the camera: counts it doubts
    (:func:`soften_low_confidence`), and regions it cannot see (:func:`soften_beside_unseen`)."""
    return soften_beside_unseen(soften_low_confidence(verdicts, prev, nxt), prev, nxt)


def chain_depth(target: str, source_of: Callable[[str], str | None], conquests: dict[str, str]) -> int:
    """How many conquests of this change lead up to ``target`` (a conquered source passes its own
    fill-up on to the province it was taken from, so later links are processed first)."""
    depth, seen = 0, {target}
    src = source_of(target)
    while src is not None and src in conquests and src not in seen:
        seen.add(src)
        depth += 1
        src = source_of(src)
    return depth


class ProvinceDiff:
    """The raw differences between two states in the provinces, from the point of view of the
    player in turn: conquests, damage, the actor's gains and losses, and what cannot be explained."""

    def __init__(self, prev: ObservedState, nxt: ObservedState, actor: str):
        self.prev, self.next, self.actor = prev, nxt, actor
        self.board: Board = prev.board
        P, N = prev, nxt
        self.conquests: dict[str, str] = {}     # province -> previous owner
        self.damaged: dict[str, int] = {}       # province -> defender losses (no conquest)
        self.residual: dict[str, int] = {}      # actor province -> strength gained (-lost)
        self.foreign_growth: dict[str, int] = {}  # non-actor province -> strength gained
        self.handovers: dict[str, tuple[str, str]] = {}  # province -> (old, new) not to the actor
        self.emptied: list[str] = []
        self.refilled: list[str] = []
        self.exchanges: list[str] = []
        for p in self.board.provinces:
            o_p, o_n = P.owners.get(p), N.owners.get(p)
            if o_p is None and o_n is None:
                continue
            if o_n is None:
                self.emptied.append(p)
            elif o_p is None:
                self.refilled.append(p)
            elif o_p != o_n:
                if o_n == actor:
                    self.conquests[p] = o_p
                    self.residual[p] = N.legions[p]
                else:
                    self.handovers[p] = (o_p, o_n)
            else:
                d = N.legions[p] - P.legions[p]
                if o_p == actor:
                    self.residual[p] = d
                elif d < 0:
                    self.damaged[p] = -d
                elif d > 0:
                    self.foreign_growth[p] = d
                # the same pieces read the same way are the same garrison: compared first, as most are
                if d == 0 and P.regions.get(p) != N.regions.get(p) and _garrison(P, p, o_p) != _garrison(N, p, o_n):
                    self.exchanges.append(p)
        self.targets = sorted(self.conquests) + sorted(self.damaged)
        self.eliminated = sorted(c for c in P.provinces_by_colour if c != actor and not N.provinces_of(c))

    def hidden_sources(self, target: str) -> list[str]:
        """The provinces beside ``target``, conquered in the change, that the camera could not
        see, before or after it, whoever held them when last seen: the conquest may have come from
        one, its move-in unseen, so a reading with no source seen is weighed too. A province out
        of sight may have changed hands unseen (the print's hard seed 479: blue took red's
        Numidia under a cover, then Cyrenaica from it, and with Numidia taken for red's still, the
        conquest was "attacked by sea without more triremes than red"; over 143 recorded games
        that was the one change, besides a warning fewer). (Hard seed 449, game 450: yellow took
        Armenia from Ponto, under a card, moving three in; the only source in sight was
        Mesopotamia, and the three were "placed" there and moved on: "yellow placed 3 legionaries
        but is entitled to 1".) None for a province that only lost pieces: an attack from out of
        sight that took nothing is a story cheap enough to keep a turn going where it has ended
        (hard seed 442: green's conquest of Raetia, its reinforcements under a card, was read as
        yellow's turn going on, four warnings)."""
        if target not in self.conquests:
            return []
        hidden = self.prev.unseen | self.next.unseen
        return [q for q in sorted(self.board.land_neighbours[target]) if q in hidden]

    def actor_held(self, p: str) -> bool:
        """Held by the actor before and after, or taken in this transition: a possible attack
        source. A province the actor held before and has lost (read empty, or in another colour,
        which its own turn cannot do) is no source: the camera misread it, and its strength change
        is not the actor's to account for."""
        return p in self.residual

    #: legionaries a trireme leaves when it lands on the shore (:func:`_landings_missed`); none
    #: in a ruleset whose triremes never land
    landed_per_trireme = 0

    def move_partners(self, p: str) -> set[str]:
        """The provinces that one move of the actor's pieces could join with province ``p``: those
        beside it by land (a ruleset whose moves also cross the sea adds those)."""
        return set(self.board.land_neighbours.get(p, ()))

    def may_hold_move(self) -> bool:
        """Whether a loss and a gain of the actor could be one move between them."""
        neg = [p for p, r in self.residual.items() if r < 0 and p not in self.conquests]
        pos = [p for p, r in self.residual.items() if r > 0]
        return bool(neg and pos)


def _garrison(state: ObservedState, p: str, colour: str) -> dict:
    """The pieces that make up a province's strength (a leader standing there is not one)."""
    kinds = state.regions[p][colour]
    return {k: n for k, n in kinds.items() if k in state.board.pieces.garrison}
