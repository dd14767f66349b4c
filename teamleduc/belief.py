"""Public team beliefs, prescriptions and the exact max dynamic programme on the public tree.

Method (design notes, "Exact team best response"; Zhang, Farina and Sandholm, "Team belief DAG",
ICML 2023, restricted to games whose actions are all public). Against a fixed opponent, a team's
expected utility is linear in its correlated terminal reach: ``u = sum_z sum_x W[z, x] T[z, x]``
(:func:`teamleduc.reach.coalition_weights`). A joint pure strategy of the team reveals, along a
public history, only *which ranks* each member may still hold: the **belief**
``(S_1, S_2)`` of non-empty rank sets. The maximum over joint pure strategies is then a DP on
(public node, belief):

* leaf ``z``:  ``V(z, b) = sum_{x in b} W[z, x]``  (``W @ contains.T``);
* chance, opponent or non-member node: ``V(h, b) = sum_children V(c, b)``;
* node where member ``i`` acts: ``V(h, b) = max over prescriptions f: S_i -> legal actions of
  sum_a V(child_a, b with S_i replaced by f^-1(a))`` (an empty preimage contributes 0).

A team of one uses the singleton beliefs ``{x}`` (one per rank): the DP then is the ordinary
best response, decomposed per private card, which keeps ``kuhn-100`` small.

Data contract (shared with the solver, see ``/tmp/belief_contract.md``):

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

The DP kernels (:func:`max_dp`, :func:`argmax_actions`) are compiled with numba and walk the
tree one depth level at a time, keeping only two levels of values ``(nodes in level, B)``; the
argmax is stored as one int32 per (member decision node, belief).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np
from numba import njit

from .config import GameConfig
from .tree import CHANCE, DECISION, TERMINAL, PublicTree, build_tree

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

    def index(self, masks) -> int:
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
            parts.append("{" + ",".join(names[r] for r in range(self.num_ranks) if m >> r & 1) + "}")
        return "(" + ",".join(parts) + ")"


def _as_config(config_or_tree) -> GameConfig:
    if isinstance(config_or_tree, PublicTree):
        return config_or_tree.config
    if isinstance(config_or_tree, GameConfig):
        return config_or_tree
    from .config import get_config
    return get_config(config_or_tree)


def team_beliefs(config_or_tree, seats) -> TeamBeliefs:
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
        else:   # bitmasks beyond int64 (kuhn-100): exact Python ints
            masks = np.array([[1 << x] for x in range(R)], dtype=object)
        contains = np.eye(R)
        roots = np.arange(R, dtype=np.int64)
    else:
        if R > MAX_TEAM_RANKS:
            raise ValueError(f"team beliefs of two members support at most {MAX_TEAM_RANKS} ranks, "
                             f"{config.name} has {R}")
        M = (1 << R) - 1
        sets = np.arange(1, M + 1, dtype=np.int64)
        masks = np.stack([np.repeat(sets, M), np.tile(sets, M)], axis=1)
        bits = (masks[:, :, None] >> np.arange(R)) & 1                       # (B, 2, R)
        contains = (bits[:, 0, :, None] * bits[:, 1, None, :]).reshape(M * M, R * R).astype(np.float64)
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


def prescription_table(beliefs: TeamBeliefs, member: int, legal) -> PrescriptionTable:
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

    def index(m):                     # inline TeamBeliefs.index for non-empty sets
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
    return PrescriptionTable(member=member, legal=legal, belief=belief, offsets=offsets,
                             child=child, assign=assign)


def legal_code(legal) -> np.ndarray:
    """Code ``c + 2 r + 4 f`` of legal triples (..., 3) -> (...,) int."""
    legal = np.asarray(legal, bool)
    return legal[..., 0] * 1 + legal[..., 1] * 2 + legal[..., 2] * 4


@dataclass(frozen=True, eq=False)
class PackedTables:
    """Every prescription table a team needs on one tree, concatenated for compiled kernels.

    Attributes
    ----------
    node_table : (N,) int32 table slot ``member * 8 + legal code`` at member decision nodes,
        else -1.
    row_offsets : (m * 8, B + 1) int64 absolute row ranges per (slot, belief) (empty for unused
        slots).
    row_child : (P_total, 3) int32, row_assign : (P_total, R) int8, row_belief : (P_total,) int32:
        the tables' rows, slot after slot.
    dec_nodes : (n_dec,) int32 member decision nodes, ascending; ``dec_index`` (N,) int32 their
        position (-1 elsewhere).
    member_of : (N,) int8 position of the acting member at member decision nodes, else -1.
    """

    node_table: np.ndarray
    row_offsets: np.ndarray
    row_child: np.ndarray
    row_assign: np.ndarray
    row_belief: np.ndarray
    dec_nodes: np.ndarray
    dec_index: np.ndarray
    member_of: np.ndarray

    def table(self, slot: int):
        """(first, last) absolute rows of slot ``slot``."""
        return int(self.row_offsets[slot, 0]), int(self.row_offsets[slot, -1])


def packed_tables(tree: PublicTree, beliefs: TeamBeliefs) -> PackedTables:
    """The :class:`PackedTables` of ``beliefs``' team on ``tree`` (cached)."""
    if tree.config != beliefs.config:
        raise ValueError("tree and beliefs belong to different games")
    return _packed_tables(tree, beliefs)


@functools.lru_cache(maxsize=8)
def _packed_tables(tree: PublicTree, beliefs: TeamBeliefs) -> PackedTables:
    N, B, R = tree.num_nodes, beliefs.num_beliefs, beliefs.num_ranks
    m = beliefs.num_members
    member_of = np.full(N, -1, np.int8)
    for i, s in enumerate(beliefs.seats):
        member_of[(tree.kind == DECISION) & (tree.actor == s)] = i
    dec = member_of >= 0
    node_table = np.where(dec, member_of.astype(np.int32) * 8 + legal_code(tree.legal), -1).astype(np.int32)
    row_offsets = np.zeros((m * 8, B + 1), np.int64)
    child, assign, belief = [], [], []
    at = 0
    used = set(np.unique(node_table[dec]).tolist())
    for slot in range(m * 8):
        if slot in used:
            legal = tuple(bool(slot % 8 >> a & 1) for a in range(3))
            t = prescription_table(beliefs, slot // 8, legal)
            row_offsets[slot] = t.offsets + at
            child.append(t.child)
            assign.append(t.assign)
            belief.append(t.belief)
            at += t.num_rows
        else:
            row_offsets[slot] = at
    dec_nodes = np.flatnonzero(dec).astype(np.int32)
    dec_index = np.full(N, -1, np.int32)
    dec_index[dec_nodes] = np.arange(len(dec_nodes), dtype=np.int32)
    out = PackedTables(
        node_table=node_table, row_offsets=row_offsets,
        row_child=np.concatenate(child) if child else np.zeros((0, 3), np.int32),
        row_assign=np.concatenate(assign) if assign else np.zeros((0, R), np.int8),
        row_belief=np.concatenate(belief) if belief else np.zeros(0, np.int32),
        dec_nodes=dec_nodes, dec_index=dec_index, member_of=member_of)
    for a in vars(out).values():
        a.setflags(write=False)
    return out


# --------------------------------------------------------------------------- level layout


@dataclass(frozen=True, eq=False)
class LevelLayout:
    """Nodes grouped by depth for the level kernels.

    ``nodes`` (N,) int32 node ids level after level, ``bounds`` (L+1,) int64 level ranges in
    ``nodes``, ``pos`` (N,) int32 position of each node inside its level, ``term_index`` (N,)
    int32 row of each terminal in ``tree.terminals`` (-1 elsewhere).
    """

    nodes: np.ndarray
    bounds: np.ndarray
    pos: np.ndarray
    term_index: np.ndarray


@functools.lru_cache(maxsize=8)
def level_layout(tree: PublicTree) -> LevelLayout:
    nodes = np.concatenate(tree.levels).astype(np.int32)
    bounds = np.concatenate([[0], np.cumsum([len(l) for l in tree.levels])]).astype(np.int64)
    pos = np.empty(tree.num_nodes, np.int32)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        pos[nodes[lo:hi]] = np.arange(hi - lo, dtype=np.int32)
    term_index = np.full(tree.num_nodes, -1, np.int32)
    term_index[tree.terminals] = np.arange(len(tree.terminals), dtype=np.int32)
    out = LevelLayout(nodes=nodes, bounds=bounds, pos=pos, term_index=term_index)
    for a in vars(out).values():
        a.setflags(write=False)
    return out


# --------------------------------------------------------------------------- kernels


@njit(cache=True)
def _dp_level(nodes, lo, hi, kind, children, node_table, term_index, pos, W, contains,
              row_offsets, row_child, dec_index, V_next, choice):
    B = contains.shape[0]
    X = contains.shape[1]
    A = children.shape[1]
    V = np.zeros((hi - lo, B))
    for i in range(hi - lo):
        h = nodes[lo + i]
        k = kind[h]
        if k == 2:                                              # terminal
            z = term_index[h]
            for b in range(B):
                s = 0.0
                for x in range(X):
                    if contains[b, x] != 0.0:
                        s += W[z, x]
                V[i, b] = s
        elif node_table[h] < 0:                                 # chance / other seats: sum
            for a in range(A):
                c = children[h, a]
                if c >= 0:
                    pc = pos[c]
                    for b in range(B):
                        V[i, b] += V_next[pc, b]
        else:                                                   # a member acts: max over rows
            t = node_table[h]
            d = dec_index[h]
            c0 = children[h, 0]
            c1 = children[h, 1]
            c2 = children[h, 2]
            p0 = pos[c0] if c0 >= 0 else 0
            p1 = pos[c1] if c1 >= 0 else 0
            p2 = pos[c2] if c2 >= 0 else 0
            for b in range(B):
                best = -np.inf
                arg = -1
                for p in range(row_offsets[t, b], row_offsets[t, b + 1]):
                    s = 0.0
                    cb = row_child[p, 0]
                    if cb >= 0:
                        s += V_next[p0, cb]
                    cb = row_child[p, 1]
                    if cb >= 0:
                        s += V_next[p1, cb]
                    cb = row_child[p, 2]
                    if cb >= 0:
                        s += V_next[p2, cb]
                    if s > best:
                        best = s
                        arg = p
                V[i, b] = best
                choice[d, b] = arg
    return V


@njit(cache=True)
def _forward(N, kind, children, node_table, dec_index, choice, row_child,
             row_assign, member_of, dec_pos, roots, B, out0, out1):
    """Walk the argmax from the root beliefs in pre-order and record every reached action."""
    R = row_assign.shape[1]
    A = children.shape[1]
    reached = np.zeros((N, B), np.uint8)
    for b in roots:
        reached[0, b] = 1
    for h in range(N):
        if kind[h] == 2:
            continue
        t = node_table[h]
        for b in range(B):
            if reached[h, b] == 0:
                continue
            if t < 0:
                for a in range(A):
                    c = children[h, a]
                    if c >= 0:
                        reached[c, b] = 1
            else:
                p = choice[dec_index[h], b]
                for a in range(3):
                    cb = row_child[p, a]
                    if cb >= 0:
                        reached[children[h, a], cb] = 1
                base = dec_pos[h] * R
                for r in range(R):
                    act = row_assign[p, r]
                    if act >= 0:
                        if member_of[h] == 0:
                            out0[base + r] = act
                        else:
                            out1[base + r] = act
    return reached


# --------------------------------------------------------------------------- DP API


@dataclass(frozen=True, eq=False)
class MaxDP:
    """Result of :func:`max_dp`.

    Attributes
    ----------
    root_values : (B,) V[root, b] for every belief.
    value : sum of ``root_values`` over ``beliefs.roots``: the team's best-response value.
    choice : (n_dec, B) int32 absolute row (in :class:`PackedTables`) of the maximising
        prescription at each member decision node and belief.
    """

    beliefs: TeamBeliefs
    root_values: np.ndarray
    value: float
    choice: np.ndarray


def leaf_values(beliefs: TeamBeliefs, W: np.ndarray) -> np.ndarray:
    """(Z, B) leaf values ``V(z, b) = sum_{x in b} W[z, x]``."""
    return np.asarray(W, dtype=np.float64) @ beliefs.contains.T


def max_dp(tree: PublicTree, beliefs: TeamBeliefs, W: np.ndarray) -> MaxDP:
    """Maximise ``sum_z sum_x W[z, x] T[z, x]`` over the team's joint pure strategies.

    Parameters
    ----------
    W : (Z, R**m) weights of the team's correlated terminal reach (rows = ``tree.terminals``,
        columns = members' ranks in C order), e.g. from :func:`teamleduc.reach.coalition_weights`.
    """
    W = np.ascontiguousarray(W, dtype=np.float64)
    R, m = beliefs.num_ranks, beliefs.num_members
    if W.shape != (len(tree.terminals), R ** m):
        raise ValueError(f"W has shape {W.shape}, expected ({len(tree.terminals)}, {R ** m})")
    packed = packed_tables(tree, beliefs)
    layout = level_layout(tree)
    B = beliefs.num_beliefs
    choice = np.full((len(packed.dec_nodes), B), -1, np.int32)
    V = np.zeros((0, B))
    kind = tree.kind
    for d in range(len(layout.bounds) - 2, -1, -1):
        V = _dp_level(layout.nodes, layout.bounds[d], layout.bounds[d + 1], kind, tree.children,
                      packed.node_table, layout.term_index, layout.pos, W, beliefs.contains,
                      packed.row_offsets, packed.row_child, packed.dec_index, V, choice)
    root_values = V[0].copy()
    return MaxDP(beliefs=beliefs, root_values=root_values,
                 value=float(root_values[beliefs.roots].sum()), choice=choice)


@functools.lru_cache(maxsize=8)
def _decision_positions(tree: PublicTree) -> np.ndarray:
    """(N,) position of each decision node among its actor's decision nodes (-1 elsewhere)."""
    out = np.full(tree.num_nodes, -1, np.int32)
    for s in range(tree.config.num_seats):
        nodes = tree.decision_nodes(s)
        out[nodes] = np.arange(len(nodes), dtype=np.int32)
    out.setflags(write=False)
    return out


def argmax_actions(tree: PublicTree, dp: MaxDP) -> dict[int, np.ndarray]:
    """The pure joint strategy behind ``dp``: ``{seat: (n_seat,) int8 action per infoset}``.

    Information sets the strategy reaches get the maximising prescription's action; the others
    (ranks ruled out by the team's own earlier actions, or public nodes it never reaches) get
    their first legal action in the order c, r, f.
    """
    beliefs = dp.beliefs
    packed = packed_tables(tree, beliefs)
    from .infosets import infoset_tables
    tables = infoset_tables(tree)
    outs = [np.full(tables[s].size, -1, np.int8) for s in beliefs.seats]
    if len(outs) == 1:
        outs.append(np.full(0, -1, np.int8))
    _forward(tree.num_nodes, tree.kind, tree.children, packed.node_table, packed.dec_index,
             dp.choice, packed.row_child, packed.row_assign, packed.member_of,
             _decision_positions(tree), beliefs.roots, beliefs.num_beliefs, outs[0], outs[1])
    result = {}
    for i, s in enumerate(beliefs.seats):
        act = outs[i]
        first_legal = np.argmax(tables[s].legal, axis=1).astype(np.int8)
        result[s] = np.where(act >= 0, act, first_legal)
    return result


def _warmup() -> None:
    """Compile the kernels on a tiny game."""
    from .config import get_config
    tree = build_tree(get_config("tiny-team"))
    for seats in ((0, 2), (1,)):
        b = team_beliefs(tree, seats)
        W = np.zeros((len(tree.terminals), tree.config.num_ranks ** len(seats)))
        argmax_actions(tree, max_dp(tree, b, W))


__all__ = ["TeamBeliefs", "team_beliefs", "PrescriptionTable", "prescription_table",
           "PackedTables", "packed_tables", "LevelLayout", "level_layout", "MaxDP", "max_dp",
           "leaf_values", "argmax_actions", "legal_code", "CHANCE", "DECISION", "TERMINAL"]
