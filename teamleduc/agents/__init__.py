"""Learning agents against the rule bots, measured exactly (the RLCard Leduc project, seed 004).

* :class:`QLearning`: tabular epsilon-greedy Q-learning of one seat against a fixed bot;
* :class:`CFRAgent`: counterfactual regret minimisation in self-play (the toolkit's regret
  minimiser), its average policy;
* :class:`Expectiminimax`: depth-limited expectiminimax with the hand-strength heuristic;
* :class:`FixedOthers`: one seat against the bot on every other seat: the exact value of any
  policy of that seat and its exact best-response ceiling;
* :class:`~teamleduc.agents.study.Study`: the study (learning curves, summary, grid). See
  ``docs/agents-study.md``.

Every agent exposes its current policy as a Submission (``submission()``), so ``evaluate``,
``nash_conv`` and ``grade`` measure it exactly.
"""

from .fixed import FixedOthers, fixed_others
from .qlearning import GRID, PROJECT_PARAMETERS, QLearning

__all__ = ["GRID", "PROJECT_PARAMETERS", "FixedOthers", "QLearning", "fixed_others"]


def _warmup() -> None:
    """Compile the Q-learning kernel (run by ``python -m teamleduc.warmup`` at install)."""
    from ..config import get_config

    QLearning(get_config("kuhn"), "uniform", alpha=0.1, gamma=1.0, epsilon=0.5, seed=0).train(100)
