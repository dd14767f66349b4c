"""Registered ids: ``teamleduc/<Preset>-v0`` for every preset, in Gymnasium (:class:`SeatEnv`)
and, where PettingZoo has a registry (1.27 and later), in PettingZoo's AEC registry (:func:`env`).

The id is the preset name in CamelCase: ``team-leduc`` -> ``teamleduc/TeamLeduc-v0``,
``team-leduc-2025`` -> ``teamleduc/TeamLeduc2025-v0``, ``kuhn-100`` -> ``teamleduc/Kuhn100-v0``.

Also ``teamleduc/KuhnPoker-v0`` (:data:`KUHN_POKER_ID`), gym-kuhn-poker's interface
(:class:`teamleduc.envs.kuhn.KuhnPokerEnv`), in Gymnasium only. It is registered without
Gymnasium's passive checker, as MO-Gymnasium's ``make`` does: the checker wants a scalar reward,
and this environment's reward is a vector (one entry per player).
"""

from __future__ import annotations

import gymnasium

from ..config import PRESETS

__all__ = ["ENV_IDS", "KUHN_POKER_ID", "env_id", "register_all"]


def env_id(preset: str) -> str:
    """``teamleduc/TeamLeduc-v0`` for ``team-leduc``."""
    return "teamleduc/" + "".join(part[:1].upper() + part[1:] for part in preset.split("-")) + "-v0"


ENV_IDS = {name: env_id(name) for name in PRESETS}
#: gym-kuhn-poker's ``KuhnPoker-v0`` on the toolkit's engine
KUHN_POKER_ID = "teamleduc/KuhnPoker-v0"


def register_all() -> None:
    for name, id_ in ENV_IDS.items():
        if id_ not in gymnasium.registry:
            gymnasium.register(
                id_, entry_point="teamleduc.envs.seat:SeatEnv", kwargs={"preset": name}
            )
    if KUHN_POKER_ID not in gymnasium.registry:
        gymnasium.register(
            KUHN_POKER_ID, entry_point="teamleduc.envs.kuhn:KuhnPokerEnv", disable_env_checker=True
        )
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a dependency
        return
    if hasattr(pettingzoo, "register"):
        for name, id_ in ENV_IDS.items():
            if id_ not in pettingzoo.aec_registry:
                pettingzoo.register(
                    "aec", id_, entry_point="teamleduc.envs.aec:env", kwargs={"preset": name}
                )
