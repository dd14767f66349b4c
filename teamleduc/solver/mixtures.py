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

    def strategies(
        self, num_infosets: dict[int, int], share: bool = False
    ) -> dict[int, np.ndarray]:
        """{seat: (K, n_seat, 3)} behaviour of every signal (point masses for pure items).
        With ``share``, a mixture whose items are the rows, in order, of one float64 array per
        seat (a stratified mixture, :mod:`.stratify`) returns those arrays themselves, not a
        copy (709 MB for 100 signals of a team-leduc team): the caller must not write into
        them."""
        if share:
            shared = self._shared_rows(num_infosets)
            if shared is not None:
                return shared
        return {s: self.seat_rows(s, num_infosets[s]) for s in self.seats}

    def rows_in_order(self, num_infosets: dict[int, int], order) -> dict[int, np.ndarray]:
        """{seat: (len(order), n, 3) float64}: every seat's behaviour in signals ``order``. When
        ``order`` is every signal in turn and the items are the rows of one array per seat (a
        stratified or refined mixture, :meth:`_shared_rows`), those arrays themselves (no copy:
        0.7 GB a team on team-leduc with 100 signals; the caller must not write into them),
        else new arrays, a seat at a time (:meth:`seat_rows`)."""
        order = np.asarray(order)
        if order.shape == (self.size,) and np.array_equal(order, np.arange(self.size)):
            return self.strategies(num_infosets, share=True)
        return {s: self.seat_rows(s, num_infosets[s], order) for s in self.seats}

    def seat_rows(self, seat: int, n: int, order=None) -> np.ndarray:
        """A new (len(order), n, 3) float64 array: row m is seat ``seat``'s behaviour in
        signal ``order[m]`` (default: every signal in order), ``n`` its information sets.
        One seat at a time, so that a merged submission is built without first copying
        every seat of both teams (1.4 GB on team-leduc with 100 signals per team)."""
        order = range(self.size) if order is None else order
        out = np.zeros((len(order), n, 3))
        for m, k in enumerate(order):
            item = self.items[k]
            if isinstance(item, PureTeamStrategy):
                acts = item.actions[item.seats.index(seat)]
                out[m, np.arange(acts.shape[0]), acts] = 1.0
            else:
                out[m] = item.probs[seat]
        return out

    def _shared_rows(self, num_infosets: dict[int, int]) -> dict[int, np.ndarray] | None:
        """{seat: the (K, n, 3) float64 array whose row k is item k's strategy}, when there is
        one for every seat; else None."""
        if not self.items or not all(isinstance(it, ProductStrategy) for it in self.items):
            return None
        out = {}
        for s in self.seats:
            base = getattr(self.items[0].probs[s], "base", None)
            if (
                not isinstance(base, np.ndarray)
                or base.dtype != np.float64
                or base.shape != (self.size, num_infosets[s], 3)
                or not base.flags.c_contiguous
            ):
                return None
            for k, item in enumerate(self.items):
                row = item.probs[s]
                if row.base is not base or row.ctypes.data != base[k].ctypes.data:
                    return None
            out[s] = base
        return out
