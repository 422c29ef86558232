"""A seeded random player of whole games of the Risiko family, by the rules of one ruleset.

Like :mod:`tracker.spqrisiko.simulator` it yields one committed board state per step a camera
would see (reinforcements placed, each attack series, the move, a leader placed, the Ring
moving on) with the true actor, so the tracker's readings can be checked against the truth
and the renderer and benchmarks can be pointed at these games.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Sequence

from tracker import events as ev
from tracker.board import load_board
from tracker.dice import compare
from tracker.errors import GameError
from tracker.events import Event
from tracker.risiko.cards import Card, deck, set_value
from tracker.risiko.combat import compare_with_bonus, dice_free_outcome, die_bonus
from tracker.risiko.game import check_table
from tracker.risiko.rules import ADJACENT, DICE_FREE, TOURNAMENT_CARDS, RisikoRules
from tracker.risiko.scoring import entitlement
from tracker.spqrisiko.simulator import SimStep
from tracker.state import ObservedState

#: default line-ups per ruleset (players, neutral armies)
LINEUPS = {
    "classic": (("red", "blue", "yellow", "green"), ()),
    "tournament-2v2": (("red", "blue", "yellow", "green"), ("purple",)),
    "lotr": (("green", "red", "yellow", "black"), ()),
    "lotr-classic": (("green", "red", "yellow"), ()),
}


@dataclass
class _Board:
    owner: dict[str, str]
    armies: dict[str, int]
    leaders: dict[str, str] = field(default_factory=dict)   # colour -> territory
    ring: int | None = None                                  # index on the path, None when gone

    def held(self, colour: str) -> list[str]:
        return sorted(t for t, c in self.owner.items() if c == colour)


class _Sim:
    def __init__(self, rules: RisikoRules, players: Sequence[str], neutrals: Sequence[str], seed: int):
        self.rules = rules
        self.players, self.neutrals = check_table(rules, players, neutrals)
        self.board = load_board(rules.board)
        self.rng = random.Random(seed)
        self.hands: dict[str, list[Card]] = {c: [] for c in self.players}
        self.deck = deck(rules.cards, self.board.card_symbols)
        self.rng.shuffle(self.deck)
        self.own_turns = {c: 0 for c in self.players}
        self.first_three_round: int | None = None
        self.b = self._setup()

    # -- set-up ------------------------------------------------------------------------------
    def _setup(self) -> _Board:
        rng, provinces = self.rng, list(self.board.provinces)
        rng.shuffle(provinces)
        owner: dict[str, str] = {}
        armies: dict[str, int] = {}
        n = len(self.players)
        if self.rules.teams:
            for t in provinces[:2]:
                owner[t], armies[t] = self.neutrals[0], 2
            provinces = provinces[2:]
        elif self.board.id == "lotr" and n == 2:
            for t in provinces[:14]:
                owner[t], armies[t] = self.neutrals[0], 2
            provinces = provinces[14:]
        for i, t in enumerate(provinces):
            owner[t], armies[t] = self.players[i % n], 1
        b = _Board(owner, armies)
        total = self.rules.initial_armies[n]
        for c in self.players:
            mine = b.held(c)
            for _ in range(total - len(mine)):
                t = rng.choice(mine)
                b.armies[t] += 1
        if self.rules.leaders:
            b.leaders = {c: rng.choice(b.held(c)) for c in self.players}
        if self.rules.fellowship:
            b.ring = 0
        return b

    def state(self) -> ObservedState:
        b = self.b
        st = ObservedState.from_summary(self.board, {t: (b.owner[t], b.armies[t]) for t in b.owner})
        if not (b.leaders or b.ring is not None):
            return st
        ring = self.board.path[b.ring].territory if b.ring is not None and b.ring < len(self.board.path) else None
        return st.with_tokens({t: c for c, t in b.leaders.items()}, ring)

    # -- one turn ----------------------------------------------------------------------------
    def turn(self, actor: str, round_no: int, turn_no: int) -> list[SimStep]:
        rng, b, rules = self.rng, self.b, self.rules
        steps: list[SimStep] = []

        def commit(events: list[Event], **extra) -> SimStep:
            step = SimStep(self.state(), actor, events, round_no, turn_no, **extra)
            steps.append(step)
            return step

        self.own_turns[actor] += 1
        cur = ObservedState.from_summary(self.board, {t: (b.owner[t], b.armies[t]) for t in b.owner})
        budget = entitlement(cur, actor, rules, self.own_turns[actor]).total
        played: tuple = ()
        hand = self.hands[actor]
        if len(hand) >= 3 and (rng.random() < 0.6 or (rules.forced_trade_at and len(hand) >= rules.forced_trade_at)):
            cards = self._a_set(hand)
            if cards is not None:
                step_no = (round_no - self.first_three_round) if (rules.cards == TOURNAMENT_CARDS and
                                                                 self.first_three_round is not None) else None
                budget += set_value(rules.cards, cards, (), len(hand), step_no)
                for c in cards:
                    hand.remove(c)
                played = tuple(c.symbol for c in cards)
        if rules.army_cap:
            budget = max(0, min(budget, rules.army_cap - sum(b.armies[t] for t in b.held(actor))))
        events: list[Event] = []
        mine = b.held(actor)
        if budget and mine:
            front = [t for t in mine if any(b.owner[n] != actor for n in self.board.land_neighbours[t])] or mine
            picks = rng.sample(front, min(len(front), rng.randint(1, 2)))
            for i, t in enumerate(picks):
                amount = budget - (len(picks) - 1) if i == 0 else 1
                b.armies[t] += amount
                events.append(Event(ev.REINFORCEMENT, actor, target=t, amount=amount))
        if events or played:
            commit(events, cards_played=played)
        conquered = False
        for _ in range(rng.randint(0, 4)):
            ev_list = self._attack(actor)
            if ev_list is None:
                break
            conquered = conquered or any(e.conquered for e in ev_list)
            commit(ev_list)
        move = self._move(actor)
        if move:
            commit(move)
        if rules.leaders and actor not in b.leaders and b.held(actor):
            t = rng.choice(b.held(actor))
            b.leaders[actor] = t
            commit([Event(ev.LEADER_PLACED, actor, target=t)])
        if conquered and self.deck:
            hand.append(self.deck.pop())
            if not steps:
                commit([])
            steps[-1].card_drawn = True
            if len(hand) >= 3 and self.first_three_round is None:
                self.first_three_round = round_no
        if rules.fellowship and b.ring is not None:
            stop = self.board.path[b.ring]
            roll = rng.randint(1, 6) if stop.die else None
            if roll is None or roll > 3:
                src = stop.territory
                b.ring = b.ring + 1 if b.ring + 1 < len(self.board.path) else None
                dst = self.board.path[b.ring].territory if b.ring is not None else None
                step = commit([Event(ev.RING_MOVE, actor, source=src, target=dst)])
                if roll is not None:
                    step.entries = [{"kind": "fellowship_roll", "value": roll}]
        if not steps:
            commit([])
        if not any(e.kind == ev.REINFORCEMENT for e in steps[0].events):
            steps[0].turn_hint = actor
        return steps

    def _a_set(self, hand: list[Card]) -> list[Card] | None:
        if self.rules.cards == TOURNAMENT_CARDS:
            return hand[:3]
        for combo in _triples(hand):
            try:
                set_value(self.rules.cards, combo)
                return list(combo)
            except GameError:
                continue
        return None

    def _attack(self, actor: str) -> list[Event] | None:
        rng, b, rules, board = self.rng, self.b, self.rules, self.board
        need = 5 if rules.combat == DICE_FREE else 3
        mate = None
        if rules.teams:
            i = self.players.index(actor)
            mate = self.players[(i + 2) % 4]
        options = [(s, t) for s in b.held(actor) if b.armies[s] >= need for t in sorted(board.land_neighbours[s])
                   if b.owner[t] not in (actor, mate)]
        if not options:
            return None
        s, t = rng.choice(options)
        defender = b.owner[t]
        att_loss = def_loss = 0
        last = 1
        # dice-free: a conquest costs one army, moves 3 in and leaves 1 home (seed 003's worked example: 5)
        while b.armies[s] >= (5 if rules.combat == DICE_FREE else 2) and b.armies[t] > 0:
            a = min(3, b.armies[s] - 1)
            if rules.combat == DICE_FREE:
                d = min(3, b.armies[t])
                if defender not in self.neutrals and d == 3 and rng.random() < 0.5:
                    d = rng.randint(1, 2)
                la, ld = dice_free_outcome(a, d)
            else:
                d = min(rules.defence_dice, b.armies[t], 1 if a == 1 and rules.defence_dice == 2 else 3)
                roll_a = [rng.randint(1, 6) for _ in range(a)]
                roll_d = [rng.randint(1, 6) for _ in range(d)]
                if rules.leaders or rules.strongholds:
                    bonus = die_bonus(b.leaders.get(actor) == s, b.leaders.get(defender) == t,
                                      rules.strongholds and board.has_feature(t, "stronghold"))
                    la, ld = compare_with_bonus(roll_a, roll_d, bonus)
                else:
                    la, ld = compare(roll_a, roll_d)
            b.armies[s] -= la
            b.armies[t] -= ld
            att_loss += la
            def_loss += ld
            last = a
            if rng.random() < 0.15:
                break
        events = []
        conquered = b.armies[t] == 0
        moved = 0
        if conquered:
            low = max(rules.min_move_in, last)
            moved = rng.randint(low, max(low, b.armies[s] - 1))
            b.armies[s] -= moved
            b.owner[t], b.armies[t] = actor, moved
            if b.leaders.get(defender) == t:
                del b.leaders[defender]
                events.append(Event(ev.LEADER_LOST, actor, target=t, defender=defender))
            if b.leaders.get(actor) == s:
                b.leaders[actor] = t
                events.append(Event(ev.LEADER_MOVE, actor, source=s, target=t))
        events.insert(0, Event(ev.LAND_ATTACK, actor, source=s, target=t, defender=defender, attacker_losses=att_loss,
                               defender_losses=def_loss, conquered=conquered, amount=moved))
        if conquered and defender in self.players and not b.held(defender):
            events.append(Event(ev.ELIMINATION, actor, defender=defender))
            if rules.id != "tournament-2v2":
                self.hands[actor] += self.hands[defender]
            self.hands[defender] = []
        return events

    def _move(self, actor: str) -> list[Event]:
        rng, b, board = self.rng, self.b, self.board
        mine = b.held(actor)
        sources = [s for s in mine if b.armies[s] >= 3]
        if not sources or rng.random() < 0.3:
            return []
        s = rng.choice(sources)
        if self.rules.move_reach == ADJACENT:
            dests = [t for t in sorted(board.land_neighbours[s]) if b.owner[t] == actor]
        else:
            dests = [t for t in mine if t != s and board.connected(s, t, mine)]
        if not dests:
            return []
        picks = rng.sample(dests, 1 if self.rules.move_reach == ADJACENT else min(len(dests), rng.randint(1, 2)))
        amount = rng.randint(1, b.armies[s] - 1)
        events = []
        for i, t in enumerate(picks):
            n = amount if len(picks) == 1 else max(1, amount // 2) if i == 0 else amount - max(1, amount // 2)
            if n <= 0:
                continue
            b.armies[s] -= n
            b.armies[t] += n
            events.append(Event(ev.STRATEGIC_MOVE, actor, source=s, target=t, amount=n))
        if self.rules.leaders and b.leaders.get(actor) == s and events and rng.random() < 0.5:
            b.leaders[actor] = events[0].target
            events.append(Event(ev.LEADER_MOVE, actor, source=s, target=events[0].target))
        return events


def _triples(hand: list[Card]):
    n = len(hand)
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                yield (hand[i], hand[j], hand[k])


def simulate_game(rules: RisikoRules, players: Sequence[str] | None = None, seed: int = 0, max_turns: int = 60,
                  neutrals: Sequence[str] | None = None) -> tuple[ObservedState, list[SimStep], dict]:
    """A whole seeded game: the board after set-up, the steps, and the header of its game file."""
    default_players, default_neutrals = LINEUPS[rules.id]
    players = tuple(players or default_players)
    neutrals = tuple(default_neutrals if neutrals is None else neutrals)
    sim = _Sim(rules, players, neutrals, seed)
    start = sim.state()
    steps: list[SimStep] = []
    active = list(sim.players)
    turn_no = 0
    round_no = 1
    i = 0
    while turn_no < max_turns:
        actor = sim.players[i % len(sim.players)]
        i += 1
        if i > 1 and sim.players.index(actor) == 0:
            round_no += 1
        if not sim.b.held(actor):
            continue
        turn_no += 1
        steps += sim.turn(actor, round_no, turn_no)
        active = [c for c in sim.players if sim.b.held(c)]
        if len(active) == 1 or (rules.fellowship and sim.b.ring is None):
            break
    header = {"game": {"board": rules.board, "players": list(sim.players), "neutrals": list(sim.neutrals),
                       "ruleset": rules.id, "seed": seed}}
    return start, steps, header


def write_game(path, rules: RisikoRules, players: Sequence[str] | None = None, seed: int = 0, max_turns: int = 60,
               neutrals: Sequence[str] | None = None) -> int:
    """Write a simulated game as a game file; return the number of steps."""
    start, steps, header = simulate_game(rules, players, seed, max_turns, neutrals)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(header) + "\n")
        fh.write(json.dumps({"state": start.to_dict()}) + "\n")
        for step in steps:
            fh.write(json.dumps(step.to_line()) + "\n")
    return len(steps)

