"""``teamleduc play``: a person plays one seat in the terminal against a submission or baseline.

The hands run on the AEC environment's engine (:class:`teamleduc.envs.Hand`); every other seat,
the teammate included, is played by ``--against`` through :class:`teamleduc.envs.SubmissionPolicy`
(each team draws its signal once per hand). Input is read line by line from stdin, so a session
can be scripted: ``printf 'c\\nr\\n' | teamleduc play --seat 1 --against cautious --hands 2``.

Typed input is data: a line is read as bytes, at most :data:`LINE_BYTES` of it kept (the rest
of a longer line is skipped, counted, never held), decoded leniently, and echoed back only as
:func:`~teamleduc.commands.options.excerpt` shows it (escapes visible, a bounded prefix). After
:data:`MAX_BAD_LINES` lines in a row that are not a legal action the session ends with the
summary and exit code 2 (``yes x | teamleduc play ...`` would re-prompt forever). A closed
stdin is refused before the first hand; end of input quits like ``q``.
"""

from __future__ import annotations

import math
import sys

import click

from ..arguments import excerpt
from ..errors import TeamLeducError
from .options import Seed, check_sub, preset_option

ACTION_NAMES = {0: "call/check (c)", 1: "raise (r)", 2: "fold (f)"}
SAID = {0: "calls", 1: "raises", 2: "folds"}
YOU = {"calls": "call", "checks": "check", "raises": "raise", "folds": "fold"}
#: bytes of a typed line that are kept (an action word is a few characters)
LINE_BYTES = 4096
#: lines in a row that are not a legal action before the session ends
MAX_BAD_LINES = 20


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
    """The person ended the session (q, end of input or Ctrl-C); ``error`` is set when the
    session ended because of its input (too many bad lines)."""

    def __init__(self, error: str | None = None):
        super().__init__(error)
        self.error = error


class _Long(str):
    """The kept start of a line longer than :data:`LINE_BYTES`; ``size`` its length in bytes."""

    def __new__(cls, text: str, size: int):
        self = super().__new__(cls, text)
        self.size = size
        return self


def read_line(stdin) -> str | None:
    """One typed line without its line ending, or None at end of input. At most
    :data:`LINE_BYTES` bytes of it are kept; a longer line is read to its end in bounded
    pieces and returned shortened, its length recorded in :attr:`_Long.size`. Bytes are
    decoded as UTF-8, an undecodable byte kept as a lone surrogate (shown as ``\\xNN``)."""
    raw = getattr(stdin, "buffer", None)
    if raw is None or not hasattr(raw, "readline"):  # a text stream of a test or an embedder
        line = stdin.readline()
        if not line:
            return None
        line = line.rstrip("\r\n")
        return line if len(line) <= LINE_BYTES else _Long(line[:LINE_BYTES], len(line))
    line = raw.readline(LINE_BYTES)
    if not line:
        return None
    if line.endswith(b"\n") or len(line) < LINE_BYTES:  # whole (the last one may lack "\n")
        return line.rstrip(b"\r\n").decode("utf-8", "surrogateescape")
    size = len(line)
    rest = b""
    while True:  # skip the rest of a long line, keeping only its length
        more = raw.readline(1 << 16)
        size += len(more)
        rest = more[-2:]
        if not more or more.endswith(b"\n"):
            break
    if size - (len(rest) - len(rest.rstrip(b"\r\n"))) <= LINE_BYTES:  # LINE_BYTES, then "\n"
        return line.rstrip(b"\r").decode("utf-8", "surrogateescape")
    return _Long(line.decode("utf-8", "surrogateescape"), size)


def _shown(line: str) -> str:
    """A typed line as a message shows it (escaped, a bounded prefix)."""
    if isinstance(line, _Long):
        return f"{excerpt(line[:40])}... (a line of {line.size:,} bytes)"
    return excerpt(line.strip())


def _ask(hand, stdin) -> int:
    from ..envs.play import parse_action

    legal = hand.legal_actions()
    options = ", ".join(ACTION_NAMES[a] for a in legal)
    keys = [ACTION_NAMES[a][-2] for a in legal]  # the letter in "raise (r)"
    letters = ", ".join(keys[:-1]) + " or " + keys[-1] if len(keys) > 1 else keys[0]
    bad = 0
    while True:
        click.echo(f"your action [{options}; q quits]: ", nl=False)
        line = read_line(stdin)
        if line is None:
            click.echo("")
            raise _Quit
        long = isinstance(line, _Long)
        if not long and line.strip().lower() in ("q", "quit", "exit"):
            raise _Quit
        action = None if long else parse_action(line)
        if action is None:
            click.echo(f"  {_shown(line)} is not an action; type {letters}")
        elif action not in legal:
            click.echo(f"  {ACTION_NAMES[action]} is not legal here; legal: {options}")
        else:
            return action
        bad += 1
        if bad >= MAX_BAD_LINES:
            raise _Quit(
                f"{MAX_BAD_LINES} lines in a row were not a legal action "
                f"({options}; q quits): the session ends"
            )


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
@click.option(
    "--seed", type=Seed(), default=None, help="seed of the deals and of SUB's draws (0 to 2**63-1)"
)
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
    stdin = sys.stdin  # read line by line: a session can be scripted
    if stdin is None or getattr(stdin, "closed", False):
        raise TeamLeducError(
            "standard input is closed: play reads your actions from it (type them, or pipe "
            "them in: printf 'c\\nr\\n' | teamleduc play ...)"
        )
    me = seat - 1
    check_sub("--against", against)
    policy = SubmissionPolicy(
        against, config, seed=None if seed is None else seed + 1, what="--against"
    )
    game = env_game(config)
    hand = Hand(game)
    rng = np.random.default_rng(seed)
    session = _Session(config, me, policy.name)
    click.echo(
        f"{config.name}: you are player_{seat}; {policy.name} plays every other seat. "
        "Type c, r or f; q or Ctrl-D quits."
    )
    played = 0
    error = None
    try:
        while hands == 0 or played < hands:
            hand.deal(rng)
            policy.new_hand()
            blinds = ""
            if config.blinds:
                sb = hand.small_blind
                blinds = (
                    f"; blinds {config.blinds[0]}/{config.blinds[1]}: small blind "
                    f"{'you' if sb == me else f'player_{sb + 1}'}"
                )
            click.echo(f"\n-- hand {played + 1}: your card {config.ranks[hand.cards[me]]}{blinds}")
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
    except _Quit as e:
        error = e.error
    except KeyboardInterrupt:
        pass
    session.summary(against)
    if error:
        raise TeamLeducError(error)


COMMANDS = [play]
