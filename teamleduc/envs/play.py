"""What ``teamleduc play`` needs besides the terminal: reading a keystroke as an action, and the
exact expected utility of one seat when a submission plays every seat (the benchmark a person
compares their own result with).

A seat's own utility is not a team value, so :func:`seat_value` is computed here with the
evaluator's machinery: for each signal ``j`` of the seat's team (drawn once, shared with the
teammates), the seat's value is linear in its own terminal reach,
``sum_z sum_x W_j[z, x] R_seat^j[z, x]``, with ``W_j`` (:func:`teamleduc.reach.coalition_weights`)
folding chance, the seat's payoff, its teammates' reach under ``j`` and every other team's
correlated reach. Exact: nothing is sampled.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..config import get_config
from ..errors import ArgumentTypeError, ArgumentValueError
from ..files.model import Submission
from ..reach import coalition_weights, seat_terminal_reach, team_reach
from ..tree import build_tree
from .policies import team_entrants

__all__ = ["ACTION_WORDS", "parse_action", "seat_value"]

#: what a person may type for each action (case-insensitive)
ACTION_WORDS = {
    0: ("c", "call", "check", "0"),
    1: ("r", "raise", "bet", "1"),
    2: ("f", "fold", "2"),
}
_LOOKUP = {w: a for a, words in ACTION_WORDS.items() for w in words}


def parse_action(text: str) -> int | None:
    """0 c, 1 r, 2 f for a typed word (``c``, ``call``, ``check``, ``r``, ``raise``, ``f``,
    ``fold``, or the digit); None if it is none of them. TypeError if ``text`` is not a str."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f"text must be a str, not {type(text).__name__}")
    return _LOOKUP.get(text.strip().lower())


def seat_value(preset, players, seat: int) -> float:
    """Exact expected utility of 0-based ``seat`` when ``players`` (one submission argument for
    every team, or one per team) play every seat, in chips per hand. A seat that is not an int
    of ``0..num_seats - 1`` is refused (TypeError / ValueError naming it)."""
    config = get_config(preset)
    if isinstance(seat, bool) or not isinstance(seat, numbers.Integral):
        raise ArgumentTypeError(f"seat must be a 0-based int, not {type(seat).__name__} {seat!r}")
    if not 0 <= seat < config.num_seats:
        raise ArgumentValueError(
            f"seat {int(seat)}: {config.name} has 0-based seats 0..{config.num_seats - 1}"
        )
    seat = int(seat)
    tree = build_tree(config)
    entrants = team_entrants(config, players)
    t = config.team_of(seat)
    others = [
        (tuple(team), team_reach(tree, entrants[u].submission, tuple(team)))
        for u, team in enumerate(config.teams)
        if u != t
    ]
    sub = entrants[t].submission
    mates = tuple(s for s in config.teams[t] if s != seat)
    total = 0.0
    for k, p in enumerate(np.asarray(sub.probs, dtype=np.float64).tolist()):
        if p == 0.0:
            continue
        fixed = list(others)
        if mates:
            one = Submission(
                np.zeros(1, np.int64),
                np.ones(1),
                mates,
                {m: sub.strategies[m][k : k + 1] for m in mates},
            )
            fixed.append((mates, team_reach(tree, one, mates)))
        w = coalition_weights(tree, (seat,), fixed)
        reach = seat_terminal_reach(tree, seat, np.ascontiguousarray(sub.strategies[seat][k]))
        total += p * float((w * reach).sum())
    return total + 0.0
