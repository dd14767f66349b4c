"""What every command shares: the ``--preset`` option and printing results as text or JSON.

Kept apart from :mod:`teamleduc.cli` (the group and the entry point) so that command modules
never import the module that imports them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..config import DEFAULT_PRESET, PRESETS, get_config

F = TypeVar("F", bound=Callable[..., Any])

PRESET_HELP = "game preset: " + ", ".join(PRESETS) + f" (default {DEFAULT_PRESET})"


def preset_option(f: F) -> F:
    """The shared ``--preset`` option; the value reaching the command is a GameConfig."""

    def to_config(ctx, param, value):
        try:
            return get_config(value)
        except ValueError as e:
            raise click.BadParameter(str(e)) from None

    return click.option(
        "--preset",
        "config",
        default=DEFAULT_PRESET,
        show_default=True,
        metavar="P",
        callback=to_config,
        help=PRESET_HELP,
    )(f)


SUBMISSION_PRESET_HELP = (
    "game preset: " + ", ".join(PRESETS) + " (default: found from the submission's files: "
    "line counts per seat, the 2025 formats, a solve-report.json beside it)"
)


def submission_preset_option(f: F) -> F:
    """``--preset`` for commands that read submissions: a GameConfig when given, else None,
    and the command finds the preset from the files (:func:`config_for`)."""

    def to_config(ctx, param, value):
        if value is None:
            return None
        try:
            return get_config(value)
        except ValueError as e:
            raise click.BadParameter(str(e)) from None

    return click.option(
        "--preset",
        "config",
        default=None,
        metavar="P",
        callback=to_config,
        help=SUBMISSION_PRESET_HELP,
    )(f)


def config_for(config, specs, default: str | None = None):
    """``config`` when ``--preset`` was given, else the preset the submissions among ``specs``
    are for (:func:`teamleduc.entrants.resolve_preset`; ambiguity is a TeamLeducError)."""
    from ..entrants import resolve_preset

    return resolve_preset(config, specs, default)


def echo_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON, keys in their order."""
    click.echo(json.dumps(obj, indent=2, sort_keys=False))


def echo_result(result: Any, as_json: bool) -> None:
    """Print a library result: ``result.to_dict()`` as JSON, or ``str(result)``."""
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(str(result))
