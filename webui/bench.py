"""``augur bench dashboard``: commit-to-tablet latency and server memory over a long game."""
from __future__ import annotations

import json
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np

from tracker.spqrisiko.simulator import Simulator
from webui.app import create_app
from webui.live import LiveGame
from webui.loop import serve
from webui.store import Store


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2 ** 20


def run_dashboard_bench(clients: int = 8, commits: int = 1440, interval_s: float = 0.0) -> dict:
    """``commits`` committed states (a 2-hour game commits about one every 5 s: 1440), each with a
    100 KB frame, pushed to ``clients`` SSE tablets on loopback."""
    def fresh_states():
        """Committed states made one at a time, as a camera delivers them (nothing held back)."""
        seed = 11
        while True:
            sim = Simulator(("red", "blue", "yellow", "green"), seed=seed, max_turns=400)
            yield sim.initial_state
            for step in sim.steps():
                yield step.state
            seed += 1

    states = fresh_states()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp))
        live = LiveGame.open(store, ["red", "blue", "yellow", "green"], resume=False)
        _, server = serve(create_app(live), "127.0.0.1", 0)
        port = server.server_port
        arrivals: list[dict[int, float]] = [dict() for _ in range(clients)]
        ready = threading.Barrier(clients + 1)

        def tablet(k: int) -> None:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/stream", timeout=60) as resp:
                ready.wait()
                for raw in resp:
                    if raw.startswith(b"data: "):
                        sid = json.loads(raw[6:]).get("snapshot")
                        if sid is not None:
                            arrivals[k][sid] = time.perf_counter()
                            if sid == last_id[0]:
                                return

        last_id = [None]
        threads = [threading.Thread(target=tablet, args=(k,), daemon=True) for k in range(clients)]
        for t in threads:
            t.start()
        ready.wait(timeout=30)
        frame = bytes(100_000)
        sent: dict[int, float] = {}
        rss = [_rss_mb()]
        for i in range(commits):
            state = next(states)
            t0 = time.perf_counter()
            sid = live.commit(state, frame)["snapshot"]
            sent[sid] = t0
            if i == commits - 1:
                last_id[0] = sid
            if i in (commits // 4, commits // 2, 3 * commits // 4):
                rss.append(_rss_mb())
            if interval_s:
                time.sleep(interval_s)
            else:
                time.sleep(0.002)
        for t in threads:
            t.join(timeout=60)
        rss.append(_rss_mb())
        server.shutdown()
        lat = [1000 * (a[sid] - sent[sid]) for a in arrivals for sid in a if sid in sent]
        delivered = sum(len([s for s in a if s in sent]) for a in arrivals)
        store.close()
    out = {"latency_ms_p50": float(np.median(lat)), "latency_ms_p95": float(np.percentile(lat, 95)),
           "delivered": delivered, "expected": clients * commits, "rss_mb": rss}
    print(f"dashboard: {clients} tablets, {commits} committed states: commit-to-tablet latency p50 "
          f"{out['latency_ms_p50']:.1f} ms, p95 {out['latency_ms_p95']:.1f} ms (target median <= 200 ms); "
          f"{delivered}/{clients * commits} updates delivered; server RSS " +
          " -> ".join(f"{r:.0f}" for r in rss) + " MB over the game (flat means no growth)")
    return out
