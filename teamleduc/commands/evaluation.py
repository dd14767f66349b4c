"""Commands ``evaluate``, ``match``, ``grade`` and ``baseline``: exact evaluation and grading.

Thin click layers over :mod:`teamleduc.evaluate`, :mod:`teamleduc.grade` and
:mod:`teamleduc.baselines`; the library is imported inside each command so that other
commands do not pay for numba.
"""

from __future__ import annotations

import sys

import click

from .options import (
    check_sub,
    config_for,
    echo_json,
    echo_result,
    overwrite_option,
    preset_option,
    submission_preset_option,
    unit_option,
)

SUB_HELP = (
    "a submission folder or .zip, or a baseline name: uniform, always-call, aggressive, "
    "cautious, random-pure[:SEED], cfr:N (two-player presets), rlcard-v1, rlcard-v2 "
    "(rlcard-leduc)"
)


@click.command()
@click.argument("team_a_sub", metavar="TEAM_A_SUB")
@click.argument("team_b_sub", metavar="TEAM_B_SUB")
@submission_preset_option
@click.option(
    "--cards",
    default=None,
    metavar="RANKS",
    help="condition on this deal of private ranks, seats 1..S, e.g. J,Q,Q,K",
)
@click.option(
    "--community",
    default=None,
    metavar="RANK",
    help="with --cards: condition on this community card too, e.g. J",
)
@unit_option
@click.option("--json", "as_json", is_flag=True, help='print {"value": ..., ...} as JSON')
def evaluate(team_a_sub, team_b_sub, config, cards, community, unit, as_json):
    """Exact expected utility of team A (seats 1, 3) when TEAM_A_SUB plays seats 1, 3 and
    TEAM_B_SUB plays seats 2, 4.

    Each argument is a submission folder or .zip, or a baseline name (uniform, always-call,
    aggressive, cautious, random-pure[:SEED], cfr:N; rlcard-v1, rlcard-v2 on rlcard-leduc). The value is enumerated over deals, community
    cards, both teams' signals and every action: no sampling. Team B's value is its negation.
    """
    from ..evaluate import big_blind_of
    from ..evaluate import evaluate as run

    check_sub("TEAM_A_SUB", team_a_sub)
    check_sub("TEAM_B_SUB", team_b_sub)
    if cards is not None:  # an empty field named here, before any submission is read
        from ..replay import split_cards

        split_cards(cards, "--cards")
    config = config_for(config, [team_a_sub, team_b_sub])
    if unit == "bb":
        big_blind_of(config)  # refused before any work on a game without blinds
    result = run(team_a_sub, team_b_sub, config, cards=cards, community=community)
    echo_result(result.in_big_blinds(config) if unit == "bb" else result, as_json)


@click.command()
@click.argument("x", metavar="X")
@click.argument("y", metavar="Y")
@submission_preset_option
@unit_option
@click.option("--json", "as_json", is_flag=True, help="print the match as JSON")
def match(x, y, config, unit, as_json):
    """X against Y in both seatings (X as team A, then as team B), exactly.

    X's score is the mean of its two team utilities; Y's score is its negation. X and Y are
    submission folders or .zip files playing every seat, or baseline names.
    """
    from ..evaluate import big_blind_of
    from ..evaluate import match as run

    check_sub("X", x)
    check_sub("Y", y)
    config = config_for(config, [x, y])
    if unit == "bb":
        big_blind_of(config)
    result = run(x, y, config)
    echo_result(result.in_big_blinds(config) if unit == "bb" else result, as_json)


@click.command()
@click.argument("submissions", nargs=-1, metavar="SUB...", type=click.Path())
@submission_preset_option
@click.option(
    "--baselines",
    default="none",
    show_default=True,
    metavar="a,b,...",
    help="baselines to add to the round robin: comma-separated names, 'all' or 'none'",
)
@click.option(
    "--out",
    "out_dir",
    default="grading",
    show_default=True,
    type=click.Path(file_okay=False),
    help="folder for the leaderboard, matrix and heatmap",
)
@click.option(
    "--jobs",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="processes loading submissions in parallel (0: one per CPU); output does not depend on it",
)
@click.option(
    "--names",
    "names_file",
    default=None,
    type=click.Path(exists=True, dir_okay=False),
    help="CSV file of 'name,path' rows (a header row 'name,path' is allowed; relative paths "
    "are taken from the file's folder): each submission graded under its name",
)
@click.option("--no-heatmap", is_flag=True, help="skip matrix.png")
@click.option(
    "--worst-case/--no-worst-case",
    default=True,
    show_default=True,
    help="also compute each entrant's exact worst case as team A and as team B "
    "(two exact team best responses per entrant)",
)
@overwrite_option("replace --out if it exists and is not empty")
@click.option(
    "--cache",
    "cache_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="folder of the grading cache: each entrant's arrays, the pair values, resume points "
    "(default: OUT.cache beside --out); grading again computes only what is new",
)
@click.option("--no-cache", is_flag=True, help="use a temporary cache, deleted at the end")
@click.option(
    "--memory",
    default="2G",
    show_default=True,
    metavar="SIZE",
    help="memory budget of the pair products, e.g. 512M, 4G (each loading process holds one "
    "submission on top)",
)
@click.option("--json", "as_json", is_flag=True, help="print the leaderboard as JSON")
def grade(
    submissions,
    config,
    baselines,
    out_dir,
    jobs,
    names_file,
    no_heatmap,
    worst_case,
    overwrite,
    cache_dir,
    no_cache,
    memory,
    as_json,
):
    """Grade every pair of submissions in both seatings by exact expected team utility.

    Writes leaderboard.csv, leaderboard.md and leaderboard.html (rank, name, path, mean score, mean as team A, mean as
    team B, worst match, signals), matrix.csv (pairwise match scores), values.csv, invalid.csv,
    grade.json and the heatmap matrix.png into --out. Invalid submissions are listed with their
    first problem and left out; they never stop the run.

    Each SUB is a path, NAME=PATH (graded under NAME), or a folder of submissions (each entry
    a folder or .zip); --names adds a file of name,path rows. The leaderboard files show
    each name's path; a path given twice is warned about. --out appears
    complete or not at all; an existing non-empty one needs --overwrite.

    Each submission's arrays are computed once into the cache (keyed by content, preset and
    version) and the pairs are computed block by block within --memory, so grading again after
    late submissions, or after an interruption, computes only what is missing.
    """
    from ..entrants import NamedPath, baseline_or_path, read_names_file, repeated_paths
    from ..errors import TeamLeducError
    from ..grade import grade as run
    from ..grade.memory import parse_memory
    from ..grade.run import check_outside_inputs
    from ..names import display_name, terminal_text
    from ..outputs import check_target
    from ..validate import class_entries, is_class_folder

    entrants = []
    classes = []
    for text in submissions:
        spec = NamedPath.parse(text)  # NAME=PATH: its name and path bounded there
        if isinstance(spec, str):
            check_sub("SUB", spec)
        # a baseline name that is also a path here is refused (baseline_or_path says how to
        # write each); a class folder's entries stay Path objects, never taken for baselines
        folder = isinstance(spec, str) and baseline_or_path(spec) is None and is_class_folder(spec)
        entrants += class_entries(spec) if folder else [spec]
        classes += [spec] if folder else []
    if names_file is not None:
        entrants += read_names_file(names_file)
    if not entrants and baselines.strip().lower() in ("", "none"):
        raise TeamLeducError("nothing to grade: give submissions and/or --baselines")
    if no_cache and cache_dir is not None:
        raise TeamLeducError("give --cache DIR or --no-cache, not both")
    for path, names in repeated_paths(entrants):
        click.echo(
            terminal_text(
                f"warning: {display_name(path)} is given {len(names)} times (as "
                f"{', '.join(map(display_name, names))}); each is graded as a separate entrant"
            ),
            err=True,
        )
    config = config_for(config, entrants)
    inputs = [e.path if isinstance(e, NamedPath) else e for e in entrants]
    # --out, --cache and OUT.cache outside every submission and class folder graded: else the
    # grading writes into what it reads (and the next run reads its own output as entries)
    check_outside_inputs(out_dir, False if no_cache else cache_dir, classes + inputs)
    check_target(out_dir, overwrite, inputs=inputs)  # before the (long) grading
    result = run(
        entrants,
        config,
        baselines=baselines,
        jobs=jobs,
        out=out_dir,
        progress=True,
        heatmap=not no_heatmap,
        worst_case=worst_case,
        overwrite=overwrite,
        cache=False if no_cache else cache_dir,
        memory=parse_memory(memory),
    )
    work = result.work
    click.echo(
        terminal_text(
            f"computed {work['entrants_loaded']} submission(s)' arrays, "
            f"{work['worst_cases_computed']} worst case(s), {work['pairs_computed']} pair(s) "
            f"({work['pairs_cached']} from the cache"
            + (
                f", resumed after {work['blocks_resumed']} block(s)"
                if work["blocks_resumed"]
                else ""
            )
            + ")"
            + ("" if no_cache else f"; cache {display_name(work['cache'])}")
        ),
        err=True,
    )
    drawn = not no_heatmap and "heatmap_error" not in work
    if "heatmap_error" in work:  # every other file is written; the picture is left out
        click.echo(terminal_text(f"warning: {work['heatmap_error']}"), err=True)
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(str(result))
        click.echo(
            terminal_text(
                f"wrote leaderboard.csv, leaderboard.md, matrix.csv, values.csv, invalid.csv, "
                f"grade.json{', matrix.png' if drawn else ''}, leaderboard.html to "
                f"{display_name(out_dir)} ({result.seconds:.1f} s)"
            ),
            err=True,
        )
    if len(result.names) < 2:
        click.echo(
            f"warning: only {len(result.names)} valid entrant(s): no match was played", err=True
        )
        sys.exit(1)


@click.command()
@click.argument("name", metavar="NAME")
@preset_option
@click.option(
    "--out",
    "out_path",
    required=True,
    type=click.Path(),
    help="folder (or .zip) to write the submission into",
)
@overwrite_option("replace --out if it exists and is not empty")
def baseline(name, config, out_path, overwrite):
    """Export baseline NAME as a submission: uniform, always-call, aggressive, cautious or
    random-pure[:SEED] or cfr:N (two-player presets: the solver after N iterations), or on
    rlcard-leduc RLCard's rule agents rlcard-v1, rlcard-v2; one signal, every seat.
    """
    from ..baselines import canonical_name, export_baseline

    canonical = canonical_name(name)
    path = export_baseline(canonical, config, out_path, overwrite=overwrite)
    click.echo(f"wrote baseline {canonical} ({config.name}) to {path}")


COMMANDS = [evaluate, match, grade, baseline]
