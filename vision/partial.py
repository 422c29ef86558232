"""Reading again only what changed: the counting network's pass over the part of a frame whose
pixels differ from the ones it last read.

A move changes two or three regions, yet every still frame of the live loop used to be read
whole: on a 2-core CPU without VNNI a frame of the demo game took about 200 ms to read (the
network and the summit classifier), and a move was committed three read frames, 0.6 to 0.7 s,
after the last hand left (target 0.5 s). Pixels that have not changed give the network's
output they gave before, so the counter keeps the output of the whole crop as last read, with
the frame pixels it was read from (:class:`ReadSoFar`), and a frame is read again only in
boxes around the pixels that changed since (:func:`vision.touched.changed_patches`, the
untouched-region check's own test).

The network sees far: a change moves its output up to about a hundred input pixels away, but
little. On hard and medium test tables, read whole and again with a window pasted into the
whole reading, the region counts came out alike once the pasted part kept 48 input pixels off
the window's edge; at 32 pixels one window in 24 changed a count (scratch measurement, session
47). So the box pasted reaches REACH pixels past the changed ones, and the window the network
reads reaches EDGE pixels past the box. Ten rendered games (eight hard, two medium) played
through two pipelines side by side, one reading partly and one whole, committed the same
counts but in five regions, each a count the confidence flagged for a check (below 0.4):
partial reading was right in two, whole reading in two, neither in one (scratch, session 47).

A move's changes can lie far apart: a legion taken off one province and set down three provinces
away, a card laid at the board's edge, a flicker of light on a far corner. One box around them all
covered up to two thirds of a hard table's crop (session 47), so each patch of change has a box of
its own (:func:`changed_boxes`), and boxes are joined only where one pass over both costs no
more than a pass over each (:meth:`ReadSoFar.merged`: a pass costs about its window's area, the
fixed cost of a call is under a millisecond on a 2-core CPU).

Doubt goes the safe way, as with the untouched regions (:mod:`vision.touched`): a change of light
the light match does not take out, a bump of the camera, shows as changed pixels everywhere and
has the whole crop read again. A still run that began with a whole reading (the first after the
counter is made) reads whole to its end, so its frames are averaged plain and mirrored as before.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from itertools import combinations

import numpy as np

from vision.touched import changed_patch_boxes

#: Input pixels past the changed ones that are read again: the network's output moves this far
#: around a change (see the module doc).
REACH = 48
#: Input pixels of context the network reads around the box it is asked for: its output nearer
#: than this to the window's edge is not pasted (see the module doc).
EDGE = 48
#: More patches of change than this (a shadow or a light the light match leaves, a bumped camera)
#: are read in one box around them all: joining boxes pair by pair would cost more than it saves.
MAX_BOXES = 12


@dataclass(frozen=True)
class Box:
    """A box of network input pixels, [y0, y1) x [x0, x1); its corners lie on the network's stride
    grid (``multiple``) wherever they lie inside the input, so that the network's cells fall as
    they fall for the whole crop."""

    y0: int
    x0: int
    y1: int
    x1: int

    @classmethod
    def whole(cls, shape: tuple[int, int]) -> "Box":
        return cls(0, 0, int(shape[0]), int(shape[1]))

    def grown(self, by: int, shape: tuple[int, int], multiple: int) -> "Box":
        """This box ``by`` pixels larger on each side, out to the stride grid, inside ``shape``."""
        h, w = shape
        return Box(max(0, (self.y0 - by) // multiple * multiple), max(0, (self.x0 - by) // multiple * multiple),
                   min(h, -(-(self.y1 + by) // multiple) * multiple), min(w, -(-(self.x1 + by) // multiple) * multiple))

    def union(self, other: "Box | None") -> "Box":
        if other is None:
            return self
        return Box(min(self.y0, other.y0), min(self.x0, other.x0), max(self.y1, other.y1), max(self.x1, other.x1))

    def overlap(self, other: "Box") -> "Box | None":
        """The part of this box that ``other`` covers too, or None where they do not meet."""
        y0, x0, y1, x1 = max(self.y0, other.y0), max(self.x0, other.x0), min(self.y1, other.y1), min(self.x1, other.x1)
        return Box(y0, x0, y1, x1) if y0 < y1 and x0 < x1 else None

    def within(self, outer: "Box") -> tuple[slice, slice]:
        """This box's rows and columns relative to ``outer`` (which holds it)."""
        return slice(self.y0 - outer.y0, self.y1 - outer.y0), slice(self.x0 - outer.x0, self.x1 - outer.x0)

    @property
    def rows(self) -> slice:
        return slice(self.y0, self.y1)

    @property
    def cols(self) -> slice:
        return slice(self.x0, self.x1)

    @property
    def area(self) -> int:
        return (self.y1 - self.y0) * (self.x1 - self.x0)

    def cells(self, stride: int) -> "Box":
        """The output cells of the box, for a network whose output has one cell per ``stride`` pixels."""
        return Box(self.y0 // stride, self.x0 // stride, self.y1 // stride, self.x1 // stride)


def changed_boxes(frame: np.ndarray, before: np.ndarray) -> tuple[Box, ...]:
    """The box around each patch of pixels changed between two frames of the network input
    (H x W x 3 uint8, brought to one light); none when nothing changed. The patches' 2 x 2
    opening leaves them a pixel down and to the right of the pixels that changed, so each box
    starts a pixel earlier."""
    return tuple(Box(max(0, int(y) - 1), max(0, int(x) - 1), int(y + h), int(x + w))
                 for x, y, w, h in changed_patch_boxes(frame, before))


def _ordered(boxes) -> list[Box]:
    """The boxes, each once, top to bottom then left to right (a set's order is not fixed)."""
    return sorted(set(boxes), key=lambda b: (b.y0, b.x0, b.y1, b.x1))


class ReadSoFar:
    """The network's output over the whole crop as last read (C x h x w), and the network input
    pixels (H x W x 3 uint8) each part of it was read from."""

    def __init__(self, input_shape: tuple[int, int], multiple: int, stride: int):
        self.shape = tuple(int(v) for v in input_shape)
        self.whole = Box.whole(self.shape)
        self.multiple = multiple
        self.stride = stride
        self.output: np.ndarray | None = None
        self.frame: np.ndarray | None = None

    def changes(self, frame: np.ndarray) -> tuple[Box, ...]:
        """The boxes around the pixels of ``frame`` changed since they were read (one around them
        all when there are more than MAX_BOXES); the whole crop when nothing was read yet."""
        if self.output is None:
            return (self.whole,)
        changed = changed_boxes(frame, self.frame)
        if len(changed) > MAX_BOXES:
            changed = (reduce(Box.union, changed),)
        return changed

    def to_read(self, changes: tuple[Box, ...]) -> tuple[Box, ...]:
        """The boxes whose output must be read again for ``changes`` (:meth:`changes`): REACH past
        them, on the stride grid, joined by :meth:`merged`; none when nothing changed."""
        return self.merged(b.grown(REACH, self.shape, self.multiple) for b in changes)

    def merged(self, boxes) -> tuple[Box, ...]:
        """``boxes`` with every two that overlap, or that one pass reads for no more than two
        passes (a pass costs about its window's area), joined into the box around both; the
        boxes returned never overlap, and each box given lies inside one of them."""
        boxes = _ordered(boxes)
        joined = True
        while joined:
            joined = False
            for a, b in combinations(boxes, 2):
                both = a.union(b)
                if a.overlap(b) is not None or \
                        self.window(both).area <= self.window(a).area + self.window(b).area:
                    boxes = _ordered((set(boxes) - {a, b}) | {both})
                    joined = True
                    break
        return tuple(boxes)

    def window(self, box: Box) -> Box:
        """What the network reads to give ``box``'s output: EDGE more on each side."""
        return box.grown(EDGE, self.shape, self.multiple)

    def paste(self, box: Box, window: Box, output: np.ndarray, frame: np.ndarray) -> np.ndarray:
        """Put the ``box`` part of the network's ``output`` over ``window`` into the output read so
        far (made, when this is the first reading, with ``output``'s channels), remember the
        frame pixels it was read from, and return the whole output."""
        if self.output is None:
            h, w = self.shape
            self.output = np.zeros((output.shape[0], h // self.stride, w // self.stride), np.float32)
            self.frame = np.zeros_like(frame)
        cells, around = box.cells(self.stride), window.cells(self.stride)
        rows, cols = cells.within(around)
        self.output[:, cells.rows, cells.cols] = output[:, rows, cols]
        self.frame[box.rows, box.cols] = frame[box.rows, box.cols]
        return self.output

    def forget(self) -> None:
        """Nothing read: the next frame is read whole."""
        self.output = self.frame = None
