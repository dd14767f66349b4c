"""Commands ``best-response`` and ``exploitability``: exact team best responses.

Thin click layers over :mod:`teamleduc.best_response`; the library is imported inside each
command so that other commands do not pay for numba.
"""

from __future__ import annotations

import click

from .options import (
    check_sub,
    config_for,
    echo_json,
    echo_result,
    overwrite_option,
    submission_preset_option,
    unit_option,
)

SUB_HELP = (
    "a submission folder or .zip, or a baseline name: uniform, always-call, aggressive, "
    "cautious, random-pure[:SEED], cfr:N (two-player presets)"
)


@click.command("best-response")
@click.argument("sub", metavar="SUB")
@click.option(
    "--against",
    type=click.Choice(["a", "b"], case_sensitive=False),
    required=True,
    help="the team SUB plays: a (seats 1,3) or b (seats 2,4); the other team responds",
)
@submission_preset_option
@click.option(
    "--export",
    "export_dir",
    default=None,
    type=click.Path(),
    help="write the response as a one-signal submission (folder, or .zip if the name ends in .zip)",
)
@overwrite_option("with --export: replace an existing non-empty folder or file")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
def best_response_command(sub, against, config, export_dir, overwrite, as_json):
    """Exact best response of the other team to SUB playing team a or b.

    SUB is a submission folder or .zip (a full or a team submission), or a baseline name
    (uniform, always-call, aggressive, cautious, random-pure[:SEED], cfr:N). The responding team picks
    one joint pure strategy for both members together (a correlated best response), computed
    exactly by the public-belief dynamic programme. The value printed is the responding team's
    own expected utility in chips per hand; SUB's team gets its negation.
    """
    from ..best_response import _require_two_teams, best_response
    from ..outputs import check_target

    check_sub("SUB", sub)
    config = config_for(config, [sub])
    _require_two_teams(config, "best-response")
    fixed = 0 if against.lower() == "a" else 1
    if export_dir is not None:
        check_target(export_dir, overwrite, inputs=[sub])  # before the best response
    result = best_response(config, 1 - fixed, sub)
    written = None
    if export_dir is not None:
        from ..files.writing import write_submission

        written = write_submission(
            result.to_submission(), export_dir, overwrite=overwrite, config=config, inputs=[sub]
        )
    if as_json:
        d = result.to_dict()
        d["against"] = against.lower()
        d["export"] = None if written is None else str(written)
        echo_json(d)
    else:
        click.echo(str(result))
        if written is not None:
            click.echo(f"  wrote the response as a one-signal submission to {written}")


@click.command("exploitability")
@click.argument("sub", metavar="SUB")
@submission_preset_option
@unit_option
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
def exploitability_command(sub, config, unit, as_json):
    """Exact exploitability of a full submission SUB (x = its team A, y = its team B).

    Prints BR_B(x) and BR_A(y), the exact team best-response values (each in the responder's
    own utility), the saddle-point gap BR_A(y) + BR_B(x) (zero exactly at a TMECor) and half of
    it, the "exploitability". For presets whose teams are single players (leduc, kuhn, leduc-3p,
    ...) it prints NashConv = sum over seats of (best-response value - on-policy value).
    """
    from ..best_response import exploitability, nash_conv
    from ..evaluate import big_blind_of

    check_sub("SUB", sub)
    config = config_for(config, [sub])
    if unit == "bb":
        big_blind_of(config)  # refused before any work on a game without blinds
    if all(len(t) == 1 for t in config.teams):
        result = nash_conv(config, sub)
    else:
        result = exploitability(config, sub)
    echo_result(result.in_big_blinds() if unit == "bb" else result, as_json)


COMMANDS = [best_response_command, exploitability_command]
