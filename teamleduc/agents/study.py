"""The agents study: each learning agent against each rule bot, every point an exact value.

This redoes the experiment of the RLCard Leduc project (seed 004): Q-learning, CFR and
expectiminimax measured against the random, aggressive and cautious bots. Where the project
played 5,000 sampled games per point, every point here is the exact expected utility of the
agent's current policy (:class:`teamleduc.agents.FixedOthers`), averaged over the learning
seats; each bot's exact best-response value is the ceiling, and one near-equilibrium
(DCFR, NashConv below 1e-3) gives the reference a Nash player gets against that bot.

* Q-learning trains against each bot for ``episodes`` hands (rotating over the seats) with the
  project's retained hyper-parameters for that bot, or the best of the project's grid
  (``grid=True``); a point every ``episodes / points`` hands.
* CFR trains once, in self-play, for ``cfr_iterations`` iterations; its average policy at each
  of the same fractions of training is measured against every bot.
* Expectiminimax does not train: its policy at depth ``depth`` is a flat line, and every depth
  from 0 to ``max_depth`` is measured (the project's figure 4).

The final policy of every agent is written as a submission (``policies/``), so
``teamleduc evaluate`` reproduces the last point of each curve.
"""

from __future__ import annotations

import csv
import itertools
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..arguments import SEED_LIMIT, check_seed, excerpt
from ..baselines import canonical_name, plays_rlcard_rules
from ..best_response import exploitability, nash_conv
from ..config import GameConfig, require_config
from ..errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from ..evaluate import big_blind_of
from ..files.writing import write_submission
from ..outputs import save_png
from ..tree import build_tree
from .cfr import CFRAgent
from .expectiminimax import Expectiminimax
from .fixed import fixed_others
from .qlearning import GRID, PROJECT_PARAMETERS, QLearning, check_count

__all__ = ["AGENTS", "Curve", "Study", "StudyRow"]

#: the most Q-learning episodes of one study, all bots and grid points together (about 1.5 h
#: on team-leduc at 200,000 episodes a second, 15 min on leduc)
MAX_EPISODES = 10**9
#: the most episodes of one grid point (64 points per bot)
MAX_GRID_EPISODES = 10**7
#: the most CFR iterations (about 3 h on leduc-stack50, 13 min on leduc)
MAX_CFR_ITERATIONS = 10**6
WHY_MAX = "a bound of hours, not days, of training"
#: the deepest expectiminimax search measured (every preset's is complete by depth 33)
MAX_DEPTH = 100
#: the most bots of one study (each is a curve, a best response and a picture)
MAX_BOTS = 100
#: the longest agent or bot name accepted (a baseline name is a few characters)
MAX_NAME_CHARS = 80


def check_names(names, what: str) -> None:
    """TypeError unless ``names`` is a list or tuple of str; TeamLeducError for a name longer
    than :data:`MAX_NAME_CHARS` (shown shortened and escaped, never echoed whole)."""
    if isinstance(names, str) or not isinstance(names, (list, tuple)):
        raise ArgumentTypeError(f"{what} must be a tuple of names, not {type(names).__name__}")
    for name in names:
        if not isinstance(name, str):
            raise ArgumentTypeError(f"{what}: a name must be a str, not {type(name).__name__}")
        if len(name) > MAX_NAME_CHARS or not name.isprintable():
            raise TeamLeducError(f"--{what}: {excerpt(name)} is not a name of the study's {what}")


AGENTS = ("qlearning", "cfr", "expectiminimax")
#: the report's bots: random, aggressive, cautious; on RLCard's Leduc they are RLCard's own
REPORT_BOTS = ("uniform", "aggressive", "cautious")
RLCARD_BOTS = ("uniform", "rlcard-v1", "rlcard-v2")
#: RLCard's rule agents as the report names them (its Q-learning parameters are keyed so)
REPORT_NAME = {"rlcard-v1": "aggressive", "rlcard-v2": "cautious"}
#: the units of the study's values
UNITS = ("chips", "bb")


def default_bots(config: GameConfig) -> tuple[str, ...]:
    """The report's three bots on ``config``: RLCard's rule agents on RLCard's Leduc."""
    return RLCARD_BOTS if plays_rlcard_rules(config) else REPORT_BOTS


def default_unit(config: GameConfig) -> str:
    """Big blinds (the report's unit) in a game with blinds, else chips."""
    return "bb" if config.blinds else "chips"


DEFAULT_PARAMETERS = (0.01, 0.5, 0.8)  # alpha, gamma, epsilon for a bot the project did not use
#: the near-equilibrium reference: DCFR iterations (NashConv about 3e-4 on leduc)
REFERENCE_ITERATIONS = 2000


@dataclass
class Curve:
    """Exact values of one agent's policy against one bot along its training."""

    agent: str
    bot: str
    steps: list = field(default_factory=list)  # episodes (Q-learning) or iterations (CFR)
    values: list = field(default_factory=list)
    total: int = 0  # the planned number of steps
    label: str = ""


@dataclass
class StudyRow:
    """One line of the summary: the final policy of ``agent`` against ``bot``."""

    bot: str
    agent: str
    value: float
    ceiling: float
    equilibrium: float | None
    nash_conv: float | None
    detail: str

    @property
    def share(self) -> float:
        return self.value / self.ceiling if self.ceiling > 0 else float("nan")


def _fmt(x, digits=4) -> str:
    return "" if x is None else f"{x:+.{digits}f}"


class Study:
    """A study run; its attributes fill in as it goes, so an interrupted run keeps its curves
    (:meth:`write` writes whatever is there)."""

    def __init__(
        self,
        config: GameConfig,
        *,
        agents=AGENTS,
        bots=("uniform", "aggressive", "cautious"),
        episodes: int = 1_000_000,
        cfr_iterations: int = 2000,
        cfr_variant: str = "cfr",
        depth: int = 1,
        max_depth: int = 5,
        points: int = 20,
        seats=None,
        seed: int = 0,
        grid: bool = False,
        grid_episodes: int = 200_000,
        parameters: tuple | None = None,
        unit: str = "chips",
    ):
        self.config = require_config(config)
        if unit not in UNITS:
            raise ArgumentValueError(f"unit: {excerpt(str(unit))} is not one of {', '.join(UNITS)}")
        self.unit = unit
        #: the factor from chips to the unit of the reports (tables, CSV, pictures)
        self.scale = 1.0 / big_blind_of(self.config) if unit == "bb" else 1.0
        check_names(agents, "agents")
        check_names(bots, "bots")
        unknown = [a for a in agents if a not in AGENTS]
        if unknown or not agents:
            shown = ", ".join(excerpt(a) for a in unknown[:5]) or "(none)"
            raise TeamLeducError(f"unknown agent(s) {shown}; agents: {', '.join(AGENTS)}")
        if not bots:
            raise TeamLeducError("--bots: give at least one bot, e.g. uniform,cautious")
        if len(bots) > MAX_BOTS:
            raise TeamLeducError(f"--bots: {len(bots):,} bots, at most {MAX_BOTS}")
        self.agents = tuple(dict.fromkeys(agents))
        self.bots = tuple(dict.fromkeys(canonical_name(b) for b in bots))
        self.two_player = len(self.config.teams) == 2 and all(
            len(t) == 1 for t in self.config.teams
        )
        if "cfr" in self.agents and not self.two_player:
            raise TeamLeducError(
                f"the CFR agent is for two-player games; on {self.config.name} run "
                "--agents qlearning,expectiminimax (one learning seat, the bot on the others)"
            )
        points = check_count(points, "points")
        episodes = check_count(episodes, "episodes")
        if episodes < points or points < 1:
            raise TeamLeducError(f"--episodes must be at least {points} (one per point)")
        cfr_iterations = check_count(cfr_iterations, "cfr_iterations")
        grid_episodes = check_count(grid_episodes, "grid_episodes")
        for option, n, top in (
            ("--episodes", episodes, MAX_EPISODES),
            ("--grid-episodes", grid_episodes, MAX_GRID_EPISODES),
            ("--cfr-iterations", cfr_iterations, MAX_CFR_ITERATIONS),
        ):
            if n > top:
                raise TeamLeducError(f"{option} {n:,} is above the maximum {top:,} ({WHY_MAX})")
        if "cfr" in self.agents and cfr_iterations < 1:
            raise TeamLeducError("--cfr-iterations must be at least 1")
        q_work = episodes * len(self.bots)
        if grid and parameters is None:
            q_work += grid_episodes * len(self.bots) * 4**3
        if "qlearning" in self.agents and q_work > MAX_EPISODES:
            raise TeamLeducError(
                f"{q_work:,} Q-learning episodes in all ({len(self.bots)} bot(s) x (--episodes"
                + (" + 64 x --grid-episodes" if grid and parameters is None else "")
                + f")) is above the maximum {MAX_EPISODES:,} ({WHY_MAX})"
            )
        depth, max_depth = check_count(depth, "depth"), check_count(max_depth, "max_depth")
        self.deepest = build_tree(self.config).summary()["max_depth"]
        for option, d in (("--depth", depth), ("--max-depth", max_depth)):
            if d > MAX_DEPTH:
                raise TeamLeducError(
                    f"{option} {d:,} is above the maximum {MAX_DEPTH} (the search of "
                    f"{self.config.name} is complete at depth {self.deepest}: a deeper one is "
                    "the same)"
                )
        self.episodes, self.points = episodes, points
        self.cfr_iterations, self.cfr_variant = cfr_iterations, cfr_variant
        self.depth, self.max_depth = depth, max(max_depth, depth)
        if seats is not None:
            seats = list(seats)
            for s in seats:
                if isinstance(s, bool) or not isinstance(s, int):
                    raise ArgumentTypeError(f"seats: 0-based ints, not {type(s).__name__} {s!r}")
            if not seats:
                raise TeamLeducError("--seats: give at least one learning seat, e.g. 1")
            if len(set(seats)) != len(seats):
                raise TeamLeducError(f"--seats: a seat is listed twice in {[s + 1 for s in seats]}")
        self.seats = None if seats is None else tuple(sorted(seats))
        self.seed = check_seed(seed)
        self.grid, self.grid_episodes = bool(grid), grid_episodes
        if parameters is not None:
            if len(parameters) != 3:
                raise ArgumentTypeError("parameters: (alpha, gamma, epsilon), three numbers")
            QLearning.check_parameters(*parameters)
            parameters = tuple(float(x) + 0.0 for x in parameters)  # -0.0 is 0
        self.parameters = parameters
        self.curves: list[Curve] = []
        self.rows: list[StudyRow] = []
        self.depth_values: dict = {}  # (bot, depth) -> value
        self.grid_results: dict = {}  # bot -> [(alpha, gamma, epsilon, value)]
        self.final: dict = {}  # (bot or "", agent) -> Submission
        self.equilibrium: dict = {}  # bot -> value of the near-equilibrium
        self.seconds = 0.0

    # ------------------------------------------------------------------ running

    def _fixed(self, bot):
        return fixed_others(self.config, bot, self.seats)

    def _exploit(self, sub) -> float:
        if self.two_player:
            return nash_conv(self.config, sub).nash_conv
        if len(self.config.teams) == 2:
            return exploitability(self.config, sub).gap
        return float("nan")

    def _q_parameters(self, bot) -> tuple:
        if self.parameters is not None:
            return tuple(self.parameters)
        if self.grid:
            best = max(self.grid_results[bot], key=lambda r: r[3])
            return best[:3]
        return PROJECT_PARAMETERS.get(REPORT_NAME.get(bot, bot), DEFAULT_PARAMETERS)

    def run(self, progress: bool = True) -> Study:
        """Run everything (a KeyboardInterrupt leaves what is done in place)."""
        from tqdm import tqdm

        t0 = time.perf_counter()
        q = "qlearning" in self.agents
        work = 0
        if q:
            work += self.episodes * len(self.bots)
            if self.grid and self.parameters is None:
                work += self.grid_episodes * len(self.bots) * 4**3
        if "cfr" in self.agents:
            work += self.cfr_iterations
        bar = tqdm(total=work, unit="ep", disable=not progress or None, dynamic_ncols=True)

        def say(text: str) -> None:  # a line per phase, above the bar (on stderr)
            if progress:
                bar.write(f"{self.config.name}: {text}", file=sys.stderr)

        try:
            if self.two_player:
                say(f"near-equilibrium reference (DCFR, {REFERENCE_ITERATIONS} iterations)")
                self._reference()
            if "cfr" in self.agents:
                say(f"CFR ({self.cfr_variant}), {self.cfr_iterations:,} iterations")
                self._run_cfr(bar)
            if "expectiminimax" in self.agents:
                say(f"expectiminimax, depths 0 to {self.max_depth}")
                self._run_expectiminimax()
            if q:
                for i, bot in enumerate(self.bots):
                    if self.grid and self.parameters is None:
                        say(f"Q-learning grid against {bot}, 64 x {self.grid_episodes:,} episodes")
                        self._run_grid(bot, i, bar)
                    self._run_qlearning(bot, i, bar, say)
        finally:
            bar.close()
            self.seconds = time.perf_counter() - t0
        return self

    def _reference(self) -> None:
        ref = CFRAgent(self.config, "dcfr")
        ref.train(REFERENCE_ITERATIONS)
        pol = ref.policy()
        for bot in self.bots:
            self.equilibrium[bot] = self._fixed(bot).mean_value(pol)

    def _checkpoints(self, total: int) -> list[int]:
        return sorted({round(total * k / self.points) for k in range(self.points + 1)})

    def _run_cfr(self, bar) -> None:
        agent = CFRAgent(self.config, self.cfr_variant, progress=bar.update)
        curves = {
            b: Curve("cfr", b, total=self.cfr_iterations, label=f"CFR ({self.cfr_variant})")
            for b in self.bots
        }
        self.curves.extend(curves.values())
        for step in self._checkpoints(self.cfr_iterations):
            agent.train(step - agent.iterations)
            pol = agent.policy()
            for b, c in curves.items():
                c.steps.append(step)
                c.values.append(self._fixed(b).mean_value(pol))
        sub = agent.submission()
        self.final[("", "cfr")] = sub
        nc = self._exploit(sub)
        for b, c in curves.items():
            f = self._fixed(b)
            self.rows.append(
                StudyRow(
                    b,
                    "cfr",
                    c.values[-1],
                    f.ceiling,
                    self.equilibrium.get(b),
                    nc,
                    f"{self.cfr_variant}, {agent.iterations} iterations",
                )
            )

    def _run_expectiminimax(self) -> None:
        pols = {}
        for d in range(self.max_depth + 1):  # past the tree's depth, the search is the same
            deep = d > self.deepest
            pols[d] = (
                pols[self.deepest] if deep else Expectiminimax(self.config, d, self.seats).policy()
            )
        sub = self._fixed(self.bots[0]).submission_of(pols[self.depth])
        self.final[("", "expectiminimax")] = sub
        nc = self._exploit(sub)
        for b in self.bots:
            f = self._fixed(b)
            for d, pol in pols.items():
                self.depth_values[(b, d)] = f.mean_value(pol)
            self.rows.append(
                StudyRow(
                    b,
                    "expectiminimax",
                    self.depth_values[(b, self.depth)],
                    f.ceiling,
                    self.equilibrium.get(b),
                    nc,
                    f"depth {self.depth}",
                )
            )

    def _learner(self, bot, index, bar, parameters) -> QLearning:
        """A Q-learner against ``bot`` with ``parameters`` (alpha, gamma, epsilon), seeded by
        the study's seed and the bot's ``index``, reporting its episodes to ``bar``."""
        alpha, gamma, epsilon = parameters
        return QLearning(
            self.config,
            bot,
            alpha=alpha,
            gamma=gamma,
            epsilon=epsilon,
            seats=self.seats,
            seed=(self.seed + index) % SEED_LIMIT,
            progress=bar.update,
        )

    def _run_grid(self, bot, index, bar) -> None:
        out = self.grid_results.setdefault(bot, [])
        f = self._fixed(bot)
        for a, g, e in itertools.product(GRID["alpha"], GRID["gamma"], GRID["epsilon"]):
            agent = self._learner(bot, index, bar, (a, g, e))
            agent.train(self.grid_episodes)
            out.append((a, g, e, f.mean_value(agent.policy())))

    def _run_qlearning(self, bot, index, bar, say=lambda text: None) -> None:
        a, g, e = self._q_parameters(bot)
        agent = self._learner(bot, index, bar, (a, g, e))
        f = agent.fixed
        say(f"Q-learning against {bot}, {self.episodes:,} episodes")  # the training starts
        curve = Curve("qlearning", bot, total=self.episodes, label="Q-learning")
        self.curves.append(curve)
        for step in self._checkpoints(self.episodes):
            agent.train(step - agent.episodes)
            curve.steps.append(step)
            curve.values.append(f.mean_value(agent.policy()))
        sub = agent.submission()
        self.final[(bot, "qlearning")] = sub
        self.rows.append(
            StudyRow(
                bot,
                "qlearning",
                curve.values[-1],
                f.ceiling,
                self.equilibrium.get(bot),
                self._exploit(sub),
                f"alpha {a:g}, gamma {g:g}, epsilon {e:g}, {agent.episodes:,} episodes",
            )
        )

    # ------------------------------------------------------------------ output

    @property
    def unit_text(self) -> str:
        return "chips" if self.unit == "chips" else "big blinds"

    def _u(self, x):
        """``x`` (chips) in the study's unit; None stays None."""
        return None if x is None else x * self.scale

    def table(self) -> str:
        """The summary as a Markdown table (one line per bot and agent, in bot order)."""
        seats = "both seats" if self.two_player else "learning seats"
        per = "chips/hand" if self.unit == "chips" else "bb/hand"
        lines = [
            f"| bot | agent | exact value ({seats}, {per}) | ceiling (best response) | share of ceiling | equilibrium vs bot | NashConv | settings |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        order = {a: i for i, a in enumerate(AGENTS)}
        for r in sorted(self.rows, key=lambda r: (self.bots.index(r.bot), order[r.agent])):
            nc = self._u(r.nash_conv)
            lines.append(
                f"| {r.bot} | {r.agent} | {_fmt(self._u(r.value))} | {_fmt(self._u(r.ceiling))} | "
                f"{r.share:.1%} | {_fmt(self._u(r.equilibrium))} | "
                f"{'' if nc is None else f'{nc:.4f}'} | {r.detail} |"
            )
        return "\n".join(lines)

    def claims(self) -> list[str]:
        """The report's three claims checked on the exact values measured (each one only
        when its values are there): CFR wins against every bot; Q-learning beats CFR against
        the random bot; expectiminimax flattens after depth 1 (against each bot: every change
        past depth 1 is smaller than the step from depth 0 to depth 1)."""
        rows = {(r.bot, r.agent): r.value * self.scale for r in self.rows}
        out = []
        cfr = [(b, rows[(b, "cfr")]) for b in self.bots if (b, "cfr") in rows]
        if cfr:
            ok = all(v > 0 for _, v in cfr)
            values = ", ".join(f"{b} {v:+.4f}" for b, v in cfr)
            out.append(
                f"CFR wins against every bot: {'confirmed' if ok else 'contradicted'} ({values})"
            )
        if ("uniform", "cfr") in rows and ("uniform", "qlearning") in rows:
            q, c = rows[("uniform", "qlearning")], rows[("uniform", "cfr")]
            out.append(
                f"Q-learning beats CFR against random: {'confirmed' if q > c else 'contradicted'}"
                f" (Q-learning {q:+.4f}, CFR {c:+.4f})"
            )
        depths = sorted({d for _, d in self.depth_values})
        if depths[:2] == [0, 1] and len(depths) > 2:
            for b in self.bots:
                v = [self.depth_values[(b, d)] * self.scale for d in depths]
                step = abs(v[1] - v[0])
                after = max(abs(x - v[1]) for x in v[2:])
                if step == after == 0:
                    verdict = f"confirmed: flat at every depth ({v[0]:+.4f})"
                else:
                    verdict = (
                        f"{'confirmed' if after < step else 'contradicted'} (depth 0 to 1 moves "
                        f"{step:.4f}, depths 2 to {depths[-1]} move at most {after:.4f} from "
                        "depth 1)"
                    )
                out.append(f"expectiminimax flattens after depth 1 against {b}: {verdict}")
        return out

    def depth_table(self) -> str:
        """Expectiminimax's exact value against each bot at every depth (Markdown)."""
        depths = sorted({d for _, d in self.depth_values})
        if not depths:
            return ""
        lines = [
            "| bot | " + " | ".join(f"depth {d}" for d in depths) + " |",
            "| --- |" + " ---: |" * len(depths),
        ]
        for b in self.bots:
            if (b, depths[0]) in self.depth_values:
                lines.append(
                    f"| {b} | "
                    + " | ".join(_fmt(self._u(self.depth_values[(b, d)])) for d in depths)
                    + " |"
                )
        return "\n".join(lines)

    def write(self, out, pictures: bool = True) -> list[Path]:
        """Write the curves (CSV and PNG per bot; no PNG unless ``pictures``: matplotlib takes
        seconds to load, too long after a Ctrl-C), the summary, the depth table, the grid and
        the final policies into ``out``; returns the paths written."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for bot in self.bots:
            curves = [c for c in self.curves if c.bot == bot and c.steps]
            if not curves:
                continue
            f = self._fixed(bot)
            p = out / f"{bot}.csv"
            with p.open("w", newline="") as fh:
                w = csv.writer(fh, lineterminator="\n")
                w.writerow(["agent", "step", "fraction", "value", "ceiling", "equilibrium"])
                eq = self._u(self.equilibrium.get(bot))
                for c in curves:
                    for s, v in zip(c.steps, c.values):
                        w.writerow(
                            [
                                c.agent,
                                s,
                                f"{s / c.total:.4f}",
                                repr(self._u(v)),
                                repr(self._u(f.ceiling)),
                                repr("" if eq is None else eq),
                            ]
                        )
            paths.append(p)
            if pictures:
                paths.append(self._plot(bot, curves, f.ceiling, out / f"{bot}.png"))
        if self.rows:
            p = out / "summary.md"
            text = self.table()
            if self.depth_values:
                text += (
                    f"\n\nExpectiminimax by depth (exact value, {self.unit_text} per hand):\n\n"
                    + self.depth_table()
                )
            claims = self.claims()
            if claims:
                text += "\n\nThe report's claims:\n\n" + "\n".join(f"- {c}" for c in claims)
            p.write_text(text + "\n")
            paths.append(p)
        if self.depth_values:
            p = out / "expectiminimax-depths.csv"
            with p.open("w", newline="") as fh:
                w = csv.writer(fh, lineterminator="\n")
                w.writerow(["bot", "depth", "value"])
                for (b, d), v in sorted(self.depth_values.items()):
                    w.writerow([b, d, repr(self._u(v))])
            paths.append(p)
        for bot, results in self.grid_results.items():
            p = out / f"grid-{bot}.csv"
            with p.open("w", newline="") as fh:
                w = csv.writer(fh, lineterminator="\n")
                w.writerow(["alpha", "gamma", "epsilon", "value"])
                for r in sorted(results, key=lambda r: -r[3]):
                    w.writerow([*r[:3], repr(self._u(r[3]))])
            paths.append(p)
        for (bot, agent), sub in self.final.items():
            name = agent if not bot else f"{agent}-{bot}"
            paths.append(
                write_submission(sub, out / "policies" / name, overwrite=True, config=self.config)
            )
        return paths

    def _plot(self, bot, curves, ceiling, path) -> Path:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7.5, 4.5))
        ceiling = self._u(ceiling)
        for c in curves:
            x = 100.0 * np.asarray(c.steps) / c.total
            unit = "episodes" if c.agent == "qlearning" else "iterations"
            values = self.scale * np.asarray(c.values)
            ax.plot(x, values, marker="o", ms=3, label=f"{c.label} ({c.total:,} {unit})")
        if (bot, self.depth) in self.depth_values:
            ax.axhline(
                self._u(self.depth_values[(bot, self.depth)]),
                color="tab:green",
                ls="-.",
                label=f"expectiminimax, depth {self.depth}",
            )
        ax.axhline(ceiling, color="black", ls="--", label=f"best response (ceiling) {ceiling:+.3f}")
        if bot in self.equilibrium:
            eq = self._u(self.equilibrium[bot])
            ax.axhline(eq, color="gray", ls=":", label=f"near-equilibrium {eq:+.3f}")
        ax.set_xlabel("training (% of the episodes or iterations)")
        ax.set_ylabel(f"exact expected value ({self.unit_text} per hand)")
        ax.set_title(f"{self.config.name}: agents against {bot} (exact, seats averaged)")
        ax.legend(fontsize=8, loc="lower right")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        return save_png(fig, path, dpi=110)
