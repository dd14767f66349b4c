"""Team strategies and mixtures: what a team's part of a submission is made of.

A *team strategy* here is one signal's worth of play for a team: a product of its members'
behavioural strategies. :class:`~teamleduc.dag.PureTeamStrategy` (one action per
information set) is the common case; :class:`ProductStrategy` holds mixed behaviour. A
:class:`TeamMixture` is a distribution over such strategies: exactly what a team submission
is, and what :func:`teamleduc.files.model.merge_team_mixtures` merges for both teams.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

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
