"""Command group ``study``: reproducible answers to the source pages' questions.

``study p2-advantage`` and ``study abstraction`` are thin layers over
:mod:`teamleduc.studies`; each prints its table and writes Markdown, CSV, JSON and a picture
to ``--out``. Bad arguments are one ``error:`` line and exit code 2.
"""

from __future__ import annotations

import click

from ..arguments import excerpt
from ..errors import TeamLeducError
from ..outputs import check_target, staged_folder
from .options import Number, echo_json, overwrite_option
from .study_agents import agents_command


def _progress(quiet: bool):
    return None if quiet else (lambda text: click.echo(text, err=True))


def _outputs(default: str, files: str):
    """--out (written as one unit; an existing non-empty folder needs --overwrite), --quiet and
    --json: the options every study shares."""

    def decorate(f):
        for option in reversed(
            (
                click.option(
                    "--out",
                    "out_dir",
                    default=default,
                    show_default=True,
                    type=click.Path(file_okay=False),
                    help=f"folder for {files}",
                ),
                overwrite_option("replace --out if it exists and is not empty"),
                click.option("--quiet", is_flag=True, help="no progress lines"),
                click.option("--json", "as_json", is_flag=True, help="print the results as JSON"),
            )
        ):
            f = option(f)
        return f

    return decorate


def _report(result, write, out_dir, overwrite: bool, as_json: bool) -> None:
    """Write the study's files as one unit into ``out_dir`` and print the result."""
    with staged_folder(out_dir, overwrite) as stage:
        names = [p.name for p in write(result, stage)]
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(str(result))
        click.echo("wrote " + ", ".join(names) + f" to {out_dir}")


@click.group("study")
def study():
    """Studies of the source documents' questions, answered exactly: the second player's
    advantage and card abstraction (pokercamp), learning agents against rule bots (RLCard)."""


@study.command("p2-advantage")
@click.option(
    "--presets",
    default="kuhn,kuhn-100,leduc,leduc-stack50",
    show_default=True,
    metavar="P,P,...",
    help="two-player presets to compare",
)
@click.option(
    "--method",
    type=click.Choice(["lp", "dcfr", "cfr+", "pcfr+"]),
    default="lp",
    show_default=True,
    help="lp: exact sequence-form LP (HiGHS); dcfr, cfr+, pcfr+: the toolkit's solver until "
    "the exact gap is at most --target",
)
@click.option(
    "--target",
    type=Number(positive=True),
    default=1e-6,
    show_default=True,
    help="gap for the solver",
)
@click.option(
    "--time-limit",
    type=Number(maximum=86_400.0, positive=True),
    default=600.0,
    show_default=True,
    metavar="S",
    help="seconds per game for the solver (at most 86400, a day)",
)
@_outputs("out/study-p2-advantage", "p2-advantage.md/.csv/.json/.png")
def p2_advantage(presets, method, target, time_limit, out_dir, overwrite, quiet, as_json):
    """The second player's advantage (-value for seat 1) of each two-player game, from an
    exact equilibrium, with information sets per seat, NashConv reached and seconds."""
    from ..studies.p2_advantage import p2_advantage as run
    from ..studies.p2_advantage import parse_presets, write_outputs

    configs = parse_presets(presets)
    check_target(out_dir, overwrite)  # before the (long) study
    result = run(configs, method, target, time_limit, progress=_progress(quiet))
    _report(result, write_outputs, out_dir, overwrite, as_json)


@study.command("abstraction")
@click.option(
    "--preset",
    default="kuhn-100",
    show_default=True,
    metavar="P",
    help="a two-player preset (kuhn-100 is the page's game)",
)
@click.option(
    "--buckets",
    type=int,
    default=10,
    show_default=True,
    help="number of buckets of cards (1 to the number of ranks)",
)
@_outputs("out/study-abstraction", "abstraction.md/.csv/.json/.png")
def abstraction(preset, buckets, out_dir, overwrite, quiet, as_json):
    """Uniform buckets of cards against buckets optimised by local search on the lifted
    strategy's exact NashConv: the abstract game's value, the lifted strategy's NashConv in
    the full game and its chips per hand against the full game's equilibrium."""
    from ..config import PRESETS, get_config
    from ..studies.abstraction import abstraction_study, check_arguments, write_outputs

    try:
        config = get_config(preset)
    except ValueError:
        raise TeamLeducError(
            f"--preset: unknown preset {excerpt(preset)}; two-player presets: "
            + ", ".join(n for n, c in PRESETS.items() if c.num_seats == 2)
        ) from None
    check_arguments(config, buckets)
    check_target(out_dir, overwrite)  # before the study
    result = abstraction_study(config, buckets, progress=_progress(quiet))
    _report(result, write_outputs, out_dir, overwrite, as_json)


study.add_command(agents_command)

COMMANDS = [study]
