"""Event inference and legality for one transition between two observed territory-game states.

The same accounting as :mod:`tracker.spqrisiko.explain`, without seas: a territory that passes
to the player in turn was conquered from a neighbour; what is left of the player's gains and
losses per territory is reinforcement, attacker losses and the one move of the turn. Choices
(which neighbour attacked, whether a gain was the move or a reinforcement) are built as
separate readings and ranked by cost, so a doubtful count is read the way the rules make
likeliest. The ruleset (:class:`~tracker.risiko.rules.RisikoRules`) decides which checks apply:
dice-free losses and team restrictions in the tournament, leaders and the Fellowship on the
Middle-earth board.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tracker import events as ev
from tracker.board import Board
from tracker.events import Event, Phase
from tracker.risiko.cards import MAX_SET
from tracker.risiko.combat import dice_free_losses, dice_free_min_loss
from tracker.risiko.rules import ADJACENT, ANY_TIME, DICE_FREE, RisikoRules
from tracker.readings import (PhaseDoubts, PlacedInDoubt, ProvinceDiff, Reading, beside_doubt_note, chain_depth,
                              doubted_beside, doubted_move, every_reading, make_reading, misread_loss_note,
                              soften_for_the_camera, soften_phase_doubted)
from tracker.state import ObservedState
from tracker.verdicts import Verdict

#: Where each ruleset's rules are written, per topic, for the ``rule`` of a verdict.
CITATIONS = {
    "classic": {"turn": "classic: turn", "reinforcement": "classic: rinforzi", "attack": "classic: attacco",
                "move": "classic: spostamento", "cards": "classic: carte", "setup": "classic: preparazione"},
    "tournament-2v2": {"turn": "2v2: regole base", "reinforcement": "2v2: RINFORZI", "attack": "2v2: ATTACCHI",
                       "move": "2v2: SPOSTAMENTO", "cards": "2v2: RINFORZI (tris)", "cap": "2v2: PENALITA'",
                       "team": "2v2: ATTACCHI (compagni)", "neutral": "2v2: REGOLE BASE (neutri)",
                       "setup": "2v2: REGOLE BASE", "clock": "2v2: VARIE"},
    "lotr": {"turn": "LotR: IL TURNO", "reinforcement": "LotR: RINFORZI", "attack": "LotR: COMBATTIMENTO",
             "move": "LotR: REDISPOSIZIONE", "cards": "LotR: CARTE TERRITORIO", "leader": "LotR: I LEADER",
             "fellowship": "LotR: MOVIMENTO DELLA COMPAGNIA", "neutral": "LotR: PARTITA A 2 GIOCATORI",
             "setup": "LotR: DISPOSIZIONE INIZIALE", "adventure": "LotR: CARTE AVVENTURA"},
    "lotr-classic": {"turn": "LotR classic: SEQUENZA DI GIOCO", "reinforcement": "LotR: RINFORZI",
                     "attack": "LotR: COMBATTIMENTO", "move": "LotR classic: 10", "cards": "LotR: CARTE TERRITORIO",
                     "neutral": "LotR: PARTITA A 2 GIOCATORI", "setup": "LotR classic: 3-6"},
}


def cite(rules: RisikoRules, topic: str) -> str:
    return CITATIONS.get(rules.id, {}).get(topic, f"{rules.id}: {topic}")


@dataclass
class RisikoTurn(PhaseDoubts, PlacedInDoubt):
    """What has happened so far in the current player's turn; owned by the game."""

    actor: str
    round_no: int = 1
    turn_no: int = 1
    own_turn_no: int = 1
    phase: Phase = Phase.SCORING
    entitlement: int = 0
    placed: int = 0
    card_armies: int = 0
    hand_count: int = 0
    moves: int = 0
    attacked: bool = False
    conquered: bool = False
    card_drawn: bool = False
    #: tournament: territories taken from the team-mate this turn (they keep 3 for the turn)
    team_conquests: set[str] = field(default_factory=set)
    #: LotR: the actor's leader entered a site of power this turn
    site_visited: bool = False
    second_leader_allowed: bool = False
    ring_moved: bool = False
    #: LotR: the die rolled for the Fellowship at a die stop, when entered
    ring_roll: int | None = None
    #: tournament extra time: the player in turn plays one of the team's chances
    chance_used: bool = False

    @property
    def due(self) -> int:
        """The armies the turn places: its reinforcements and the card sets entered."""
        return self.entitlement + self.card_armies

    def absorb(self, events: list[Event], board: Board, prev: ObservedState | None = None,
               nxt: ObservedState | None = None) -> None:
        """Advance the context by the events of an accepted reading of the change ``prev -> nxt``
        (given, the moves resting only on counts the camera doubted are told apart)."""
        for e in events:
            if e.actor != self.actor:
                continue
            if e.phase is not None and e.kind not in ev.PHASELESS:
                self.reach(e.phase, doubted_move(e, prev, nxt))
            if e.kind == ev.REINFORCEMENT:
                self.placed += e.amount
                self.note_placed(e.target, nxt)
            elif e.kind == ev.LAND_ATTACK:
                self.attacked = True
                self.conquered = self.conquered or e.conquered
            elif e.kind in (ev.LEADER_MOVE, ev.LEADER_PLACED):
                if e.target and board.has_feature(e.target, "site_of_power"):
                    self.site_visited = True
            elif e.kind == ev.RING_MOVE:
                self.ring_moved = True
        # one move may have several legs (a LotR redisposition): it counts once, by its source
        self.moves += len({e.source for e in events if e.actor == self.actor and e.kind == ev.STRATEGIC_MOVE})


@dataclass(frozen=True)
class Table:
    """Who plays and with whom: the players in turn order, the neutral armies, the teams."""

    players: tuple[str, ...]
    neutrals: tuple[str, ...] = ()
    teams: tuple[tuple[str, ...], ...] = ()
    #: tournament: players who gave up their continent bonus for good (team attacks allowed again)
    renounced: frozenset[str] = frozenset()

    def mate_of(self, colour: str) -> str | None:
        for team in self.teams:
            if colour in team:
                return next((c for c in team if c != colour), None)
        return None


def explain(prev: ObservedState, nxt: ObservedState, ctx: RisikoTurn, table: Table,
            rules: RisikoRules) -> list[Reading]:
    """All readings of ``prev -> nxt`` with ``ctx.actor`` in turn, best first."""
    def build(diff, sources, with_move, misread, misreads) -> Reading:
        builder = _Builder(diff, ctx, table, rules, sources, with_move, misread)
        for regions, topic, note in misreads:
            builder.warning(topic, note, *regions)
        return builder.build()
    return every_reading(_Diff, prev, nxt, ctx.actor, build)


class _Diff(ProvinceDiff):
    """The raw differences between two states (:class:`~tracker.readings.ProvinceDiff`), with the
    attack sources of the territory games."""

    def source_candidates(self, target: str) -> list[str]:
        """Territories of the actor that border ``target``, most plausible first."""
        land = [s for s in self.board.land_neighbours[target] if s != target and self.actor_held(s)]
        land.sort(key=lambda s: (s in self.conquests, self.residual.get(s, 0), -self.prev.legions.get(s, 0), s))
        return land


class _Builder:
    """Builds one :class:`Reading` for a fixed choice of attack sources and of the move."""

    def __init__(self, diff: _Diff, ctx: RisikoTurn, table: Table, rules: RisikoRules,
                 sources: dict[str, str | None], with_move: bool, misread: frozenset[str] = frozenset()):
        self.d, self.ctx, self.table, self.rules = diff, ctx, table, rules
        #: enemy territories whose doubtful loss this reading takes for the camera's misread
        self.misread = misread
        self.sources, self.with_move = sources, with_move
        self.board = diff.board
        self.actor = ctx.actor
        self.events: list[Event] = []
        self.verdicts: list[Verdict] = []
        self.res = dict(diff.residual)
        self.unexplained = 0
        #: the verdicts (by index) that :meth:`breach` found resting on counts read in doubt earlier
        self.phase_doubted: dict[int, dict[str, float]] = {}
        self.move_legs: list[tuple[str, str, int]] = []
        self.team_conquered: set[str] = set()

    def violation(self, topic: str, message: str, *regions: str) -> None:
        self.verdicts.append(Verdict.violation(cite(self.rules, topic), message, tuple(regions)))

    def warning(self, topic: str, message: str, *regions: str) -> None:
        self.verdicts.append(Verdict.warning(cite(self.rules, topic), message, tuple(regions)))

    def breach(self, message: str, phase: Phase, *regions: str) -> None:
        """A breach of the order of the turn's phases by an act of ``phase``: a violation, which
        :meth:`build` makes a warning where only counts read in doubt ended that phase
        (:func:`~tracker.readings.soften_phase_doubted`)."""
        doubts = self.ctx.late_on_doubt(phase)
        if doubts:
            self.phase_doubted[len(self.verdicts)] = doubts
        self.violation("turn", message, *regions)

    def name(self, region: str) -> str:
        return self.board.name(region)

    def units(self, n: int) -> str:
        return f"{n} {self.board.pieces.unit_word(n)}"

    # -- the steps -------------------------------------------------------------------------
    def build(self) -> Reading:
        self.ownership_anomalies()
        self.attacks()
        self.leftovers()
        self.team_garrisons()
        self.leaders()
        self.fellowship()
        self.phase_order()
        self.events.extend(Event(ev.VEXILLUM_EXCHANGE, self.d.next.owners[p], target=p) for p in self.d.exchanges)
        return make_reading(self.events, soften_phase_doubted(
            soften_for_the_camera(self.verdicts, self.d.prev, self.d.next), self.phase_doubted, self.board),
                            self.unexplained)

    def ownership_anomalies(self) -> None:
        d = self.d
        for p in d.emptied:
            self.warning("attack", f"{self.name(p)} looks empty, but a territory always keeps an army "
                                   "(a hand or a miscount?)", p)
        for p in d.refilled:
            self.warning("attack", f"{self.name(p)} is occupied again after looking empty", p)
        self.unexplained += len(d.handovers) + len(d.foreign_growth)
        for p, (old, new) in d.handovers.items():
            if new in self.table.neutrals:
                self.violation("neutral", f"neutral {new} took {self.name(p)} from {old}: neutral armies never attack", p)
            else:
                self.violation("turn", f"{self.name(p)} passed from {old} to {new} during {self.actor}'s turn", p)
        for p, n in d.foreign_growth.items():
            owner = d.prev.owners[p]
            self.violation("turn", f"{self.units(n)} of {owner} appeared in {self.name(p)} outside {owner}'s turn", p)

    def attacks(self) -> None:
        d, P, a, rules = self.d, self.d.prev, self.actor, self.rules
        order = sorted(d.conquests, key=lambda t: self._chain_depth(t), reverse=True)
        moved_in: dict[str, int] = {}
        for t in order:
            src = self.sources.get(t)
            m = self.res[t]
            moved_in[t] = m
            self.res[t] = 0
            if src is not None:
                self.res[src] += m
        losses_left = {s: -r for s, r in self.res.items() if r < 0}
        per_source: dict[str, list[tuple[str, int, int]]] = {}
        for t in d.targets:
            defender = d.conquests.get(t) or P.owners.get(t)
            conquered = t in d.conquests
            def_losses = P.legions[t] if conquered else d.damaged[t]
            src = self.sources.get(t)
            if t in self.misread:
                self.warning("attack", misread_loss_note(t, f"{self.units(def_losses)} of {defender}", P, d.next), t)
                continue
            if src is None:
                self.violation("attack", f"{self.name(t)} lost {self.units(def_losses)} but no territory of "
                                         f"{a} borders it", t)
                self.events.append(Event(ev.LAND_ATTACK, a, target=t, defender=defender, defender_losses=def_losses,
                                         conquered=conquered, amount=moved_in.get(t, 0)))
                continue
            att_losses = losses_left.pop(src, 0)
            self.events.append(Event(ev.LAND_ATTACK, a, source=src, target=t, defender=defender,
                                     attacker_losses=att_losses, defender_losses=def_losses,
                                     conquered=conquered, amount=moved_in.get(t, 0)))
            start = self._start_strength(src, moved_in)
            per_source.setdefault(src, []).append((t, att_losses, def_losses))
            if start < 2:
                self.violation("attack", f"{self.name(src)} attacked with {self.units(start)}: an attack needs two, "
                                         "one always stays behind", src, t)
            if conquered and moved_in.get(t, 0) < rules.min_move_in:
                self.violation("attack", f"{self.units(moved_in.get(t, 0))} moved into {self.name(t)}; a conquest "
                                         f"needs at least {rules.min_move_in}", src, t)
            self._team_attack(src, t, defender, conquered)
        if rules.combat == DICE_FREE:
            self._dice_free_losses(per_source, moved_in)
        for c in d.eliminated:
            self.events.append(Event(ev.ELIMINATION, a, defender=c))

    def _team_attack(self, src: str, t: str, defender: str, conquered: bool) -> None:
        """Tournament: team-mates attack each other only where a single army stands, never while either
        holds a continent whose bonus they keep; a territory taken from the mate keeps 3 for the turn."""
        if not self.rules.teams or self.table.mate_of(self.actor) != defender:
            return
        P = self.d.prev
        if P.legions[t] > 1:
            self.violation("team", f"{self.actor} attacked team-mate {defender} in {self.name(t)}, defended by "
                                   f"{self.units(P.legions[t])}: only a single army may be attacked", src, t)
        for c in (self.actor, defender):
            if c in self.table.renounced:
                continue
            held = [g.name for g in self.board.groups_held(P.provinces_of(c))]
            if held:
                self.violation("team", f"team-mates may not attack each other while {c} holds {', '.join(held)} "
                                       "and keeps its bonus", src, t)
                break
        if conquered:
            self.team_conquered.add(t)

    def _dice_free_losses(self, per_source: dict[str, list[tuple[str, int, int]]], moved_in: dict[str, int]) -> None:
        """Tournament: the losses of each source's attacks must add up by the dice-free table."""
        P = self.d.prev
        for src, attacks in per_source.items():
            start = self._start_strength(src, moved_in)
            total = sum(al for _, al, _ in attacks)
            need = 0
            for t, _, dl in attacks:
                neutral = self.rules.neutral_defends_with_max and P.owners.get(t) in self.table.neutrals
                least = dice_free_min_loss(max(start, 2), P.legions[t], dl, neutral)
                if least is None:
                    self.violation("attack", f"{self.name(t)} cannot lose {self.units(dl)} to attacks from "
                                             f"{self.name(src)} ({self.units(start)}) by the dice-free table", src, t)
                    return
                need += least
            if len(attacks) == 1:
                t, al, dl = attacks[0]
                neutral = self.rules.neutral_defends_with_max and P.owners.get(t) in self.table.neutrals
                ok = (al, dl) in dice_free_losses(max(start, 2), P.legions[t], neutral)
            else:
                ok = total >= need
            if not ok:
                self.violation("attack", f"{self.name(src)} lost {self.units(total)} while inflicting "
                                         f"{', '.join(f'{dl} on {self.name(t)}' for t, _, dl in attacks)}: the "
                                         f"dice-free table costs at least {need}", src, *[t for t, _, _ in attacks])

    def _chain_depth(self, t: str) -> int:
        return chain_depth(t, self.sources.get, self.d.conquests)

    def _start_strength(self, src: str, moved_in: dict[str, int]) -> int:
        """Armies in the source when its attacks began: before, plus what was placed or moved in."""
        if src in self.d.conquests:
            return moved_in.get(src, 0) + sum(m for t, m in moved_in.items() if self.sources.get(t) == src)
        return self.d.prev.legions[src] + max(0, self.res.get(src, 0))

    def leftovers(self) -> None:
        """Split what is left of the actor's gains and losses into reinforcement, losses and the move."""
        d, P, a = self.d, self.d.prev, self.actor
        sources = {s for s in self.sources.values() if s}
        if self.with_move:
            self._move(sources)
        for p, r in sorted(self.res.items()):
            if r >= 0 or p in sources or p in d.conquests:
                continue
            foes = sorted((q for q in self.board.land_neighbours[p]
                           if P.owners.get(q) not in (None, a) and d.next.owners.get(q) == P.owners.get(q)),
                          key=lambda q: (P.legions[q], q))
            if foes:
                q = foes[0]
                self.events.append(Event(ev.LAND_ATTACK, a, source=p, target=q, defender=P.owners[q],
                                         attacker_losses=-r, target_guessed=len(foes) > 1))
                if P.legions[p] < 2:
                    self.violation("attack", f"{self.name(p)} attacked with {self.units(P.legions[p])}: an attack "
                                             "needs two", p, q)
            else:
                message = f"{self.units(-r)} of {a} vanished from {self.name(p)} with no combat"
                if beside := doubted_beside(p, a, P, d.next):
                    self.warning("attack", message + beside_doubt_note(beside, d.next), p, *beside)
                else:
                    self.violation("attack", message, p)
        gains = {p: r for p, r in self.res.items() if r > 0}
        if not gains:
            return
        total = sum(gains.values())
        for p, r in sorted(gains.items()):
            self.events.append(Event(ev.REINFORCEMENT, a, target=p, amount=r))
        budget = self.ctx.entitlement + self.ctx.card_armies - self.ctx.placed
        if total > budget:
            tolerance = 0 if self.ctx.card_armies else (self.ctx.hand_count // 3) * MAX_SET
            regions = tuple(sorted(gains))
            if total <= budget + tolerance:
                self.warning("cards", f"{a} placed {self.units(total)}, {budget} without cards: enter the card set "
                                      "played", *regions)
            else:
                self.violation("reinforcement", f"{a} placed {self.units(total)} but is entitled to "
                                                f"{max(0, budget)} this turn", *regions)

    def _move(self, sources: set[str]) -> None:
        d, N, b = self.d, self.d.next, self.board
        negs = sorted((p for p, r in self.res.items() if r < 0 and p not in sources and p not in d.conquests),
                      key=lambda p: (self.res[p], p))
        if not negs:
            return
        src = negs[0]
        want = -self.res[src]
        own = N.provinces_of(self.actor)
        gains = sorted((g for g, r in self.res.items() if r > 0 and g != src), key=lambda g: (-self.res[g], g))
        if self.rules.move_reach == ADJACENT:
            options = [g for g in gains if b.land_adjacent(src, g)]
            options.sort(key=lambda g: (abs(self.res[g] - want), g))
            dests = options[:1]
            illegal = [] if dests else gains[:1]
        else:
            dests = [g for g in gains if b.connected(src, g, own)]
            illegal = [] if dests else gains[:1]
        if illegal:
            g = illegal[0]
            where = ("a bordering territory" if self.rules.move_reach == ADJACENT
                     else "a territory reached through the player's own territories")
            self.violation("move", f"the move from {self.name(src)} to {self.name(g)} must go to {where}", src, g)
            dests = illegal
        if not dests:
            return
        for g in dests:
            if want <= 0:
                break
            amount = min(want, self.res[g])
            want -= amount
            self.res[src] += amount
            self.res[g] -= amount
            self.move_legs.append((src, g, amount))
            # the further legs of one redisposition are marked so they do not count as more moves
            self.events.append(Event(ev.STRATEGIC_MOVE, self.actor, source=src, target=g, amount=amount))
        if self.ctx.moves >= 1:
            self.violation("move", "a second move in the same turn: one move per turn", src, *[g for _, g, _ in
                                                                                             self.move_legs])
        if src in self.ctx.team_conquests | self.team_conquered:
            self.violation("team", f"{self.name(src)} was taken from the team-mate this turn: no move may reduce "
                                   "its garrison", src)

    def team_garrisons(self) -> None:
        if not self.rules.teams:
            return
        N = self.d.next
        for t in sorted(self.ctx.team_conquests | self.team_conquered):
            if N.owners.get(t) == self.actor and N.legions[t] < 3:
                self.violation("team", f"{self.name(t)}, taken from the team-mate this turn, must keep 3 armies for "
                                       f"the rest of the turn (it has {N.legions[t]})", t)

    def leaders(self) -> None:
        """LotR: leaders stand with their army, move with battalions (by conquest or in the
        redisposition), fall with their territory, and come back at the end of a turn."""
        if not self.rules.leaders:
            return
        P, N, a, b = self.d.prev, self.d.next, self.actor, self.board
        for colour in sorted(set(P.leaders) | set(N.leaders)):
            before, after = list(P.leaders.get(colour, [])), list(N.leaders.get(colour, []))
            for p in sorted(set(after)):
                if after.count(p) > 1:
                    self.violation("leader", f"two {colour} leaders stand in {self.name(p)}", p)
                if N.owners.get(p) != colour:
                    self.violation("leader", f"the {colour} leader stands in {self.name(p)}, which {colour} does not "
                                             "hold", p)
            stay = [p for p in before if p in after]
            for p in stay:
                before.remove(p)
                after.remove(p)
            if colour != a:
                for p in before:
                    if p in self.d.conquests:
                        self.events.append(Event(ev.LEADER_LOST, a, target=p, defender=colour))
                    else:
                        self.violation("leader", f"the {colour} leader left {self.name(p)} outside {colour}'s turn", p)
                for p in after:
                    self.violation("leader", f"a {colour} leader appeared in {self.name(p)} outside {colour}'s turn", p)
                continue
            legs = {(s, t) for s, t, _ in self.move_legs}
            conquest_from = {t: s for t, s in self.sources.items() if s and t in self.d.conquests}
            for p in list(before):
                dest = next((t for t in after if (p, t) in legs or self._conquest_chain(p, t, conquest_from)), None)
                if dest is None and after and self.move_legs and self.move_legs[0][0] == p:
                    dest = next((t for t in after if b.connected(p, t, N.provinces_of(a))), None)
                if dest is not None:
                    before.remove(p)
                    after.remove(dest)
                    self.events.append(Event(ev.LEADER_MOVE, a, source=p, target=dest))
            for p in before:
                if after:
                    dest = after.pop(0)
                    self.violation("leader", f"the {a} leader went from {self.name(p)} to {self.name(dest)} without "
                                             "battalions: leaders move by conquest or in the redisposition", p, dest)
                    self.events.append(Event(ev.LEADER_MOVE, a, source=p, target=dest))
                else:
                    self.violation("leader", f"the {a} leader vanished from {self.name(p)}", p)
            in_play = len(P.leaders.get(a, [])) - len(before)
            for p in after:
                self.events.append(Event(ev.LEADER_PLACED, a, target=p))
                if in_play >= 1 and not self.ctx.second_leader_allowed:
                    self.violation("leader", f"a second {a} leader appeared in {self.name(p)}: it needs the "
                                             "'Appoint a second leader' card (enter it at the tablet)", p)
                in_play += 1

    def _conquest_chain(self, start: str, end: str, conquest_from: dict[str, str]) -> bool:
        cur, seen = end, set()
        while cur in conquest_from and cur not in seen:
            seen.add(cur)
            cur = conquest_from[cur]
            if cur == start:
                return True
        return False

    def fellowship(self) -> None:
        """LotR: the Ring moves one stop along the path at the end of a turn and leaves from the last."""
        if not self.rules.fellowship:
            return
        P, N, b = self.d.prev, self.d.next, self.board
        before, after = P.ring, N.ring
        if before == after:
            return
        stops = [s.territory for s in b.path]
        if before is None:
            self.violation("fellowship", f"the Ring appeared in {self.name(after)}", after)
            return
        i = stops.index(before) if before in stops else -1
        nxt = stops[i + 1] if 0 <= i < len(stops) - 1 else None
        if after != nxt or i < 0:
            self.violation("fellowship", f"the Ring went from {self.name(before)} to "
                                         f"{self.name(after) if after else 'off the board'}; the Fellowship moves one "
                                         "stop along its path", before, *([after] if after else []))
        if self.ctx.ring_moved:
            self.violation("fellowship", "the Fellowship moved twice in one turn", before)
        if self.rules.fellowship_moves == "round" and self.table.players and self.actor != self.table.players[-1]:
            self.violation("fellowship", "the Fellowship moves at the end of a round", before)
        self.events.append(Event(ev.RING_MOVE, self.actor, source=before, target=after))

    def phase_order(self) -> None:
        """The phases in order: reinforce, attack, move (any time in the tournament), draw, Fellowship."""
        any_time = self.rules.move_timing == ANY_TIME
        mine = [e for e in self.events if e.actor == self.actor and e.phase is not None and e.kind not in ev.PHASELESS
                and not (any_time and e.kind == ev.STRATEGIC_MOVE)]
        if not mine:
            return
        phase = self.ctx.phase
        if any_time and phase == Phase.STRATEGIC_MOVE:
            phase = Phase.LAND_ATTACK if self.ctx.attacked else Phase.REINFORCEMENT
        if phase >= Phase.FELLOWSHIP:
            self.violation("turn", f"{self.actor} acted after the Fellowship moved, which ends the turn",
                           *sorted({r for e in mine for r in (e.source, e.target) if r}))
            return
        for e in mine:
            if e.phase < phase:
                what = ("armies placed after the reinforcement phase" if e.phase == Phase.REINFORCEMENT
                        else f"{e.kind.replace('_', ' ')} after the {Phase(phase).name.lower().replace('_', ' ')}")
                regions = [r for r in (e.source, e.target) if r]
                if phase == self.ctx.phase:
                    self.breach(f"{what}: {e.describe(self.board)}", e.phase, *regions)
                else:       # moves at any time: the phase judged by is the attacks', not one reached by moves
                    self.violation("turn", f"{what}: {e.describe(self.board)}", *regions)
