"""A game of the Risiko family followed from the table, behind the same interface as the
S.P.Q.RisiKo! :class:`~tracker.game.Game`: ``start``, ``observe``, ``play_cards``, ``draw_card``,
``start_turn``, a history of :class:`~tracker.game.TransitionReport` and a score track.

What the camera cannot see is entered at the tablet: card sets and draws, the tournament's
chances and clock, LotR adventure cards and Fellowship rolls.
"""
from __future__ import annotations

from typing import Sequence

from tracker import events as ev
from tracker.board import load_board
from tracker.dice import DiceRules
from tracker.errors import GameError
from tracker.events import Phase
from tracker.game import KEPT_READINGS, Hand, ScoreEntry, TransitionReport, TurnFollower
from tracker.hindsight import journaled
from tracker.pieces import LOTR_GOOD
from tracker.risiko.cards import WILD, parse_cards, set_value, symbols_of
from tracker.risiko.clock import TournamentClock
from tracker.risiko.explain import RisikoTurn, Table, cite, explain
from tracker.risiko.rules import DICE_FREE, TOURNAMENT_CARDS, RisikoRules
from tracker.risiko.scoring import Objective, Standing, entitlement, standing
from tracker.readings import Reading
from tracker.state import ObservedState
from tracker.verdicts import Verdict, counted

#: LotR: the Fellowship leaves a die stop only on a roll higher than this (seed 004)
FELLOWSHIP_ROLL_ABOVE = 3
ELIMINATOR_TAKES_CARDS = {"classic": True, "tournament-2v2": False, "lotr": True, "lotr-classic": True}


def reinforcement_after_declaration(entitled: int, declared: int) -> int:
    """Seed 003: a declaration over the entitlement costs the excess (15 declared for 13 due -> 11),
    but the penalty never takes more than the turn's entitlement."""
    if declared <= entitled:
        return entitled
    return max(0, entitled - (declared - entitled))


def check_table(rules: RisikoRules, players: Sequence[str], neutrals: Sequence[str] = ()) -> tuple[tuple[str, ...],
                                                                                                    tuple[str, ...]]:
    """Validate the colours at the table; return (players, neutral armies)."""
    colours = load_board(rules.board).pieces.colours
    players, neutrals = tuple(players), tuple(neutrals)
    bad = [c for c in players + neutrals if c not in colours]
    if bad:
        raise GameError(f"unknown colour '{bad[0]}' for {rules.title} (expected {', '.join(colours)})")
    if len(set(players + neutrals)) != len(players + neutrals):
        raise GameError("a colour is listed twice among the players and neutral armies")
    if not rules.min_players <= len(players) <= rules.max_players:
        raise GameError(f"{rules.title} is for {rules.min_players} to {rules.max_players} players, got {len(players)}")
    if rules.fellowship and len(players) == 2:
        sides = {c in LOTR_GOOD for c in players}
        if sides != {True, False}:
            raise GameError("a 2-player LotR game sets a good army (green, yellow) against an evil one (red, black)")
    if rules.board == "lotr" and len(players) == 2 and len(neutrals) != 1:
        raise GameError("a 2-player LotR game needs a third, neutral army: give --neutrals with one colour")
    if rules.teams and not neutrals:
        raise GameError("the 2-vs-2 tournament puts two neutral territories on the board: give their colour "
                        "with --neutrals")
    return players, neutrals


class RisikoGame(TurnFollower):
    """The tracker's model of one game of classic Risiko, the 2-vs-2 tournament or LotR."""

    def __init__(self, players: Sequence[str], rules: RisikoRules, neutrals: Sequence[str] = (),
                 objectives: dict[str, Objective] | None = None, target_vp: int | None = None):
        self.rules = rules
        self.players, self.neutrals = check_table(rules, players, neutrals)
        self.board = load_board(rules.board)
        # seed 003: "Il compagno di squadra ... si siederà in una posizione a lui opposta"
        teams = ((self.players[0], self.players[2]), (self.players[1], self.players[3])) if rules.teams else ()
        self.table = Table(self.players, self.neutrals, teams)
        self.objectives = dict(objectives or {})
        for colour, objective in self.objectives.items():
            if colour not in self.players:
                raise GameError(f"an objective is given for '{colour}', who is not playing")
            objective.check(self.board)
        self.target_vp = target_vp
        self.hands = {c: Hand() for c in self.players}
        self.card_points = {c: 0 for c in self.players}
        self.own_turns = {c: 0 for c in self.players}
        self.caps = {c: rules.army_cap for c in self.players} if rules.army_cap else {}
        self.clock = TournamentClock() if rules.teams else None
        self.first_three_cards_round: int | None = None
        self.eliminated: set[str] = set()
        self.state: ObservedState | None = None
        self.ctx: RisikoTurn | None = None
        self.turn_no = 0
        self.round_no = 0
        self.history: list[TransitionReport] = []
        #: regions never shown to the tracker since it began following (TurnFollower._take_first_sight)
        self.unknown: set[str] = set()
        #: counts a rule questioned, marked for a check while the camera reads them so (TurnFollower.question)
        self.questioned: dict[str, dict] = {}
        #: counts the camera doubted that the rules account for (TurnFollower.vouch; none here)
        self.vouched: dict[str, tuple[dict, float]] = {}
        self.score_track: list[ScoreEntry] = []
        self.winner: str | None = None
        self.finished = False

    # -- queries ---------------------------------------------------------------------------
    def score(self, colour: str, state: ObservedState | None = None) -> Standing:
        state = state or self.state
        return standing(state, colour, self.rules, self.objectives.get(colour), self.card_points.get(colour, 0),
                        self.own_turns.get(colour, 0) + 1)

    @property
    def vp(self) -> dict[str, int]:
        """Points now: tournament and LotR points, or territories held in the classic game."""
        if self.state is None:
            return {c: 0 for c in self.players}
        out = {}
        for c in self.players:
            s = self.score(c)
            out[c] = s.points if self.rules.scoring != "standing" else s.territories
        return out

    def entitlement(self, colour: str) -> int:
        return entitlement(self.state, colour, self.rules, self.own_turns[colour] + 1).total

    def explain(self, prev: ObservedState, nxt: ObservedState) -> list[Reading]:
        """Readings of a change with the current turn context, without recording anything."""
        return self._read(prev, nxt, self.ctx)

    def _read(self, prev: ObservedState, state: ObservedState, ctx: RisikoTurn) -> list[Reading]:
        return explain(prev, state, ctx, self.table, self.rules)

    # -- starting ----------------------------------------------------------------------------
    def validate_setup(self, state: ObservedState) -> list[Verdict]:
        """The board after set-up: every territory held, the neutral territories, each army's size."""
        rules, out = self.rules, []
        topic = cite(rules, "setup")
        empty = [p for p in self.board.provinces if p not in state.owners]
        if empty:
            out.append(Verdict.violation(topic, f"{len(empty)} territories are empty after the set-up", tuple(empty)))
        strangers = sorted({c for c in state.owners.values() if c not in self.players + self.neutrals})
        if strangers:
            out.append(Verdict.violation(topic, f"armies of {', '.join(strangers)} are on the board but not in the game"))
        n = len(self.players)
        armies = rules.initial_armies.get(n)
        for c in self.players:
            if armies is not None and state.total_legions(c) != armies:
                out.append(Verdict.violation(topic, f"{c} has {state.total_legions(c)} armies on the board; each player "
                                                    f"sets up {armies}", tuple(state.provinces_of(c))))
        neutral_held = [p for p, c in state.owners.items() if c in self.neutrals]
        if rules.teams:
            if len(neutral_held) != 2:
                out.append(Verdict.violation(topic, f"the draft leaves exactly 2 neutral territories, the board has "
                                                    f"{len(neutral_held)}", tuple(neutral_held)))
            for c in self.players:
                if len(state.provinces_of(c)) != 10:
                    out.append(Verdict.violation(topic, f"the draft gives each player 10 territories, {c} has "
                                                        f"{len(state.provinces_of(c))}"))
            if rules.neutral_garrison is not None:
                bad = [p for p in neutral_held if state.legions[p] != rules.neutral_garrison]
                if bad:
                    out.append(Verdict.violation(topic, f"neutral territories hold {rules.neutral_garrison} armies",
                                                 tuple(bad)))
        elif rules.id == "classic":
            lo, hi = len(self.board.provinces) // n, -(-len(self.board.provinces) // n)
            for c in self.players:
                if not lo <= len(state.provinces_of(c)) <= hi:
                    out.append(Verdict.violation(topic, f"the territory cards deal {lo} or {hi} territories to each "
                                                        f"player, {c} has {len(state.provinces_of(c))}"))
        if self.board.id == "lotr" and n == 2:
            bad = [p for p in neutral_held if state.legions[p] != 2]
            if len(neutral_held) != 14 or bad:
                out.append(Verdict.violation(topic, "the neutral army holds 14 territories with 2 battalions each",
                                             tuple(bad or neutral_held)))
        if rules.leaders:
            for c in self.players:
                where = state.leaders.get(c, [])
                if len(where) != 1 or state.owners.get(where[0]) != c:
                    out.append(Verdict.violation(topic, f"each player places one leader in a territory of their own; "
                                                        f"{c} has {len(where)}", tuple(where)))
        if rules.fellowship and self.board.path and state.ring != self.board.path[0].territory:
            out.append(Verdict.violation(topic, f"the Ring starts in {self.board.name(self.board.path[0].territory)}"))
        return out

    def start(self, state: ObservedState, first_player: str | None = None, round_no: int = 1) -> list[Verdict]:
        """Begin following the game on the board after set-up; returns the set-up verdicts."""
        self._check_board(state)
        self._remember_start(first_player, round_no)
        first = first_player or self.players[0]
        if first not in self.players:
            raise GameError(f"first player '{first}' is not among the players")
        verdicts = self.validate_setup(state) if round_no == 1 else []
        self._follow_from(state)
        self.question(state, verdicts)
        self.round_no = round_no
        self._begin_turn(first, state)
        return verdicts

    def _setup_rule(self) -> str:
        return cite(self.rules, "setup")

    def _next_context(self, colour: str, state: ObservedState, round_no: int, turn_no: int) -> RisikoTurn:
        own = self.own_turns[colour] + 1
        return RisikoTurn(actor=colour, round_no=round_no, turn_no=turn_no, own_turn_no=own, phase=Phase.SCORING,
                          entitlement=entitlement(state, colour, self.rules, own).total,
                          hand_count=self.hands[colour].count)

    def _begin_turn(self, colour: str, state: ObservedState) -> ScoreEntry:
        if self.ctx is not None and self.players.index(colour) <= self.players.index(self.ctx.actor):
            self.round_no += 1
        self.turn_no += 1
        self.ctx = self._next_context(colour, state, self.round_no, self.turn_no)
        self.own_turns[colour] += 1
        claim = self.score(colour, state)
        entry = ScoreEntry(self.turn_no, self.round_no, colour, claim, claim.points)
        self.score_track.append(entry)
        return entry

    def _entitlement_on(self, colour: str, state: ObservedState) -> int:
        """``colour``'s entitlement for the turn it is in (begun: its own turns counted)."""
        return entitlement(state, colour, self.rules, self.own_turns[colour]).total

    def _draw_rules(self) -> tuple[str, str, str]:
        topic = cite(self.rules, "cards")
        return topic, topic, "territory"

    def _restart_turn(self, state: ObservedState) -> ScoreEntry:
        entry = self.score_track.pop()
        claim = self.score(entry.colour, state)
        again = ScoreEntry(entry.turn_no, entry.round_no, entry.colour, claim, claim.points)
        self.score_track.append(again)
        self.ctx.entitlement = self._entitlement_on(entry.colour, state)
        return again

    # -- the tablet ----------------------------------------------------------------------------
    @property
    def card_symbols(self) -> tuple[str, ...]:
        """The card symbols a set is played with at the tablet, the jolly among them."""
        return symbols_of(self.rules.cards) + (WILD,)

    @property
    def dice(self) -> DiceRules | None:
        """The dice its battles roll, for dice entered to settle a dispute: the defender's at
        most two in LotR; none in the dice-free tournament. No rule there forbids attacking with
        fewer dice than the defender, and no board of theirs has battles at sea."""
        if self.rules.combat == DICE_FREE:
            return None
        rule = cite(self.rules, "attack")
        return DiceRules(self.rules.attack_dice, self.rules.defence_dice, rule, fewer_rule=None, naval_rule=None)

    @property
    def tablet_entries(self) -> tuple[str, ...]:
        """The entries of this ruleset the tablet takes beyond cards and dice
        (:func:`tracker.rulesets.apply_entry`): LotR's adventure cards and the Fellowship's die,
        the tournament's declared reinforcements, renounced bonuses and extra time."""
        out = []
        if self.rules.leaders:
            out.append("adventure")
        if self.rules.fellowship:
            out.append("fellowship_roll")
        if self.rules.teams:
            out += ["declare", "renounce", "extra_turn"]
        return tuple(out)

    @journaled
    def play_cards(self, colour: str, cards: Sequence) -> list[Verdict]:
        """A card set played by ``colour`` (symbols, or ``{"symbol", "territory"}`` for the +2 bonus)."""
        self._in_a_turn("a card set played")
        parsed = parse_cards(cards)
        topic = cite(self.rules, "cards")
        verdicts: list[Verdict] = []
        if colour != self.current and colour == self.next_player():
            # the next player's set: the current turn is over (even one in which nothing changed on the board)
            self.start_turn(colour)
        hand = self.hands[colour]
        step = None
        if self.rules.cards == TOURNAMENT_CARDS and self.first_three_cards_round is not None:
            step = self.round_no - self.first_three_cards_round
        value = set_value(self.rules.cards, parsed, self.state.provinces_of(colour) if self.state else (),
                          max(hand.count, 3), step)
        if colour != self.current:
            verdicts.append(Verdict.violation(topic, f"{colour} played cards outside their own turn"))
        elif self.ctx.phase > Phase.REINFORCEMENT:
            verdicts.append(Verdict.violation(topic, "card sets are played only in the reinforcement phase"))
        if hand.count < 3:
            verdicts.append(Verdict.warning(topic, f"{colour} played a set but the tablet knew of {counted(hand.count, 'card')}"))
        hand.count = max(0, hand.count - 3)
        for c in parsed:
            if c.symbol in hand.symbols:
                hand.symbols.remove(c.symbol)
        if colour == self.current:
            self.ctx.card_armies += value
            self.ctx.hand_count = hand.count
        return verdicts

    @journaled
    def draw_card(self, colour: str, symbol: str | None = None) -> list[Verdict]:
        """A territory card drawn at the end of ``colour``'s turn (only after a conquest, one per
        turn; the conquest is looked for with the next commit, :meth:`_judge_draws`)."""
        if symbol is not None and symbol not in symbols_of(self.rules.cards) + (WILD,):
            raise GameError(f"unknown card symbol '{symbol}'")
        verdicts = self._note_draw(colour)
        if colour == self.current:
            self.ctx.phase = max(self.ctx.phase, Phase.CARD_DRAW)
        self.hands[colour].count += 1
        if symbol:
            self.hands[colour].symbols.append(symbol)
        if self.hands[colour].count >= 3 and self.first_three_cards_round is None:
            self.first_three_cards_round = self.round_no
        return verdicts

    @journaled
    def adventure(self, colour: str, kind: str, points: int = 0, site: str | None = None) -> list[Verdict]:
        """LotR adventure cards: ``draw`` (a leader reached a site of power this turn), ``mission``
        (completed at ``site`` by a leader standing there), ``power`` or ``event`` played."""
        if not self.rules.leaders:
            raise GameError(f"{self.rules.title} has no adventure cards")
        topic = cite(self.rules, "adventure")
        out: list[Verdict] = []
        if colour != self.current:
            out.append(Verdict.violation(topic, f"{colour} used an adventure card outside their own turn"))
        if kind == "draw":
            if colour == self.current and not self.ctx.site_visited:
                out.append(Verdict.violation(topic, f"{colour} drew an adventure card, but no {colour} leader "
                                                    "reached a site of power this turn"))
        elif kind == "mission":
            if site is None or not self.board.has_feature(site, "site_of_power"):
                raise GameError("a mission names the territory of its site of power")
            if site not in self.state.leaders.get(colour, []):
                out.append(Verdict.violation(topic, f"a mission at {self.board.name(site)} needs a {colour} leader "
                                                    "standing there", (site,)))
            self.card_points[colour] += points
        elif kind in ("power", "event"):
            self.card_points[colour] += points
        else:
            raise GameError(f"unknown adventure entry '{kind}' (draw, mission, power, event)")
        if kind == "event" and colour == self.current:
            self.ctx.second_leader_allowed = True
        return out

    @journaled
    def fellowship_roll(self, value: int) -> list[Verdict]:
        """The die rolled for the Fellowship at a die stop: it leaves only on more than 3."""
        if not 1 <= value <= 6:
            raise GameError("a die shows 1 to 6")
        self._in_a_turn("the Fellowship's die")
        self.ctx.ring_roll = value
        return []

    @journaled
    def declare_reinforcements(self, colour: str, declared: int) -> list[Verdict]:
        """Tournament: the player declares how many armies they take (cards included). Declaring too many
        turns the excess into a penalty: "ne può giocare solamente" the entitlement minus the excess,
        never less than nothing (seed 003, "SPECIFICHE AL REGOLAMENTO E PENALITA'")."""
        if colour != self.current:
            return [Verdict.violation(cite(self.rules, "reinforcement"), f"{colour} declared reinforcements outside "
                                                                         "their own turn")]
        entitled = self.ctx.entitlement + self.ctx.card_armies
        allowed = reinforcement_after_declaration(entitled, declared)
        if allowed == entitled:
            return []
        self.ctx.entitlement = allowed - self.ctx.card_armies
        return [Verdict.warning(cite(self.rules, "cap"), f"{colour} declared {declared} armies but is entitled to "
                                                         f"{entitled}: the excess is a penalty, {allowed} may be "
                                                         "placed")]

    @journaled
    def renounce_bonus(self, colour: str) -> list[Verdict]:
        """Tournament: a player gives up continent bonuses for the rest of the game (team attacks resume)."""
        self.table = Table(self.table.players, self.table.neutrals, self.table.teams,
                           self.table.renounced | {colour})
        return []

    @journaled
    def extra_turn(self, colour: str, play: bool) -> list[Verdict]:
        """Tournament extra time: ``colour`` plays one of the team's chances, or passes."""
        if self.clock is None:
            raise GameError(f"{self.rules.title} has no extra time")
        team = 0 if colour in self.table.teams[0] else 1
        out = self.clock.extra_turn(team, play, len(self.active_players()))
        if colour == self.current:
            self.ctx.chance_used = play
        if self.clock.finished:
            self.finish()
        return out

    @journaled
    def clock_tick(self, now: float) -> list[Verdict]:
        """Tournament: tell the clock the time (seconds). The first call after a reinforcement has been
        placed starts the 100 minutes; at 90 the third-last round is announced."""
        if self.clock is None:
            return []
        if self.clock.started_at is None and any(e.kind == ev.REINFORCEMENT for r in self.history for e in r.events):
            self.clock.start(now)
        return self.clock.tick(now, self.round_no)

    @journaled
    def finish(self) -> dict[str, Standing]:
        """End of the game: final standings; the winner is the best (ties broken by territories)."""
        self.finished = True
        final = {c: self.score(c) for c in self.players}
        ranked = sorted(self.players, key=lambda c: (final[c].points, final[c].territories), reverse=True)
        if len(ranked) == 1 or (final[ranked[0]].points, final[ranked[0]].territories) != (
                final[ranked[1]].points, final[ranked[1]].territories):
            self.winner = ranked[0]
        return final

    # -- following the table --------------------------------------------------------------------
    def _observe_now(self, state: ObservedState, turn_hint: str | None) -> TransitionReport:
        """Read the change to the next committed board state and record it."""
        first_seen = self._begin_observing(state)
        prev = self.state
        weighed = self._weigh_turns(state, turn_hint)
        actor = weighed.actor
        report = TransitionReport(len(self.history) + 1, actor, self.round_no, self.turn_no,
                                  weighed.reported[:KEPT_READINGS], [])
        turns, _, checks = self._take_turns(weighed, prev, report)
        best = report.best
        report.verdicts = first_seen + checks + list(best.verdicts)
        self._take(weighed.readings[0], actor, change=(prev, state))
        report.verdicts += self._judge_draws(turns, prev, state)
        report.verdicts += self._after_checks(state, best)
        self._tablet_began = None
        self.state = state
        self.history.append(report)
        self._check_end(state, best)
        return report

    def _take(self, reading: Reading, actor: str, ctx: RisikoTurn | None = None,
              change: tuple[ObservedState, ObservedState] | None = None) -> None:
        """Record ``reading``'s events in ``actor``'s turn: the one now in context, or ``ctx``;
        ``change`` the states before and after, where the reading is of the whole change."""
        ctx = ctx or self.ctx
        ctx.absorb(list(reading.events), self.board, *(change or ()))
        mate = self.table.mate_of(actor)
        for e in reading.events:
            if e.kind == ev.LAND_ATTACK and e.conquered and mate is not None and e.defender == mate:
                ctx.team_conquests.add(e.target)
            if e.kind == ev.ELIMINATION and e.defender in self.players:
                self.eliminated.add(e.defender)
                if ELIMINATOR_TAKES_CARDS.get(self.rules.id, True):
                    self.hands[actor].count += self.hands[e.defender].count
                    self.hands[actor].symbols += self.hands[e.defender].symbols
                self.hands[e.defender] = Hand()

    def _end_of_turn_checks(self, state: ObservedState) -> list[Verdict]:
        """Before the next turn begins on ``state``: the Fellowship should have moved on (LotR)."""
        out = []
        ring = state.ring
        if self.rules.fellowship and self.rules.fellowship_moves == "turn" and ring is not None \
                and not self.ctx.ring_moved:
            stop = next((s for s in self.board.path if s.territory == ring), None)
            if stop is not None and not stop.die:
                out.append(Verdict.warning(cite(self.rules, "fellowship"), f"the Fellowship should have moved on from "
                                                                           f"{self.board.name(ring)} at the end of "
                                                                           f"{self.ctx.actor}'s turn", (ring,)))
        return out

    def _after_checks(self, state: ObservedState, best: Reading) -> list[Verdict]:
        out = []
        ctx = self.ctx
        mine = [e for e in best.events if e.actor == ctx.actor]
        # the army cap and its penalty (tournament)
        for c, cap in self.caps.items():
            total = state.total_legions(c)
            if cap is not None and total > cap:
                excess = total - cap
                self.caps[c] = total - 2 * excess
                out.append(Verdict.violation(cite(self.rules, "cap"), f"{c} has {total} armies on the board, over the "
                                                                      f"limit of {cap}: remove {2 * excess} and play on "
                                                                      f"with a limit of {self.caps[c]}",
                                             tuple(state.provinces_of(c))))
        # a forced trade (LotR: five cards in hand)
        forced = self.rules.forced_trade_at
        if forced and ctx.hand_count >= forced and ctx.card_armies == 0 and any(
                e.kind == ev.LAND_ATTACK for e in mine):
            out.append(Verdict.violation(cite(self.rules, "cards"), f"{ctx.actor} holds {ctx.hand_count} cards and "
                                                                    "must trade a set before attacking"))
        # the Fellowship's die (LotR)
        roll = ctx.ring_roll
        for e in mine:
            if e.kind == ev.RING_MOVE:
                stop = next((s for s in self.board.path if s.territory == e.source), None)
                if stop is not None and stop.die and roll is not None and roll <= FELLOWSHIP_ROLL_ABOVE:
                    out.append(Verdict.violation(cite(self.rules, "fellowship"), f"the Fellowship left "
                                                 f"{self.board.name(e.source)} on a roll of {roll}; it needs more "
                                                 f"than {FELLOWSHIP_ROLL_ABOVE}", (e.source,)))
        # extra time (tournament): a turn is played only on a chance
        if self.clock is not None and self.clock.in_extra_time(ctx.round_no) and mine \
                and not ctx.chance_used:
            out.append(Verdict.violation(cite(self.rules, "clock"), f"{ctx.actor} played in extra time without "
                                                                    "using one of the team's chances"))
        return out

    def _check_end(self, state: ObservedState, best: Reading) -> None:
        owners = set(state.owners.values())
        if len(owners) == 1 and len(state.owners) == len(self.board.provinces):
            self.winner = owners.pop()
            self.finished = True
        elif self.rules.fellowship and any(e.kind == ev.RING_MOVE and e.target is None for e in best.events):
            self.finish()

    @journaled
    def time_up(self) -> list[str]:
        final = self.finish()
        best = max(s.points for s in final.values())
        return [c for c in self.players if final[c].points == best]
