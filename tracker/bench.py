"""``augur bench tracker``: speed of inferring and checking transitions, and of replaying whole games."""
from __future__ import annotations

import statistics
import time

from tracker.replay import replay, replay_lines
from tracker.spqrisiko.simulator import PLAYER_SETS, Simulator


def run_tracker_bench(games: int = 5, turns: int = 300, seed: int = 0) -> dict:
    """Replay ``games`` simulated games of ``turns`` turns; print per-transition and per-game figures."""
    per_transition: list[float] = []
    per_game: list[float] = []
    total_steps = violations = 0
    for g in range(games):
        players = PLAYER_SETS[g % len(PLAYER_SETS)]
        sim = Simulator(players, seed + g, max_turns=turns)
        steps = list(sim.steps())
        lines = replay_lines(sim.initial_state, steps)
        t0 = time.perf_counter()
        game, out = replay(lines, players)
        elapsed = time.perf_counter() - t0
        per_game.append(elapsed)
        per_transition.append(elapsed / max(1, len(steps)))
        total_steps += len(steps)
        violations += sum(1 for s in out for v in s.verdicts if v.level == "violation")
        print(f"game {g + 1}: {len(players)} players, {game.turn_no} turns, {len(steps)} transitions, "
              f"{elapsed:.3f} s ({1000 * elapsed / max(1, len(steps)):.2f} ms/transition)")
    figures = {
        "transitions": total_steps,
        "ms_per_transition_mean": 1000 * statistics.mean(per_transition),
        "ms_per_transition_max_game": 1000 * max(per_transition),
        "s_per_game_mean": statistics.mean(per_game),
        "s_per_game_max": max(per_game),
        "false_violations": violations,
    }
    print(f"tracker: {figures['ms_per_transition_mean']:.2f} ms per transition (mean; worst game "
          f"{figures['ms_per_transition_max_game']:.2f}), {figures['s_per_game_mean']:.2f} s per {turns}-turn game "
          f"(worst {figures['s_per_game_max']:.2f}); targets <= 5 ms and <= 2 s; "
          f"{violations} violation(s) on legal games")
    return figures
