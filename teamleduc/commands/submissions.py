"""``teamleduc validate`` and ``teamleduc convert``: submissions on the command line.

Exit codes: 0 valid (or converted), 1 invalid submission (nothing written), 2 unusable
arguments (no such path, unknown preset, seats that are not whole teams, an existing
destination). No traceback reaches the user. The codes leave through ``sys.exit`` (not
``ctx.exit``), which reaches the shell also when the CLI runs with ``standalone_mode=False``.

Without ``--preset`` the preset is found from the files
(:mod:`teamleduc.files.preset_detection`: line counts per seat, the 2025 formats, a
``solve-report.json`` beside the submission); an ambiguous case is refused with the presets
that fit.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from ..arguments import excerpt
from ..config import DEFAULT_PRESET, PRESETS, GameConfig, get_config
from ..errors import TeamLeducError
from ..files.findings import SubmissionError
from .options import (
    SUB_CHARS,
    USER_ERRORS,
    echo_result,
    exit_for_user_error,
    overwrite_option,
)

PRESET_2025 = "team-leduc-2025"
_PRESET_HELP = (
    "game preset: " + ", ".join(PRESETS) + " (default: found from the files: line counts per "
    f"seat, the 2025 formats, a solve-report.json beside it; else {DEFAULT_PRESET})"
)
_SEATS_HELP = (
    "seats whose files are required: 1,3 or 2,4 (one team), all, or auto (every "
    "team with at least one strategy file; the default)"
)


def _config(preset: str | None, path: Path | None, to: str | None = None) -> GameConfig:
    if preset is not None:
        try:
            return get_config(preset)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="'--preset'") from None
    from ..entrants import resolve_preset

    default = PRESET_2025 if to == "npy2025" else None
    return resolve_preset(None, [] if path is None else [path], default)


def _seats(text: str, config: GameConfig):
    from ..files.model import whole_teams

    text = text.strip().lower()
    if text == "auto":
        return None
    if text == "all":
        return tuple(range(config.num_seats))
    fields = [t.strip() for t in text.split(",")]
    for k, t in enumerate(fields, 1):
        if not t:  # "1,,3" or "1,3,": never read as if the field were not there
            raise click.BadParameter(
                f"{excerpt(text)}: field {k} is empty; give seats such as 1,3",
                param_hint="'--seats'",
            )
    repeated = sorted({t for t in fields if fields.count(t) > 1})
    if repeated and all(t.isdigit() for t in fields):
        raise click.BadParameter(
            f"{excerpt(text)}: seat {repeated[0]} is given twice; give each seat once, e.g. 1,3",
            param_hint="'--seats'",
        )
    try:
        seats = [int(t) - 1 for t in fields]
        if len(set(seats)) != len(seats):  # "1,01": the same seat written two ways
            raise click.BadParameter(
                f"{excerpt(text)}: a seat is given twice; give each seat once, e.g. 1,3",
                param_hint="'--seats'",
            )
        return whole_teams(config, seats)
    except ValueError as e:
        msg = (
            str(e)
            if "team" in str(e) or "among" in str(e)
            else f"not a list of seats: {excerpt(text)}"
        )
        raise click.BadParameter(msg, param_hint="'--seats'") from None


class _SubPath(click.Path):
    """An existing path given as a submission (``validate PATH``, ``convert SRC``) or a new
    one (``convert DST``): one no file system holds (over 4,096 characters, or holding a NUL)
    is refused first, shown as its first 80 characters and its length, never echoed whole."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and (len(value) > SUB_CHARS or "\0" in value):
            self.fail(
                f"{excerpt(value)}: not a path (at most {SUB_CHARS:,} characters, no NUL)",
                param,
                ctx,
            )
        return super().convert(value, param, ctx)


@contextlib.contextmanager
def _user_errors_exit():
    """A user error ends the command here, as :func:`teamleduc.cli.main` ends one
    (:func:`~.options.exit_for_user_error`)."""
    try:
        yield
    except USER_ERRORS as e:
        exit_for_user_error(e)


def _echo_findings(findings, prefix: str, err: bool, source=None) -> None:
    """One line per finding; with ``source``, each names the submission first."""
    for f in findings:
        click.echo(f"{prefix}: {source}: {f}" if source else f"{prefix}: {f}", err=err)


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=_SubPath(exists=True, path_type=Path))
@click.option("--preset", default=None, metavar="P", help=_PRESET_HELP)
@click.option(
    "--seats",
    "seats_text",
    default="auto",
    show_default=True,
    metavar="1,3|2,4|all|auto",
    help=_SEATS_HELP,
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="print the report as JSON (same findings, for autograders)",
)
def validate(paths, preset, seats_text, as_json):
    """Check a submission: meta-strategy.csv and every strategy file, each error with its file,
    line and information set. PATH is a folder or .zip of CSV files, a 2025 team zip, or a
    folder holding team13.zip and team24.zip.

    Several PATHs, or a folder of submissions (each entry a folder or a .zip), print one
    table: name, verdict, seats, signals and first problem of each (--json: every report).

    Exit code 0 if valid (every one), 1 if any is invalid, 2 for unusable arguments. Accepted
    with a warning: UTF-8 byte-order mark, CRLF line endings, no final newline, blanks around
    values.
    """
    from ..validate import expand_classes, is_class_folder, validate_many, validate_submission

    if len(paths) == 1 and not is_class_folder(paths[0]):
        config = _config(preset, paths[0])
        seats = _seats(seats_text, config)
        with _user_errors_exit():
            report = validate_submission(paths[0], config, seats)
        echo_result(report, as_json)
        sys.exit(0 if report.ok else 1)
    entries = expand_classes(paths)  # one level: an entry is one submission, whatever it holds
    if not entries:
        raise TeamLeducError(f"{paths[0]}: no submissions in this folder")
    with _user_errors_exit():
        if preset is None:
            from ..entrants import resolve_preset

            config = resolve_preset(None, entries)
        else:
            config = _config(preset, None)
        seats = _seats(seats_text, config)
        batch = validate_many(entries, config, seats, expand=False)
    echo_result(batch, as_json)
    sys.exit(0 if batch.ok else 1)


@click.command("convert")
@click.argument("src", type=_SubPath(exists=True, path_type=Path))
@click.argument("dst", type=_SubPath(path_type=Path))
@click.option(
    "--to",
    "to",
    type=click.Choice(["csv", "npy2025"]),
    required=True,
    help="csv: one CSV submission (a folder, or a zip if DST ends in .zip); "
    "npy2025: the folder DST with team13.zip and/or team24.zip (or, for a "
    "team submission, DST ending in .zip: that team's zip)",
)
@click.option("--preset", default=None, metavar="P", help=_PRESET_HELP)
@click.option(
    "--seats",
    "seats_text",
    default="auto",
    show_default=True,
    metavar="1,3|2,4|all|auto",
    help=_SEATS_HELP,
)
@overwrite_option("replace DST if it exists and is not empty")
def convert(src, dst, to, preset, seats_text, overwrite):
    """Convert a submission between the CSV format and the 2025 team zips (.npy, columns
    C, F, R, rows in sorted-name order). SRC may be in either format. The source is checked
    in full first; if it is invalid nothing is written (exit 1). Lossless both ways."""
    from ..files.convert import convert as run_convert

    config = _config(preset, src, to)
    seats = _seats(seats_text, config)
    with _user_errors_exit():
        try:
            result = run_convert(src, dst, to, config, seats, overwrite=overwrite)
        except SubmissionError as e:
            _echo_findings(e.findings, "error", err=False, source=src)
            click.echo(f"INVALID: {e.message}", err=False)
            sys.exit(1)
    _echo_findings(result.warnings, "warning", err=True, source=src)
    click.echo(str(result))


COMMANDS = [validate, convert]
