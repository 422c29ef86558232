"""The same game reads the same in every run.

Python orders the members of a set of strings differently in each process (PYTHONHASHSEED), and
a board's neighbours are such sets. Where the tracker or a simulator took the first of several
equally good choices in that order, the same game file read in two processes named different
targets for the same repelled attack, and a seeded simulated game was another game in each run:
a dispute replayed from a recording could then say something the live tracker had not.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Simulates and replays seeded games of both families, with every third commit left out (so
#: that changes are also read in two parts), and prints a digest of every report.
SCRIPT = textwrap.dedent("""
    import hashlib
    from tracker.replay import replay, replay_lines
    from tracker.risiko.rules import PRESETS
    from tracker.risiko.simulator import simulate_game
    from tracker.spqrisiko.simulator import PLAYER_SETS, Simulator

    def reports(out):
        return [repr((s.line, s.verdicts, s.report and s.report.actor, s.report and s.report.events, s.scores))
                for s in out]

    rows = []
    for g in (0, 1):
        sim = Simulator(PLAYER_SETS[g], g, max_turns=25)
        steps = list(sim.steps())
        for drop in (False, True):
            kept = [s for i, s in enumerate(steps) if not drop or i % 3 != 2]
            rows += reports(replay(replay_lines(sim.initial_state, kept), PLAYER_SETS[g])[1])
    for ruleset in ("classic", "lotr"):
        start, steps, header = simulate_game(PRESETS[ruleset], seed=1, max_turns=25)
        rows += [repr(s.state.to_dict()) for s in steps]
        game = header["game"]
        rows += reports(replay(replay_lines(start, steps), game["players"], ruleset, None, game["neutrals"])[1])
    print(len(rows), hashlib.sha256("\\n".join(rows).encode()).hexdigest())
""")


def _digest(hash_seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


class TestSameGameEveryRun:
    def test_simulated_games_and_their_readings_do_not_depend_on_the_process(self):
        digests = {seed: _digest(seed) for seed in ("0", "1", "2", "3")}
        assert int(digests["0"].split()[0]) > 300          # the games were played and read
        assert len(set(digests.values())) == 1, digests



class TestSamePhotoSameEdges:
    def test_the_edges_of_a_picture_do_not_depend_on_where_it_lies_in_memory(self):
        """The calibration's pose is aligned by the edges (calibration.align.edge_strength). OpenCV's
        magnitude gave other last bits with the alignment of the arrays it was handed, which moves
        with what the heap holds, so one photo calibrated twice in one process could give two
        poses. Called between allocations of random sizes (other work), the edges of one picture
        must be the same every time (the OpenCV magnitude gave two versions in each of three
        runs of this loop)."""
        import cv2
        import numpy as np
        from calibration.align import edge_strength
        rng = np.random.default_rng(7)
        gray = cv2.GaussianBlur(rng.integers(0, 256, (355, 490), dtype=np.uint8), (0, 0), 1.5)
        edges, held = set(), []
        for _ in range(48):
            held.append(np.empty(int(rng.integers(1, 200_000)), np.uint8))
            edges.add(edge_strength(gray).tobytes())
            if len(held) > 6:
                held.pop(int(rng.integers(len(held))))
        assert len(edges) == 1
