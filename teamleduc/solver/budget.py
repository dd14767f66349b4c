"""Each edition's signal budget: what the exported submission is and how many signals it may use.

The spec's CSV submission (preset ``team-leduc`` and the small games) has one
``meta-strategy.csv`` for both teams, so the two teams' mixtures are merged
(:func:`teamleduc.files.model.merge_team_mixtures`) and share the cap: K_A + K_B - 1 merged
signals at most. In the 2025 edition each team submits its own zip (``team13.zip``,
``team24.zip``) with its own ``meta-strategy.csv``: each team may use the whole cap with its
own weights, and nothing is merged. :func:`native_format` says which a preset uses;
``teamleduc solve --format`` may ask for the other one.
"""

from __future__ import annotations

from ..config import GameConfig, require_config

CSV, TEAMS_2025 = "csv", "teams2025"
#: formats the solver exports: one merged CSV submission, or one 2025 zip per team
EXPORT_FORMATS = (CSV, TEAMS_2025)
#: presets whose native submission is one zip per team (each team its own meta-strategy)
TEAM_ZIP_PRESETS = ("team-leduc-2025",)


def native_format(config: GameConfig) -> str:
    """The export format of ``config``'s edition: ``"teams2025"`` for the 2025 edition, else
    ``"csv"``."""
    require_config(config)
    return TEAMS_2025 if config.name in TEAM_ZIP_PRESETS else CSV


def check_format(export_format: str | None, config: GameConfig) -> str:
    """``export_format`` (None: the preset's :func:`native_format`), checked."""
    fmt = native_format(config) if export_format is None else export_format
    if fmt not in EXPORT_FORMATS:
        raise ValueError(
            f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}"
        )
    return fmt


def per_team(export_format: str) -> bool:
    """Does each team have its own meta-strategy (and so the whole signal cap)?"""
    return export_format == TEAMS_2025
