"""The recording store: every committed state, its frame, events, verdicts and corrections.

SQLite in WAL mode, one row per snapshot, written and committed before the dashboard is told:
a power cut or a crash loses nothing that was shown. Frames are JPEG files beside the
database, named by snapshot id (never by a path a client sends). Corrections are appended,
never written over what the camera saw; the state the tracker follows is the camera's count
with the corrections on top. Where the camera saw the score markers is recorded each time its
reading changes, beside the score kept then (``track_reading``).
"""
from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from tracker.errors import AugurError

SCHEMA = """
CREATE TABLE IF NOT EXISTS game (
    id INTEGER PRIMARY KEY, created REAL NOT NULL, players TEXT NOT NULL, ruleset TEXT NOT NULL,
    target_vp INTEGER, board TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS snapshot (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES game(id), t REAL NOT NULL,
    source TEXT NOT NULL,               -- camera | correction | setup
    state TEXT NOT NULL,                -- the observed state JSON (camera count or corrected)
    actor TEXT, round INTEGER, turn INTEGER,
    events TEXT NOT NULL DEFAULT '[]', verdicts TEXT NOT NULL DEFAULT '[]', scores TEXT NOT NULL DEFAULT '{}',
    frame TEXT,                         -- file name of the JPEG beside the database, if any
    detections TEXT NOT NULL DEFAULT '[]', -- what the detector saw in that frame (for the overlay)
    vouched TEXT NOT NULL DEFAULT '[]',    -- doubted counts the rules accounted for then (not asked for)
    camera TEXT                         -- how the camera saw the board in that frame: its calibration file and pose
);
CREATE TABLE IF NOT EXISTS correction (
    id INTEGER PRIMARY KEY, snapshot_id INTEGER NOT NULL REFERENCES snapshot(id), t REAL NOT NULL,
    region TEXT NOT NULL, before TEXT NOT NULL, after TEXT NOT NULL, author TEXT NOT NULL DEFAULT 'tablet',
    undoes INTEGER REFERENCES correction(id)
);
CREATE TABLE IF NOT EXISTS decision (
    id INTEGER PRIMARY KEY, snapshot_id INTEGER NOT NULL REFERENCES snapshot(id), t REAL NOT NULL,
    event_index INTEGER NOT NULL, verdict TEXT NOT NULL CHECK (verdict IN ('confirmed', 'rejected'))
);
CREATE TABLE IF NOT EXISTS entry (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES game(id), t REAL NOT NULL,
    kind TEXT NOT NULL, payload TEXT NOT NULL,  -- cards played, card drawn, dice entered
    verdicts TEXT NOT NULL DEFAULT '[]'         -- what the rules said of it when it was entered
);
CREATE TABLE IF NOT EXISTS track_reading (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES game(id), t REAL NOT NULL,
    snapshot_id INTEGER REFERENCES snapshot(id), -- the game's latest snapshot when read (none: before the first)
    boxes TEXT NOT NULL,                -- the box each score marker was seen on (null: not found)
    vp TEXT NOT NULL                    -- the score the tracker kept then, beside which the tablet set it
);
"""


#: A kept calibration file's name: the first hex digits of its content's SHA-256, then ".json".
CALIBRATION_NAME_HEX = 16
CALIBRATION_NAME = re.compile(rf"[0-9a-f]{{{CALIBRATION_NAME_HEX}}}\.json")


def _is_row_id(n: int) -> bool:
    """Whether SQLite can hold ``n`` as a row id (64-bit): a snapshot asked for by a larger number
    (a tablet's URL, a decision's body) does not exist, and SQLite would raise rather than say so."""
    return -(2 ** 63) <= n < 2 ** 63


class StoreError(AugurError):
    """The recording database is missing, damaged or from another program."""

    @classmethod
    def unusable(cls, path: Path, exc: Exception) -> "StoreError":
        """A database SQLite refused (``exc``), left as it was found."""
        return cls(f"{path} is not a usable recording ({exc}); it was left untouched")


@dataclass(frozen=True)
class Snapshot:
    id: int
    game_id: int
    t: float
    source: str
    state: dict
    actor: str | None
    round: int | None
    turn: int | None
    events: list
    verdicts: list
    scores: dict
    frame: str | None
    #: the counts the camera doubted that the rules accounted for when this state was committed
    #: (:meth:`tracker.game.TurnFollower.vouch`): the dashboard asked no check of them then, and
    #: the review says why
    vouched: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"id": self.id, "t": self.t, "source": self.source, "state": self.state, "actor": self.actor,
                "round": self.round, "turn": self.turn, "events": self.events, "verdicts": self.verdicts,
                "scores": self.scores, "has_frame": bool(self.frame), "vouched": list(self.vouched)}


def _decoded(text: str | None, what: str, kind: type):
    """A JSON column of the recording (``kind``: the list or object it holds), or a
    :class:`StoreError` naming what is damaged.

    Why: a row damaged outside Augur (a disk error, an edit) used to surface as a JSON traceback
    wherever it was read: ``augur review``, a resumed ``augur run``, a dashboard request. The
    recording is refused, in one line that says where, and left as it is."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        value = None
    if not isinstance(value, kind):
        raise StoreError(f"the recording is damaged ({what} cannot be read); it was left untouched")
    return value


def _track_boxes(text: str | None, rid: int, what: str = "boxes") -> dict:
    """A track reading's colour → box (or score) column, checked like :func:`_decoded`: a box is a
    whole number, or null for a marker not found."""
    value = _decoded(text, f"track reading {rid}'s {what}", dict)
    if not all(isinstance(c, str) and (b is None or (isinstance(b, int) and not isinstance(b, bool)))
               for c, b in value.items()):
        raise StoreError(f"the recording is damaged (track reading {rid}'s {what} cannot be read); "
                         "it was left untouched")
    return value


class Store:
    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.frames = self.folder / "frames"
        self.frames.mkdir(exist_ok=True)
        #: the calibration profiles the recorded frames were read with (:meth:`keep_calibration`)
        self.calibrations = self.folder / "calibrations"
        path = self.folder / "game.sqlite"
        try:
            self.db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
            columns = [r[1] for r in self.db.execute("PRAGMA table_info(game)")]
            if "extra" not in columns:      # recordings made before other rulesets existed
                self.db.execute("ALTER TABLE game ADD COLUMN extra TEXT NOT NULL DEFAULT '{}'")
            columns = [r[1] for r in self.db.execute("PRAGMA table_info(snapshot)")]
            if "vouched" not in columns:    # recordings made before session 92 kept no vouch
                self.db.execute("ALTER TABLE snapshot ADD COLUMN vouched TEXT NOT NULL DEFAULT '[]'")
            if "camera" not in columns:     # recordings made before session 110 kept no camera's view
                self.db.execute("ALTER TABLE snapshot ADD COLUMN camera TEXT")
            columns = [r[1] for r in self.db.execute("PRAGMA table_info(entry)")]
            if "verdicts" not in columns:   # recordings made before session 69 kept no entry's verdicts
                self.db.execute("ALTER TABLE entry ADD COLUMN verdicts TEXT NOT NULL DEFAULT '[]'")
            self.db.execute("PRAGMA integrity_check").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError.unusable(path, exc) from None

    def close(self) -> None:
        self.db.close()

    # -- games ---------------------------------------------------------------------------
    def new_game(self, players: list[str], ruleset: str, target_vp: int | None, board: str = "spqrisiko",
                 extra: dict | None = None) -> int:
        """A new game; ``extra`` keeps what else the ruleset needs (neutral colours, objectives)."""
        cur = self.db.execute("INSERT INTO game (created, players, ruleset, target_vp, board, extra) VALUES (?,?,?,?,?,?)",
                              (time.time(), json.dumps(players), ruleset, target_vp, board, json.dumps(extra or {})))
        return int(cur.lastrowid)

    def last_game(self) -> dict | None:
        row = self.db.execute("SELECT id, players, ruleset, target_vp, board, extra FROM game "
                              "ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return None
        return {"id": row[0], "players": _decoded(row[1], f"game {row[0]}'s players", list), "ruleset": row[2],
                "target_vp": row[3], "board": row[4], "extra": _decoded(row[5] or "{}", f"game {row[0]}'s settings", dict)}

    def board_of(self, game_id: int) -> str | None:
        """The board game ``game_id`` is played on, or None where the recording holds no such game."""
        if not _is_row_id(game_id):
            return None
        row = self.db.execute("SELECT board FROM game WHERE id = ?", (game_id,)).fetchone()
        return row[0] if row else None

    def games(self) -> list[dict]:
        """Every game the recording holds, oldest first, each with its snapshots' count and the
        time of its last (an evening's table may play several: the review may look back at any)."""
        rows = self.db.execute("SELECT g.id, g.created, g.players, g.ruleset, g.board, count(s.id), max(s.t) "
                               "FROM game g LEFT JOIN snapshot s ON s.game_id = g.id GROUP BY g.id ORDER BY g.id")
        return [{"id": r[0], "created": r[1], "players": _decoded(r[2], f"game {r[0]}'s players", list),
                 "ruleset": r[3], "board": r[4], "snapshots": r[5], "last": r[6]} for r in rows]

    # -- snapshots -----------------------------------------------------------------------
    def add_snapshot(self, game_id: int, source: str, state: dict, actor: str | None = None, round_no: int | None = None,
                     turn_no: int | None = None, events: list | None = None, verdicts: list | None = None,
                     scores: dict | None = None, jpeg: bytes | None = None, detections: list | None = None,
                     vouched: list[str] | None = None, camera: dict | None = None) -> int:
        """Record a committed state (and its frame). ``camera``: how the camera saw the board in that
        frame, ``{"calibration": NAME, "H": 3 x 3}`` (the calibration kept by
        :meth:`keep_calibration`, and the pose at that moment), so that the review draws the map on
        the frame where the board then lay, after a bump too, and from an archive."""
        with self.db:
            self.db.execute("BEGIN")
            cur = self.db.execute(
                "INSERT INTO snapshot (game_id, t, source, state, actor, round, turn, events, verdicts, scores, "
                "detections, vouched, camera) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (game_id, time.time(), source, json.dumps(state), actor, round_no, turn_no, json.dumps(events or []),
                 json.dumps(verdicts or []), json.dumps(scores or {}), json.dumps(detections or []),
                 json.dumps(sorted(vouched or [])), None if camera is None else json.dumps(camera)))
            sid = int(cur.lastrowid)
            if jpeg:
                name = f"{sid:08d}.jpg"
                tmp = self.frames / (name + ".tmp")
                tmp.write_bytes(jpeg)
                tmp.replace(self.frames / name)
                self.db.execute("UPDATE snapshot SET frame = ? WHERE id = ?", (name, sid))
        return sid

    def _row(self, row) -> Snapshot:
        what = f"snapshot {row[0]}'s"
        return Snapshot(row[0], row[1], row[2], row[3], _decoded(row[4], f"{what} state", dict), row[5], row[6], row[7],
                        _decoded(row[8], f"{what} events", list), _decoded(row[9], f"{what} verdicts", list),
                        _decoded(row[10], f"{what} scores", dict), row[11],
                        tuple(_decoded(row[12], f"{what} vouched counts", list)))

    _COLS = "id, game_id, t, source, state, actor, round, turn, events, verdicts, scores, frame, vouched"

    def snapshot(self, sid: int) -> Snapshot | None:
        if not _is_row_id(sid):
            return None
        row = self.db.execute(f"SELECT {self._COLS} FROM snapshot WHERE id = ?", (sid,)).fetchone()
        return self._row(row) if row else None

    def snapshots(self, game_id: int) -> list[Snapshot]:
        rows = self.db.execute(f"SELECT {self._COLS} FROM snapshot WHERE game_id = ? ORDER BY id", (game_id,))
        return [self._row(r) for r in rows]

    def snapshot_times(self, game_id: int) -> list[tuple[float, int]]:
        """Each snapshot's time and id, oldest first, without reading the states."""
        return [(r[0], r[1]) for r in self.db.execute("SELECT t, id FROM snapshot WHERE game_id = ? ORDER BY id",
                                                        (game_id,))]

    def recent(self, game_id: int, n: int) -> list[Snapshot]:
        rows = self.db.execute(f"SELECT {self._COLS} FROM snapshot WHERE game_id = ? ORDER BY id DESC LIMIT ?",
                               (game_id, n))
        return [self._row(r) for r in rows][::-1]

    def latest(self, game_id: int) -> Snapshot | None:
        row = self.db.execute(f"SELECT {self._COLS} FROM snapshot WHERE game_id = ? ORDER BY id DESC LIMIT 1",
                              (game_id,)).fetchone()
        return self._row(row) if row else None

    def latest_frame(self, game_id: int, before: int | None = None) -> int | None:
        """The id of the game's latest snapshot with a frame (``before``: older than that
        snapshot), or None: what the camera last showed, for a close-up."""
        row = self.db.execute("SELECT id FROM snapshot WHERE game_id = ? AND frame IS NOT NULL AND id < ? "
                              "ORDER BY id DESC LIMIT 1", (game_id, 2 ** 63 - 1 if before is None else before)).fetchone()
        return row[0] if row else None

    def detections(self, sid: int) -> list:
        if not _is_row_id(sid):
            return []
        row = self.db.execute("SELECT detections FROM snapshot WHERE id = ?", (sid,)).fetchone()
        return _decoded(row[0], f"snapshot {sid}'s detections", list) if row else []

    def camera(self, sid: int) -> dict | None:
        """How the camera saw the board in snapshot ``sid``'s frame (see :meth:`add_snapshot`), or
        None: a snapshot with no frame, or recorded before Augur kept it."""
        if not _is_row_id(sid):
            return None
        row = self.db.execute("SELECT camera FROM snapshot WHERE id = ?", (sid,)).fetchone()
        if row is None or row[0] is None:
            return None
        camera = _decoded(row[0], f"snapshot {sid}'s camera view", dict)
        H = camera.get("H")
        if not (isinstance(camera.get("calibration"), str) and isinstance(H, list) and len(H) == 3
                and all(isinstance(r, list) and len(r) == 3 and all(isinstance(v, (int, float)) for v in r) for r in H)):
            raise StoreError(f"the recording is damaged (snapshot {sid}'s camera view cannot be read); "
                             "it was left untouched")
        return camera

    def keep_calibration(self, text: str) -> str:
        """Keep a calibration profile's file (its JSON ``text``) in the recording, once: returns
        its name in :attr:`calibrations`, made of its content's hash."""
        data = text.encode("utf-8")
        name = hashlib.sha256(data).hexdigest()[:CALIBRATION_NAME_HEX] + ".json"
        path = self.calibrations / name
        if not path.is_file():
            self.calibrations.mkdir(exist_ok=True)
            tmp = path.with_name(name + ".tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
        return name

    def calibration_path(self, name: str) -> Path | None:
        """The kept calibration file called ``name`` (as :meth:`keep_calibration` names them: never
        a path a client or a damaged row could steer elsewhere), or None."""
        if not CALIBRATION_NAME.fullmatch(name):
            return None
        path = self.calibrations / name
        return path if path.is_file() else None

    def frame_path(self, sid: int) -> Path | None:
        snap = self.snapshot(sid)
        if snap is None or not snap.frame:
            return None
        path = (self.frames / snap.frame).resolve()
        return path if path.parent == self.frames.resolve() and path.is_file() else None

    # -- corrections, decisions and entries -----------------------------------------------------
    def add_correction(self, snapshot_id: int, region: str, before: dict, after: dict, author: str = "tablet",
                       undoes: int | None = None) -> int:
        cur = self.db.execute("INSERT INTO correction (snapshot_id, t, region, before, after, author, undoes) "
                              "VALUES (?,?,?,?,?,?,?)", (snapshot_id, time.time(), region, json.dumps(before),
                                                         json.dumps(after), author, undoes))
        return int(cur.lastrowid)

    def corrections(self, game_id: int) -> list[dict]:
        rows = self.db.execute(
            "SELECT c.id, c.snapshot_id, c.t, c.region, c.before, c.after, c.author, c.undoes FROM correction c "
            "JOIN snapshot s ON s.id = c.snapshot_id WHERE s.game_id = ? ORDER BY c.id", (game_id,))
        return [{"id": r[0], "snapshot_id": r[1], "t": r[2], "region": r[3],
                 "before": _decoded(r[4], f"correction {r[0]}", dict), "after": _decoded(r[5], f"correction {r[0]}", dict),
                 "author": r[6], "undoes": r[7]} for r in rows]

    def add_decision(self, snapshot_id: int, event_index: int, verdict: str) -> int:
        cur = self.db.execute("INSERT INTO decision (snapshot_id, t, event_index, verdict) VALUES (?,?,?,?)",
                              (snapshot_id, time.time(), event_index, verdict))
        return int(cur.lastrowid)

    def decisions(self, snapshot_id: int) -> list[dict]:
        rows = self.db.execute("SELECT id, event_index, verdict, t FROM decision WHERE snapshot_id = ? ORDER BY id",
                               (snapshot_id,))
        return [{"id": r[0], "event_index": r[1], "verdict": r[2], "t": r[3]} for r in rows]

    def add_entry(self, game_id: int, kind: str, payload: dict, verdicts: list | None = None) -> int:
        """A tablet entry and what the rules said of it then (a card set out of turn, the dice's
        losses), so that a dispute review shows the answer the table was given. A card drawn is
        judged with the next commit, and that verdict is recorded with that snapshot; or, when
        the camera sees the table settle first, in an entry of its own (``judge_draws``)."""
        cur = self.db.execute("INSERT INTO entry (game_id, t, kind, payload, verdicts) VALUES (?,?,?,?,?)",
                              (game_id, time.time(), kind, json.dumps(payload), json.dumps(verdicts or [])))
        return int(cur.lastrowid)

    # -- the score track ---------------------------------------------------------------------
    def add_track_reading(self, game_id: int, boxes: dict[str, int | None], vp: dict[str, int]) -> int:
        """Where the camera saw the score markers (:class:`vision.track.TrackReading`'s boxes) and
        the score the tracker kept then, filed under the game's latest snapshot: a dispute over the
        victory-point track ("my marker stood on 12") is settled from the recording, not from
        memory. Each change of reading is a row of its own; none is written over."""
        with self.db:
            self.db.execute("BEGIN")
            row = self.db.execute("SELECT max(id) FROM snapshot WHERE game_id = ?", (game_id,)).fetchone()
            cur = self.db.execute("INSERT INTO track_reading (game_id, t, snapshot_id, boxes, vp) VALUES (?,?,?,?,?)",
                                  (game_id, time.time(), row[0], json.dumps(boxes), json.dumps(vp)))
        return int(cur.lastrowid)

    def track_readings(self, game_id: int, snapshot_id: int | None = None) -> list[dict]:
        """The game's score-track readings, oldest first (``snapshot_id``: only those made while
        that snapshot was the latest): ``{"id", "t", "snapshot_id", "boxes", "vp"}``."""
        query = "SELECT id, t, snapshot_id, boxes, vp FROM track_reading WHERE game_id = ?"
        args: tuple = (game_id,)
        if snapshot_id is not None:
            if not _is_row_id(snapshot_id):
                return []
            query, args = query + " AND snapshot_id = ?", (game_id, snapshot_id)
        return [{"id": r[0], "t": r[1], "snapshot_id": r[2], "boxes": _track_boxes(r[3], r[0]),
                 "vp": _track_boxes(r[4], r[0], "score")} for r in self.db.execute(query + " ORDER BY id", args)]

    def entries(self, game_id: int) -> list[dict]:
        rows = self.db.execute("SELECT id, t, kind, payload, verdicts FROM entry WHERE game_id = ? ORDER BY id",
                               (game_id,))
        return [{"id": r[0], "t": r[1], "kind": r[2], "payload": _decoded(r[3], f"entry {r[0]}", dict),
                 "verdicts": _decoded(r[4], f"entry {r[0]}'s verdicts", list)} for r in rows]
