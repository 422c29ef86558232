"""The whole loop: frames (camera or video) -> vision pipeline -> live game -> dashboard.

A camera that disappears mid-game is retried; the last committed state stays on every tablet
meanwhile. Frames that cannot be read are skipped, never committed.
"""
from __future__ import annotations

import hashlib
import json
import threading
import zipfile
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

from tracker.errors import AugurError
from vision.pipeline import Pipeline
from webui.live import LiveGame

ARCHIVE_VERSION = 1


def feed(live: LiveGame, pipeline: Pipeline, frames: Iterator[np.ndarray | None], stop: threading.Event | None = None,
         log=None) -> dict:
    """Run frames through the pipeline and commit what it commits; return a summary."""
    n = commits = 0
    for img in frames:
        if stop is not None and stop.is_set():
            break
        n += 1
        res = pipeline.process(img)
        # a still frame says how the camera sees the board now; a frame refused with a notice (one
        # of another size than the calibration's) says what is wrong with the camera
        if (res.gate is not None and res.gate.still) or (res.gate is None and res.notice):
            notice = res.error or res.notice
            if log and notice and notice != live.camera_notice:
                log(f"  camera: {notice}")
            live.set_camera_notice(notice)
        if res.resighted is not None:
            live.resight(res.resighted)
        if res.track is not None:
            live.set_track(res.track.boxes)
        if res.settled:         # every move on the table is committed: a card drawn may be judged
            for v in live.table_settled() or ():
                if log:
                    log(f"  {v['level']} {v['rule']}: {v['message']}")
        if res.committed is not None:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
            view = live.commit(res.committed, buf.tobytes() if ok else None, detections=detections_json(res.detections),
                               moved=res.changed)
            commits += 1
            if log:
                latest = view.get("recent", [{}])[0] if view.get("recent") else {}
                for e in latest.get("events", []):
                    log(f"  {e.get('text', e.get('kind'))}")
                for v in latest.get("verdicts", []):
                    log(f"  {v['level']} {v['rule']}: {v['message']}")
    return {"frames": n, "commits": commits}


def detections_json(det) -> list:
    if det is None:
        return []
    return [{"foot": [round(float(x), 1), round(float(y), 1)], "kind": k, "colour": c, "score": round(float(s), 3)}
            for (x, y), k, c, s in zip(det.footprints, det.kinds, det.colours, det.scores)]


def serve(app, host: str, port: int) -> tuple[threading.Thread, object]:
    import logging

    from werkzeug.serving import make_server
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = make_server(host, port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread, server


#: The address a server bound to every interface listens on (``augur run --lan``).
ALL_INTERFACES = "0.0.0.0"


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses on the local network, the one its default route leaves by
    first: what a tablet types to reach a dashboard served with ``--lan``. Found without sending
    anything (a UDP socket "connected" to a private address only picks the interface); empty
    on a machine with no network."""
    import socket
    found = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.254.254.254", 1))
            found.append(s.getsockname()[0])
    except OSError:
        pass
    try:
        found += socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        pass
    return list(dict.fromkeys(a for a in found if not a.startswith(("127.", "0."))))


def dashboard_urls(host: str, port: int) -> str:
    """Where the dashboard can be opened, for the console: on a server bound to every interface,
    the LAN addresses a tablet can use (``0.0.0.0`` is no address to type), then this machine's own."""
    if host != ALL_INTERFACES:
        return f"http://{host}:{port}/"
    here = f"http://127.0.0.1:{port}/"
    lan = lan_addresses()
    if not lan:
        return f"{here} (no local network found: a tablet reaches it at this machine's address, port {port})"
    return f"{' or '.join(f'http://{a}:{port}/' for a in lan)} on the tablets, {here} on this machine"


# -- archives ---------------------------------------------------------------------------
def export_archive(record: Path, out: Path) -> Path:
    """One file with the database, every frame, the calibrations they were read with, and SHA-256
    checksums of each."""
    from webui.store import CALIBRATION_NAME, StoreError
    record, out = Path(record), Path(out)
    files = [record / "game.sqlite"] + sorted((record / "frames").glob("*.jpg")) + sorted(
        f for f in (record / "calibrations").glob("*.json") if CALIBRATION_NAME.fullmatch(f.name))
    import sqlite3

    try:
        # a damaged database is refused before anything is written: an archive of it would only
        # be refused later, at the review, far from the table that could still say what happened
        db = sqlite3.connect(str(record / "game.sqlite"))
        try:
            check = db.execute("PRAGMA integrity_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(check)
            games = db.execute("SELECT count(*) FROM game").fetchone()[0]
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:        # OperationalError too: no game table at all
        raise StoreError.unusable(record / "game.sqlite", exc) from None
    if not games:
        raise StoreError(f"{record} holds no recorded game")
    manifest = {"augur_archive": ARCHIVE_VERSION, "files": {}}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for f in files:
            rel = f.relative_to(record).as_posix()
            data = f.read_bytes()
            manifest["files"][rel] = hashlib.sha256(data).hexdigest()
            z.writestr(rel, data)
        z.writestr("manifest.json", json.dumps(manifest, indent=1))
    return out


def import_archive(archive: Path, dest: Path) -> Path:
    """Unpack and verify an archive; refuse anything damaged or with unexpected paths."""
    from webui.store import CALIBRATION_NAME
    try:
        z = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise AugurError(f"{archive} is not an Augur game archive ({exc.__class__.__name__})") from None
    with z:
        try:
            manifest = json.loads(z.read("manifest.json"))
        except (KeyError, json.JSONDecodeError):
            raise AugurError(f"{archive} has no valid manifest") from None
        if manifest.get("augur_archive") != ARCHIVE_VERSION:
            raise AugurError(f"{archive} is archive version {manifest.get('augur_archive')}, not {ARCHIVE_VERSION}")
        dest = Path(dest)
        (dest / "frames").mkdir(parents=True, exist_ok=True)
        for rel, digest in manifest["files"].items():
            folder, _, name = rel.partition("/")
            if rel != "game.sqlite" and not (folder == "frames" and rel.count("/") == 1 and rel.endswith(".jpg")
                                             and ".." not in rel) \
                    and not (folder == "calibrations" and CALIBRATION_NAME.fullmatch(name)):
                raise AugurError(f"{archive} contains an unexpected path: {rel}")
            try:
                data = z.read(rel)
            except KeyError:
                raise AugurError(f"{archive} is missing {rel}") from None
            if hashlib.sha256(data).hexdigest() != digest:
                raise AugurError(f"{archive}: checksum mismatch for {rel} (damaged or altered)")
            (dest / rel).parent.mkdir(exist_ok=True)
            (dest / rel).write_bytes(data)
    return dest


def say(msg: str) -> None:
    """A progress line for the person at the console (the dashboard has its own view)."""
    print(msg, flush=True)
