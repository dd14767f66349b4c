"""The public betting tree as flat numpy arrays.

Every action is public; the only private information is each seat's card. So the toolkit works
on the **public tree** (a node = the public history: actions so far and the community card)
times a small private-card axis. Nodes are numbered in depth-first pre-order with children in
the order c, r, f and community cards weakest first, the order of the spec's information-set
files; hence ``parent[i] < i`` for every non-root node.

Layout (N nodes, S seats, R ranks; ``A = 3 + R`` child slots with a community card, else 3;
``3 + max(R, S)`` with a dealt small blind):

=================  ===========  ==========================================================
``parent``         (N,) int32   parent node, -1 at the root
``action``         (N,) int16   incoming edge: 0 c, 1 r, 2 f, 3 + k community rank k; -1 root
``kind``           (N,) int8    DECISION, CHANCE (community card deal) or TERMINAL
``actor``          (N,) int8    0-based seat to act at decision nodes, else -1
``round``          (N,) int8    0-based betting round
``depth``          (N,) int16   number of edges from the root
``contrib``        (N, S) int32 chips put in by each seat so far (ante included)
``active``         (N, S) bool  seats that have not folded
``community``      (N,) int8    community rank, -1 before it is dealt
``children``       (N, A) int32 child through each slot, -1 where there is none
``legal``          (N, 3) bool  legal actions c, r, f at decision nodes
``blind``          (N,) int8    0-based small-blind seat in games with blinds, else -1 (and
                                -1 at a dealt-blind root)
=================  ===========  ==========================================================

A game whose small blind is dealt (``rlcard-leduc``) has one more chance node, the root: its
edge ``3 + b`` leads to the hand in which 0-based seat b posts the small blind (the hands of
b = 0, 1, ... follow in pre-order), and each outcome has probability 1 / S
(:attr:`PublicTree.blind_probability`). It is the only chance node with ``round == 0`` and
``parent == -1``; every other chance node deals the community card.

The betting subtree of a round depends only on the set of active seats (and, with stacks, on
the chips already in), so it is built once per (round, active set[, contributions]) by stepping
:mod:`teamleduc.rules` and copied under every chance outcome with numpy; no per-node Python
object survives the build. With stacks a round can be over before anyone acts (a called
all-in): its round-2 copies are single terminals right below the chance node.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from . import rules
from .config import PRESETS, GameConfig
from .errors import ArgumentValueError

DECISION, CHANCE, TERMINAL = 0, 1, 2


@dataclass(frozen=True, eq=False)
class PublicTree:
    """The public betting tree of one game; see the module docstring for the layout."""

    config: GameConfig
    parent: np.ndarray
    action: np.ndarray
    kind: np.ndarray
    actor: np.ndarray
    round: np.ndarray
    depth: np.ndarray
    contrib: np.ndarray
    active: np.ndarray
    community: np.ndarray
    children: np.ndarray
    legal: np.ndarray
    blind: np.ndarray

    @property
    def num_nodes(self) -> int:
        return int(self.parent.shape[0])

    @functools.cached_property
    def terminals(self) -> np.ndarray:
        """Terminal node ids, ascending."""
        return np.flatnonzero(self.kind == TERMINAL).astype(np.int32)

    @functools.cached_property
    def pot(self) -> np.ndarray:
        """(N,) total chips in the pot."""
        return self.contrib.sum(axis=1)

    @functools.cached_property
    def levels(self) -> list[np.ndarray]:
        """Node ids grouped by depth: ``levels[d]`` holds every node at depth d, ascending."""
        order = np.argsort(self.depth, kind="stable")
        bounds = np.searchsorted(self.depth[order], np.arange(int(self.depth.max()) + 2))
        return [order[bounds[d] : bounds[d + 1]].astype(np.int32) for d in range(len(bounds) - 1)]

    @functools.cached_property
    def blind_probability(self) -> np.ndarray:
        """(N,) probability of the root chance's outcome on the path to each node: ``1 / S``
        below the dealt small blind (``rlcard-leduc``), 1 everywhere in every other game."""
        p = np.ones(self.num_nodes)
        if self.config.dealt_blind:
            p[self.blind >= 0] = 1.0 / self.config.num_seats
        p.setflags(write=False)
        return p

    def decision_nodes(self, seat: int) -> np.ndarray:
        """Nodes where 0-based ``seat`` acts, in pre-order."""
        return np.flatnonzero((self.kind == DECISION) & (self.actor == seat)).astype(np.int32)

    def path(self, node: int) -> list[int]:
        """Node ids from the root to ``node`` inclusive."""
        out = []
        while node >= 0:
            out.append(int(node))
            node = int(self.parent[node])
        return out[::-1]

    def summary(self) -> dict:
        """Counts used by ``teamleduc info``."""
        return {
            "nodes": self.num_nodes,
            "decision_nodes": int((self.kind == DECISION).sum()),
            "chance_nodes": int((self.kind == CHANCE).sum()),
            "terminals": int((self.kind == TERMINAL).sum()),
            "max_depth": int(self.depth.max()),
        }


@dataclass(frozen=True)
class _RoundTemplate:
    """One betting round from its start, in local pre-order, contributions relative to the start."""

    parent: np.ndarray  # local parent, -1 at the round's first node
    action: np.ndarray  # incoming action 0..2, -1 at the first node
    actor: np.ndarray  # seat to act, -1 at leaves
    depth: np.ndarray  # local depth
    delta: np.ndarray  # (n, S) chips added during the round
    active: np.ndarray  # (n, S)
    leaf: np.ndarray  # 0 inner, 1 hand over (one seat left), 2 round over


def _template_start(config: GameConfig, contrib: np.ndarray) -> tuple[int, ...]:
    """Contributions a round template starts from: zeros (the subtree does not depend on them,
    so one template serves every start) unless stacks make the betting depend on them or
    blinds make them unequal at the start of round 1."""
    if config.stack is None and not config.blinds:
        return (0,) * config.num_seats
    return tuple(int(c) for c in contrib)


@functools.cache
def _round_template(
    config: GameConfig,
    round_: int,
    active0: tuple[bool, ...],
    contrib0: tuple[int, ...],
    first: int = 0,
) -> _RoundTemplate:
    start = rules.start_round(config, round_, contrib0, active0, first)
    origin = np.array(contrib0, np.int32)
    rows: list[tuple] = []  # (parent, action, actor, depth, contrib, active, leaf)

    def visit(state: rules.BettingState, parent: int, action: int, depth: int) -> None:
        me = len(rows)
        status = state.status
        leaf = 0 if status == rules.TO_ACT else (1 if status == rules.HAND_OVER else 2)
        rows.append(
            (
                parent,
                action,
                state.to_act if leaf == 0 else -1,
                depth,
                state.contrib,
                state.active,
                leaf,
            )
        )
        if leaf == 0:
            for a in rules.legal_actions(config, state):
                visit(rules.step(config, state, a), me, a, depth + 1)

    visit(start, -1, -1, 0)
    cols = list(zip(*rows))
    return _RoundTemplate(
        parent=np.array(cols[0], np.int32),
        action=np.array(cols[1], np.int16),
        actor=np.array(cols[2], np.int8),
        depth=np.array(cols[3], np.int16),
        delta=np.array(cols[4], np.int32).reshape(len(rows), config.num_seats) - origin,
        active=np.array(cols[5], bool).reshape(len(rows), config.num_seats),
        leaf=np.array(cols[6], np.int8),
    )


def _template_first(config: GameConfig, small_blind: int) -> int:
    """The seat round 1 is opened from: the small blind in a game with blinds, else seat 1."""
    return small_blind if config.blinds else 0


def _build_hand(config: GameConfig, small_blind: int) -> dict:
    """The tree of one hand below the blinds (``small_blind`` posting the small one): arrays of
    the :class:`PublicTree` layout in local pre-order, without ``children`` and ``legal``."""
    S, R = config.num_seats, config.num_ranks
    base = np.array(rules.posted(config, small_blind), np.int32)
    first = _round_template(
        config,
        0,
        (True,) * S,
        _template_start(config, base),
        _template_first(config, small_blind),
    )

    if not config.has_community:
        parent, action, actor, depth = first.parent, first.action, first.actor, first.depth
        contrib = first.delta + base
        active = first.active
        kind = np.where(first.leaf == 0, DECISION, TERMINAL).astype(np.int8)
        round_ = np.zeros(len(parent), np.int8)
        community = np.full(len(parent), -1, np.int8)
    else:
        # Pieces in pre-order: each round-1 node, and after every round-1 node that ends the
        # round, one copy of the round-2 template per community rank.
        n1 = len(first.parent)
        ends = np.flatnonzero(first.leaf == 2)
        closers = first.actor[first.parent[ends]]  # the seat whose action ended round 1
        seconds = [
            _round_template(
                config,
                1,
                tuple(first.active[e]),
                _template_start(config, first.delta[e] + base),
                rules.second_round_first(config, int(c)),
            )
            for e, c in zip(ends, closers)
        ]
        sizes = np.ones(n1, np.int64)
        sizes[ends] += R * np.array([len(t.parent) for t in seconds], np.int64)
        start = np.concatenate([[0], np.cumsum(sizes)[:-1]])  # global id of each round-1 node
        N = int(sizes.sum())
        parent = np.empty(N, np.int32)
        action = np.empty(N, np.int16)
        actor = np.empty(N, np.int8)
        depth = np.empty(N, np.int16)
        contrib = np.empty((N, S), np.int32)
        active = np.empty((N, S), bool)
        kind = np.empty(N, np.int8)
        round_ = np.empty(N, np.int8)
        community = np.empty(N, np.int8)

        g = start
        parent[g] = np.where(first.parent >= 0, start[np.maximum(first.parent, 0)], -1)
        action[g], actor[g], depth[g] = first.action, first.actor, first.depth
        contrib[g] = first.delta + base
        active[g] = first.active
        kind[g] = np.select([first.leaf == 0, first.leaf == 1], [DECISION, TERMINAL], CHANCE)
        round_[g] = 0
        community[g] = -1
        for e, t in zip(ends, seconds):
            n2 = len(t.parent)
            at = start[e] + 1
            for k in range(R):
                sl = slice(at, at + n2)
                parent[sl] = np.where(t.parent >= 0, t.parent + at, start[e])
                action[sl] = t.action
                action[at] = 3 + k
                actor[sl] = t.actor
                depth[sl] = t.depth + first.depth[e] + 1
                contrib[sl] = t.delta + contrib[start[e]]
                active[sl] = t.active
                kind[sl] = np.where(t.leaf == 0, DECISION, TERMINAL)
                round_[sl] = 1
                community[sl] = k
                at += n2
    return dict(
        parent=parent,
        action=action,
        kind=kind,
        actor=actor,
        round=round_,
        depth=depth,
        contrib=contrib,
        active=active,
        community=community,
    )


#: the most public nodes a game's tree may have (``build_tree`` refuses more): team-leduc, the
#: largest preset, has 448,532; a tree of this size takes about a gigabyte and minutes to build
MAX_TREE_NODES = 20_000_000


def count_nodes(config: GameConfig) -> int:
    """The number of public nodes of ``config``'s tree, counted without building it: a betting
    round's nodes by a recursion over its betting states, each distinct state counted once
    (:class:`rules.BettingState` is hashable), so a game of billions of nodes is counted in
    milliseconds. The same pieces as :func:`_build_hand` (tested equal to the built trees)."""
    S, R = config.num_seats, config.num_ranks
    memo: dict = {}

    def round_nodes(state: rules.BettingState) -> tuple[int, Counter]:
        """Nodes of the round from ``state`` on, and its ends: (active, contrib, closer)."""
        if state in memo:
            return memo[state]
        nodes, ends = 1, Counter()
        if state.status == rules.TO_ACT:
            for a in rules.legal_actions(config, state):
                child = rules.step(config, state, a)
                if child.status == rules.ROUND_OVER:
                    nodes += 1
                    ends[(child.active, child.contrib, state.to_act)] += 1
                else:
                    n, e = round_nodes(child)
                    nodes += n
                    ends.update(e)
        memo[state] = nodes, ends
        return nodes, ends

    def hand_nodes(small_blind: int) -> int:
        base = np.array(rules.posted(config, small_blind), np.int64)
        contrib0 = _template_start(config, base)
        first = rules.start_round(
            config, 0, contrib0, (True,) * S, _template_first(config, small_blind)
        )
        n1, ends = round_nodes(first)
        if not config.has_community:
            return n1
        total = n1
        for (active, contrib, closer), times in ends.items():
            start = _template_start(config, np.array(contrib) - np.array(contrib0) + base)
            second = rules.start_round(
                config, 1, start, active, rules.second_round_first(config, int(closer))
            )
            total += times * R * round_nodes(second)[0]
        return total

    if not config.dealt_blind:
        return hand_nodes(0)
    return 1 + sum(hand_nodes(b) for b in range(S))


@functools.lru_cache(maxsize=8)
def build_tree(config: GameConfig) -> PublicTree:
    """The public tree of ``config`` (cached: built once per configuration). A game of more
    than :data:`MAX_TREE_NODES` public nodes is refused (ArgumentValueError), before any of it
    is built."""
    S, R = config.num_seats, config.num_ranks
    nodes = 0 if PRESETS.get(config.name) == config else count_nodes(config)  # presets fit
    if nodes > MAX_TREE_NODES:
        raise ArgumentValueError(
            f"{config.name}: its public tree has {nodes:,} nodes, more than the toolkit builds "
            f"({MAX_TREE_NODES:,}; team-leduc has 448,532): fewer seats, a lower max_raises or "
            "fewer ranks"
        )
    if not config.dealt_blind:
        arrays = _build_hand(config, 0)
        blind = np.full(len(arrays["parent"]), 0 if config.blinds else -1, np.int8)
    else:
        # The root is the public chance node that picks the small-blind seat b (edge 3 + b),
        # then the hand of each b in turn: pre-order, parent[i] < i still holds.
        hands = [_build_hand(config, b) for b in range(S)]
        sizes = [len(h["parent"]) for h in hands]
        offsets = np.concatenate([[1], 1 + np.cumsum(sizes)[:-1]])
        arrays = {}
        for key in hands[0]:
            root = {
                "parent": -1,
                "action": -1,
                "kind": CHANCE,
                "actor": -1,
                "round": 0,
                "depth": 0,
                "contrib": np.full(S, config.ante),
                "active": np.ones(S, bool),
                "community": -1,
            }[key]
            parts = [np.asarray(root, hands[0][key].dtype)[None]]
            for b, (h, off) in enumerate(zip(hands, offsets)):
                a = h[key]
                if key == "parent":
                    a = np.where(a >= 0, a + off, 0).astype(a.dtype)
                elif key == "action":
                    a = a.copy()
                    a[0] = 3 + b
                elif key == "depth":
                    a = a + 1
                parts.append(a)
            arrays[key] = np.concatenate(parts)
        blind = np.concatenate([[-1]] + [np.full(n, b) for b, n in enumerate(sizes)])
        blind = blind.astype(np.int8)

    parent, action, kind = arrays["parent"], arrays["action"], arrays["kind"]
    N = len(parent)
    width = 3 + max(R if config.has_community else 0, S if config.dealt_blind else 0)
    children = np.full((N, width), -1, np.int32)
    nonroot = np.flatnonzero(parent >= 0)
    children[parent[nonroot], action[nonroot]] = nonroot
    legal = (children[:, :3] >= 0) & (kind == DECISION)[:, None]
    arrays.update(children=children, legal=legal, blind=blind)
    for a in arrays.values():
        a.setflags(write=False)
    return PublicTree(config=config, **arrays)
