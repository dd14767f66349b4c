"""Pure joint strategies of a team on its belief DAG: extraction and terminal reach.

A pure team strategy picks one prescription row per DAG node it reaches; read per information
set, it is an action for every information set of every member (:class:`PureTeamStrategy`).
:func:`extract_pure` walks down the DAG choosing rows by best-response values, a row score or
a choice recorded by the max DP (:func:`teamleduc.dag.passes.max_dp_levels`);
:func:`pure_reach` and :func:`product_reach` give the terminal reach of a pure strategy and of a
product of behavioural strategies, the columns of the solver's restricted games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..infosets import infoset_tables
from ..reach import seat_reach
from .kernels import BY_CHOICE, BY_SCORE, BY_VALUES, _extract, _pure_seat_reach
from .passes import best_values
from .structure import DagGame, TeamDag, team_index, team_nodes

_NO_CHOICE = np.zeros((0, 0), np.int32)


@dataclass(frozen=True, eq=False)
class PureTeamStrategy:
    """A pure joint strategy of one team: an action per information set of every member.

    ``actions[k]`` is (n_seat,) int8 for ``seats[k]``; information sets the strategy never
    reaches play their first legal action. ``rows`` are the DAG rows it uses."""

    seats: tuple[int, ...]
    actions: tuple[np.ndarray, ...]
    rows: np.ndarray

    def key(self) -> bytes:
        return b"".join(a.tobytes() for a in self.actions)

    def strategies(self) -> dict[int, np.ndarray]:
        """{seat: (n, 3) point masses}."""
        out = {}
        for s, a in zip(self.seats, self.actions):
            p = np.zeros((a.shape[0], 3))
            p[np.arange(a.shape[0]), a] = 1.0
            out[s] = p
        return out


_EMPTY_F8 = np.zeros(0)


def extract_pure(
    dag: TeamDag,
    V: np.ndarray | None = None,
    score: np.ndarray | None = None,
    choice: np.ndarray | None = None,
) -> PureTeamStrategy:
    """The pure team strategy picking, at every DAG node it reaches, the row with the best
    continuation value in ``V`` (as filled by :func:`best_values`), the largest ``score``, or
    the row recorded in ``choice`` (from :func:`max_dp_levels`)."""
    tree = dag.tree
    if choice is not None:
        mode = BY_CHOICE
        if choice.dtype != np.int32 or choice.shape != (len(team_nodes(dag)), dag.num_beliefs):
            raise ValueError(
                f"choice must be int32 of shape (team nodes, B) = "
                f"{(len(team_nodes(dag)), dag.num_beliefs)}, got {choice.dtype} {choice.shape}"
            )
    elif score is not None:
        mode = BY_SCORE
    elif V is not None:
        mode = BY_VALUES
    else:
        raise ValueError("give V (best-response values), a row score or a recorded choice")
    Vw = V if mode == BY_VALUES else np.zeros((tree.num_nodes + 1, 1))
    tabs = infoset_tables(tree)
    acts = [np.full(tabs[s].size, -1, np.int8) for s in dag.seats]
    a1 = acts[1] if len(acts) > 1 else np.zeros(0, np.int8)
    chosen = np.empty(tree.num_nodes * len(dag.roots), np.int64)
    n = _extract(
        tree.kind,
        tree.children,
        dag.member,
        dag.table,
        dag.row0,
        dag.tab_offsets,
        dag.tab_start,
        dag.tab_child,
        dag.tab_assign,
        dag.id_of,
        dag.roots,
        Vw,
        _EMPTY_F8 if mode != BY_SCORE else np.asarray(score),
        _NO_CHOICE if mode != BY_CHOICE else choice,
        team_index(dag),
        mode,
        acts[0],
        a1,
        chosen,
    )
    for k, a in enumerate(acts):
        unset = a < 0
        a[unset] = dag.legal_first[k][unset]
    return PureTeamStrategy(dag.seats, tuple(acts), chosen[:n].copy())


def best_response_pure(
    game: DagGame, team: int, reach_other: np.ndarray, V: np.ndarray
) -> tuple[float, PureTeamStrategy]:
    """Exact team best response to the other team's reach: its value and a pure joint
    strategy (``V`` is scratch of shape (N, B))."""
    value = best_values(game, team, reach_other, V)
    return value, extract_pure(game.dags[team], V=V)


def pure_reach(dag: TeamDag, pure: PureTeamStrategy) -> np.ndarray:
    """(Z, X) uint8 terminal reach (0 or 1) of a pure team strategy."""
    tree = dag.tree
    R = tree.config.num_ranks
    Z = len(tree.terminals)
    out = np.ones((Z,) + (1,) * dag.num_members, np.uint8)
    for k, (s, acts) in enumerate(zip(pure.seats, pure.actions)):
        r = np.empty((tree.num_nodes, R), np.uint8)
        _pure_seat_reach(tree.parent, tree.action, tree.actor, tree.kind, dag.id_of[k], s, acts, r)
        shape = [Z] + [1] * dag.num_members
        shape[1 + k] = R
        out = out * r[tree.terminals].reshape(shape)
    return np.ascontiguousarray(out.reshape(Z, -1))


def product_reach(dag: TeamDag, strategies: dict) -> np.ndarray:
    """(Z, X) float64 terminal reach of a product of the members' behavioural strategies."""
    tree = dag.tree
    tabs = infoset_tables(tree)
    Z = len(tree.terminals)
    out = np.ones((Z,) + (1,) * dag.num_members)
    for k, s in enumerate(dag.seats):
        r = seat_reach(tree, tabs[s], strategies[s])[tree.terminals]
        shape = [Z] + [1] * dag.num_members
        shape[1 + k] = tree.config.num_ranks
        out = out * r.reshape(shape)
    return np.ascontiguousarray(out.reshape(Z, -1))
