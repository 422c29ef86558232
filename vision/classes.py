"""The detector's classes: one per piece kind and colour, in a fixed order (defined once here)."""
from __future__ import annotations

from tracker.pieces import ARMY_COLOURS, CENTRE, LEGIONARY, NEUTRAL, TRIREME, VEXILLUM

#: (kind, colour) per class index.
CLASSES: tuple[tuple[str, str], ...] = tuple(
    (kind, colour) for kind in (LEGIONARY, VEXILLUM, TRIREME) for colour in ARMY_COLOURS) + ((CENTRE, NEUTRAL),)
CLASS_NAMES: tuple[str, ...] = tuple(f"{k}_{c}" for k, c in CLASSES)
CLASS_INDEX = {kc: i for i, kc in enumerate(CLASSES)}
