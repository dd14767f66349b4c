"""Commands ``info``, ``infosets`` and ``replay``: the game itself, no submission needed.

Thin click layers over :mod:`teamleduc.tree`, :mod:`teamleduc.infosets` and
:mod:`teamleduc.replay`; the library is imported inside each command so that ``--help`` stays
fast.
"""

from __future__ import annotations

import time

import click

from .. import __version__
from ..arguments import excerpt
from ..errors import TeamLeducError
from .options import echo_json, echo_result, overwrite_option, preset_option


@click.command()
@preset_option
@click.option("--json", "as_json", is_flag=True, help="print the same facts as JSON")
def info(config, as_json):
    """Size of a game: public nodes, terminals, information sets per seat, legal-action sets
    and the exact deal probabilities."""
    import numpy as np

    from ..infosets import infoset_tables
    from ..payoffs import deal_probabilities
    from ..tree import build_tree

    tree = build_tree(config)
    tables = infoset_tables(tree)
    summary = tree.summary()
    per_seat = [t.size for t in tables]
    sets = {}
    for t in tables:
        pats, counts = np.unique(t.legal, axis=0, return_counts=True)
        for row, n in zip(pats, counts):
            key = "".join(c for c, ok in zip("crf", row) if ok)
            sets[key] = sets.get(key, 0) + int(n)
    p = deal_probabilities(config)
    nz = p[p > 0]
    values, counts = np.unique(np.round(nz, 15), return_counts=True)
    facts = {
        "preset": config.name,
        "version": __version__,
        "rules": config.to_dict(),
        **summary,
        "infosets_per_seat": per_seat,
        "infosets_total": int(sum(per_seat)),
        "legal_action_sets": dict(sorted(sets.items())),
        "deals_possible": int(len(nz)),
        "deals_total": int(len(p)),
        "deal_probabilities": {f"{v:.12g}": int(c) for v, c in zip(values, counts)},
        "deal_probability_sum": float(p.sum()),
    }
    if as_json:
        echo_json(facts)
        return
    c = config
    click.echo(
        f"preset {c.name}: {c.num_seats} seats, ranks {' '.join(c.ranks)} x {c.suits} suit(s), "
        f"ante {c.ante}, raise sizes {list(c.raise_sizes)}, raise rule {c.raise_rule}"
        + (f" (cap {c.max_raises})" if c.raise_rule == "cap" else "")
        + (f", stack {c.stack} (ante included)" if c.stack is not None else "")
        + (
            f", blinds {c.blinds[0]}/{c.blinds[1]} (small blind "
            + ("dealt each hand" if c.dealt_blind else "seat 1")
            + ", acts first)"
            if c.blinds
            else ""
        )
        + (", round 2 opened after round 1's closer" if c.round2_order != "lowest-seat" else "")
        + (", fold always legal" if c.fold_rule != "facing-bet" else "")
        + ", teams "
        + " vs ".join("{" + ",".join(str(s + 1) for s in t) + "}" for t in c.teams)
    )
    click.echo(
        f"public tree: {summary['nodes']:,} nodes ({summary['decision_nodes']:,} decision, "
        f"{summary['chance_nodes']:,} chance, {summary['terminals']:,} terminal), depth {summary['max_depth']}"
    )
    click.echo(
        "information sets per seat: "
        + ", ".join(f"seat {s + 1} {n:,}" for s, n in enumerate(per_seat))
        + f"; total {sum(per_seat):,}"
    )
    click.echo(
        "legal-action sets (all seats): " + ", ".join(f"{k} {v:,}" for k, v in sorted(sets.items()))
    )
    click.echo(
        f"deals of private ranks: {len(nz):,} possible of {len(p):,}; probabilities "
        + ", ".join(f"{v:.10g} (x{c})" for v, c in zip(values, counts))
        + f"; sum {p.sum():.15g}"
    )


@click.command()
@preset_option
@click.option(
    "--out",
    "out_dir",
    default="data",
    show_default=True,
    type=click.Path(file_okay=False),
    help="folder to write into (created if missing)",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "2025"]),
    default="csv",
    show_default=True,
    help="csv: the spec's files; 2025: player_{i}_infosets.txt of the 2025 course",
)
@click.option("--no-examples", is_flag=True, help="do not write the uniform example submission")
@overwrite_option("replace --out if it exists and is not empty")
def infosets(config, out_dir, fmt, no_examples, overwrite):
    """Write the information-set files of a game (spec order, byte-for-byte deterministic).

    csv writes leduc4-infosets-player{1..S}.csv, the handout's example submission
    example-meta-strategy.csv and example-strategy0-player{i}.csv (every seat uniform over its
    legal actions), and the same example as the folder sample-submission/, which validate,
    evaluate, grade and exploitability read as it is. The folder appears complete or not at
    all; an existing non-empty one needs --overwrite.
    """
    from pathlib import Path

    from ..infosets import write_infoset_files
    from ..outputs import staged_folder
    from ..tree import build_tree

    t0 = time.perf_counter()
    tree = build_tree(config)
    with staged_folder(out_dir, overwrite) as stage:
        if fmt == "2025":
            from ..files.format2025 import write_infosets_2025

            staged = write_infosets_2025(tree, stage)
        else:
            staged = write_infoset_files(tree, stage, examples=not no_examples)
    paths = [Path(out_dir) / p.relative_to(stage) for p in staged]
    for p in paths:
        click.echo(f"wrote {p}")
    click.echo(f"{config.name}: {len(paths)} files in {out_dir} ({time.perf_counter() - t0:.2f} s)")


@click.command()
@preset_option
@click.option("--cards", required=True, help="private ranks of seats 1..S, e.g. J,Q,Q,K")
@click.option("--community", default=None, help="community rank (games with two rounds), e.g. J")
@click.option(
    "--actions",
    required=True,
    help='actions as SEAT:ACTION with c (call/check), r (raise), f (fold); an optional "/" '
    'ends round 1, e.g. "1:r 2:f 3:f 4:c / 1:c 4:r 1:r 4:c"',
)
@click.option(
    "--small-blind",
    "small_blind",
    type=int,
    default=None,
    metavar="K",
    help="the seat (1-based) that posts the small blind: required on presets that deal it "
    "(rlcard-leduc), refused on the others",
)
@click.option("--json", "as_json", is_flag=True, help="print the replay as JSON")
def replay(config, cards, community, actions, small_blind, as_json):
    """Replay one hand: each actor's information set, then every seat's and team's utility.

    An illegal action stops the replay with the rule it breaks (exit code 2)."""
    from ..replay import replay as run_replay
    from ..replay import split_cards

    for option, text in (("--cards", cards), ("--community", community), ("--actions", actions)):
        _check_hand_text(config, option, text)
    split_cards(cards, "--cards")  # an empty field is named, never dropped
    result = run_replay(config, cards, actions, community, _small_blind_seat(config, small_blind))
    echo_result(result, as_json)


def _small_blind_seat(config, small_blind: int | None) -> int | None:
    """The 0-based seat of ``--small-blind K`` (1-based), checked against ``config``: required
    where the small blind is dealt (rlcard-leduc), refused elsewhere; TeamLeducError naming
    the option otherwise."""
    S = config.num_seats
    if not config.dealt_blind:
        if small_blind is not None:
            raise TeamLeducError(
                f"--small-blind: {config.name} does not deal the small blind (only presets "
                "such as rlcard-leduc do); leave the option out"
            )
        return None
    if small_blind is None:
        raise TeamLeducError(
            f"--small-blind K is required on {config.name}, which deals the small blind: "
            f"give the seat (1..{S}) that posts it"
        )
    if not 1 <= small_blind <= S:
        raise TeamLeducError(f"--small-blind {small_blind}: {config.name} has seats 1..{S}")
    return small_blind - 1


#: characters of ``--cards``, ``--community`` or ``--actions`` accepted: far above the longest
#: hand of any preset (167 characters of actions on team-leduc), far below a pasted file
HAND_TEXT_CHARS = 2000


def _check_hand_text(config, option: str, text: str | None) -> None:
    """TeamLeducError for an argument of ``replay`` that no hand of ``config`` can spell: one
    longer than :data:`HAND_TEXT_CHARS` or holding a control character (a NUL, an escape
    sequence; blanks and line breaks are fine), shown escaped and shortened, never echoed
    as it is."""
    if text is None:
        return
    bad = len(text) > HAND_TEXT_CHARS
    if not bad and not text.isprintable():
        bad = any(not (c.isprintable() or c.isspace()) for c in text)
    if bad:
        raise TeamLeducError(
            f"{option} {excerpt(text)}: not a hand of {config.name} (at most "
            f"{HAND_TEXT_CHARS:,} printable characters, e.g. --cards J,Q,Q,K --actions "
            "'1:r 2:c 3:f 4:c')"
        )


COMMANDS = [info, infosets, replay]
