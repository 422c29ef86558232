"""What ``augur bench game`` saw of each game, recorded, and the tracker's part of it replayed.

A game set takes minutes to render and read (four hard games: about five on two cores), but
the tracker's part of it (second thoughts, turn changes, verdicts, the victory-point track)
reads the committed states in a second or two. So ``augur bench game --record DIR`` writes, for
each game, what its scorer saw (:class:`vision.game_bench.GameScorer`): every frame's truth, the
state the pipeline committed on it, and the regions it saw change. ``augur bench game --replay
DIR`` feeds those to the scorer again, with the tracker as it now is, and prints the same line:
a change to the tracker is measured over many sets of games in seconds, on exactly the states
the camera committed (gating and counting are not timed again; their figures are the
recording's).

One file per game, ``<tier>-<seed>.jsonl``: a header line (``augur-game-recording`` and its
version, the tier, seed, turns, frame rate and whether the set-up's counts were settled), then
one line per frame: ``{"truth": ..., "committed": state or null, "moved": [regions] or null}``.
"""
from __future__ import annotations

import json
from pathlib import Path

from tracker.errors import AugurError
from tracker.state import ObservedState

FORMAT = "augur-game-recording"
VERSION = 1


class RecordingError(AugurError):
    """A game recording is missing, truncated or of another kind."""


class GameRecording:
    """Writes one game's frames as its scorer sees them (see the module doc)."""

    def __init__(self, path: Path, tier: str, seed: int, turns: int, fps: int, settle: bool):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("w", encoding="utf-8")
        self._write({"format": FORMAT, "version": VERSION, "tier": tier, "seed": seed, "turns": turns,
                     "fps": fps, "settle": settle})

    def see(self, truth: dict, committed: ObservedState | None, moved: frozenset[str] | None) -> None:
        self._write({"truth": truth, "committed": committed.to_dict() if committed is not None else None,
                     "moved": sorted(moved) if moved is not None else None})

    def close(self) -> None:
        self._file.close()

    def _write(self, line: dict) -> None:
        self._file.write(json.dumps(line, separators=(",", ":")) + "\n")


def recording_path(folder: Path, tier: str, seed: int) -> Path:
    return Path(folder) / f"{tier}-{seed}.jsonl"


def replay_recording(path: Path, answer: bool = False):
    """The figures of one recorded game (:class:`vision.game_bench.GameVideoFigures`), its scorer
    fed again, with the tracker as it now is (``answer``: the table answering every mark,
    :class:`vision.game_bench.GameScorer`); and the recording's frame rate."""
    from vision.game_bench import GameScorer, GameVideoFigures
    from vision.synth.video import PLAYERS
    lines = recording_lines(path)
    header = parse_recorded(path, 1, lines[0])
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise RecordingError(f"{path} is not an {FORMAT} of version {VERSION}")
    try:
        figures = GameVideoFigures(header["tier"], header["seed"], header["turns"], replayed=True)
        scorer = GameScorer(figures, PLAYERS, header["fps"], header["settle"], answer)
    except KeyError as exc:
        raise RecordingError(f"{path}: its header has no {exc}") from None
    for number, text in enumerate(lines[1:], start=2):
        frame = parse_recorded(path, number, text)
        if not isinstance(frame.get("truth"), dict):
            raise RecordingError(f"{path}, line {number}: not a recorded frame (its truth is no object)")
        try:
            committed = ObservedState.from_dict(frame["committed"]) if frame["committed"] is not None else None
            moved = frozenset(frame["moved"]) if frame["moved"] is not None else None
            scorer.see(frame["truth"], committed, moved)
        except (KeyError, TypeError, AugurError) as exc:
            raise RecordingError(f"{path}, line {number}: not a recorded frame ({exc})") from None
    return figures, header["fps"]


def bench_replays(folder: Path, verbose: bool = False, answer: bool = False) -> dict:
    """Replay every game recorded in ``folder``; print one line per tier, as the bench does
    (and, ``verbose``, each verdict and missed or phantom change; ``answer``: with the table
    answering every mark, :class:`vision.game_bench.GameScorer`)."""
    from vision.game_bench import print_games
    paths = sorted(Path(folder).glob("*.jsonl")) if Path(folder).is_dir() else []
    if not paths:
        raise RecordingError(f"no game recordings (*.jsonl) in {folder}")
    by_tier: dict[str, list] = {}
    fps = 0
    for path in paths:
        figures, fps = replay_recording(path, answer)
        by_tier.setdefault(figures.tier, []).append(figures)
    for tier in ("easy", "medium", "hard"):
        if tier in by_tier:
            print_games(sorted(by_tier[tier], key=lambda f: f.seed), fps, verbose)
    return by_tier


def recording_lines(path: Path) -> list[str]:
    """The lines of a recording file, or a one-line :class:`RecordingError`."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise RecordingError(f"recording not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordingError(f"{path} is not a recording ({exc.__class__.__name__})") from None
    if not lines:
        raise RecordingError(f"{path} is empty, not a recording")
    return lines


def parse_recorded(path: Path, number: int, text: str) -> dict:
    """Line ``number`` of a recording, a JSON object, or a one-line :class:`RecordingError`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise RecordingError(f"{path}, line {number}: not JSON (a truncated recording?)") from None
    if not isinstance(data, dict):
        raise RecordingError(f"{path}, line {number}: not a recorded line")
    return data
