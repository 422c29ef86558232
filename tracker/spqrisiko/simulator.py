"""A seeded random player of whole S.P.Q.RisiKo! games, by the rules.

It is the source of realistic board states and event sequences for the tests, the
renderer and the demo. Every step a camera would commit (reinforcements placed, a
conversion, the naval move, each combat, each attack sequence, the strategic move) becomes
one :class:`SimStep` holding the board afterwards and the true events, so the tracker's
readings can be compared with the truth.

The players are simple: they reinforce a few border provinces, attack when the odds look
fair, and tidy up with a strategic move. Dice are rolled for real (§10, §11).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from tracker import events as ev
from tracker.board import Board, load_board
from tracker.dice import MAX_DICE, attack_dice_available, compare, defence_dice
from tracker.events import Event
from tracker.pieces import CENTRE_SUPPLY, VP_TRACK_MAX
from tracker.spqrisiko.cards import DECK, best_set, set_value
from tracker.spqrisiko.options import ROUNDS, SpqrOptions
from tracker.spqrisiko.reinforcements import LEGIONARIES_FROM_TRIREME, LEGIONARIES_PER_TRIREME, land_reinforcements
from tracker.spqrisiko.setup import random_setup, setup_plan
from tracker.state import ObservedState


#: Player line-ups for 3, 4 and 5 players (benchmarks, datasets and tests cycle through them).
PLAYER_SETS = (("red", "blue", "yellow"), ("red", "blue", "yellow", "green"),
               ("red", "blue", "yellow", "green", "black"))


@dataclass
class SimStep:
    """One committed board state with what really happened since the previous one."""

    state: ObservedState
    actor: str
    events: list[Event]
    round_no: int
    turn_no: int
    cards_played: tuple[str, ...] = ()
    card_drawn: bool = False
    #: the victory-point track when this state was committed (the score markers on the board)
    vp: dict[str, int] = field(default_factory=dict)
    #: other tablet entries made before this state (a Fellowship roll, an adventure card...)
    entries: list[dict] = field(default_factory=list)
    #: the turn is named at the tablet (a turn that opens with no reinforcement to show it)
    turn_hint: str | None = None

    def to_line(self) -> dict:
        out = {"state": self.state.to_dict(), "truth": {"actor": self.actor, "round": self.round_no,
                                                        "turn": self.turn_no,
                                                        "events": [e.to_dict() for e in self.events]}}
        if self.cards_played:
            out["cards_played"] = {"player": self.actor, "cards": list(self.cards_played)}
        if self.card_drawn:
            out["card_drawn"] = True
        if self.entries:
            out["entries"] = list(self.entries)
        if self.turn_hint:
            out["turn"] = self.turn_hint
        return out


@dataclass
class _Table:
    owners: dict[str, str]
    legions: dict[str, int]
    triremes: dict[str, dict[str, int]]
    centres: set[str] = field(default_factory=set)


class Simulator:
    """Plays one game; iterate :meth:`steps` to follow it step by step."""

    def __init__(self, players: Sequence[str], seed: int = 0, options: SpqrOptions = SpqrOptions(),
                 max_turns: int = 300, target_vp: int | None = None, board: Board | None = None):
        self.board = board or load_board("spqrisiko")
        self.players = tuple(players)
        self.options = options
        self.rng = random.Random(seed)
        self.max_turns = max_turns
        self.target_vp = target_vp
        self.plan = setup_plan(self.board, self.players, options)
        start = random_setup(self.board, self.players, self.rng, options)
        self.initial_state = start
        self.t = _Table(dict(start.owners), dict(start.legions), {})
        self.deck = [s for s, n in DECK.items() for _ in range(n)]
        self.rng.shuffle(self.deck)
        self.discard: list[str] = []
        self.hands: dict[str, list[str]] = {c: [] for c in self.players}
        self.eliminated: set[str] = set()
        self.vp = {c: 0 for c in self.players}
        self.round_no = 1
        self.turn_no = 0

    # -- snapshots -----------------------------------------------------------------------
    def snapshot(self) -> ObservedState:
        t = self.t
        return ObservedState.from_summary(self.board, {p: (t.owners[p], t.legions[p]) for p in t.owners},
                                          t.triremes, t.centres)

    def _tri(self, colour: str, sea: str) -> int:
        return self.t.triremes.get(sea, {}).get(colour, 0)

    def _add_tri(self, colour: str, sea: str, n: int) -> None:
        per = self.t.triremes.setdefault(sea, {})
        per[colour] = per.get(colour, 0) + n
        if per[colour] <= 0:
            del per[colour]
        if not per:
            del self.t.triremes[sea]

    def _owned(self, colour: str) -> list[str]:
        return sorted(p for p, c in self.t.owners.items() if c == colour)

    def _enemy_near(self, p: str, colour: str) -> bool:
        return any(self.t.owners.get(q) != colour for q in self.board.land_neighbours[p])

    def _keep(self, p: str, colour: str) -> int:
        """Legionaries a province must keep when units leave it by choice (§14.1, §14.2)."""
        return 2 if self._enemy_near(p, colour) else 1

    # -- the game ------------------------------------------------------------------------
    def steps(self) -> Iterator[SimStep]:
        from tracker.spqrisiko.scoring import score
        while self.turn_no < self.max_turns:
            for colour in self.players:
                if colour in self.eliminated:
                    continue
                if self.turn_no >= self.max_turns or len(self.players) - len(self.eliminated) < 2:
                    return
                self.turn_no += 1
                claim = score(self.snapshot(), colour, self.players, self.options)   # §5.4: first thing
                self.vp[colour] += claim.total
                if self.target_vp and self.vp[colour] >= self.target_vp:
                    return   # §4.3.1: the game ends at once
                yield from self._turn(colour)
            self.round_no += 1

    def _step(self, colour: str, events: list[Event], **kw) -> SimStep:
        return SimStep(self.snapshot(), colour, events, self.round_no, self.turn_no,
                       vp={c: min(VP_TRACK_MAX, v) for c, v in self.vp.items()}, **kw)

    def _turn(self, a: str) -> Iterator[SimStep]:
        rng, t, b = self.rng, self.t, self.board
        conquered = False
        taken_by_sea: set[str] = set()
        sea_attacked: set[str] = set()
        # -- reinforcements (§6, §8, §16.5)
        owned = self._owned(a)
        pool = land_reinforcements(len(owned))
        events: list[Event] = []
        played: tuple[str, ...] = ()
        card_tri = card_centres = 0
        hand = self.hands[a]
        pick = best_set(hand)
        if pick and (len(hand) >= 5 or rng.random() < 0.5):
            for c in pick:
                hand.remove(c)
            self.discard += list(pick)
            value = set_value(pick)
            pool += value.legionaries
            card_tri, card_centres = value.triremes, value.centres
            played = pick
        placed: dict[str, int] = {}
        for p in owned:
            if p in t.centres:
                placed[p] = placed.get(p, 0) + 1
        for _ in range(card_centres):
            spots = [p for p in owned if p not in t.centres
                     and not any(q in t.centres for q in b.land_neighbours[p])]
            if spots and len(t.centres) < CENTRE_SUPPLY:
                p = rng.choice(spots)
                t.centres.add(p)
                events.append(Event(ev.CENTRE_PLACED, a, target=p, amount=1))
        front = [p for p in owned if self._enemy_near(p, a)] or owned
        targets = rng.sample(front, k=min(len(front), rng.randint(1, 3)))
        for _ in range(pool):
            p = rng.choice(targets)
            placed[p] = placed.get(p, 0) + 1
        for p, n in sorted(placed.items()):
            t.legions[p] += n
            events.append(Event(ev.REINFORCEMENT, a, target=p, amount=n))
        for _ in range(card_tri):
            seas = sorted({s for p in owned for s in b.coast_of[p]})
            if seas:
                s = rng.choice(seas)
                self._add_tri(a, s, 1)
                events.append(Event(ev.CARD_TRIREME, a, target=s, amount=1))
        yield self._step(a, events, cards_played=played)
        # §6.6: now and then a trireme becomes two legionaries
        mine = [s for s in t.triremes if self._tri(a, s)]
        if mine and rng.random() < 0.1:
            s = rng.choice(sorted(mine))
            shore = [p for p in sorted(b.shores_of[s]) if t.owners.get(p) == a]
            if shore:
                p = rng.choice(shore)
                self._add_tri(a, s, -1)
                t.legions[p] += LEGIONARIES_FROM_TRIREME
                yield self._step(a, [Event(ev.TRIREME_TO_LEGIONARIES, a, source=s, target=p, amount=1)])
        # §7: three legionaries of one coastal province become a trireme
        if rng.random() < 0.35:
            coastal = [p for p in self._owned(a) if b.coast_of[p]
                       and t.legions[p] - LEGIONARIES_PER_TRIREME >= self._keep(p, a)]
            if coastal:
                p = max(coastal, key=lambda q: t.legions[q])
                n = min(rng.randint(1, 2), (t.legions[p] - self._keep(p, a)) // LEGIONARIES_PER_TRIREME)
                s = rng.choice(sorted(b.coast_of[p]))
                t.legions[p] -= LEGIONARIES_PER_TRIREME * n
                self._add_tri(a, s, n)
                yield self._step(a, [Event(ev.LEGIONARIES_TO_TRIREME, a, source=p, target=s, amount=n)])
        # §9: one naval movement
        mine = sorted(s for s in t.triremes if self._tri(a, s))
        if mine and rng.random() < 0.3:
            s = rng.choice(mine)
            dest = rng.choice(sorted(b.sea_neighbours[s])) if b.sea_neighbours[s] else None
            if dest:
                n = rng.randint(1, self._tri(a, s))
                self._add_tri(a, s, -n)
                self._add_tri(a, dest, n)
                yield self._step(a, [Event(ev.NAVAL_MOVE, a, source=s, target=dest, amount=n)])
        # §11: naval combat, one per sea
        for s in sorted(t.triremes):
            foes = [c for c in t.triremes.get(s, {}) if c != a]
            if not foes or not self._tri(a, s) or rng.random() < 0.5:
                continue
            foe = rng.choice(sorted(foes))
            lost_a = lost_d = 0
            while self._tri(a, s) and self._tri(foe, s):
                la, ld = compare(self._roll(min(MAX_DICE, self._tri(a, s))),
                                 self._roll(defence_dice(self._tri(foe, s))), naval=True)
                self._add_tri(a, s, -la)
                self._add_tri(foe, s, -ld)
                lost_a += la
                lost_d += ld
                if la + ld == 0 or rng.random() < 0.3:
                    break  # §11.6: a roll with no losses ends the combat
            if lost_a or lost_d:
                yield self._step(a, [Event(ev.NAVAL_COMBAT, a, target=s, defender=foe,
                                           attacker_losses=lost_a, defender_losses=lost_d)])
        # §12: sea attacks
        for _ in range(2):
            step = self._sea_attack(a, taken_by_sea, sea_attacked)
            if step is None:
                break
            conquered |= any(e.conquered for e in step.events)
            yield step
        # §13: land attacks
        for _ in range(rng.randint(0, 6)):
            step = self._land_attack(a)
            if step is None:
                break
            conquered |= any(e.conquered for e in step.events)
            yield step
        # §15: the strategic move ends the turn
        move = self._strategic_move(a)
        if move is not None:
            yield move
        # §17: a card for a conquest
        if conquered:
            if not self.deck:
                self.deck, self.discard = self.discard, []
                self.rng.shuffle(self.deck)
            if self.deck:
                self.hands[a].append(self.deck.pop())
            last = self._step(a, [Event(ev.CARD_DRAWN, a)], card_drawn=True)
            yield last

    def _roll(self, n: int) -> list[int]:
        return [self.rng.randint(1, 6) for _ in range(n)]

    def _may_eliminate(self, defender: str) -> bool:
        if defender not in self.players:
            return True
        current = self.round_no if self.options.elimination_unit == ROUNDS else self.turn_no
        return current > self.options.elimination_protection

    def _last_province_guard(self, target: str) -> bool:
        defender = self.t.owners[target]
        return sum(1 for c in self.t.owners.values() if c == defender) > 1 or self._may_eliminate(defender)

    def _conquer(self, a: str, src: str, target: str, move_in: int) -> list[Event]:
        t = self.t
        defender = t.owners[target]
        t.owners[target] = a
        t.legions[target] = move_in
        t.legions[src] -= move_in
        out = []
        if defender not in t.owners.values():
            out.append(Event(ev.ELIMINATION, a, defender=defender))
            for s in list(t.triremes):
                if self._tri(defender, s):
                    self._add_tri(defender, s, -self._tri(defender, s))  # §18.3
            if defender in self.players:
                self.eliminated.add(defender)
                self.hands[a] += self.hands[defender]  # §18.2
                self.hands[defender] = []
        return out

    def _land_attack(self, a: str) -> SimStep | None:
        t, b, rng = self.t, self.board, self.rng
        options = []
        for src in self._owned(a):
            for q in sorted(b.land_neighbours[src]):
                if t.owners[q] == a or not self._last_province_guard(q):
                    continue
                if attack_dice_available(t.legions[src]) >= max(1, defence_dice(t.legions[q])) and \
                        t.legions[src] >= t.legions[q] + 2:
                    options.append((src, q))
        if not options:
            return None
        src, q = rng.choice(options)
        defender = t.owners[q]
        lost_a = lost_d = 0
        dice = 0
        while True:
            dice = attack_dice_available(t.legions[src])
            if dice < defence_dice(t.legions[q]) or dice == 0:
                break  # §10.13
            la, ld = compare(self._roll(dice), self._roll(defence_dice(t.legions[q])))
            t.legions[src] -= la
            t.legions[q] -= ld
            lost_a += la
            lost_d += ld
            if t.legions[q] == 0 or rng.random() < 0.15:
                break
        if t.legions[q] > 0:
            return self._step(a, [Event(ev.LAND_ATTACK, a, source=src, target=q, defender=defender,
                                        attacker_losses=lost_a, defender_losses=lost_d)])
        # §13.3 at least the dice of the last attack; §13.4 more if wanted, keeping the garrison.
        spare = t.legions[src] - dice - self._keep_after(src, a, q)
        move_in = dice + (rng.randint(0, spare) if spare > 0 else 0)
        evs = [Event(ev.LAND_ATTACK, a, source=src, target=q, defender=defender, attacker_losses=lost_a,
                     defender_losses=lost_d, conquered=True, amount=move_in)]
        evs += self._conquer(a, src, q, move_in)
        return self._step(a, evs)

    def _keep_after(self, src: str, a: str, taken: str) -> int:
        """Garrison to keep in ``src`` once ``taken`` is ours (§14.2)."""
        return 2 if any(self.t.owners.get(q) != a and q != taken for q in self.board.land_neighbours[src]) else 1

    def _sea_attack(self, a: str, taken_by_sea: set[str], sea_attacked: set[str]) -> SimStep | None:
        t, b, rng = self.t, self.board, self.rng
        options = []
        for s in sorted(t.triremes):
            if not self._tri(a, s):
                continue
            for src in sorted(b.shores_of[s]):
                if t.owners.get(src) != a or src in taken_by_sea:
                    continue
                avail = t.legions[src] - self._keep(src, a)   # §14.3
                for q in sorted(b.shores_of[s]):
                    d = t.owners.get(q)
                    if d == a or q in sea_attacked or self._tri(a, s) <= self._tri(d, s):
                        continue
                    if not self._last_province_guard(q):
                        continue
                    if avail >= max(3, t.legions[q] + 2):
                        options.append((src, q, s, avail))
        if not options or rng.random() < 0.5:
            return None
        src, q, s, avail = rng.choice(options)
        defender = t.owners[q]
        committed = avail
        t.legions[src] -= committed
        lost_a = lost_d = 0
        while committed and t.legions[q]:   # §12.3: to the end
            la, ld = compare(self._roll(min(MAX_DICE, committed)), self._roll(defence_dice(t.legions[q])))
            committed -= la
            t.legions[q] -= ld
            lost_a += la
            lost_d += ld
        sea_attacked.add(q)
        if t.legions[q]:
            return self._step(a, [Event(ev.SEA_ATTACK, a, source=src, target=q, sea=s, defender=defender,
                                        attacker_losses=lost_a, defender_losses=lost_d)])
        t.legions[src] += committed  # the survivors land: they all move in
        taken_by_sea.add(q)
        evs = [Event(ev.SEA_ATTACK, a, source=src, target=q, sea=s, defender=defender, attacker_losses=lost_a,
                     defender_losses=lost_d, conquered=True, amount=committed)]
        evs += self._conquer(a, src, q, committed)
        return self._step(a, evs)

    def _strategic_move(self, a: str) -> SimStep | None:
        t, b, rng = self.t, self.board, self.rng
        if rng.random() < 0.4:
            return None
        owned = self._owned(a)
        moves = []
        for src in owned:
            spare = t.legions[src] - self._keep(src, a)
            if spare <= 0:
                continue
            for dst in sorted(b.land_neighbours[src]):
                if t.owners[dst] == a and self._enemy_near(dst, a):
                    moves.append((src, dst, None, spare))
            for s in sorted(b.coast_of[src]):
                mine = self._tri(a, s)
                if mine and all(mine > n for c, n in t.triremes.get(s, {}).items() if c != a):
                    for dst in sorted(b.shores_of[s]):
                        if dst != src and t.owners[dst] == a and not b.land_adjacent(src, dst):
                            moves.append((src, dst, s, spare))
        if not moves:
            return None
        src, dst, s, spare = rng.choice(moves)
        n = rng.randint(1, spare)
        t.legions[src] -= n
        t.legions[dst] += n
        return self._step(a, [Event(ev.STRATEGIC_MOVE, a, source=src, target=dst, sea=s, amount=n)])


def simulate_game(players: Sequence[str], seed: int = 0, max_turns: int = 300,
                  options: SpqrOptions = SpqrOptions(), target_vp: int | None = None) -> tuple[ObservedState, list[SimStep]]:
    """Play a whole game; return the board after set-up and every committed step."""
    sim = Simulator(players, seed, options, max_turns, target_vp)
    return sim.initial_state, list(sim.steps())


def write_game(path, players: Sequence[str], seed: int = 0, max_turns: int = 300,
               options: SpqrOptions = SpqrOptions(), target_vp: int | None = None) -> int:
    """Write a game as JSON lines (a header, the set-up board, then each step); return the step count."""
    start, steps = simulate_game(players, seed, max_turns, options, target_vp)
    with open(path, "w", encoding="utf-8") as fh:
        header = {"game": {"board": "spqrisiko", "players": list(players), "ruleset": options.name, "seed": seed,
                           "target_vp": target_vp}}
        fh.write(json.dumps(header) + "\n")
        fh.write(json.dumps({"state": start.to_dict()}) + "\n")
        for step in steps:
            fh.write(json.dumps(step.to_line()) + "\n")
    return len(steps)
