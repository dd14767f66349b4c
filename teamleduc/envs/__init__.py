"""Play and learn: PettingZoo and Gymnasium environments on the toolkit's own rules and tree.

* :func:`env` / :class:`raw_env`: the PettingZoo AEC environment of any preset (every seat an
  agent ``player_1`` ... ``player_n``);
* :class:`SeatEnv`: a Gymnasium environment for one seat, every other seat played by a fixed
  submission or baseline (registered as ``teamleduc/TeamLeduc-v0`` and the like);
* :class:`KuhnPokerEnv`: gym-kuhn-poker's ``KuhnPoker-v0`` (every player, PASS/BET, a reward
  vector), registered as ``teamleduc/KuhnPoker-v0``, and :func:`kuhn_config`, its game;
* :class:`SubmissionPolicy` and :func:`policy_submission`: a submission as an agent, and a
  tabular policy as a validated submission;
* :func:`simulate`: N hands at once on the public tree (fast rollouts, a Monte Carlo check).

See ``docs/environments.md``.
"""

from .aec import env, raw_env
from .game import EnvGame, Hand, IllegalActionError, agent_name, env_game
from .kuhn import KuhnPokerEnv, kuhn_config
from .policies import SubmissionPolicy, greedy_policy, policy_submission, write_policy
from .registration import ENV_IDS, KUHN_POKER_ID, env_id, register_all
from .seat import SeatEnv
from .simulate import Simulation, simulate

register_all()

__all__ = [
    "ENV_IDS",
    "EnvGame",
    "Hand",
    "IllegalActionError",
    "KUHN_POKER_ID",
    "KuhnPokerEnv",
    "SeatEnv",
    "Simulation",
    "SubmissionPolicy",
    "agent_name",
    "env",
    "env_game",
    "env_id",
    "greedy_policy",
    "kuhn_config",
    "policy_submission",
    "raw_env",
    "simulate",
    "write_policy",
]


def _warmup() -> None:
    """Compile the simulator's kernel on a tiny game (``python -m teamleduc.warmup``)."""
    simulate("tiny-team", "uniform", 100, seed=0)
