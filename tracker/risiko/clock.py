"""The tournament clock (seed 003, "VARIE"): 100 minutes from the first reinforcement placed, the
announcement of the third-last round at 90 minutes, then extra turns on four "chances" per team.

Times are passed in (seconds, any origin), so the clock is exact under test and follows the
wall clock at the table.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tracker.verdicts import Verdict

DURATION_MIN = 100
ANNOUNCE_AT_MIN = 90
#: the round in progress at the announcement is the third-last
ROUNDS_AFTER_ANNOUNCEMENT = 2
CHANCES_PER_TEAM = 4
RULE = "2v2: VARIE"


@dataclass
class TournamentClock:
    started_at: float | None = None
    last_round: int | None = None
    chances: dict[int, int] = field(default_factory=dict)
    passes_in_a_row: int = 0
    finished: bool = False

    def start(self, t: float) -> None:
        """The first reinforcement army is placed: the 100 minutes begin."""
        if self.started_at is None:
            self.started_at = t

    def minutes(self, now: float) -> float:
        return 0.0 if self.started_at is None else (now - self.started_at) / 60.0

    def tick(self, now: float, round_no: int) -> list[Verdict]:
        """At 90 minutes the referee announces that the round in progress is the third-last."""
        if self.started_at is None or self.last_round is not None or self.minutes(now) < ANNOUNCE_AT_MIN:
            return []
        self.last_round = round_no + ROUNDS_AFTER_ANNOUNCEMENT
        return [Verdict("ok", RULE, f"90 minutes: round {round_no} is the third-last; the last round is "
                                    f"{self.last_round}")]

    def in_extra_time(self, round_no: int) -> bool:
        return self.last_round is not None and round_no > self.last_round

    def extra_turn(self, team: int, play: bool, players_left: int, teams: int = 2) -> list[Verdict]:
        """A player in extra time plays one of the team's chances or passes. The game ends when every
        player still in the game has passed in a row, or when every chance is spent."""
        for k in range(teams):
            self.chances.setdefault(k, CHANCES_PER_TEAM)
        if self.finished:
            return [Verdict.violation(RULE, "the game is over: no more turns")]
        out: list[Verdict] = []
        if play:
            if self.chances[team] == 0:
                out.append(Verdict.violation(RULE, "the team has used all four chances"))
            else:
                self.chances[team] -= 1
            self.passes_in_a_row = 0
        else:
            self.passes_in_a_row += 1
        if self.passes_in_a_row >= players_left or all(v == 0 for v in self.chances.values()):
            self.finished = True
            out.append(Verdict("ok", RULE, "end of the game"))
        return out
