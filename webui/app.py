"""The table-side dashboard (Flask): live view, corrections, card entries, review timeline.

Safety on a shared network: the server binds to localhost unless ``--lan``; then every write
needs the join token shown on the host's screen. Every write also needs the page's CSRF token
(a header a foreign page cannot set), request bodies are capped, and frames are looked up by
snapshot id, never by a path from the client.
"""
from __future__ import annotations

import hmac
import json
import queue
import secrets

from flask import Flask, Response, abort, jsonify, render_template, request

from tracker.errors import AugurError, BoardError
from vision.geometry import load_geometry
from webui.camera_view import CLOSE_UP_SIDE, CameraViews, ViewUnavailable, close_up, overlay as draw_recorded
from webui.live import LiveGame
from webui.schematic import piece_form, schematic_geometry
from webui.tap_targets import board_tap_targets

MAX_BODY = 64 * 1024
SSE_KEEPALIVE_S = 15


#: What the review is told of a recorded frame cut short on disk (its state in the store is whole).
DAMAGED_FRAME = "this snapshot's frame is damaged; its recorded state is kept"


def create_app(live: LiveGame, join_token: str | None = None, review_only: bool = False) -> Flask:
    """The dashboard for ``live``. ``join_token``: the PIN a tablet on the LAN gives for changes.
    ``review_only``: a recording opened to settle a dispute (``augur review``), with no camera and
    no table: the page hides what would change the game (the writes are refused either way, as
    the token is one no tablet knows)."""
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    csrf = secrets.token_urlsafe(24)
    app.config["AUGUR_CSRF"] = csrf

    def require_write() -> None:
        if not hmac.compare_digest(request.headers.get("X-CSRF-Token", ""), csrf):
            abort(403, "missing or wrong CSRF token")
        if join_token is not None and not hmac.compare_digest(request.headers.get("X-Join-Token", ""), join_token):
            abort(403, "this table needs its join PIN for changes")
        if not request.is_json:
            abort(415, "send JSON")

    def body() -> dict:
        try:
            data = request.get_json(silent=True)
        except RecursionError:          # nested deeper than Python parses (a few hundred bytes do it)
            data = None
        if not isinstance(data, dict):
            abort(400, "the request body must be a JSON object")
        return data

    @app.errorhandler(400)
    @app.errorhandler(403)
    @app.errorhandler(404)
    @app.errorhandler(413)
    @app.errorhandler(415)
    def error(exc):
        return jsonify({"error": getattr(exc, "description", str(exc))}), exc.code

    @app.get("/")
    def index():
        return render_template("index.html", csrf=csrf, needs_pin=join_token is not None, review_only=review_only)

    @app.get("/api/geometry")
    def geometry():
        try:
            geo = load_geometry(live.game.board.id)
        except BoardError:
            return jsonify(schematic_geometry(live.game.board))
        return jsonify({"size": geo.size, "polygons": geo.polygons, "label_points": geo.label_points,
                        "track_boxes": geo.track_boxes, "names": {r: geo.board.name(r) for r in geo.region_ids},
                        "seas": list(geo.board.seas), "values": dict(geo.board.pieces.garrison),
                        "pieces": piece_form(geo.board.pieces),     # what the correction form asks of a region
                        "tap_targets": board_tap_targets(geo.board.id),    # round targets a finger can hit over the small islands
                        # every region close-up is this square: the page holds its room before it loads
                        "close_up_side": CLOSE_UP_SIDE})

    @app.get("/api/state")
    def state():
        return jsonify(live.view())

    @app.get("/api/stream")
    def stream():
        q = live.subscribe()

        def events():
            try:
                yield f"data: {json.dumps(live.view())}\n\n"
                while True:
                    try:
                        payload = q.get(timeout=SSE_KEEPALIVE_S)
                        yield f"data: {json.dumps(payload)}\n\n"
                    except queue.Empty:
                        yield ": keep-alive\n\n"
            finally:
                live.unsubscribe(q)

        return Response(events(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache",
                                                                          "X-Accel-Buffering": "no"})

    def reviewed_game() -> int:
        """The game a review request asks for (``?game=N``; this game by default), 404 where the
        recording holds no such game on this board."""
        raw = request.args.get("game")
        if raw is None:
            return live.game_id
        try:
            gid = int(raw)
        except ValueError:
            abort(400, "game must be a game's number")
        if not live.reviewable(gid):
            abort(404, f"the recording holds no game {gid} on this board")
        return gid

    @app.get("/api/games")
    def games():
        """Every game of the recording, for the review to pick from: this one, and the earlier
        ones on this board (an evening's table may play several)."""
        board = live.game.board.id
        return jsonify([{**g, "current": g["id"] == live.game_id, "reviewable": g["board"] == board}
                        for g in live.store.games()])

    @app.get("/api/snapshots")
    def snapshots():
        gid = reviewed_game()
        entered: dict = {}
        for e in live.entries(gid):
            entered.setdefault(e["before"], []).append(e)
        return jsonify([{"id": s.id, "t": s.t, "source": s.source, "actor": s.actor, "round": s.round, "turn": s.turn,
                         "events": len(s.events), "level": _level(s.verdicts + [v for e in entered.get(s.id, [])
                                                                                for v in e["verdicts"]]),
                         "entries": len(entered.get(s.id, []))}
                        for s in live.store.snapshots(gid)])

    @app.get("/api/entries")
    def entries():
        """The tablet's entries (cards, draws, dice) with what the rules said of each, for review."""
        return jsonify(live.entries(reviewed_game()))

    @app.get("/api/snapshots/<int:sid>")
    def snapshot(sid: int):
        detail = live.snapshot_detail(sid)
        if detail is None:
            abort(404, "no such snapshot")
        return jsonify(detail)

    @app.get("/api/snapshots/<int:sid>/frame.jpg")
    def frame(sid: int):
        from vision.image_file import is_cut_short
        path = live.store.frame_path(sid)
        if path is None:
            abort(404, "no frame for this snapshot")
        data = path.read_bytes()
        if is_cut_short(data):      # a browser would draw the missing rows grey: pieces that seem gone
            abort(404, DAMAGED_FRAME)
        return Response(data, mimetype="image/jpeg")

    views = CameraViews(live.store)

    def recorded_view(sid: int):
        """Snapshot ``sid``'s frame and how the camera saw the board in it (404 with the reason
        where either is missing or damaged)."""
        from vision.image_file import UnreadableImage, read_image
        path = live.store.frame_path(sid)
        if path is None:
            abort(404, "no frame for this snapshot")
        try:
            seen = views.seen_as(sid, live.game.board.id, live.profile, live.recorder)
            frame = read_image(path)
        except ViewUnavailable as exc:
            abort(404, str(exc))
        except UnreadableImage:
            abort(404, DAMAGED_FRAME)
        return frame, seen, live.store.detections(sid)

    def jpeg(image) -> Response:
        import cv2
        return Response(cv2.imencode(".jpg", image)[1].tobytes(), mimetype="image/jpeg")

    @app.get("/api/snapshots/<int:sid>/overlay.jpg")
    def overlay(sid: int):
        """The frame with the region map where the board lay then and a dot per piece the
        detector saw, at its footprint, in its colour."""
        return jpeg(draw_recorded(*recorded_view(sid)))

    @app.get("/api/snapshots/<int:sid>/regions/<rid>.jpg")
    def region_close_up(sid: int, rid: str):
        """One region of the frame enlarged, with its border and the pieces read: what a player
        looks at to settle a count (the review's changes, the correction dialog)."""
        frame, seen, dets = recorded_view(sid)
        try:
            return jpeg(close_up(frame, seen, dets, rid))
        except ViewUnavailable as exc:
            abort(404, str(exc))

    @app.get("/api/calibration/preview.jpg")
    def calibration_preview():
        import cv2
        import numpy as np

        from calibration.overlay import draw_overlay
        if live.profile is None or not live.frame_jpeg:
            abort(404, "no calibrated camera frame yet")
        frame = live.profile.undistort(cv2.imdecode(np.frombuffer(live.frame_jpeg, np.uint8), cv2.IMREAD_COLOR))
        ok, buf = cv2.imencode(".jpg", draw_overlay(frame, live.profile.pose, live.profile.geometry))
        return Response(buf.tobytes(), mimetype="image/jpeg")

    @app.post("/api/calibration/anchors")
    def calibration_anchors():
        """Fit the region map to this table's print: ``{"anchors": [{"from": [x, y], "to": [x, y]}]}``
        in pixels of the preview, or ``{"reset": true}`` for the committed map."""
        from calibration.map_fit import parse_anchors
        require_write()
        data = body()
        if live.profile is None:
            abort(404, "no camera calibration in use")
        try:
            anchors = None if data.get("reset") is True else parse_anchors(data.get("anchors"), "anchors")
            return jsonify(live.fit_map(anchors))
        except (ValueError, AugurError) as exc:
            abort(400, str(exc))

    @app.post("/api/setup")
    def setup():
        require_write()
        data = body()
        players = data.get("players")
        target = data.get("target_vp")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            abort(400, "players must be a list of colours in turn order")
        try:
            target = int(target) if target not in (None, "") else None
            neutrals = data.get("neutrals") or []
            if not isinstance(neutrals, list) or not all(isinstance(c, str) for c in neutrals):
                abort(400, "neutrals must be a list of colours")
            return jsonify(live.restart(players, str(data.get("ruleset") or "2005"), target, neutrals))
        except (ValueError, TypeError, AugurError) as exc:      # TypeError: a target that is no number
            abort(400, str(exc))

    @app.post("/api/corrections")
    def correction():
        require_write()
        data = body()
        try:
            return jsonify(live.correct(str(data.get("region")), data.get("pieces") or {}))
        except (ValueError, AugurError) as exc:
            abort(400, str(exc))

    @app.post("/api/undo")
    def undo():
        require_write()
        try:
            return jsonify(live.undo())
        except ValueError as exc:
            abort(400, str(exc))

    @app.post("/api/decisions")
    def decision():
        require_write()
        data = body()
        try:
            return jsonify(live.decide(int(data.get("snapshot", -1)), int(data.get("event", -1)),
                                       str(data.get("verdict"))))
        except (ValueError, TypeError) as exc:
            abort(400, str(exc))

    @app.post("/api/entries")
    def entry():
        require_write()
        data = body()
        try:
            return jsonify(live.enter(str(data.get("kind")), data.get("payload") or {}))
        except (ValueError, KeyError, TypeError, AugurError) as exc:
            abort(400, str(exc))

    return app


def _level(verdicts: list[dict]) -> str:
    levels = {v.get("level") for v in verdicts}
    return "violation" if "violation" in levels else ("warning" if "warning" in levels else "ok")
