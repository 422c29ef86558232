"""Whose placement it is while the opening occupation is made (§3.7–3.8), and placements the
order of play does not explain.

The players occupy the provinces in the order of play (§3.2: the dice decide it, and a game
lists its players in that order): each in turn puts a pair of their own legionaries on a free
province and, while neutral groups are left, one neutral group of 3 on another (§3.7–3.8).

The camera commits whenever the table is still, half way through a turn or after two; it may
miss a pair whole (a pile on a print of its own colour) or read it in another army's colour.
So the order is followed as a few hypotheses, each the player whose turn it is with the
irregularities it needs to explain the placements seen so far, commit by commit (a commit's
placements in whatever order suits): a turn passed with no pair seen costs one, and so does a
pair in a colour other than the turn's (read wrong, or placed out of turn). A set-up made in
turn and read right costs nothing. A commit whose placements raise that least cost gets a
warning naming them: the camera cannot tell a player placing out of turn from a pair it read in
the wrong colour, or from the pair before it that it missed, and a player's look settles it.
A pair read in the wrong colour with the count of a pair looks right on every other count; the
order is what names it.

The neutral groups are judged on counts: with ``T`` pairs on the board, ``T`` groups stand with
them (all there are, once they run out), or one fewer or one more while a player is between
their pair and their group.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Sequence

from tracker.spqrisiko.setup import SetupPlan
from tracker.state import ObservedState
from tracker.verdicts import Verdict, counted


#: The most provinces read in another army's colour during the set-up whose placement is dated by
#: the order of play (:func:`_followed`); past it, each is dated when it was first read.
RETIMED = 4

#: The hypotheses about the order of play: the player whose turn it is -> the irregularities
#: (turns passed with no pair seen, pairs in another colour than the turn's) they need.
Turns = dict[str, int]


@dataclass(frozen=True)
class SetupTurn:
    """The next placement the order of play asks for: ``player``'s, of their pair and (while
    neutral groups are left) a neutral group, or of whichever of the two they still owe."""

    player: str
    pair: bool
    group: bool

    def describe(self) -> str:
        what = " and ".join(w for w, due in (("a pair", self.pair), ("a neutral group", self.group)) if due)
        return f"{self.player} to place {what}"

    def to_dict(self) -> dict:
        return {"player": self.player, "pair": self.pair, "group": self.group, "text": self.describe()}


@dataclass(frozen=True)
class SetupCommit:
    """What one commit of the set-up showed, as the order of play reads it: the provinces read
    held for the first time, those read in another army's colour than at the commit before, and
    the provinces the camera could not see and did not read held (each may hide a placement)."""

    occupied: tuple[str, ...]
    recoloured: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()

    @classmethod
    def of(cls, prev: ObservedState | None, state: ObservedState, logged: set[str]) -> "SetupCommit":
        """The commit that read ``state`` after ``prev`` (None: the first), ``logged`` the provinces
        read held before it."""
        board = state.board
        return cls(tuple(sorted(p for p in state.owners if p not in logged)),
                   tuple(sorted(p for p, c in state.owners.items() if prev is not None and prev.owners.get(p, c) != c)),
                   tuple(sorted(p for p in state.unseen if p in board.provinces and p not in state.owners)))


@dataclass(frozen=True)
class _Step:
    """How one commit's pairs were fitted to the order of play: what it cost (the turns taken
    that got no pair of their own colour), the pairs no turn of theirs explains (province ->
    colour), and the players whose turns got none of their own."""

    cost: int
    unexplained: dict[str, str]
    passed: tuple[str, ...]


def groups_to_place(plan: SetupPlan) -> int:
    """The neutral groups the players place during the set-up (§3.3–3.4)."""
    return sum(plan.neutral_groups.values()) - (1 if plan.fixed_neutral else 0)


def _groups_placed(state: ObservedState, plan: SetupPlan) -> int:
    fixed = 1 if plan.fixed_neutral and state.owners.get(plan.fixed_neutral) in plan.neutrals else 0
    return sum(len(state.provinces_of(c)) for c in plan.neutrals) - fixed


def _pairs_placed(state: ObservedState, plan: SetupPlan) -> int:
    return sum(len(state.provinces_of(c)) for c in plan.players)


def in_turns(provinces: dict[str, list[str]], plan: SetupPlan) -> list[tuple[str, str]]:
    """A set-up made in the order of play: ``(player, province)`` for each placement, where
    ``provinces`` lists the provinces each army (player or neutral) occupies, in the order it
    occupies them. Each player places a pair, then a group of the first neutral army with
    groups left, while any are."""
    left = {c: list(ps) for c, ps in provinces.items()}
    order = []
    while any(left.values()):
        for c in plan.players:
            for army in (c, *[n for n in plan.neutrals if left.get(n)][:1]):
                if left.get(army):
                    order.append((c, left[army].pop(0)))
    return order


def _fit(turn: str, pairs: dict[str, str], plan: SetupPlan) -> list[tuple[str, _Step]]:
    """Each way a commit's ``pairs`` (province -> colour) may have taken turns from ``turn``'s
    on: the turn after them, and the step. Taking ``L`` turns costs the turns that got no pair
    of their own colour (passed, or given to a pair of another's)."""
    players, n = plan.players, len(plan.players)
    at = players.index(turn)
    out = []
    for taken in range(len(pairs), len(pairs) + n):
        slots = [players[(at + k) % n] for k in range(taken)]
        unexplained, free = {}, list(slots)
        for province, colour in sorted(pairs.items()):
            if colour in free:
                free.remove(colour)
            else:
                unexplained[province] = colour
        passed = tuple(dict.fromkeys(free))
        out.append((players[(at + taken) % n], _Step(len(free), unexplained, passed)))
    return out


def follow_turns(commits: Sequence[dict[str, str]], plan: SetupPlan,
                 hidden: Sequence[tuple[int, frozenset[str]]] = ()) -> tuple[Turns, list[_Step | None]]:
    """The hypotheses about whose turn it is after ``commits`` (each commit's new pairs,
    province -> colour), starting at the first player's turn; and for each commit, the least-cost
    way it was fitted where that raised the least cost so far (None where it did not). The way
    named is the cheapest from the hypotheses that were the likeliest before it, which are the
    ones the players were shown: one that cost more may fit the commit in turn, having paid
    for an irregularity earlier that no warning named.

    ``hidden``, for each commit: how many provinces the camera could not see and did not read
    held, and the new pairs it read where it could not see at the commit before. A turn passed
    with no pair seen costs nothing while fewer turns were taken so than there are such
    provinces (a card over Asia Minor hid three of red's pairs on a filmed hard set-up, and each
    was named as blue placing in red's turn); a pair seen where it was hidden before is one of
    those, and takes no turn of its own."""
    turns: dict[tuple[str, int], int] = {(plan.players[0], 0): 0}     # (turn, hidden pairs) -> cost
    raised: list[_Step | None] = []
    for k, pairs in enumerate(commits):
        cover, revealed = hidden[k] if k < len(hidden) else (0, frozenset())
        nxt: dict[tuple[str, int], int] = {}
        least = min(turns.values())
        named: tuple[int, _Step] | None = None
        for (turn, under), cost in turns.items():
            back = [p for p in sorted(pairs) if p in revealed][:under]
            under -= len(back)
            for after, step in _fit(turn, {p: c for p, c in pairs.items() if p not in back}, plan):
                passes = step.cost - len(step.unexplained)          # turns that got no pair at all
                covered = min(passes, max(0, cover - under))
                total = cost + step.cost - covered
                key = (after, under + covered)
                if total < nxt.get(key, total + 1):
                    nxt[key] = total
                if cost == least and (named is None or total < named[0]):
                    named = (total, step)
        raised.append(named[1] if min(nxt.values()) > least else None)
        turns = nxt
    best: Turns = {}
    for (turn, _), cost in turns.items():
        best[turn] = min(cost, best.get(turn, cost))
    return best, raised


def misplaced(log: Sequence[SetupCommit], state: ObservedState, plan: SetupPlan) -> dict[str, str]:
    """The pairs the order of play did not explain as they were placed (:func:`turn_verdicts`
    named each), where the turn they took was one player's: province -> that player. A pair read
    in the wrong colour is one of these, and :func:`tracker.spqrisiko.setup.settle_setup` gives
    it back to its army when the finished set-up leaves that army one province short."""
    out = {}
    for step in _followed(log, state, plan)[2]:
        for province, colour in (step.unexplained if step else {}).items():
            due = [c for c in step.passed if c != colour]
            if len(due) == 1:
                out[province] = due[0]
    return out


def _followed(log: Sequence[SetupCommit], state: ObservedState, plan: SetupPlan) \
        -> tuple[list[dict[str, str]], Turns, list[_Step | None]]:
    """The order of play followed through ``log`` (:func:`follow_turns`): each commit's new pairs
    (:class:`SetupCommit`) in the colours ``state`` reads them now (a province no player holds
    now is no pair), the hypotheses after them, and each commit's step.

    A province read in another army's colour at a later commit was placed either when it was
    first read (its colour misread then, and read right once a hand touched it) or at that later
    commit (a phantom pile read first: on the print's hard set-up of seed 12, black's group put
    down in Galatia spilled into Cilicia, read as black's until blue's pair went there). Each is
    dated where the order of play explains the set-up best, at its first reading on a tie
    (:data:`RETIMED` of them at most)."""
    commits = [{p: state.owners[p] for p in c.occupied if state.owners.get(p) in plan.players} for c in log]
    hidden = _hidden(log)
    best = (commits, *follow_turns(commits, plan, hidden))
    first = {p: i for i, c in enumerate(log) for p in c.occupied}
    later = {p: j for j, c in enumerate(log) for p in c.recoloured
             if state.owners.get(p) in plan.players and j > first.get(p, j)}
    if len(later) > RETIMED:
        return best
    for moved in product((False, True), repeat=len(later)):
        if not any(moved):
            continue
        trial = [dict(c) for c in commits]
        for (p, j), move in zip(sorted(later.items()), moved):
            if move:
                trial[j][p] = trial[first[p]].pop(p)
        followed = (trial, *follow_turns(trial, plan, hidden))
        if min(followed[1].values()) < min(best[1].values()):
            best = followed
    return best


def _hidden(log: Sequence[SetupCommit]) -> list[tuple[int, frozenset[str]]]:
    """For :func:`follow_turns`: each commit's provinces hidden, and those it read held for the
    first time that the commit before could not see."""
    return [(len(c.hidden), frozenset(c.occupied) & frozenset(log[k - 1].hidden if k else ()))
            for k, c in enumerate(log)]


def setup_turn(state: ObservedState, plan: SetupPlan, log: Sequence[SetupCommit]) -> SetupTurn | None:
    """The next placement of the set-up on ``state``, as the likeliest hypothesis about the
    order of play (:func:`follow_turns` on ``log``, as :func:`turn_verdicts` takes it) gives it;
    None once every pair is placed."""
    _, turns, _ = _followed(log, state, plan)
    total, groups = _pairs_placed(state, plan), _groups_placed(state, plan)
    if total >= plan.player_provinces * len(plan.players) or not turns:
        return None
    least = min(turns.values())
    player = next(c for c in plan.players if turns.get(c) == least)
    before = plan.players[plan.players.index(player) - 1]
    owed = groups_to_place(plan)
    if groups < min(total, owed):                   # the last player's group is still to come
        return SetupTurn(before, pair=False, group=True)
    if groups > total + len(log[-1].hidden if log else ()):   # the next player put their group down first
        return SetupTurn(player, pair=True, group=False)
    return SetupTurn(player, pair=True, group=groups < owed)


def turn_verdicts(log: Sequence[SetupCommit], state: ObservedState, plan: SetupPlan) -> list[Verdict]:
    """§3.7 warnings on the last commit of ``log`` (the provinces each commit of the set-up
    occupied first, in order; the colours as ``state`` reads them now) where the order of play
    no longer explains the placements as cheaply as before it (module doc)."""
    commits, _, steps = _followed(log, state, plan)
    if not commits or not commits[-1]:
        return []
    step = steps[-1]
    if step is None:
        return []
    board, order = state.board, " → ".join(plan.players)
    if step.unexplained:
        out = []
        for province, colour in sorted(step.unexplained.items()):
            due = " or ".join(c for c in step.passed if c != colour) or "another player"
            out.append(Verdict.warning(
                "§3.7", f"{colour} occupied {board.name(province)} in {due}'s turn (order of play {order}): "
                        f"{due}'s pieces read as {colour}'s, {due}'s pair not seen by the camera, or {colour} "
                        f"placing out of turn; check", (province,)))
        return out
    who = " and ".join(step.passed)
    return [Verdict.warning("§3.7", f"the order of play ({order}) has passed {who} with no pair of theirs seen: "
                                    f"the camera has not seen it, or {who} let the turn go; check the free provinces")]


def group_verdicts(log: Sequence[SetupCommit], state: ObservedState, plan: SetupPlan) -> list[Verdict]:
    """§3.7–3.8 warnings on the last commit of ``log`` (as :func:`turn_verdicts` takes it) where
    the neutral groups fall further behind the pairs, or get further ahead of them, than ever
    before. With ``T`` pairs placed the groups number ``T`` (all there are, once they run out),
    or one fewer while a player is between their pair and their group, or one more when a player
    put their group down first; a group the camera missed leaves them one further behind for the
    rest of the set-up, and is named once, at the first pair placed after it. A province the
    camera cannot see may hold a pair or a group (:class:`SetupCommit`), which makes up as much."""
    owed = groups_to_place(plan)
    pairs = groups = 0
    lag_worst = over_worst = 1                  # what a turn half made leaves
    lag = over = 0
    for k, commit in enumerate(log):
        provinces = commit.occupied
        if k:
            lag_worst, over_worst = max(lag_worst, lag), max(over_worst, over)
        pairs += sum(state.owners.get(p) in plan.players for p in provinces)
        groups += sum(state.owners.get(p) in plan.neutrals and p != plan.fixed_neutral for p in provinces)
        cover = len(commit.hidden)
        lag, over = min(pairs, owed) - groups - cover, groups - min(pairs + cover, owed)
    last = log[-1].occupied if log else ()
    pairs_new = tuple(sorted(p for p in last if state.owners.get(p) in plan.players))
    groups_new = tuple(sorted(p for p in last if state.owners.get(p) in plan.neutrals))
    verdicts = []
    if pairs_new and lag > lag_worst:
        verdicts.append(Verdict.warning(
            "§3.8", f"{counted(pairs, 'pair')} and {counted(groups, 'neutral group')} are on the board: each player "
                    f"places a neutral group with their pair while groups are left; check", pairs_new))
    if groups_new and over > over_worst:
        verdicts.append(Verdict.warning(
            "§3.7", f"{counted(groups, 'neutral group')} and {counted(pairs, 'pair')} are on the board: each player "
                    f"places one neutral group with their pair; check", groups_new))
    return verdicts


def neutral_share_verdicts(prev: ObservedState, state: ObservedState, plan: SetupPlan) -> list[Verdict]:
    """§3.3 warnings on the placements between two boards of the set-up that leave a neutral
    army read with more groups than it has (a player's pair or another army's group read in its
    colour: there are no more pieces to place)."""
    verdicts = []
    for colour, share in plan.neutral_groups.items():
        mine = tuple(sorted(p for p, c in state.owners.items() if c == colour and p not in prev.owners))
        held = len(state.provinces_of(colour))
        if mine and held > share:
            verdicts.append(Verdict.warning("§3.3", f"neutral {colour} has {counted(share, 'group')}, and "
                                                    f"{counted(held, 'province')} are read as {colour}'s; check", mine))
    return verdicts
