"""Command ``solve``: compute a TMECor of a two-team game and export it as a submission.

A thin click layer over :func:`teamleduc.solver.solve`; the solver (numba kernels) is imported
inside the command so that other commands do not pay for it.
"""

from __future__ import annotations

import sys

import click

from .options import Number, echo_json, overwrite_option, preset_option

METHOD_CHOICES = ["dcfr", "cfr+", "pcfr+", "double-oracle"]


def _progress_line(m) -> str:
    what = {"average": "avg", "restricted": "lp", "export": "EXPORT", "refine": "refining"}.get(
        m.what, m.what
    )
    return (
        f"iter {m.iteration:>7d}  {m.seconds:9.2f} s  lower {m.lower:+.7f}  "
        f"upper {m.upper:+.7f}  gap {m.gap:.3e}  ({what})"
    )


@click.command("solve")
@preset_option
@click.option(
    "--algorithm",
    "method",
    type=click.Choice(METHOD_CHOICES),
    default=None,
    help="dcfr (default), cfr+, pcfr+: regret minimisation on both teams' belief DAGs; "
    "double-oracle: column generation with exact best responses and HiGHS",
)
@click.option(
    "--time-limit",
    type=Number(positive=True),
    default=300.0,
    show_default=True,
    metavar="S",
    help="wall-clock seconds for this session, export and files included, counted once "
    "the command has loaded (Python's own start, about a second, comes before)",
)
@click.option(
    "--target-gap",
    type=Number(minimum=0.0),
    default=None,
    metavar="G",
    help="stop as soon as the exported submission's exact saddle-point gap is <= G",
)
@click.option(
    "--max-iterations",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="stop the algorithm after N iterations (counted over resumed sessions too)",
)
@click.option(
    "--max-signals",
    type=click.IntRange(1, 100),
    default=100,
    show_default=True,
    metavar="K",
    help="cap on the exported meta-strategy's signals (1 to 100); more signals keep "
    "more of the correlation (a team-leduc submission is about 14 MB per signal)",
)
@click.option(
    "--refine-seconds",
    type=Number(minimum=0.0, allow=("auto",)),
    default="auto",
    show_default=True,
    metavar="S|auto",
    help="seconds (within --time-limit) to refine the final export member by member "
    "(kept only if its exact gap is smaller); 0 = off; auto = half of the time "
    "left after building the DAGs when that is at least 1 s and enough for "
    "about 40 refinement iterations per team (small-team-leduc from 2.5 s, "
    "team-leduc-2025 from 16 s, team-leduc from about 3 minutes 20 s; smaller games "
    "are solved exactly without it), else off, and then also the seconds the "
    "export and the finish leave unused; "
    "skipped when --target-gap is met first",
)
@click.option(
    "--format",
    "export_format",
    type=click.Choice(["csv", "teams2025"]),
    default=None,
    help="csv: one submission of CSV files, both teams on one meta-strategy of at most "
    "--max-signals signals; teams2025: team13.zip and team24.zip, each team its own "
    "meta-strategy of up to --max-signals signals (plus submission-csv/ when the merge "
    "fits --max-signals). Default: the preset's edition (teams2025 for team-leduc-2025)",
)
@click.option(
    "--out",
    "out_dir",
    default="solution",
    show_default=True,
    type=click.Path(file_okay=False),
    help="folder for submission/, solve-report.json, convergence.png, checkpoint.npz",
)
@click.option(
    "--resume",
    "resume",
    default=None,
    type=click.Path(exists=True),
    help="continue the run saved in this folder (its checkpoint.npz); writes to --out",
)
@overwrite_option(
    "replace --out if it exists and is not empty (not needed to continue a run in its own "
    "folder: --resume R --out R)"
)
@click.option("--quiet", is_flag=True, help="no progress lines")
@click.option("--json", "as_json", is_flag=True, help="print the final report as JSON")
def solve_command(
    config,
    method,
    time_limit,
    target_gap,
    max_iterations,
    max_signals,
    out_dir,
    resume,
    overwrite,
    quiet,
    as_json,
    refine_seconds,
    export_format,
):
    """Solve a two-team game for TMECor and export both teams as one submission.

    Prints one progress line per exact measurement: iteration, elapsed seconds, the lower and
    upper bound on the TMECor value of team A (in chips per hand) and their gap. Lines marked
    (avg) measure a regret minimiser's average strategies, (lp) a double oracle's restricted
    equilibrium, (refining) the pair being refined after each refinement block (each team's
    best mixture so far; a stratified export is refined from half as many signals per team
    with free weights, so these may start above the export's gap), and EXPORT the exported
    submission itself (at most --max-signals signals); the final gap is always the exported
    submission's, computed with exact team best responses. The export splits each team's
    average into --max-signals equally likely signals that share its flow (stratified
    signals), or mixes pure strategies by linear programming, whichever has the smaller exact
    gap. Ctrl-C stops at the next iteration, exports the best strategies so far, writes --out
    and the checkpoint and exits with code 130; --resume continues from it. On the big
    presets (team-leduc-2025, team-leduc), whose export takes tens of seconds to make and
    write, Ctrl-C keeps only the solver's state instead: --out then holds checkpoint.npz
    (saved at the Ctrl-C and at the end of the main phase, so a refinement in progress is
    lost), and --resume continues from it and writes the submission. A second Ctrl-C, or
    one while a big preset exports, aborts at once; --out then keeps the run's latest
    checkpoint if it saved one (every 2 minutes), else it is untouched. --out appears
    complete or not at all; an existing non-empty one needs --overwrite, unless it is the
    folder the run resumes.
    """
    from ..errors import TeamLeducError
    from ..solver import DEFAULT_METHOD, solve
    from ..solver.result import INTERRUPTED, CheckpointKept

    def progress(m) -> None:
        if not quiet and not as_json:
            click.echo(_progress_line(m))

    if isinstance(refine_seconds, float) and refine_seconds >= time_limit:
        raise click.BadParameter(
            f"{refine_seconds:g} s is not less than --time-limit {time_limit:g} s: the "
            "refinement is part of the time limit, after the solving",
            param_hint="'--refine-seconds'",
        )
    if not quiet and not as_json:
        click.echo(
            f"solving {config.name} with {method or DEFAULT_METHOD} "
            f"(time limit {time_limit:g} s"
            + (f", target gap {target_gap:g}" if target_gap is not None else "")
            + ")"
        )
    try:
        result = solve(
            config,
            method if method or resume else DEFAULT_METHOD,
            time_limit=time_limit,
            target_gap=target_gap,
            max_iterations=max_iterations,
            max_signals=max_signals,
            out_dir=out_dir,
            resume=resume,
            progress=progress,
            refine_seconds=refine_seconds,
            overwrite=overwrite,
            export_format=export_format,
        )
    except ValueError as e:
        raise TeamLeducError(str(e)) from None
    except CheckpointKept as e:
        _checkpoint_kept(e, config.name, as_json)
    if as_json:
        d = result.to_dict()
        d["out"] = str(out_dir)
        echo_json(d)
    else:
        click.echo(str(result))
        click.echo(f"final gap {result.gap:.6e}")
    if result.status == INTERRUPTED:
        click.echo(
            f"interrupted: the outputs are in {out_dir}; --resume {out_dir} continues", err=True
        )
        sys.exit(130)


def _checkpoint_kept(e, preset: str, as_json: bool) -> None:
    """Ctrl-C left the solver's state, not a submission: say where, and how to go on."""
    if as_json:
        echo_json(
            {
                "status": "aborted",
                "checkpoint": str(e.checkpoint),
                "iterations": e.iterations,
                "seconds": round(e.seconds, 3),
            }
        )
    click.echo(
        f"aborted: no submission written; the solver's state after {e.iterations} iterations "
        f"({e.seconds:.0f} s) is in {e.checkpoint}. To go on and write "
        f"the submission: teamleduc solve --preset {preset} --resume {e.out_dir} "
        f"--out {e.out_dir} --time-limit SECONDS",
        err=True,
    )
    sys.exit(130)


COMMANDS = [solve_command]
