"""``teamleduc play``: a person plays one seat in the terminal against a submission or baseline.

The hands run on the AEC environment's engine (:class:`teamleduc.envs.Hand`); every other seat,
the teammate included, is played by ``--against`` through :class:`teamleduc.envs.SubmissionPolicy`
(each team draws its signal once per hand). Input is read line by line from stdin, so a session
can be scripted: ``printf 'c\\nr\\n' | teamleduc play --seat 1 --against cautious --hands 2``.
"""

from __future__ import annotations

import math
import sys

import click

from .options import preset_option

ACTION_NAMES = {0: "call/check (c)", 1: "raise (r)", 2: "fold (f)"}
SAID = {0: "calls", 1: "raises", 2: "folds"}
YOU = {"calls": "call", "checks": "check", "raises": "raise", "folds": "fold"}


def _said(hand, action: int) -> str:
    """``checks`` rather than ``calls`` when there was no bet to face."""
    if action == 0 and not hand.legal_mask()[2]:
        return "checks"
    return SAID[action]


class _Session:
    """Running totals of one session and the summary printed at the end."""

    def __init__(self, config, seat: int, against: str):
        self.config = config
        self.seat = seat
        self.against = against
        self.seat_results: list[float] = []
        self.team_results: list[float] = []

    def add(self, utilities) -> None:
        team = self.config.teams[self.config.team_of(self.seat)]
        self.seat_results.append(float(utilities[self.seat]))
        self.team_results.append(float(sum(utilities[s] for s in team)))

    def summary(self, players) -> None:
        from ..envs.play import seat_value

        n = len(self.seat_results)
        click.echo("")
        click.echo(f"== {n} hand(s) played as player_{self.seat + 1} against {self.against}")
        if n:
            mean = sum(self.seat_results) / n
            line = f"your total {sum(self.seat_results):+g} chips, {mean:+.3f} per hand"
            if n > 1:
                var = sum((x - mean) ** 2 for x in self.seat_results) / (n - 1)
                line += f" (standard error {math.sqrt(var / n):.3f})"
            click.echo(line)
            if len(self.config.teams[self.config.team_of(self.seat)]) > 1:
                click.echo(f"your team's total {sum(self.team_results):+g} chips")
        exact = seat_value(self.config, players, self.seat)
        exact = 0.0 if abs(exact) < 1e-12 else exact  # no "-0.000000" from rounding noise
        click.echo(
            f"exact expected value of player_{self.seat + 1} if {self.against} played it too: "
            f"{exact:+.6f} chips per hand (teamleduc.evaluate machinery, no sampling)"
        )


class _Quit(Exception):
    """The person ended the session (q, end of input or Ctrl-C)."""


def _ask(hand, stdin) -> int:
    from ..envs.play import parse_action

    legal = hand.legal_actions()
    options = ", ".join(ACTION_NAMES[a] for a in legal)
    while True:
        click.echo(f"your action [{options}; q quits]: ", nl=False)
        line = stdin.readline()
        if line == "":
            click.echo("")
            raise _Quit
        text = line.strip()
        if text.lower() in ("q", "quit", "exit"):
            raise _Quit
        action = parse_action(text)
        if action is None:
            click.echo(f"  {text!r} is not an action; type c, r or f")
        elif action not in legal:
            click.echo(f"  {ACTION_NAMES[action]} is not legal here; legal: {options}")
        else:
            return action


@click.command()
@preset_option
@click.option("--seat", type=int, default=1, show_default=True, help="your seat, 1-based")
@click.option(
    "--against",
    "against",
    required=True,
    metavar="SUB",
    help="submission folder/.zip or baseline name playing every other seat (teammate included)",
)
@click.option(
    "--hands", type=click.IntRange(min=0), default=0, help="hands to play (default: until q/Ctrl-D)"
)
@click.option("--seed", type=int, default=None, help="seed of the deals and of SUB's draws")
def play(config, seat, against, hands, seed):
    """Play one seat in the terminal against SUB on every other seat.

    Shows your card, the community card, the history, the pot and your legal actions; type c,
    r or f (or call/check, raise, fold). After each hand: every seat's utility and your running
    total; at the end, the exact expected value of your seat if SUB played it as well."""
    import numpy as np

    from ..envs import Hand, SubmissionPolicy, env_game
    from ..envs.render import render_table

    S = config.num_seats
    if not 1 <= seat <= S:
        raise click.BadParameter(f"{config.name} has seats 1..{S}", param_hint="--seat")
    me = seat - 1
    policy = SubmissionPolicy(against, config, seed=None if seed is None else seed + 1)
    game = env_game(config)
    hand = Hand(game)
    rng = np.random.default_rng(seed)
    session = _Session(config, me, policy.name)
    click.echo(
        f"{config.name}: you are player_{seat}; {policy.name} plays every other seat. "
        "Type c, r or f; q or Ctrl-D quits."
    )
    played = 0
    stdin = sys.stdin  # read line by line: a session can be scripted
    try:
        while hands == 0 or played < hands:
            hand.deal(rng)
            policy.new_hand()
            click.echo(f"\n-- hand {played + 1}: your card {config.ranks[hand.cards[me]]}")
            while not hand.over:
                s = hand.to_act
                if s == me:
                    click.echo(render_table(hand, viewer=me))
                    action = _ask(hand, stdin)
                else:
                    action = policy.sample(s, hand.infoset_index(s))
                verb = _said(hand, action)
                before = hand.community
                hand.act(action)
                who = "you" if s == me else f"player_{s + 1}"
                click.echo(f"{who} {YOU[verb] if s == me else verb}")
                if hand.community >= 0 and before < 0:
                    click.echo(f"community card: {config.ranks[hand.community]}")
            u = hand.utilities()
            session.add(u)
            played += 1
            click.echo(render_table(hand, viewer=me))
            click.echo(
                "utilities: "
                + ", ".join(f"player_{s + 1} {x:+g}" for s, x in enumerate(u.tolist()))
            )
            click.echo(
                f"you {u[me]:+g}; running total {sum(session.seat_results):+g} "
                f"after {played} hand(s)"
            )
    except (_Quit, KeyboardInterrupt):
        pass
    session.summary(against)


COMMANDS = [play]
