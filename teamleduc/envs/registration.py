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

from ..config import PRESETS, get_config
from ..errors import ArgumentValueError

__all__ = ["ENV_IDS", "KUHN_POKER_ID", "env_id", "register_all"]


def _camel_id(name: str) -> str:
    return "teamleduc/" + "".join(part[:1].upper() + part[1:] for part in name.split("-")) + "-v0"


def env_id(preset) -> str:
    """``teamleduc/TeamLeduc-v0`` for ``team-leduc`` (a preset name, or the GameConfig of a
    preset). An unknown name, or a GameConfig that is no preset (only presets are registered:
    build ``SeatEnv(config)`` or ``env(config)`` directly), is refused naming ``preset``, as
    :func:`teamleduc.rlcard.env_id` refuses it."""
    config = get_config(preset)  # ArgumentTypeError / ArgumentValueError naming the preset
    if PRESETS.get(config.name) != config:
        raise ArgumentValueError(
            f"preset: {config.name!r} is not a preset, so it has no registered id (the presets: "
            f"{', '.join(PRESETS)}); build SeatEnv(config) or env(config) directly"
        )
    return ENV_IDS[config.name]


ENV_IDS = {name: _camel_id(name) for name in PRESETS}
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
