"""Card abstraction of 100-card Kuhn: uniform buckets against buckets the toolkit optimises.

The pokercamp page suggests solving 100-card Kuhn on 10 buckets of cards ("1-10, 11-20, ...")
and asks whether a better bucketing exists. Here every bucketing is measured exactly.

**The abstract game.** Each player observes only the bucket of its card; the betting is the
game's. It is a Kuhn-like game over B signals whose chance and payoffs are those of the real
deal, aggregated:

* the deal of buckets (b1, b2) has probability
  ``P(b1, b2) = n_b1 (n_b2 - [b1 = b2]) / (N (N - 1))`` (n_b cards in bucket b, N cards:
  the two cards are distinct, so a shared bucket has one card fewer for the second player);
* at a showdown for ``s`` chips each, seat 1's expected utility is ``s (2 w(b1, b2) - 1)``,
  where ``w`` is the probability that seat 1's card is higher given the buckets: 1 or 0 for
  different buckets of consecutive cards, and exactly 1/2 within one bucket (of the
  ``n (n - 1)`` ordered pairs of distinct cards, half have the first card higher). So two
  players in the same bucket split the showdown on average, although one of them always wins.

Nothing is approximated: :func:`teamleduc.solver.sequence_form.solve_sequence_form` with
``buckets`` builds the abstract sequence-form LP by summing the game's exact payoff entries over
the cards of each bucket, which is exactly ``P(b1, b2) * s (2 w - 1)`` (the tests check this
against a separate LP written from the two formulas above).

**What is measured** for a bucketing: (1) the abstract game's value (its P2 advantage is minus
that); (2) the exact NashConv, in the full game, of the abstract equilibrium *lifted* (every
card plays its bucket's strategy), measured by :func:`teamleduc.best_response.nash_conv`;
(3) the lifted strategy's expected chips per hand against the full game's exact equilibrium,
playing both seats once (``(u_1(L_1, E_2) + u_2(E_1, L_2)) / 2``; the equilibrium itself
scores 0 here, so this is what the abstraction costs in the page's match format).

**The better bucketing.** Buckets are contiguous ranges of cards (B - 1 cut points). Starting
from the uniform cuts, a deterministic local search moves one cut at a time by ``step`` cards
(steps 8, 4, 2, 1), takes the move that lowers (2) the most, and repeats until no move helps,
then halves the step. Each evaluation is one small LP plus one exact NashConv (~20 ms for
kuhn-100), so the search measures the real objective instead of a proxy. Why it wins: an
equilibrium of 100-card Kuhn is made of thresholds (bluff with the lowest cards, bet the
highest, call above a cut-off); a bucket that straddles a threshold forces one action on cards
that want different ones, while buckets far from every threshold lose nothing. The search
narrows the buckets around the thresholds and widens them elsewhere.
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..config import GameConfig, get_config, require_config
from ..errors import TeamLeducError
from ..outputs import save_png, write_text_atomic
from .tables import csv_text, json_text, markdown_table, pyplot

DEFAULT_BUCKETS = 10
STEPS = (8, 4, 2, 1)

COLUMNS = [
    ("bucketing", "bucketing"),
    ("buckets", "buckets"),
    ("abstract_value", "abstract value (seat 1)"),
    ("abstract_p2_advantage", "P2 advantage in abstraction"),
    ("lifted_nash_conv", "lifted NashConv (full game)"),
    ("ev_vs_equilibrium", "EV vs full equilibrium"),
]
FORMATS = {
    "abstract_value": "+.9f",
    "abstract_p2_advantage": "+.9f",
    "lifted_nash_conv": ".6f",
    "ev_vs_equilibrium": "+.6f",
}


def check_arguments(config: GameConfig, buckets: int) -> None:
    """TeamLeducError unless ``config`` is a two-player game and 1 <= buckets <= ranks."""
    if config.num_seats != 2 or any(len(t) != 1 for t in config.teams):
        raise TeamLeducError(f"--preset: {config.name} is not a two-player game")
    if isinstance(buckets, bool) or not isinstance(buckets, numbers.Integral):
        raise TeamLeducError(f"--buckets must be an int, not {type(buckets).__name__} {buckets!r}")
    if not 1 <= buckets <= config.num_ranks:
        raise TeamLeducError(
            f"--buckets must be between 1 and {config.num_ranks} (the ranks of "
            f"{config.name}), not {buckets}"
        )


def uniform_cuts(num_ranks: int, buckets: int) -> tuple[int, ...]:
    """Cut points of (nearly) equal contiguous buckets: 10, 20, ..., 90 for 100 cards."""
    return tuple(round(k * num_ranks / buckets) for k in range(1, buckets))


def bucket_of(num_ranks: int, cuts) -> np.ndarray:
    """(R,) bucket of every rank: the number of cuts at or below it."""
    return np.searchsorted(np.asarray(cuts, np.int64), np.arange(num_ranks), side="right")


def ranges_text(config: GameConfig, cuts) -> str:
    """Buckets as card ranges, e.g. ``1-10 11-20 ...`` (rank names, weakest first)."""
    edges = [0, *cuts, config.num_ranks]
    names = config.ranks
    return " ".join(
        names[a] if b - a == 1 else f"{names[a]}-{names[b - 1]}" for a, b in zip(edges, edges[1:])
    )


@dataclass(frozen=True)
class BucketingRow:
    """The measurements of one bucketing (see the module docstring)."""

    bucketing: str
    cuts: tuple[int, ...]
    ranges: str
    abstract_value: float
    lifted_nash_conv: float
    ev_vs_equilibrium: float
    evaluations: int
    seconds: float

    @property
    def buckets(self) -> int:
        return len(self.cuts) + 1

    def to_dict(self) -> dict:
        return {
            "bucketing": self.bucketing,
            "buckets": self.buckets,
            "abstract_value": self.abstract_value,
            "abstract_p2_advantage": -self.abstract_value,
            "lifted_nash_conv": self.lifted_nash_conv,
            "ev_vs_equilibrium": self.ev_vs_equilibrium,
            "ranges": self.ranges,
            "cuts": list(self.cuts),
            "evaluations": self.evaluations,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class AbstractionResult:
    preset: str
    full_value: float
    rows: tuple[BucketingRow, ...]
    strategy: dict  # the full game's equilibrium behaviour (for the picture)

    def table(self) -> str:
        return markdown_table(COLUMNS, [r.to_dict() for r in self.rows], FORMATS)

    def __str__(self) -> str:
        lines = [
            f"{self.preset}: full game value for seat 1 {self.full_value:+.9f} "
            f"(P2 advantage {-self.full_value:+.9f})",
            self.table().rstrip("\n"),
        ]
        for r in self.rows:
            lines.append(f"{r.bucketing} buckets: {r.ranges}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "preset": self.preset,
            "full_value": self.full_value,
            "full_p2_advantage": -self.full_value,
            "bucketings": [r.to_dict() for r in self.rows],
        }


class _Evaluator:
    """Measures bucketings of one game against its exact equilibrium (memoised by cuts)."""

    def __init__(self, config: GameConfig):
        from ..solver.sequence_form import solve_sequence_form

        self.config = config
        self.full = solve_sequence_form(config)
        self.memo: dict[tuple[int, ...], tuple[float, float, object]] = {}

    def lifted(self, cuts: tuple[int, ...]):
        """(abstract value, lifted NashConv, lifted submission) of ``cuts``."""
        from ..best_response import nash_conv
        from ..solver.sequence_form import solve_sequence_form

        if cuts not in self.memo:
            sol = solve_sequence_form(self.config, bucket_of(self.config.num_ranks, cuts))
            sub = sol.submission()
            self.memo[cuts] = (sol.value, float(nash_conv(self.config, sub).nash_conv), sub)
        return self.memo[cuts]

    def ev_vs_equilibrium(self, submission) -> float:
        """Mean of the lifted strategy's utility as seat 1 and as seat 2 against the full
        game's equilibrium."""
        from ..evaluate import evaluate

        eq = self.full.submission()
        as_1 = evaluate(submission, eq, self.config).value
        as_2 = -evaluate(eq, submission, self.config).value
        return (as_1 + as_2) / 2

    def row(self, name: str, cuts: tuple[int, ...], seconds: float) -> BucketingRow:
        value, nc, sub = self.lifted(cuts)
        return BucketingRow(
            bucketing=name,
            cuts=cuts,
            ranges=ranges_text(self.config, cuts),
            abstract_value=value,
            lifted_nash_conv=max(nc, 0.0),
            ev_vs_equilibrium=self.ev_vs_equilibrium(sub),
            evaluations=len(self.memo),
            seconds=seconds,
        )


def optimise_cuts(evaluator: _Evaluator, cuts: tuple[int, ...], progress=None) -> tuple:
    """Best-improvement local search over the cut points (module docstring); deterministic."""
    R = evaluator.config.num_ranks
    best = evaluator.lifted(cuts)[1]
    for step in STEPS:
        while True:
            moves = []
            for i in range(len(cuts)):
                for delta in (-step, step):
                    c = list(cuts)
                    c[i] += delta
                    lo = c[i - 1] if i > 0 else 0
                    hi = c[i + 1] if i + 1 < len(c) else R
                    if lo < c[i] < hi:
                        moves.append(tuple(c))
            scored = [(evaluator.lifted(m)[1], m) for m in moves]
            if not scored:
                break
            score, move = min(scored)
            if score >= best - 1e-12:
                break
            best, cuts = score, move
            if progress:
                progress(f"  step {step}: NashConv {best:.6f} with cuts {list(cuts)}")
    return cuts


def abstraction_study(
    config: GameConfig, buckets: int = DEFAULT_BUCKETS, progress=None
) -> AbstractionResult:
    """Measure the uniform bucketing and the locally optimised one of ``config``."""
    require_config(config)
    check_arguments(config, buckets)
    t0 = time.perf_counter()
    if progress:
        progress(f"solving {config.name} exactly (sequence-form LP)")
    ev = _Evaluator(config)
    uniform = uniform_cuts(config.num_ranks, buckets)
    rows = [ev.row("uniform", uniform, time.perf_counter() - t0)]
    if progress:
        progress(f"uniform: lifted NashConv {rows[0].lifted_nash_conv:.6f}; optimising the cuts")
    t1 = time.perf_counter()
    better = optimise_cuts(ev, uniform, progress)
    rows.append(ev.row("optimised", better, time.perf_counter() - t1))
    return AbstractionResult(
        preset=config.name, full_value=ev.full.value, rows=tuple(rows), strategy=ev.full.strategies
    )


def _first_action_curves(config: GameConfig, strategy: dict) -> dict[str, np.ndarray]:
    """Probabilities by card of the equilibrium's first decisions (Kuhn-like games): seat 1
    raises first; seat 2 raises after a check; seat 2 calls a raise."""
    from ..infosets import infoset_tables
    from ..rules import CALL, RAISE
    from ..tree import build_tree

    tree = build_tree(config)
    t1, t2 = infoset_tables(tree)
    R = config.num_ranks
    after_check = int(tree.children[0, CALL])
    after_raise = int(tree.children[0, RAISE])
    return {
        "seat 1 raises first": strategy[0][t1.id_of[0], RAISE],
        "seat 2 raises after a check": strategy[1][t2.id_of[after_check], RAISE]
        if tree.actor[after_check] == 1
        else np.zeros(R),
        "seat 2 calls a raise": strategy[1][t2.id_of[after_raise], CALL]
        if tree.actor[after_raise] == 1
        else np.zeros(R),
    }


def write_outputs(result: AbstractionResult, out_dir) -> list[Path]:
    """abstraction.md, .csv, .json and abstraction.png (the buckets over the equilibrium)."""
    config = get_config(result.preset)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = [r.to_dict() for r in result.rows]
    keys = [k for k, _ in COLUMNS] + ["ranges"]
    paths = [
        write_text_atomic(out / "abstraction.md", result.table()),
        write_text_atomic(out / "abstraction.csv", csv_text(keys, rows)),
        write_text_atomic(out / "abstraction.json", json_text("abstraction", result.to_dict())),
    ]
    plt = pyplot()
    R = config.num_ranks
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(9, 4.8), dpi=100, sharex=True, gridspec_kw={"height_ratios": [3, 1.4]}
    )
    cards = np.arange(1, R + 1)
    for label, curve in _first_action_curves(config, result.strategy).items():
        top.step(cards, curve, where="mid", label=label)
    top.set_ylabel("probability")
    top.set_title(f"{result.preset}: full-game equilibrium by card, and the buckets")
    top.legend(fontsize=8, loc="center left")
    for y, r in enumerate(result.rows):
        edges = [0, *r.cuts, R]
        for k, (a, b) in enumerate(zip(edges, edges[1:])):
            bottom.barh(
                y, b - a, left=a + 0.5, color="#88aadd" if k % 2 else "#225599", edgecolor="white"
            )
        for c in r.cuts:
            top.axvline(c + 0.5, color="#225599" if y else "#bbbbbb", lw=0.6, alpha=0.7)
    bottom.set_yticks(
        range(len(result.rows)),
        [f"{r.bucketing}\nNashConv {r.lifted_nash_conv:.4f}" for r in result.rows],
        fontsize=8,
    )
    bottom.set_xlabel("card")
    bottom.set_xlim(0.5, R + 0.5)
    fig.tight_layout()
    paths.append(save_png(fig, out / "abstraction.png"))
    return paths
