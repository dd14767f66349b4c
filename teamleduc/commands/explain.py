"""Commands ``show`` and ``trace``: what a strategy does at one information set, in one hand.

Thin click layers over :mod:`teamleduc.explain`; the preset is found from the submission's
files unless ``--preset`` is given.
"""

from __future__ import annotations

import click

from .options import Seed, check_sub, config_for, echo_result, submission_preset_option


@click.command("show")
@click.argument("sub", metavar="SUB")
@click.option(
    "--infoset",
    required=True,
    metavar="STRING",
    help="an information-set string of any seat, e.g. '/C:?K??/P1:r/'",
)
@submission_preset_option
@click.option("--json", "as_json", is_flag=True, help="print the rows as JSON")
def show(sub, infoset, config, as_json):
    """The probabilities SUB plays at one information set: the row of every signal (with its
    weight, the member's own reach and the weight given that reach) and the team's marginal,
    the signal mixture conditioned on the member reaching the information set.

    SUB is a submission folder or .zip, or a baseline name."""
    from ..explain import show_infoset

    check_sub("SUB", sub)
    config = config_for(config, [sub])
    echo_result(show_infoset(sub, config, infoset), as_json)


@click.command("trace")
@click.argument("sub", metavar="SUB")
@click.argument("other", metavar="[TEAM_B_SUB]", required=False)
@click.option("--seed", default=0, show_default=True, type=Seed(), help="seed (0 to 2**63-1)")
@submission_preset_option
@click.option("--json", "as_json", is_flag=True, help="print the hand as JSON")
def trace(sub, other, seed, config, as_json):
    """Deal one hand and play it from the strategies, printed as `teamleduc replay` prints it:
    SUB plays team A (seats 1, 3) and TEAM_B_SUB (SUB itself if omitted) team B; each team's
    signal is drawn from its meta-strategy. The same --seed gives the same hand. A look at one
    sampled hand, never an evaluation (evaluate is exact)."""
    from ..explain import trace_hand

    check_sub("SUB", sub)
    if other is not None:
        check_sub("TEAM_B_SUB", other)
    config = config_for(config, [sub, other] if other else [sub])
    echo_result(trace_hand(sub, other, config, seed), as_json)


COMMANDS = [show, trace]
