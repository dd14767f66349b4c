"""What every command shares: the ``--preset`` and ``--overwrite`` options, the number type
that refuses non-finite values, the seed type, what a message shows of a typed argument, and
printing results as text or JSON.

Kept apart from :mod:`teamleduc.cli` (the group and the entry point) so that command modules
never import the module that imports them.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

from ..arguments import EXCERPT_CHARS, SEED_LIMIT, excerpt
from ..config import DEFAULT_PRESET, PRESETS, get_config
from ..errors import TeamLeducError
from ..names import terminal_text

F = TypeVar("F", bound=Callable[..., Any])

PRESET_HELP = "game preset: " + ", ".join(PRESETS) + f" (default {DEFAULT_PRESET})"


#: the longest SUB argument (a path or a baseline name) a command reads: PATH_MAX on Linux
SUB_CHARS = 4096


#: what ends a command as the user's error (one line, no traceback)
USER_ERRORS = (TeamLeducError, OSError, MemoryError)


def exit_for_user_error(e: BaseException) -> NoReturn:
    """End the command for a user error: ``error: MESSAGE`` on stderr, escaped for the terminal,
    and the error's exit code (2 for an OSError or a MemoryError). Shared by
    :func:`teamleduc.cli.main` and the commands that must end at once where click's own
    runner calls them (tests and API users invoke ``cli`` without ``main``)."""
    click.echo(f"error: {terminal_text(e)}", err=True)
    sys.exit(e.exit_code if isinstance(e, TeamLeducError) else 2)


def check_sub(what: str, value: str) -> str:
    """``value`` of a SUB argument (``what`` names it), or a TeamLeducError (exit 2) for one
    no file system holds: longer than :data:`SUB_CHARS` or holding a NUL, shown as
    :func:`excerpt` shows it, never echoed whole."""
    from ..errors import TeamLeducError

    if len(value) > SUB_CHARS or "\0" in value:
        raise TeamLeducError(
            f"{what} {excerpt(value)}: not a submission folder, .zip or baseline name (at most "
            f"{SUB_CHARS:,} characters, no NUL)"
        )
    return value


def preset_callback(ctx, param, value):
    """click callback of a ``--preset`` option: the GameConfig of the name (None stays None);
    an unknown name is click's usage error listing the presets (the name shown as
    :func:`excerpt` shows it)."""
    if value is None:
        return None
    if value not in PRESETS and (len(value) > EXCERPT_CHARS or not value.isprintable()):
        raise click.BadParameter(f"unknown preset {excerpt(value)}; presets: {', '.join(PRESETS)}")
    try:
        return get_config(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def preset_option(f: F) -> F:
    """The shared ``--preset`` option; the value reaching the command is a GameConfig."""
    return click.option(
        "--preset",
        "config",
        default=DEFAULT_PRESET,
        show_default=True,
        metavar="P",
        callback=preset_callback,
        help=PRESET_HELP,
    )(f)


SUBMISSION_PRESET_HELP = (
    "game preset: " + ", ".join(PRESETS) + " (default: found from the submission's files: "
    "line counts per seat, the 2025 formats, a solve-report.json beside it)"
)


def submission_preset_option(f: F) -> F:
    """``--preset`` for commands that read submissions: a GameConfig when given, else None,
    and the command finds the preset from the files (:func:`config_for`)."""
    return click.option(
        "--preset",
        "config",
        default=None,
        metavar="P",
        callback=preset_callback,
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


def overwrite_option(help_text: str = "replace the output if it exists") -> Callable[[F], F]:
    """The shared ``--overwrite`` option (alias ``--force``): the one rule of every command that
    writes (:func:`teamleduc.outputs.check_target`) is that an existing non-empty output is
    refused without it."""
    return click.option("--overwrite", "--force", "overwrite", is_flag=True, help=help_text)


class Number(click.ParamType):
    """A finite real number within optional bounds; ``inf``, ``-inf`` and ``nan`` are refused
    by every command the same way (``--time-limit inf`` would never stop).

    ``minimum`` is inclusive unless ``positive``; ``allow`` lists words passed through as None
    (e.g. ``auto``).
    """

    name = "number"

    def __init__(
        self,
        minimum: float | None = None,
        maximum: float | None = None,
        *,
        positive: bool = False,
        allow: tuple[str, ...] = (),
    ):
        self.minimum, self.maximum, self.positive, self.allow = minimum, maximum, positive, allow

    def convert(self, value, param, ctx):
        if value is None:
            return None
        if isinstance(value, str) and value.strip().lower() in self.allow:
            return None
        try:
            number = float(value)
        except (TypeError, ValueError):
            words = "".join(f" or '{w}'" for w in self.allow)
            self.fail(f"{value!r} is not a number{words}", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return self._bounded(number, param, ctx)

    def _bounded(self, number: float, param, ctx) -> float:
        if self.positive and not number > 0:
            self.fail(f"{number:g} is not positive (> 0)", param, ctx)
        if self.minimum is not None and number < self.minimum:
            self.fail(f"{number:g} is below the minimum {self.minimum:g}", param, ctx)
        if self.maximum is not None and number > self.maximum:
            self.fail(f"{number:g} is above the maximum {self.maximum:g}", param, ctx)
        return number + 0.0  # "-0" is 0


class Seed(click.ParamType):
    """A seed: a decimal integer ``0 <= seed < 2**63``. ``-1``, ``1.5``, ``1e3``, ``abc`` and
    a 30-digit number are refused with the bound (``-1`` used to reach numpy as an internal
    error, ``1.5`` became click's "not a valid integer")."""

    name = "seed"

    def convert(self, value, param, ctx):
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            text = str(value).strip()
            if not re.fullmatch(r"\+?[0-9]{1,30}", text):
                self.fail(
                    f"{excerpt(value)} is not a seed: give an integer from 0 to 2**63 - 1",
                    param,
                    ctx,
                )
            number = int(text)
        if not 0 <= number < SEED_LIMIT:
            self.fail(f"{number} is not a seed: give an integer from 0 to 2**63 - 1", param, ctx)
        return number


def unit_option(f):
    """``--unit chips|bb``: report values in chips (the default) or in big blinds (games with
    blinds, e.g. rlcard-leduc: RLCard's unit)."""
    return click.option(
        "--unit",
        type=click.Choice(["chips", "bb"]),
        default="chips",
        show_default=True,
        help="report values in chips or in big blinds (bb: games with blinds, e.g. rlcard-leduc, "
        "whose payoffs RLCard reports in big blinds)",
    )(f)
