"""Baseline opponents: simple full submissions usable by name wherever a submission is accepted.

Every baseline is one signal (probability 1) and plays every seat with the same rule, defined on
an information set (public node, own rank) of any preset:

``uniform``
    uniform over the legal actions (the handout's example submission).
``always-call``
    ``c`` everywhere: call a bet, check otherwise; never raises, never folds.
``aggressive``
    ``r`` whenever it is legal, else ``c``; never folds.
``cautious``
    plays strong cards only. A hand is *strong* if it holds the highest rank (K) or, in round 2,
    pairs the community card; *medium* if it holds the second-highest rank (Q) without a pair;
    *weak* otherwise (J). Strong: raise if legal, else call. Medium: call (check when there is
    no bet). Weak: fold when facing a bet, check otherwise.
``random-pure`` / ``random-pure:SEED``
    a pure strategy: at every information set one legal action drawn uniformly at random with
    ``numpy.random.default_rng(SEED)`` (seed 0 by default): for seat 1, 2, ... in turn, one
    uniform draw ``u`` per information set in file order picks legal action
    ``floor(u * number of legal actions)`` in the order c, r, f. The same seed and preset always
    give the same strategy.

``cfr:N``
    the toolkit's own solver stopped after N iterations (N >= 1), for two-player presets: the
    solver's regret minimiser running DCFR as published (alpha 1.5, beta 0, gamma 2,
    alternating updates, :mod:`teamleduc.solver.dag_cfr`; the solver's own ``dcfr`` averages
    with gamma 3) from uniform, and its **average** strategy after N
    iterations, one signal. Deterministic (no randomness anywhere), so ``cfr:10``,
    ``cfr:100``, ``cfr:1000`` are the pokercamp page's "solver bots run for a range of
    iterations", from far from equilibrium to close to it.

``rlcard-v1`` / ``rlcard-v2`` (``rlcard-leduc`` only)
    RLCard 1.2.0's ``LeducHoldemRuleAgentV1`` and ``LeducHoldemRuleAgentV2``
    (``rlcard/models/leducholdem_rule_models.py``), the seed report's "aggressive" and
    "cautious" bots, exactly as their code acts on RLCard's state. V1: ``raise`` if legal, else
    ``call``, else ``check`` (never folds). V2 reads ``hand[0]`` and ``hand[1]`` of RLCard's card
    strings, which are suit then rank (``'SJ'``, ``'HK'``): in round 1 it tests the *suit*
    against ``'K'`` and ``'Q'``, which never matches, so it folds at its first decision with
    every card (fold is always legal in RLCard's Leduc), and so never reaches round 2, where its
    code raises with a pair (calls once the raises are capped) and folds otherwise. Their comments describe hold'em hands, not this code. On
    any other game they are refused (:data:`RLCARD_BASELINES`): their rules read RLCard's state.

These are the opponent types of the seed project report (random, aggressive and cautious agents),
evaluated exactly here instead of by sampled games.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from .config import PRESETS, GameConfig, require_config
from .errors import ArgumentValueError, TeamLeducError
from .files.model import Submission
from .files.writing import write_submission
from .infosets import infoset_tables
from .rules import CALL, FOLD, RAISE
from .tree import PublicTree, build_tree

BASELINES = ("uniform", "always-call", "aggressive", "cautious", "random-pure")
#: RLCard's rule agents: baselines of the games with RLCard's Leduc rules only (not in
#: BASELINES, the names every preset accepts)
RLCARD_BASELINES = ("rlcard-v1", "rlcard-v2")
_RANDOM = re.compile(r"^random-pure(?::(\d{1,18}))?$")
_CFR = re.compile(r"^cfr:(\d{1,7})$")
#: the largest N of ``cfr:N`` (1e6 iterations of leduc-stack50 take hours already)
MAX_CFR_ITERATIONS = 1_000_000


#: a prefix naming a baseline explicitly (``baseline:cautious``), never a path: what to write
#: when a file or folder of the baseline's name exists (``./cautious`` is the folder)
PREFIX = "baseline:"


def parse_baseline(name: str) -> tuple[str, int]:
    """``(kind, seed)`` of a baseline name, with or without :data:`PREFIX`;
    :class:`~teamleduc.errors.ArgumentValueError` (a TeamLeducError) if it is not one."""
    text = str(name).strip().lower()
    if text.startswith(PREFIX):
        text = text[len(PREFIX) :].strip()
    m = _RANDOM.match(text)
    if m:
        return "random-pure", int(m.group(1) or 0)
    m = _CFR.match(text)
    if m:
        n = int(m.group(1))
        if not 1 <= n <= MAX_CFR_ITERATIONS:
            raise ArgumentValueError(
                f"baseline {name!r}: cfr:N needs 1 <= N <= {MAX_CFR_ITERATIONS:,} iterations"
            )
        return "cfr", n
    if text in BASELINES or text in RLCARD_BASELINES:
        return text, 0
    raise ArgumentValueError(
        f"unknown baseline {name!r}; baselines: {', '.join(BASELINES)} "
        f"({', '.join(RLCARD_BASELINES)} on rlcard-leduc) "
        "(random-pure takes a seed as random-pure:SEED), cfr:N (the solver after N iterations)"
    )


def is_baseline(name: object) -> bool:
    try:
        parse_baseline(name)
    except TeamLeducError:
        return False
    return True


def canonical_name(name: str) -> str:
    """``random-pure:SEED`` with its seed spelled out; other names unchanged (lower case)."""
    kind, seed = parse_baseline(name)
    return f"{kind}:{seed}" if kind in ("random-pure", "cfr") else kind


def _one_hot(action: np.ndarray) -> np.ndarray:
    out = np.zeros((len(action), 3))
    out[np.arange(len(action)), action] = 1.0
    return out


def plays_rlcard_rules(config: GameConfig) -> bool:
    """Whether ``config`` has RLCard's Leduc rules (those of ``rlcard-leduc``, any name)."""
    return config.replace(name="rlcard-leduc") == PRESETS["rlcard-leduc"]


def baselines_for(config: GameConfig) -> tuple[str, ...]:
    """The baseline names ``config`` accepts without a seed: :data:`BASELINES`, and
    :data:`RLCARD_BASELINES` on RLCard's Leduc."""
    return BASELINES + (RLCARD_BASELINES if plays_rlcard_rules(config) else ())


def _rlcard_agent(kind: str, tree: PublicTree, table) -> np.ndarray:
    """The action (0 c, 1 r, 2 f) of RLCard's rule agent ``kind`` at every information set.

    RLCard offers ``call`` (facing a bet) or ``check`` (not facing one): both are our ``c``;
    ``raise`` is our ``r`` and ``fold`` our ``f`` (always legal in RLCard's Leduc)."""
    config = tree.config
    if not plays_rlcard_rules(config):
        raise ArgumentValueError(
            f"baseline {kind} is RLCard's LeducHoldemRuleAgent{kind[-2:].upper()}: it reads "
            f"RLCard's state and plays only RLCard's Leduc (--preset rlcard-leduc), not "
            f"{config.name}; on {config.name} use aggressive or cautious"
        )
    legal = table.legal
    raise_else_call = np.where(legal[:, RAISE], RAISE, CALL)
    if kind == "rlcard-v1":  # 'raise' if legal, else 'call', else 'check': never 'fold'
        return raise_else_call
    # V2: hand = suit + rank ('SJ'); round 1 compares the suit hand[0] with 'K' and 'Q' (never
    # equal): 'fold', which is legal. Round 2: public_card[1] == hand[1] (ranks: a pair) ->
    # 'raise', or 'call' when raising is capped; else 'fold'.
    community = tree.community[table.node].astype(np.int64)
    pair = (community >= 0) & (table.rank.astype(np.int64) == community)
    return np.where(pair, raise_else_call, FOLD)


def baseline_strategy(name: str, tree: PublicTree, seat: int) -> np.ndarray:
    """(n, 3) behavioural strategy of 0-based ``seat`` under baseline ``name`` (columns c r f)."""
    kind, seed = parse_baseline(name)
    table = infoset_tables(tree)[seat]
    legal = table.legal
    if kind in RLCARD_BASELINES:
        return _one_hot(_rlcard_agent(kind, tree, table))
    if kind == "cfr":
        return solver_average(tree.config, seed)[seat].copy()
    if kind == "uniform":
        return table.uniform_strategy()
    if kind == "always-call":
        return _one_hot(np.full(table.size, CALL))
    if kind == "aggressive":
        return _one_hot(np.where(legal[:, RAISE], RAISE, CALL))
    if kind == "cautious":
        R = tree.config.num_ranks
        rank = table.rank.astype(np.int64)
        community = tree.community[table.node].astype(np.int64)
        strong = (rank == R - 1) | ((community >= 0) & (rank == community))
        medium = ~strong & (rank == R - 2)
        facing = legal[:, FOLD]
        action = np.where(
            strong, np.where(legal[:, RAISE], RAISE, CALL), np.where(facing & ~medium, FOLD, CALL)
        )
        return _one_hot(action)
    # random-pure: the draws of every seat, in seat order, so a seat's strategy does not depend
    # on which other seats are requested.
    rng = np.random.default_rng(seed)
    for s in range(seat + 1):
        u = rng.random(infoset_tables(tree)[s].size)
    n_legal = legal.sum(axis=1)
    k = np.minimum((u * n_legal).astype(np.int64), n_legal - 1)
    # the k-th legal action in the order c, r, f
    order = np.cumsum(legal, axis=1) - 1
    action = np.argmax(legal & (order == k[:, None]), axis=1)
    return _one_hot(action)


#: the ``cfr:N`` baseline is the solver's output, and the solver sits layers above this module;
#: it is looked up by module name at first use (a plug-in), so that loading entrants never
#: imports the solver and the import graph stays one-way
CFR_PROVIDER = "teamleduc.solver.cfr_baseline"


def solver_average(config: GameConfig, iterations: int) -> dict[int, np.ndarray]:
    """{seat: (n, 3)} average strategies of the toolkit's DCFR after ``iterations`` (the
    ``cfr:N`` baseline; see :func:`teamleduc.solver.cfr_baseline.solver_average`)."""
    return importlib.import_module(CFR_PROVIDER).solver_average(config, iterations)


def baseline(name: str, config: GameConfig, seats: Iterable[int] | None = None) -> Submission:
    """The baseline ``name`` as a one-signal Submission playing ``seats`` (default: every seat)."""
    require_config(config)
    tree = build_tree(config)
    seats = (
        tuple(range(config.num_seats)) if seats is None else tuple(sorted(int(s) for s in seats))
    )
    strategies = {s: baseline_strategy(name, tree, s)[None] for s in seats}
    return Submission(
        signals=np.zeros(1, np.int64), probs=np.ones(1), seats=seats, strategies=strategies
    )


def export_baseline(
    name: str,
    config: GameConfig,
    out: str | os.PathLike[str],
    seats: Iterable[int] | None = None,
    overwrite: bool = False,
) -> Path:
    """Write baseline ``name`` as a submission: a folder, or a ``.zip`` if ``out`` ends in
    ``.zip`` (meta-strategy.csv and strategy0-player{i}.csv for every seat). Returns ``out``."""
    require_config(config)
    return write_submission(baseline(name, config, seats), out, overwrite=overwrite, config=config)
