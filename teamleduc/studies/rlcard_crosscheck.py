"""``rlcard-leduc`` against the originals: hands played in RLCard's and PettingZoo's own envs.

RLCard's ``rlcard.make('leduc-holdem')`` and PettingZoo's ``leduc_holdem_v4`` (which wraps it)
deal, post the blinds, order the turns and judge the hands themselves; this module only chooses
the actions. A policy of ours is queried through our information set, built from what the env
shows: the small blind is the seat to act when the hand starts (``SB:P<k>/``), the actions are
those played, and the community card is read from the env's state when it appears. At every
step the env's legal actions are compared with those of our information set (a mismatch of the
rules raises :class:`RulesMismatch`). RLCard's own rule agents (``LeducHoldemRuleAgentV1`` /
``V2``) act on the env's raw state as they do in RLCard. The mean payoff per hand, in big blinds
as the envs report it, is then compared with our exact value (:func:`compare`).

Needs the optional extras ``rlcard`` and ``pettingzoo[classic]`` (``pip install -e
'.[crosscheck]'``); imported only when used.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..baselines import RLCARD_BASELINES, baseline
from ..config import get_config
from ..evaluate import evaluate
from ..infosets import blind_token, infoset_tables
from ..tree import build_tree

PRESET = "rlcard-leduc"
#: RLCard's action names in its own index order (``LeducholdemEnv.actions``)
RLCARD_ACTIONS = ("call", "raise", "fold", "check")
_LETTER = {"call": "c", "check": "c", "raise": "r", "fold": "f"}


class RulesMismatch(AssertionError):
    """RLCard's env offered other legal actions than our information set (or an unknown one)."""


@dataclass(frozen=True)
class CrossCheck:
    """``hands`` hands of ``seat1`` against ``seat2`` in ``env``: the mean payoff of seat 1 in
    big blinds with its standard error, our exact value (big blinds) and the distance in
    standard errors."""

    env: str
    seat1: str
    seat2: str
    hands: int
    mean: float
    stderr: float
    exact: float

    @property
    def z(self) -> float:
        return (self.mean - self.exact) / self.stderr if self.stderr > 0 else 0.0

    def __str__(self) -> str:
        return (
            f"{self.env:>10} {self.seat1:>15} vs {self.seat2:<15} {self.hands:>8,} hands: "
            f"mean {self.mean:+.5f} bb (s.e. {self.stderr:.5f}), exact {self.exact:+.5f} bb, "
            f"{self.z:+.2f} s.e."
        )


class _Ours:
    """A baseline of ours on one seat, queried by information-set string."""

    def __init__(self, name: str, seat: int):
        config = get_config(PRESET)
        tree = build_tree(config)
        self.seat = seat
        table = infoset_tables(tree)[seat]
        self.lookup = table.lookup
        self.legal = table.legal_strings
        cum = np.cumsum(baseline(name, config, (seat,)).strategies[seat][0], axis=1)
        cum[:, -1] = 1.0
        self.cum = cum
        self.ranks = config.ranks

    def infoset(self, rank: str, history: str) -> int:
        fields = ["?", "?"]
        fields[self.seat] = rank
        string = f"/C:{''.join(fields)}/{history}"
        try:
            return self.lookup[string]
        except KeyError:
            raise RulesMismatch(f"{string!r} is no information set of ours") from None

    def act(self, iid: int, rng: np.random.Generator) -> str:
        return "crf"[int(np.searchsorted(self.cum[iid], rng.random(), side="right"))]


def _agent(name: str):
    from rlcard.models.leducholdem_rule_models import (
        LeducHoldemRuleAgentV1,
        LeducHoldemRuleAgentV2,
    )

    return LeducHoldemRuleAgentV1() if name == "rlcard-v1" else LeducHoldemRuleAgentV2()


def _check_legal(ours: _Ours, iid: int, theirs) -> None:
    letters = "".join(sorted({_LETTER[a] for a in theirs}, key="crf".index))
    if letters != ours.legal[iid]:
        raise RulesMismatch(
            f"RLCard offers {sorted(theirs)} where our information set allows {ours.legal[iid]}"
        )


def _players(names: tuple[str, str]) -> list:
    return [_agent(n) if n in RLCARD_BASELINES else _Ours(n, s) for s, n in enumerate(names)]


def play_rlcard(names: tuple[str, str], hands: int, seed: int) -> np.ndarray:
    """(hands,) payoffs of seat 1 (RLCard's player 0) in big blinds, from RLCard's env.

    ``names``: the baselines of seats 1 and 2 (``rlcard-v1`` / ``rlcard-v2`` are RLCard's own
    agents). Our policies draw from ``numpy.random.default_rng(seed)``; the env is seeded with
    ``seed`` too."""
    import rlcard

    env = rlcard.make("leduc-holdem", config={"seed": seed})
    rng = np.random.default_rng(seed)
    players = _players(names)
    out = np.empty(hands)
    for h in range(hands):
        state, p = env.reset()
        history = blind_token(p)  # the small blind acts first
        shown = False
        while not env.is_over():
            raw = state["raw_obs"]
            if raw["public_card"] is not None and not shown:
                history += f"C:{raw['public_card'][1]}/"
                shown = True
            legal = state["raw_legal_actions"]
            me = players[p]
            if isinstance(me, _Ours):
                iid = me.infoset(raw["hand"][1], history)
                _check_legal(me, iid, legal)
                letter = me.act(iid, rng)
                action = {"c": "call" if "call" in legal else "check", "r": "raise"}.get(
                    letter, "fold"
                )
            else:
                action = me.step(state)
                letter = _LETTER[action]
            history += f"P{p + 1}:{letter}/"
            state, p = env.step(action, raw_action=True)
        out[h] = env.get_payoffs()[0]
    return out


def play_pettingzoo(names: tuple[str, str], hands: int, seed: int) -> np.ndarray:
    """(hands,) payoffs of seat 1 (agent ``player_0``) in big blinds, from PettingZoo's
    ``leduc_holdem_v4`` AEC env (seeded once with ``seed``; actions as integers in RLCard's
    order call, raise, fold, check; the card read from the observation vector)."""
    from pettingzoo.classic import leduc_holdem_v4

    env = leduc_holdem_v4.env()
    rng = np.random.default_rng(seed)
    players = _players(names)
    ranks = get_config(PRESET).ranks
    out = np.empty(hands)
    for h in range(hands):
        env.reset(seed=seed if h == 0 else None)
        history = ""
        shown = False
        final = None
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            p = int(agent.split("_")[1])
            if not history:
                history = blind_token(p)
            vec, mask = obs["observation"], obs["action_mask"]
            if vec[3:6].any() and not shown:
                history += f"C:{ranks[int(np.argmax(vec[3:6]))]}/"
                shown = True
            legal = [RLCARD_ACTIONS[i] for i in np.flatnonzero(mask)]
            me = players[p]
            if isinstance(me, _Ours):
                iid = me.infoset(ranks[int(np.argmax(vec[0:3]))], history)
                _check_legal(me, iid, legal)
                letter = me.act(iid, rng)
                action = {"c": "call" if "call" in legal else "check", "r": "raise"}.get(
                    letter, "fold"
                )
            else:
                action = me.step(env.unwrapped.env.get_state(p))
                letter = _LETTER[action]
            history += f"P{p + 1}:{letter}/"
            env.step(RLCARD_ACTIONS.index(action))
            if all(env.terminations.values()) and final is None:
                final = env.rewards["player_0"]
        out[h] = final
    return out


def compare(env: str, names: tuple[str, str], hands: int, seed: int) -> CrossCheck:
    """Play ``hands`` hands in ``env`` (``"rlcard"`` or ``"pettingzoo"``) and set the mean
    beside our exact value of the same pair, in big blinds."""
    play = {"rlcard": play_rlcard, "pettingzoo": play_pettingzoo}[env]
    pay = play(names, hands, seed)
    config = get_config(PRESET)
    exact = evaluate(names[0], names[1], config).value / config.big_blind
    return CrossCheck(
        env=env,
        seat1=names[0],
        seat2=names[1],
        hands=hands,
        mean=float(pay.mean()),
        stderr=float(pay.std(ddof=1) / np.sqrt(hands)),
        exact=exact,
    )


#: the pairs of the cross-check: each policy on seat 1 and on seat 2 (uniform opposite), and
#: RLCard's two agents against each other and a random pure policy
PAIRS = (
    ("uniform", "uniform"),
    ("rlcard-v1", "uniform"),
    ("uniform", "rlcard-v1"),
    ("rlcard-v2", "uniform"),
    ("uniform", "rlcard-v2"),
    ("random-pure:1", "uniform"),
    ("uniform", "random-pure:1"),
    ("rlcard-v1", "rlcard-v2"),
    ("random-pure:2", "rlcard-v1"),
)
