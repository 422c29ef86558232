"""Legality verdicts: ``ok``, ``warning`` (plausible but doubtful) or ``violation``, each citing a rule."""
from __future__ import annotations

import dataclasses
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
    #: those of ``regions`` named as the circumstance of the finding, not as the change it judges
    #: (the seas whose triremes a sea attack lacked): never what the verdict rests on, even where
    #: they changed in the same commit for a reason of their own (see
    #: :func:`tracker.readings.verdict_basis`)
    context: tuple[str, ...] = ()
    #: regions the table is asked to check besides those the verdict rests on: counts read in
    #: doubt that the finding says may be the camera's misread (an earlier move rested on them,
    #: or a sea it names as its context may be a piece off), which the dashboard marks too
    checks: tuple[str, ...] = ()

    @classmethod
    def violation(cls, rule: str, message: str, regions: tuple[str, ...] = (),
                  context: tuple[str, ...] = ()) -> "Verdict":
        return cls(VIOLATION, rule, message, regions, context)

    @classmethod
    def warning(cls, rule: str, message: str, regions: tuple[str, ...] = (),
                context: tuple[str, ...] = ()) -> "Verdict":
        return cls(WARNING, rule, message, regions, context)

    def softened(self, note: str) -> "Verdict":
        """This finding as a warning, its message followed by ``note`` (why it is in doubt)."""
        return dataclasses.replace(self, level=WARNING, message=self.message + note)

    def to_dict(self) -> dict:
        return {"level": self.level, "rule": self.rule, "message": self.message, "regions": list(self.regions)}

    def __str__(self) -> str:
        return f"{self.level} {self.rule}: {self.message}"
