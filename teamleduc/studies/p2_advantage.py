"""The second player's advantage in Kuhn (3 and 100 cards), Leduc and stack-limited Leduc.

The pokercamp page asks to find equilibria of 3- and 100-card Kuhn and of Leduc with 50-chip
stacks and to compare "the P2 advantage". In a two-player zero-sum game every equilibrium gives
seat 1 the same expected utility, the game value v; the second player's advantage is -v chips
per hand (seats alternate in a match, so this is what being second is worth per hand).

Each game is solved one of two ways (``method``):

* ``lp`` (default): exactly, by the sequence-form linear programme
  (:mod:`teamleduc.solver.sequence_form`, HiGHS); all four default games are small enough
  (at most 9,445 sequences per seat);
* ``dcfr``, ``cfr+``, ``pcfr+``: the toolkit's regret minimiser
  (:func:`teamleduc.solver.solve`) until the exported strategies' exact gap is at most
  ``target`` (1e-6 by default) or the time limit is hit.

Either way the strategies are then measured independently: the NashConv reported is
:func:`teamleduc.best_response.nash_conv` of the profile (exact best responses), and the value
is the profile's exact on-policy value for seat 1, which is within NashConv of v.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass
from pathlib import Path

from ..config import PRESETS, GameConfig, get_config
from ..errors import TeamLeducError
from ..outputs import save_png, write_text_atomic
from .tables import csv_text, json_text, markdown_table, pyplot

DEFAULT_PRESETS = ("kuhn", "kuhn-100", "leduc", "leduc-stack50")
METHODS = ("lp", "dcfr", "cfr+", "pcfr+")
DEFAULT_TARGET = 1e-6
#: the longest solve of one game, in seconds (a day: never a run of days)
MAX_TIME_LIMIT = 86_400.0

COLUMNS = [
    ("preset", "game"),
    ("infosets_per_seat", "infosets/seat"),
    ("value_seat1", "value for seat 1"),
    ("p2_advantage", "P2 advantage"),
    ("nash_conv", "NashConv"),
    ("method", "method"),
    ("seconds", "seconds"),
]
FORMATS = {
    "infosets_per_seat": ",d",
    "value_seat1": "+.9f",
    "p2_advantage": "+.9f",
    "nash_conv": ".2e",
    "seconds": ".2f",
}


@dataclass(frozen=True)
class GameRow:
    """One game's line of the table (chips per hand)."""

    preset: str
    infosets_per_seat: int
    value_seat1: float
    nash_conv: float
    method: str
    seconds: float

    @property
    def p2_advantage(self) -> float:
        return -self.value_seat1

    def to_dict(self) -> dict:
        return {
            "preset": self.preset,
            "infosets_per_seat": self.infosets_per_seat,
            "value_seat1": self.value_seat1,
            "p2_advantage": self.p2_advantage,
            "nash_conv": self.nash_conv,
            "method": self.method,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class P2AdvantageResult:
    rows: tuple[GameRow, ...]

    def table(self) -> str:
        return markdown_table(COLUMNS, [r.to_dict() for r in self.rows], FORMATS)

    def __str__(self) -> str:
        return (
            "second player's advantage = -(value for seat 1), chips per hand, "
            "at the equilibrium found\n" + self.table().rstrip("\n")
        )

    def to_dict(self) -> dict:
        return {"games": [r.to_dict() for r in self.rows]}


def parse_presets(text: str) -> tuple[GameConfig, ...]:
    """Comma-separated two-player presets; TeamLeducError naming the first bad one (shown
    escaped, at most 80 characters of it)."""
    from ..arguments import excerpt

    names = [n.strip() for n in str(text).split(",") if n.strip()]
    if not names:
        raise TeamLeducError("--presets: give at least one preset, e.g. kuhn,leduc")
    out = []
    for name in names:
        if name not in PRESETS:
            raise TeamLeducError(
                f"--presets: unknown preset {excerpt(name)}; two-player presets: "
                + ", ".join(n for n, c in PRESETS.items() if c.num_seats == 2)
            )
        config = get_config(name)
        if config.num_seats != 2 or any(len(t) != 1 for t in config.teams):
            raise TeamLeducError(
                f"--presets: {name} is not a two-player game ({config.num_seats} seats in "
                f"{len(config.teams)} teams); the second player's advantage needs two players"
            )
        out.append(config)
    if len(set(names)) != len(names):
        raise TeamLeducError("--presets: a preset is listed twice")
    return tuple(out)


def solve_game(
    config: GameConfig,
    method: str = "lp",
    target: float = DEFAULT_TARGET,
    time_limit: float = 600.0,
) -> GameRow:
    """One row: solve ``config`` with ``method`` and measure the result exactly."""
    from ..best_response import nash_conv
    from ..infosets import infoset_tables
    from ..tree import build_tree

    check_solver_arguments(method, target, time_limit)
    t0 = time.perf_counter()
    if method == "lp":
        from ..solver.sequence_form import solve_sequence_form

        submission = solve_sequence_form(config).submission()
        label = "sequence-form LP"
    else:
        from ..solver import solve

        r = solve(
            config,
            method,
            time_limit=time_limit,
            target_gap=target,
            handle_sigint=False,
            refine_seconds=0,
        )
        submission = r.submission
        label = f"{method} {r.iterations} it"
    nc = nash_conv(config, submission)
    seconds = time.perf_counter() - t0
    return GameRow(
        preset=config.name,
        infosets_per_seat=infoset_tables(build_tree(config))[0].size,
        value_seat1=float(nc.values[0]),
        nash_conv=max(float(nc.nash_conv), 0.0),
        method=label,
        seconds=seconds,
    )


def check_solver_arguments(method: str, target: float, time_limit: float) -> None:
    """TeamLeducError for an unknown ``method``, a ``target`` that is not a finite number > 0
    or a ``time_limit`` that is not one in (0, :data:`MAX_TIME_LIMIT`]."""
    if method not in METHODS:
        raise TeamLeducError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    for what, x, top in (("target", target, math.inf), ("time_limit", time_limit, MAX_TIME_LIMIT)):
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise TeamLeducError(f"{what} must be a number, not {type(x).__name__} {x!r}")
        if not (math.isfinite(x) and 0 < x <= top):
            bound = "" if top == math.inf else f" and at most {top:g} (a day)"
            raise TeamLeducError(f"{what} must be a finite number > 0{bound}, not {x!r}")


def p2_advantage(
    presets=DEFAULT_PRESETS,
    method: str = "lp",
    target: float = DEFAULT_TARGET,
    time_limit: float = 600.0,
    progress=None,
) -> P2AdvantageResult:
    """Solve every preset (names or configs; a str is read as ``"kuhn,leduc"``) and tabulate;
    ``progress(text)`` per game. The arguments are checked before the first solve."""
    if isinstance(presets, str):
        configs = list(parse_presets(presets))
    else:
        configs = [get_config(p) for p in presets]
    check_solver_arguments(method, target, time_limit)
    rows = []
    for k, config in enumerate(configs, 1):
        if progress:
            progress(f"[{k}/{len(configs)}] solving {config.name} ({method})")
        rows.append(solve_game(config, method, target, time_limit))
    return P2AdvantageResult(tuple(rows))


def write_outputs(result: P2AdvantageResult, out_dir) -> list[Path]:
    """p2-advantage.md, .csv, .json and a bar chart p2-advantage.png in ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = [r.to_dict() for r in result.rows]
    paths = [
        write_text_atomic(out / "p2-advantage.md", result.table()),
        write_text_atomic(out / "p2-advantage.csv", csv_text([k for k, _ in COLUMNS], rows)),
        write_text_atomic(out / "p2-advantage.json", json_text("p2-advantage", result.to_dict())),
    ]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    names = [r.preset for r in result.rows]
    values = [r.p2_advantage for r in result.rows]
    bars = ax.bar(names, values, color="#4477aa")
    for bar, v in zip(bars, values):
        ax.text(bar.get_x() + bar.get_width() / 2, v, f"{v:.4f}", ha="center", va="bottom")
    ax.set_ylabel("second player's advantage (chips/hand)")
    ax.set_title("Value of acting second, at equilibrium")
    ax.set_ylim(0, max(values + [0.0]) * 1.2 or 1.0)
    fig.tight_layout()
    paths.append(save_png(fig, out / "p2-advantage.png"))
    return paths
