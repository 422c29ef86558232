"""The observed board state: which pieces of which colour stand in each region.

This is the one record that flows from the camera to the tracker, the store and the
dashboard. Its JSON form::

    {"board": "spqrisiko",
     "regions": {"baetica": {"red": {"legionary": 3, "vexillum": 1}, "neutral": {"centre": 1}},
                 "ibericum": {"blue": {"trireme": 2}}},
     "confidence": {"baetica": 0.97},          # optional, from vision, 0..1 per region
     "unseen": ["creta"],                      # optional, regions the camera could not see
     "track": {"red": 7, "blue": null}}        # optional, where the camera saw the score markers

Regions left out are empty. ``track`` (:mod:`vision.track`) is the camera's reading of the score
track, beside the counts: a state is its counts, and the parser leaves the track aside.
The kinds and colours allowed are those of the board's piece set
(:class:`~tracker.pieces.PieceSet`): legionaries, vexilla, triremes and centres here; tanks and
flags on the classic board; battalions, leaders and the Ring on the Middle-earth board.
Parsing checks everything a physical board makes impossible (an unknown region, colour or
kind, a negative count, two armies in one province, a trireme on land, ...) and raises
:class:`~tracker.errors.StateError` naming the problem.
Rule questions (a second centre in a province, say) are the rules' business, not the parser's.
"""
from __future__ import annotations

import copy
import json
import weakref
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from tracker.board import Board, load_board
from tracker.errors import BoardError, StateError
from tracker.pieces import CENTRE, LEADER, NEUTRAL, RING, TRIREME

Counts = Mapping[str, Mapping[str, Mapping[str, int]]]


def state_in(obj: Any) -> Any:
    """The board state a JSON object holds: the object itself, or a game file's line
    ``{"state": {...}, "turn": ...}``'s ``state``, so that any line of a game file reads as a state."""
    if isinstance(obj, dict) and "regions" not in obj and "state" in obj:
        return obj["state"]
    return obj


@dataclass(frozen=True)
class ObservedState:
    """Pieces per region, colour and kind, plus optional per-region confidence from vision.

    Build one with :meth:`from_json`, :meth:`from_dict` or :meth:`from_summary`; those
    validate. The derived views (owners, legions, triremes, centres) are computed once.
    """

    board: Board
    regions: Counts
    confidence: Mapping[str, float] = field(default_factory=dict)
    unseen: frozenset[str] = frozenset()
    #: regions where the camera sees a piece lying knocked over (:mod:`vision.lying`): the players
    #: should stand it up, for the camera counts standing pieces
    lying: frozenset[str] = frozenset()

    def __copy__(self) -> "ObservedState":
        return self

    def __deepcopy__(self, memo) -> "ObservedState":
        """A state is never changed once made, so a copy of it is itself (a tracker copied for a
        second thought shares its committed states, :mod:`tracker.hindsight`)."""
        return self

    # -- construction ------------------------------------------------------------------
    @classmethod
    def from_json(cls, text: str, board: Board | None = None) -> "ObservedState":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StateError(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        return cls.from_dict(state_in(data), board)

    @classmethod
    def from_dict(cls, data: Any, board: Board | None = None) -> "ObservedState":
        if not isinstance(data, dict):
            raise StateError("a board state must be a JSON object with 'board' and 'regions'")
        board_id = data.get("board", board.id if board else "spqrisiko")
        if not isinstance(board_id, str):
            raise StateError("'board' must be a board's id, such as \"spqrisiko\"")
        if board is None:
            try:
                board = load_board(board_id)
            except BoardError as exc:
                raise StateError(str(exc)) from None
        elif board_id != board.id:
            raise StateError(f"state is for board '{board_id}', expected '{board.id}'")
        if "regions" not in data:
            # A file holding something else ({"turn": ...} alone, a typo for "regions") is not
            # an empty board: taking it for one would score and judge a game nobody played.
            raise StateError("a board state must have 'regions' (an object keyed by region id; "
                             "{} for the empty board)")
        regions = data["regions"]
        if not isinstance(regions, dict):
            raise StateError("'regions' must be an object keyed by region id")
        clean = {rid: _validate_region(board, rid, content) for rid, content in regions.items()}
        clean = {rid: c for rid, c in clean.items() if c}
        conf = data.get("confidence", {}) or {}
        if not isinstance(conf, dict) or any(
                r not in board.regions or isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1
                for r, v in conf.items()):
            raise StateError("'confidence' must map region ids to numbers between 0 and 1")
        unseen = data.get("unseen", []) or []
        if not isinstance(unseen, list) or any(r not in board.regions for r in unseen):
            raise StateError("'unseen' must be a list of region ids of the board")
        lying = data.get("lying", []) or []
        if not isinstance(lying, list) or any(r not in board.regions for r in lying):
            raise StateError("'lying' must be a list of region ids of the board")
        return cls(board, clean, {r: float(v) for r, v in conf.items()}, frozenset(unseen), frozenset(lying))

    @classmethod
    def from_summary(cls, board: Board, garrisons: Mapping[str, tuple[str, int]],
                     triremes: Mapping[str, Mapping[str, int]] | None = None,
                     centres: Any = (), vexilla: bool = True) -> "ObservedState":
        """Build a state from ``province -> (colour, legions)``, ``sea -> colour -> n`` and
        the provinces holding a centre. With ``vexilla`` each full ten legions is shown as
        one vexillum, the way players tidy their stacks."""
        pieces_of = board.pieces
        unit = min(pieces_of.garrison, key=pieces_of.garrison.get)
        regions: dict[str, dict[str, dict[str, int]]] = {}
        for prov, (colour, legions) in garrisons.items():
            if legions <= 0:
                continue
            regions.setdefault(prov, {})[colour] = pieces_of.tidy(legions) if vexilla else {unit: legions}
        for sea, per_colour in (triremes or {}).items():
            for colour, n in per_colour.items():
                if n > 0:
                    regions.setdefault(sea, {})[colour] = {pieces_of.naval[0]: n}
        for prov in centres:
            regions.setdefault(prov, {})[NEUTRAL] = {CENTRE: 1}
        return cls.from_dict({"board": board.id, "regions": regions}, board)

    def with_tokens(self, leaders: Mapping[str, str] = {}, ring: str | None = None) -> "ObservedState":
        """A copy with leaders (``province -> colour``) and the Ring placed (Middle-earth board)."""
        data = self.to_dict()
        for prov, colour in leaders.items():
            data["regions"].setdefault(prov, {}).setdefault(colour, {})[LEADER] = 1
        if ring is not None:
            data["regions"].setdefault(ring, {})[NEUTRAL] = {RING: 1}
        return ObservedState.from_dict(data, self.board)

    def counted(self, region: str, pieces: dict) -> "ObservedState":
        """A copy with ``region`` holding ``pieces`` as a player counted them on the tablet: no
        camera doubt left there (the counts are validated as any state's)."""
        data = self.to_dict()
        lift_camera_doubt(data, region)
        if pieces:
            data["regions"][region] = copy.deepcopy(pieces)
        else:
            data["regions"].pop(region, None)
        return ObservedState.from_dict(data, self.board)

    def with_regions_of(self, other: "ObservedState", regions: set[str]) -> "ObservedState":
        """This state with ``regions`` as ``other`` shows them (pieces, confidence, unseen mark):
        the board part way between the two, when a change is read in two parts
        (:meth:`tracker.game.TurnFollower._weigh_turns`)."""
        counts = {r: v for r, v in self.regions.items() if r not in regions}
        counts.update({r: other.regions[r] for r in regions if r in other.regions})
        confidence = {r: c for r, c in self.confidence.items() if r not in regions}
        confidence.update({r: other.confidence[r] for r in regions if r in other.confidence})
        unseen = (self.unseen - regions) | (other.unseen & regions)
        lying = (self.lying - regions) | (other.lying & regions)
        return ObservedState(self.board, counts, confidence, frozenset(unseen), frozenset(lying))

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"board": self.board.id, "regions": {
            rid: {c: dict(sorted(k.items())) for c, k in sorted(cols.items())}
            for rid, cols in sorted(self.regions.items())}}
        if self.confidence:
            out["confidence"] = dict(sorted(self.confidence.items()))
        if self.unseen:
            out["unseen"] = sorted(self.unseen)
        if self.lying:
            out["lying"] = sorted(self.lying)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    # -- derived views -----------------------------------------------------------------
    @cached_property
    def owners(self) -> dict[str, str]:
        """province -> colour of the army standing there (empty provinces are absent)."""
        out = {}
        garrison = self.board.pieces.garrison
        for rid, cols in self.regions.items():
            if self.board.is_province(rid):
                for colour, kinds in cols.items():
                    if colour != NEUTRAL and any(kinds.get(k, 0) for k in garrison):
                        out[rid] = colour
        return out

    @cached_property
    def legions(self) -> dict[str, int]:
        """province -> strength in the board's unit (legionaries, armies, battalions): a vexillum or
        a flag counts ten, a LotR cavalry three and a creature five."""
        strength = self.board.pieces.strength
        return {p: strength(self.regions[p][c]) for p, c in self.owners.items()}

    @cached_property
    def leaders(self) -> dict[str, list[str]]:
        """colour -> provinces where that army has a leader (Middle-earth board)."""
        out: dict[str, list[str]] = {}
        for rid, cols in sorted(self.regions.items()):
            for colour, kinds in cols.items():
                out.setdefault(colour, []).extend([rid] * kinds.get(LEADER, 0))
        return {c: v for c, v in out.items() if v}

    @cached_property
    def ring(self) -> str | None:
        """The territory where the One Ring stands, if it is on the board."""
        return next((rid for rid, cols in self.regions.items() if cols.get(NEUTRAL, {}).get(RING)), None)

    @cached_property
    def triremes(self) -> dict[str, dict[str, int]]:
        """sea -> colour -> triremes (seas with none are absent)."""
        out: dict[str, dict[str, int]] = {}
        for rid, cols in self.regions.items():
            if self.board.is_sea(rid):
                per = {c: k.get(TRIREME, 0) for c, k in cols.items() if k.get(TRIREME, 0)}
                if per:
                    out[rid] = per
        return out

    @cached_property
    def centres(self) -> dict[str, int]:
        """province -> number of centres standing there (normally 1; §16.4 forbids 2)."""
        return {rid: cols[NEUTRAL][CENTRE] for rid, cols in self.regions.items()
                if NEUTRAL in cols and cols[NEUTRAL].get(CENTRE, 0)}

    @cached_property
    def provinces_by_colour(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for p, c in self.owners.items():
            out.setdefault(c, []).append(p)
        return out

    def provinces_of(self, colour: str) -> list[str]:
        return self.provinces_by_colour.get(colour, [])

    def triremes_of(self, colour: str, sea: str) -> int:
        return self.triremes.get(sea, {}).get(colour, 0)

    def controller(self, sea: str) -> str | None:
        """The colour with strictly more triremes in the sea than anyone else (§5.6.3)."""
        per = self.triremes.get(sea)
        if not per:
            return None
        ranked = sorted(per.values(), reverse=True)
        if len(ranked) > 1 and ranked[0] == ranked[1]:
            return None
        return max(per, key=per.get)

    def total_legions(self, colour: str) -> int:
        return sum(self.legions[p] for p in self.provinces_of(colour))

    def same_counts(self, other: "ObservedState") -> bool:
        """Whether ``other`` holds the same pieces in every region (confidence and unseen marks
        aside). Both are validated, so their empty counts are dropped alike."""
        return self.board.id == other.board.id and self.regions == other.regions

    def changed_regions(self, other: "ObservedState") -> frozenset[str]:
        """The regions whose pieces differ between this state and ``other`` (confidence and
        unseen marks aside); empty exactly when :meth:`same_counts` holds on one board.

        The tracker asks this of the same two states many times a commit (each reading, the
        softening of its verdicts, second thoughts), and states never change, so the answer is
        kept for the last two states asked about. They are held weakly: held as they were until
        session 110, each committed state kept the one before it alive, and that one the one
        before it, so that a game held every state it had committed (some 33 KB a commit: 48 MB
        over a two-hour game of 1,440 commits, `augur bench dashboard`)."""
        kept = self.__dict__.setdefault("_changed", {})
        hit = kept.get(id(other))
        if hit is not None and hit[0]() is other:
            return hit[1]
        out = frozenset(r for r in self.regions.keys() | other.regions.keys()
                        if self.regions.get(r) != other.regions.get(r))
        if len(kept) >= 2:
            kept.pop(next(iter(kept)))
        kept[id(other)] = (weakref.ref(other), out)
        return out

    def __getstate__(self) -> dict:
        """What a pickle keeps (a state sent to a worker process): the state and its cached views,
        not the cache of :meth:`changed_regions`, whose states are held weakly."""
        kept = dict(self.__dict__)
        kept.pop("_changed", None)
        return kept

    def confidence_of(self, region: str) -> float:
        return 0.0 if region in self.unseen else self.confidence.get(region, 1.0)


def lift_camera_doubt(data: dict, region: str) -> None:
    """Drop what the camera doubted of ``region`` from a state's dict (:meth:`ObservedState.to_dict`,
    changed in place): its confidence and its knocked-over piece mark. For a count a player or a
    rule set, which the camera did not read."""
    data.get("confidence", {}).pop(region, None)
    if region in data.get("lying", ()):
        data["lying"].remove(region)


def _validate_region(board: Board, rid: Any, content: Any) -> dict[str, dict[str, int]]:
    if rid not in board.regions:
        raise StateError(f"unknown region '{rid}' (not on board {board.id})")
    if not isinstance(content, dict):
        raise StateError(f"region '{rid}' must map colours to piece counts")
    is_sea = board.is_sea(rid)
    ps = board.pieces
    out: dict[str, dict[str, int]] = {}
    for colour, kinds in content.items():
        if colour not in ps.all_colours:
            raise StateError(f"unknown colour '{colour}' in region '{rid}' (expected one of {', '.join(ps.all_colours)})")
        if not isinstance(kinds, dict):
            raise StateError(f"'{colour}' in region '{rid}' must map piece kinds to counts")
        pieces: dict[str, int] = {}
        for kind, n in kinds.items():
            if kind not in ps.kinds:
                raise StateError(f"unknown piece kind '{kind}' in region '{rid}' (expected one of {', '.join(ps.kinds)})")
            if isinstance(n, bool) or not isinstance(n, int):
                raise StateError(f"count of {colour} {kind} in '{rid}' must be a whole number, got {n!r}")
            if n < 0:
                raise StateError(f"negative count {n} of {colour} {kind} in '{rid}'")
            if n == 0:
                continue
            if kind in ps.naval and not is_sea:
                raise StateError(f"{kind} on land: {n} {colour} {kind} in province '{rid}'")
            if kind not in ps.naval and is_sea:
                raise StateError(f"{kind} at sea: {n} {colour} {kind} in sea area '{rid}'")
            if kind in ps.neutral and colour != NEUTRAL:
                raise StateError(f"a {kind} must be neutral (it belongs to no army), got a {colour} {kind} in '{rid}'")
            if colour == NEUTRAL and kind not in ps.neutral:
                raise StateError(f"'neutral' is the colour of {' and '.join(k + 's' for k in ps.neutral)} only, "
                                 f"got neutral {kind} in '{rid}'")
            pieces[kind] = n
        if pieces:
            out[colour] = pieces
    armies = sorted(c for c, k in out.items() if c != NEUTRAL and any(x in k for x in ps.garrison))
    if len(armies) > 1:
        raise StateError(f"province '{rid}' holds {ps.unit_word(2)} of two colours ({', '.join(armies)})")
    return out
