"""``augur bench synth``: rendering speed per tier and memory while streaming a dataset to disk."""
from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path

from vision.synth.dataset import iter_renders, write_dataset


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_synth_bench(n: int = 40, dataset: int = 300, seed: int = 0, size: tuple[int, int] = (1280, 720)) -> dict:
    figures = {}
    for tier in ("easy", "medium", "hard"):
        renders = iter_renders(tier, n + 2, seed, size)
        next(renders)                          # warm the caches (board art, noise, lens maps)
        t0 = time.perf_counter()
        count = sum(1 for _ in renders)
        rate = count / (time.perf_counter() - t0)
        figures[f"{tier}_images_per_s"] = rate
        print(f"{tier}: {rate:.1f} images/s at {size[0]}x{size[1]} (target >= 10/s for easy)")
    # the memory after 10 images, half way and at the end (a short run: some of them the same image)
    at = (min(10, dataset), max(1, dataset // 2), dataset)
    with tempfile.TemporaryDirectory() as tmp:
        rss = {}
        write_dataset(Path(tmp), "medium", dataset, seed, size,
                      progress=lambda i, total: rss.__setitem__(i, _rss_mb()) if i in at else None)
    marks = [rss[i] for i in at]
    figures["dataset_images"] = dataset
    figures["rss_mb_after_10_mid_end"] = marks
    print(f"dataset of {dataset} images streamed to disk: peak RSS {marks[0]:.0f} MB after {at[0]} images, "
          f"{marks[1]:.0f} MB half way, {marks[2]:.0f} MB at the end (flat means no growth)")
    return figures
