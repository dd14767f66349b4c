"""The exact bounds of one measurement of a run (its history and progress reports)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Measurement:
    """Exact bounds on the TMECor value (team A's chips) of one pair of team strategies.

    ``lower`` = value of team A's strategy against team B's exact best response; ``upper`` =
    value of team A's exact best response against team B's strategy; ``gap = upper - lower``
    (the saddle-point gap). ``what`` says which strategies were measured ("average", "export",
    "restricted", "refine": the export during refinement)."""

    iteration: int
    seconds: float
    lower: float
    upper: float
    what: str = "average"

    @property
    def gap(self) -> float:
        return self.upper - self.lower

    def to_dict(self) -> dict:
        return {
            "iteration": self.iteration,
            "seconds": self.seconds,
            "lower": self.lower,
            "upper": self.upper,
            "gap": self.gap,
            "what": self.what,
        }
