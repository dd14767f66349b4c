"""Public team beliefs and prescription tables: the nodes and edges of a team belief DAG.

Zhang, Farina and Sandholm, "Team belief DAG", ICML 2023, restricted to games whose actions are
all public. A joint pure strategy of a team reveals, along a public history, only *which ranks*
each member may still hold: the **belief** ``(S_1, S_2)`` of non-empty rank sets (a team of one
uses the singleton beliefs ``{x}``, one per rank). Where a member acts, the team picks a
**prescription**, an action for every rank of the acting member's set, and the belief moves to
the preimage of the action taken. This module builds both tables once per game (cached);
:mod:`teamleduc.dag.structure` lays them out on the public tree.

=====================  ===============  ===================================================
``TeamBeliefs``
``seats``              tuple            0-based members, ascending (1 or 2 of them)
``num_beliefs``        int              B: ``(2**R - 1)**2`` for two members, ``R`` for one
``masks``              (B, m) int64     rank bitmask of each member (object ints if R > 62);
                                        for two members
                                        ``b = (S1 - 1) * (2**R - 1) + (S2 - 1)``
``contains``           (B, R**m) f8     1 where the team deal (C order over members) is in b
``roots``              (r,) int64       beliefs at the root; team value = sum_b V[root, b]
``PrescriptionTable``
``belief``             (P,) int32       parent belief of each row, ascending
``offsets``            (B+1,) int64     rows of belief b: ``offsets[b]:offsets[b + 1]``
``child``              (P, 3) int32     belief reached through c, r, f, -1 if no rank plays it
``assign``             (P, R) int8      action of each rank (-1 outside the member's set)
=====================  ===============  ===================================================
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..config import GameConfig, require_config
from ..tree import PublicTree

#: largest number of ranks for a team of two (B = (2**R - 1)**2 beliefs)
MAX_TEAM_RANKS = 5


# --------------------------------------------------------------------------- beliefs


@dataclass(frozen=True, eq=False)
class TeamBeliefs:
    """The public beliefs of one team (see the module docstring for the layout)."""

    config: GameConfig
    seats: tuple[int, ...]
    masks: np.ndarray
    contains: np.ndarray
    roots: np.ndarray

    @property
    def num_beliefs(self) -> int:
        return int(self.masks.shape[0])

    @property
    def num_members(self) -> int:
        return len(self.seats)

    @property
    def num_ranks(self) -> int:
        return self.config.num_ranks

    def index(self, masks: Iterable[int]) -> int:
        """Belief index of a tuple of member bitmasks (-1 if some set is empty)."""
        masks = tuple(int(m) for m in masks)
        if any(m <= 0 for m in masks):
            return -1
        if self.num_members == 1:
            m = masks[0]
            if m & (m - 1):
                raise ValueError(f"team of one: belief {m:b} is not a singleton")
            return m.bit_length() - 1
        M = (1 << self.num_ranks) - 1
        return (masks[0] - 1) * M + (masks[1] - 1)

    def describe(self, b: int) -> str:
        """Human-readable belief, e.g. ``({J,Q},{K})``."""
        names = self.config.ranks
        parts = []
        for m in self.masks[b].tolist():
            parts.append(
                "{" + ",".join(names[r] for r in range(self.num_ranks) if m >> r & 1) + "}"
            )
        return "(" + ",".join(parts) + ")"


def _as_config(config_or_tree) -> GameConfig:
    if isinstance(config_or_tree, PublicTree):
        return config_or_tree.config
    return require_config(config_or_tree)


def team_beliefs(config_or_tree: GameConfig | PublicTree, seats: Iterable[int]) -> TeamBeliefs:
    """The :class:`TeamBeliefs` of team ``seats`` (0-based) in a game (cached)."""
    return _team_beliefs(_as_config(config_or_tree), tuple(sorted(int(s) for s in seats)))


@functools.lru_cache(maxsize=32)
def _team_beliefs(config: GameConfig, seats: tuple[int, ...]) -> TeamBeliefs:
    R = config.num_ranks
    if not 1 <= len(seats) <= 2 or len(set(seats)) != len(seats):
        raise ValueError(f"a team has one or two distinct members, got seats {seats}")
    if any(not 0 <= s < config.num_seats for s in seats):
        raise ValueError(f"seats {seats} out of range for {config.num_seats} seats")
    if len(seats) == 1:
        if R < 63:
            masks = (1 << np.arange(R, dtype=np.int64))[:, None]
        else:  # bitmasks beyond int64 (kuhn-100): exact Python ints
            masks = np.array([[1 << x] for x in range(R)], dtype=object)
        contains = np.eye(R)
        roots = np.arange(R, dtype=np.int64)
    else:
        if R > MAX_TEAM_RANKS:
            raise ValueError(
                f"team beliefs of two members support at most {MAX_TEAM_RANKS} ranks, "
                f"{config.name} has {R}"
            )
        M = (1 << R) - 1
        sets = np.arange(1, M + 1, dtype=np.int64)
        masks = np.stack([np.repeat(sets, M), np.tile(sets, M)], axis=1)
        bits = (masks[:, :, None] >> np.arange(R)) & 1  # (B, 2, R)
        contains = (
            (bits[:, 0, :, None] * bits[:, 1, None, :]).reshape(M * M, R * R).astype(np.float64)
        )
        roots = np.array([(M - 1) * M + (M - 1)], dtype=np.int64)
    for a in (masks, contains, roots):
        a.setflags(write=False)
    return TeamBeliefs(config=config, seats=seats, masks=masks, contains=contains, roots=roots)


# --------------------------------------------------------------------------- prescriptions


@dataclass(frozen=True, eq=False)
class PrescriptionTable:
    """Prescriptions of one member at one legal-action set (layout in the module docstring)."""

    member: int
    legal: tuple[bool, bool, bool]
    belief: np.ndarray
    offsets: np.ndarray
    child: np.ndarray
    assign: np.ndarray

    @property
    def num_rows(self) -> int:
        return int(self.belief.shape[0])


def prescription_table(
    beliefs: TeamBeliefs, member: int, legal: Sequence[bool] | np.ndarray
) -> PrescriptionTable:
    """All prescriptions of the member at position ``member`` facing the legal triple ``legal``."""
    legal = tuple(bool(x) for x in np.asarray(legal).reshape(3))
    return _prescription_table(beliefs, int(member), legal)


@functools.lru_cache(maxsize=256)
def _prescription_table(beliefs: TeamBeliefs, member: int, legal: tuple[bool, bool, bool]):
    if not 0 <= member < beliefs.num_members:
        raise ValueError(f"member {member} out of range for a team of {beliefs.num_members}")
    actions = [a for a in range(3) if legal[a]]
    if not actions:
        raise ValueError("no legal action")
    R = beliefs.num_ranks
    M = (1 << R) - 1
    two = beliefs.num_members == 2

    def index(m):  # inline TeamBeliefs.index for non-empty sets
        return (m[0] - 1) * M + (m[1] - 1) if two else m[0].bit_length() - 1

    rows_belief, rows_child, rows_assign = [], [], []
    # Small (at most a few thousand rows) and cached: plain Python is fine here.
    for b, masks in enumerate(beliefs.masks.tolist()):
        ranks = [r for r in range(R) if masks[member] >> r & 1]
        for f in itertools.product(actions, repeat=len(ranks)):
            assign = [-1] * R
            pre = [0, 0, 0]
            for r, a in zip(ranks, f):
                assign[r] = a
                pre[a] |= 1 << r
            child = []
            for a in range(3):
                if pre[a] == 0:
                    child.append(-1)
                else:
                    m = list(masks)
                    m[member] = pre[a]
                    child.append(index(m))
            rows_belief.append(b)
            rows_child.append(child)
            rows_assign.append(assign)
    belief = np.array(rows_belief, np.int32)
    offsets = np.searchsorted(belief, np.arange(beliefs.num_beliefs + 1)).astype(np.int64)
    child = np.array(rows_child, np.int32).reshape(-1, 3)
    assign = np.array(rows_assign, np.int8).reshape(-1, R)
    for a in (belief, offsets, child, assign):
        a.setflags(write=False)
    return PrescriptionTable(
        member=member, legal=legal, belief=belief, offsets=offsets, child=child, assign=assign
    )


def legal_code(legal: np.ndarray) -> np.ndarray:
    """Code ``c + 2 r + 4 f`` of legal triples (..., 3) -> (...,) int."""
    legal = np.asarray(legal, bool)
    return legal[..., 0] * 1 + legal[..., 1] * 2 + legal[..., 2] * 4
