"""CFR in self-play: the project's CFR agent, run on the toolkit's regret minimiser.

Counterfactual regret minimisation (Zinkevich, Johanson, Bowling and Piccione, "Regret
minimization in games with incomplete information", NeurIPS 2007) plays the game against
itself: at every information set, regret matching on the cumulative counterfactual regrets
gives the next strategy, and the *average* strategy over the iterations converges to a Nash
equilibrium of a two-player zero-sum game (section II.A.ii of the project report). It never
sees the bot: the bot only measures it.

The iterations are those of :class:`teamleduc.solver.dag_cfr.RegretMinimizer` (full-width,
alternating updates, exact). On a game whose teams are single seats (two-player Leduc, Kuhn)
each team's belief DAG is the seat's own sequence form, so the average DAG strategy is exactly
a behavioural strategy per seat (:func:`teamleduc.dag.marginals`, no correlation lost).
``variant``:

* ``cfr``: plain CFR, regrets never discounted, uniform average (the project's algorithm);
* ``cfr+``, ``dcfr``: the published faster variants (DCFR's averages weigh t**2; the solver's own
  ``dcfr`` weighs t**3, :data:`teamleduc.solver.dag_cfr.SOLVER_DCFR_GAMMA`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..config import GameConfig, require_config
from ..envs import policy_submission
from ..errors import TeamLeducError

__all__ = ["CFR_VARIANTS", "CFRAgent"]

CFR_VARIANTS = ("cfr", "cfr+", "dcfr")
#: iterations between two calls of ``progress``
BLOCK = 10


def _discounting(variant: str):
    # the published variants (DCFR's averages weigh t**2, as in Brown and Sandholm), not
    # the solver's tuned dcfr (t**3): the study reproduces the originals
    from ..solver.dag_cfr import Discounting, cfr_plus, dcfr

    if variant == "cfr":
        return Discounting(alpha=math.inf, beta=math.inf, gamma=0.0)
    return {"cfr+": cfr_plus(), "dcfr": dcfr()}[variant]


class CFRAgent:
    """CFR self-play on a two-player game (every team a single seat).

    ``train(n)`` runs n more iterations; ``policy()`` is the average policy {0-based seat: (n, 3)};
    ``submission()`` that policy as a full Submission. ``progress``, if given, is called with
    the number of iterations of each block of :data:`BLOCK` done.
    """

    name = "cfr"

    def __init__(
        self,
        config: GameConfig,
        variant: str = "cfr",
        progress: Callable[[int], object] | None = None,
    ):
        self.config = require_config(config)
        self.progress = progress
        if variant not in CFR_VARIANTS:
            raise TeamLeducError(
                f"unknown CFR variant {variant!r}; choose from {', '.join(CFR_VARIANTS)}"
            )
        if len(self.config.teams) != 2 or any(len(t) != 1 for t in self.config.teams):
            raise TeamLeducError(
                f"the CFR agent runs in self-play on two-player games (leduc, kuhn); "
                f"{self.config.name} has teams {self.config.to_dict()['teams']}: solve team "
                "games for TMECor with `teamleduc solve`"
            )
        from ..solver.dag_cfr import RegretMinimizer

        self.variant = variant
        self._m = RegretMinimizer(self.config, _discounting(variant), name=f"agent-{variant}")
        # flow scratch of our own: the minimiser's F and reach arrays stay untouched
        self._F = [dag.new_values() for dag in self._m.game.dags]

    @property
    def iterations(self) -> int:
        return self._m.iterations

    def train(self, n: int) -> None:
        """Run ``n`` more CFR iterations (each one full-width pass per seat; every one returns
        to Python, so Ctrl-C is never held off)."""
        from .qlearning import check_count

        n = check_count(n, "n")
        while n > 0:
            k = min(BLOCK, n)
            self._m.iterate(k)
            n -= k
            if self.progress is not None:
                self.progress(k)

    def policy(self) -> dict:
        """{seat: (n, 3)} the average strategy (uniform before the first iteration)."""
        from ..dag import flows, marginals

        m = self._m
        out = {}
        for k, dag in enumerate(m.game.dags):
            sigma = m.average_sigma(k) if m.iterations else m.sigma[k]
            flows(dag, sigma, self._F[k])
            out.update(marginals(dag, sigma, self._F[k]))
        return out

    def submission(self):
        return policy_submission({s + 1: a for s, a in self.policy().items()}, self.config)
