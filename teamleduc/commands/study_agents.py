"""``teamleduc study agents``: learning agents against the rule bots, every point exact.

The subcommand is :func:`agents_command`, a thin layer over :class:`teamleduc.agents.study.Study`
registered in the ``study`` group of :mod:`teamleduc.commands.study`. Every count has a bound
that keeps a run to hours (:data:`teamleduc.agents.study.MAX_EPISODES` ..., checked by
``Study`` before anything runs), seeds are
``0..2**63-1``, the Q-learning parameters finite numbers in [0, 1]. Ctrl-C ends the training
at once (the Q-learner returns to Python after every slice of episodes), writes the curves
computed so far (CSV and tables; no pictures, matplotlib takes seconds to load) and exits
with code 130; with nothing computed yet it is the usual "aborted".
"""

from __future__ import annotations

import re

import click

from ..arguments import excerpt
from ..errors import TeamLeducError
from .options import Number, Seed, overwrite_option, preset_callback


def _names(text: str) -> tuple[str, ...]:
    return tuple(x.strip().lower() for x in text.split(",") if x.strip())


def _seats(text: str, num_seats: int) -> list[int]:
    """0-based seats of ``--seats`` (1-based, comma-separated); TeamLeducError naming the
    first bad entry (shown shortened and escaped)."""
    items = [x.strip() for x in text.split(",")]
    if not any(items):
        raise TeamLeducError(f"--seats {excerpt(text)}: give 1-based seat numbers, e.g. 1,2")
    out = []
    for item in items:
        if not re.fullmatch(r"[0-9]{1,6}", item):
            raise TeamLeducError(
                f"--seats {excerpt(text)}: {excerpt(item)} is not a seat number; give 1-based "
                "seat numbers, e.g. 1,2"
            )
        seat = int(item)
        if not 1 <= seat <= num_seats:
            raise TeamLeducError(f"--seats: seat {seat} is not one of 1..{num_seats}")
        out.append(seat - 1)
    return out


@click.command("agents")
@click.option("--preset", "config", default="leduc", show_default=True, metavar="P",
              callback=preset_callback, help="game preset")  # fmt: skip
@click.option("--agents", "agents", default="qlearning,cfr,expectiminimax", show_default=True,
              help="comma-separated: qlearning, cfr, expectiminimax")  # fmt: skip
@click.option("--bots", default=None,
              help="comma-separated baselines playing every other seat [default: "
              "uniform,aggressive,cautious; on rlcard-leduc uniform,rlcard-v1,rlcard-v2, "
              "RLCard's own rule agents]")  # fmt: skip
@click.option("--episodes", default=1_000_000, show_default=True, type=click.IntRange(1),
              help="Q-learning training hands per bot (all learning seats together)")  # fmt: skip
@click.option("--cfr-iterations", default=2000, show_default=True, type=click.IntRange(1),
              help="CFR self-play iterations")  # fmt: skip
@click.option("--cfr-variant", default="cfr", show_default=True,
              type=click.Choice(["cfr", "cfr+", "dcfr"]), help="cfr: plain CFR, as the project")  # fmt: skip
@click.option("--depth", default=1, show_default=True, type=click.IntRange(0),
              help="expectiminimax depth of the curves and summary")  # fmt: skip
@click.option("--max-depth", default=5, show_default=True, type=click.IntRange(0),
              help="expectiminimax is also measured at every depth 0..max-depth")  # fmt: skip
@click.option("--seats", default=None, metavar="LIST",
              help="1-based learning seats, e.g. 1 (default: every seat)")  # fmt: skip
@click.option("--alpha", type=Number(0.0, 1.0), default=None, help="Q-learning learning rate (with --gamma, --epsilon: overrides the project's per-bot choice)")  # fmt: skip
@click.option("--gamma", type=Number(0.0, 1.0), default=None, help="Q-learning discount")
@click.option("--epsilon", type=Number(0.0, 1.0), default=None, help="Q-learning exploration")
@click.option("--grid", is_flag=True, help="search the project's 4x4x4 grid for each bot first and train with the best")  # fmt: skip
@click.option("--grid-episodes", default=200_000, show_default=True, type=click.IntRange(1),
              help="episodes of each grid point")  # fmt: skip
@click.option("--seed", default=0, show_default=True, type=Seed(), help="seed (0 to 2**63-1)")
@click.option("--unit", type=click.Choice(["chips", "bb"]), default=None,
              help="unit of the tables, curves and pictures [default: bb (big blinds, the "
              "report's unit) in a game with blinds such as rlcard-leduc, else chips]")  # fmt: skip
@click.option("--out", "out_dir", default="out/study-agents", show_default=True,
              type=click.Path(file_okay=False), help="folder for the curves, tables and policies")  # fmt: skip
@overwrite_option("replace --out if it exists and is not empty")
@click.option("--no-progress", is_flag=True, help="no progress bar")
@click.pass_context
def agents_command(ctx, config, agents, bots, episodes, cfr_iterations, cfr_variant, depth,
                   max_depth, seats, alpha, gamma, epsilon, grid, grid_episodes, seed, unit,
                   out_dir, overwrite, no_progress):  # fmt: skip
    """Train Q-learning, CFR and expectiminimax against rule bots and measure every point of
    every learning curve exactly (the RLCard Leduc project, seed 004). On rlcard-leduc
    (RLCard's own game) the bots are RLCard's and the values are in big blinds, as in the report.

    Writes per bot BOT.png and BOT.csv (exact value every 1/20 of training, seats averaged,
    with the exact best-response ceiling and a near-equilibrium's value), summary.md,
    expectiminimax-depths.csv, grid-BOT.csv (with --grid) and the final policies as
    submissions in policies/, all as one unit (an existing non-empty --out needs
    --overwrite). Ctrl-C writes the curves so far as CSV (exit code 130).
    """
    from ..agents.study import Study, default_bots, default_unit
    from ..outputs import check_target, staged_folder

    given = [x is not None for x in (alpha, gamma, epsilon)]
    if any(given) and not all(given):
        raise TeamLeducError("give --alpha, --gamma and --epsilon together")
    seat_list = None if seats is None else _seats(seats, config.num_seats)
    study = Study(
        config,
        agents=_names(agents),
        bots=default_bots(config) if bots is None else _names(bots),
        episodes=episodes,
        cfr_iterations=cfr_iterations,
        cfr_variant=cfr_variant,
        depth=depth,
        max_depth=max_depth,
        seats=seat_list,
        seed=seed,
        grid=grid,
        grid_episodes=grid_episodes,
        parameters=(alpha, gamma, epsilon) if all(given) else None,
        unit=default_unit(config) if unit is None else unit,
    )
    check_target(out_dir, overwrite)  # before the (long) study
    interrupted = False
    try:
        study.run(progress=not no_progress)
    except KeyboardInterrupt:
        if not (study.curves or study.rows or study.depth_values or study.grid_results):
            raise  # nothing measured yet: nothing to write ("aborted", exit code 130)
        interrupted = True
    with staged_folder(out_dir, overwrite) as stage:
        paths = study.write(stage, pictures=not interrupted)
    if study.rows:
        click.echo(study.table())
    if study.depth_values:
        click.echo("\nexpectiminimax by depth:\n" + study.depth_table())
    claims = study.claims()
    if claims:
        click.echo("\nthe report's claims:\n" + "\n".join(f"- {c}" for c in claims))
    click.echo(f"\nwrote {len(paths)} files in {out_dir} ({study.seconds:.1f} s)")
    if interrupted:
        click.echo("interrupted: the curves so far are written (CSV, no pictures)", err=True)
        ctx.exit(130)
