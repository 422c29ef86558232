"""Legality verdicts: ``ok``, ``warning`` (plausible but doubtful) or ``violation``, each citing a rule."""
from __future__ import annotations

from dataclasses import dataclass

OK = "ok"
WARNING = "warning"
VIOLATION = "violation"
LEVELS = (OK, WARNING, VIOLATION)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun as a verdict's sentence says it: "1 province", "3 provinces" (the
    tablets read these aloud to the table, so "1 provinces" will not do)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


@dataclass(frozen=True)
class Verdict:
    """One finding about a transition. ``rule`` is the rulebook section, e.g. ``§12.2``."""

    level: str
    rule: str
    message: str
    regions: tuple[str, ...] = ()

    @classmethod
    def violation(cls, rule: str, message: str, regions: tuple[str, ...] = ()) -> "Verdict":
        return cls(VIOLATION, rule, message, regions)

    @classmethod
    def warning(cls, rule: str, message: str, regions: tuple[str, ...] = ()) -> "Verdict":
        return cls(WARNING, rule, message, regions)

    def to_dict(self) -> dict:
        return {"level": self.level, "rule": self.rule, "message": self.message, "regions": list(self.regions)}

    def __str__(self) -> str:
        return f"{self.level} {self.rule}: {self.message}"
