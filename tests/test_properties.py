"""Property tests with the simulator: legal games raise no violation, and a single illegal
mutation of a legal transition is caught with the right rule cited."""
from __future__ import annotations

from functools import lru_cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.events import Phase
from tracker.game import Game
from tracker.hindsight import ONE_OFF_MARK
from tracker.pieces import VEXILLUM
from tracker.replay import ReplayLine, replay, replay_lines
from tracker.spqrisiko.simulator import PLAYER_SETS, Simulator
from tracker.state import ObservedState


def lines_of(sim: Simulator, steps) -> list[ReplayLine]:
    return replay_lines(sim.initial_state, steps)


@lru_cache(maxsize=None)
def simulated(seed: int, n_players: int, turns: int = 60):
    sim = Simulator(PLAYER_SETS[n_players - 3], seed, max_turns=turns)
    return sim, list(sim.steps())


class TestLegalGames:
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seed=st.integers(0, 10_000), n_players=st.integers(3, 5))
    def test_random_legal_games_raise_no_violation(self, seed, n_players):
        sim, steps = simulated(seed, n_players)
        game, out = replay(lines_of(sim, steps), sim.players)
        violations = [(s.line, str(v)) for s in out for v in s.verdicts if v.level == "violation"]
        assert violations == []
        # the turn is followed: every transition is read as the true player's
        assert [s.report.actor for s in out[1:]] == [st_.actor for st_ in steps]

    @settings(max_examples=10, deadline=None)
    @given(seed=st.integers(0, 10_000))
    def test_score_track_matches_the_simulator(self, seed):
        sim, steps = simulated(seed, 3)
        game, _ = replay(lines_of(sim, steps), sim.players)
        # the simulator claims VP at each turn start too; the tracker must agree colour by colour
        assert game.turn_no == steps[-1].turn_no
        assert game.vp == {c: min(40, v) for c, v in sim.vp.items()}


def _garrisons(state: ObservedState) -> dict[str, tuple[str, int]]:
    return {p: (state.owners[p], state.legions[p]) for p in state.owners}


def _with(state: ObservedState, garrisons=None, triremes=None) -> ObservedState:
    return ObservedState.from_summary(state.board, garrisons if garrisons is not None else _garrisons(state),
                                      triremes if triremes is not None else state.triremes, state.centres)


def _mutations(prev: ObservedState, nxt: ObservedState, actor: str, following: str, players, rng,
               ending: str | None = None):
    """Single illegal changes to a legal ``prev -> nxt`` and the rules that must be cited.

    ``ending`` is the player whose turn the tracker followed before the change, when the change
    begins another's: a commit can hold that turn's last moves too, so pieces of theirs that
    appear are read as their turn going on (too many, or too late), not as a bystander's."""
    b = nxt.board
    out = []
    # 1. pieces appear in the province of a player who is neither in turn nor next (§4.2)
    bystanders = [c for c in players if c not in (actor, following, ending) and nxt.provinces_of(c)]

    def grown(c: str) -> ObservedState:
        p = rng.choice(sorted(nxt.provinces_of(c)))
        g = _garrisons(nxt)
        # grown past what stood there before the change too: a province the actor attacked that
        # grows back to its old count is only an attack that killed nobody (seed 180, 4 players)
        before = prev.legions[p] if prev.owners.get(p) == c else 0
        g[p] = (c, max(g[p][1], before) + rng.randint(1, 5))
        return _with(nxt, g)

    if bystanders:
        out.append(("growth", grown(rng.choice(bystanders)), {"§4.2"}))
    # 1b. the ending turn's player gains pieces from nowhere beside the next turn's first moves:
    # placed past the entitlement (§6), out of phase (§4.2) or after the strategic move (§15.6)
    if ending is not None and ending not in (actor, following) and nxt.provinces_of(ending):
        out.append(("late growth", grown(ending), {"§6", "§4.2", "§15.6"}))
    # 2. a province far from everything the actor holds changes hands to the actor (§13.1 / §12.2)
    reach = set()
    for p in set(prev.provinces_of(actor)) | set(nxt.provinces_of(actor)):
        reach |= b.land_neighbours[p] | {q for s in b.coast_of[p] for q in b.shores_of[s]}
    far = sorted(p for p in b.provinces if p in nxt.owners and nxt.owners[p] != actor
                 and prev.owners.get(p) != actor and p not in reach)
    if far:
        p = rng.choice(far)
        g = _garrisons(nxt)
        g[p] = (actor, 2)
        out.append(("teleport", _with(nxt, g), {"§13.1", "§12.2"}))
    # 3. a trireme of a bystander appears (§4.2)
    if bystanders:
        c = rng.choice(bystanders)
        tri = {s: dict(v) for s, v in nxt.triremes.items()}
        s = rng.choice(sorted(b.seas))
        tri.setdefault(s, {})[c] = tri.get(s, {}).get(c, 0) + 1
        out.append(("ghost trireme", _with(nxt, triremes=tri), {"§4.2"}))
    # 4. the actor's army grows far beyond any entitlement (§6)
    mine = sorted(nxt.provinces_of(actor))
    if mine:
        g = _garrisons(nxt)
        p = rng.choice(mine)
        g[p] = (actor, g[p][1] + 60)
        out.append(("over-placement", _with(nxt, g), {"§6", "§4.2"}))
    return out


class TestIllegalMutations:
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seed=st.integers(0, 500), n_players=st.integers(3, 5), pick=st.integers(0, 10_000),
           which=st.integers(0, 4), data=st.randoms(use_true_random=False))
    def test_single_illegal_mutation_is_caught_with_the_rule(self, seed, n_players, pick, which, data):
        sim, steps = simulated(seed, n_players)
        lines = lines_of(sim, steps)
        k = 1 + pick % (len(lines) - 1)
        truth = steps[k - 1]
        game = Game(sim.players)
        game.start(lines[0].state)
        for ln in lines[1:k]:
            if ln.cards_played:
                game.play_cards(ln.cards_player, ln.cards_played)
            game.observe(ln.state)
            if ln.card_drawn:
                game.draw_card(game.current)
        following = game.next_player(truth.actor) if truth.actor in game.active_players() else None
        ending = game.current if game.current != truth.actor else None
        muts = _mutations(game.state, truth.state, truth.actor, following, sim.players, data, ending)
        if not muts:
            return
        name, mutated, expected = muts[which % len(muts)]
        # a set the ending player could still have played in their reinforcements (§8)
        could_play_set = (ending is not None and game.ctx is not None and game.ctx.phase == Phase.REINFORCEMENT
                          and game.hands[ending].count >= 3)
        if lines[k].cards_played:
            game.play_cards(lines[k].cards_player, lines[k].cards_played)
        report = game.observe(mutated)
        cited = {v.rule for v in report.verdicts if v.level == "violation"}
        changed = {p: (mutated.owners.get(p), mutated.legions.get(p))
                   for p in mutated.board.provinces if truth.state.owners.get(p) != mutated.owners.get(p)
                   or truth.state.legions.get(p) != mutated.legions.get(p)}
        bigger = {p for p in changed if mutated.regions.get(p, {}).get(mutated.owners.get(p), {}).get(VEXILLUM, 0)
                  > truth.state.regions.get(p, {}).get(mutated.owners.get(p), {}).get(VEXILLUM, 0)}
        if bigger and not cited & expected:
            # pieces grown into a vexillum its army could not have placed or exchanged for: the
            # tracker takes it for the camera's commonest misread, a legionary read as a vexillum
            # (tracker.hindsight._bigger_read), and asks the table for that count instead (explore
            # draw, seed 263: yellow's Ponto grown from 5 to 10 in red's turn)
            asked = {v.rule for v in report.verdicts
                     if v.level == "warning" and ONE_OFF_MARK in v.message and set(v.checks) & bigger}
            assert asked & expected and set(game.questioned) & bigger, (name, changed, [str(v) for v in report.verdicts])
            return
        if name == "late growth" and could_play_set and not cited & expected:
            # the ending turn still in its reinforcements, holding cards enough for a set: the
            # pieces may be a set's that the table did not enter, and the tracker asks for it
            # instead of calling a breach (explore draw, seed 4: blue, holding 4 cards, placed one
            # more in Baetica as yellow began)
            asked = [v for v in report.verdicts if v.level == "warning" and v.rule == "§8"
                     and "enter the card set played" in v.message and set(v.regions) & set(changed)]
            assert asked, (name, changed, [str(v) for v in report.verdicts])
            return
        assert cited & expected, (name, changed, report.actor, [str(v) for v in report.verdicts],
                                  [e.describe() for e in report.events])
