"""Records shared by the solver modules: team strategies, mixtures, measurements.

A *team strategy* here is one signal's worth of play for a team: a product of its members'
behavioural strategies. :class:`~teamleduc.dag.PureTeamStrategy` (one action per
information set) is the common case; :class:`ProductStrategy` holds mixed behaviour. A
:class:`TeamMixture` is a distribution over such strategies: exactly what a team submission
is, and what :func:`teamleduc.files.model.merge_team_mixtures` merges for both teams.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from ..dag import PureTeamStrategy


@dataclass(frozen=True, eq=False)
class ProductStrategy:
    """A product of the members' behavioural strategies: ``probs[seat]`` is (n_seat, 3)."""

    seats: tuple[int, ...]
    probs: dict

    def key(self) -> bytes:
        h = hashlib.sha1()
        for s in self.seats:
            h.update(np.ascontiguousarray(self.probs[s]).tobytes())
        return b"P" + h.digest()

    def strategies(self) -> dict[int, np.ndarray]:
        return {s: np.asarray(self.probs[s], dtype=np.float64) for s in self.seats}


TeamStrategy = PureTeamStrategy | ProductStrategy


@dataclass(frozen=True, eq=False)
class TeamMixture:
    """A team's correlated strategy: ``weights[k]`` on ``items[k]`` (weights sum to 1)."""

    team: int
    seats: tuple[int, ...]
    weights: np.ndarray
    items: tuple

    @property
    def size(self) -> int:
        return int(len(self.items))

    def strategies(self, num_infosets: dict[int, int]) -> dict[int, np.ndarray]:
        """{seat: (K, n_seat, 3)} behaviour of every signal (point masses for pure items)."""
        out = {s: np.zeros((self.size, num_infosets[s], 3)) for s in self.seats}
        for k, item in enumerate(self.items):
            if isinstance(item, PureTeamStrategy):
                for s, acts in zip(item.seats, item.actions):
                    out[s][k, np.arange(acts.shape[0]), acts] = 1.0
            else:
                for s in self.seats:
                    out[s][k] = item.probs[s]
        return out


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


@dataclass
class Candidates:
    """Team strategies worth keeping for the export, per team, without duplicates.

    ``kinds[team][i]`` says where ``items[team][i]`` came from: ``"br"`` (an exact best
    response met during the run), ``"peel"`` (peeled from an average flow), ``"product"``
    (product of average marginals), ``"column"`` (a restricted-game column).
    ``batches[team][i]`` is the batch in which it was last added (:meth:`new_batch` starts
    one per average the export candidates are drawn from; see :meth:`newest`)."""

    items: tuple[list, list] = field(default_factory=lambda: ([], []))
    kinds: tuple[list, list] = field(default_factory=lambda: ([], []))
    keys: tuple[dict, dict] = field(default_factory=lambda: ({}, {}))
    batches: tuple[list, list] = field(default_factory=lambda: ([], []))
    batch: int = 0

    def add(self, team: int, strategy, kind: str = "br", batch: int | None = None) -> bool:
        """Add ``strategy`` (in ``batch``, default the current one); a strategy already
        there is not added again but moves to that batch if it is newer. True if new."""
        batch = self.batch if batch is None else batch
        k = strategy.key()
        i = self.keys[team].get(k)
        if i is not None:
            self.batches[team][i] = max(self.batches[team][i], batch)
            return False
        self.keys[team][k] = len(self.items[team])
        self.items[team].append(strategy)
        self.kinds[team].append(kind)
        self.batches[team].append(batch)
        return True

    def new_batch(self) -> int:
        """Start a new batch (e.g. before drawing candidates from a newer average)."""
        self.batch += 1
        return self.batch

    def newest(self, team: int) -> list:
        """``(strategy, kind)`` pairs of ``team``'s newest non-empty batch, in the order they
        were added. The export starts from these alone: candidates of earlier averages slow
        it down. On tiny-team-leduc, the candidates of five averages (after 30 to 22,218
        iterations) exported 1.2e-3 in 60 s; the last average's alone exported 4e-15 in
        0.4 s."""
        b = self.batches[team]
        last = max(b, default=0)
        return [(s, k) for s, k, i in zip(self.items[team], self.kinds[team], b) if i == last]

    def of_kind(self, team: int, kind: str) -> list:
        return [s for s, k in zip(self.items[team], self.kinds[team]) if k == kind]

    def __len__(self) -> int:
        return len(self.items[0]) + len(self.items[1])
