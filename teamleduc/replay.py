"""Replay one hand through the rules and the public tree (``teamleduc replay``).

The hand is given as cards per seat, an optional community card and the action sequence
``"1:r 2:f 3:f 4:c / 1:c 4:r 1:r 4:c"`` (``seat:action``; the ``/`` marking the end of round 1
is optional but, when present, must stand exactly where the round ends). Every step is checked
against :mod:`teamleduc.rules`, so an illegal action is reported with the rule it breaks.

Where the small blind is dealt (``rlcard-leduc``) the hand also names the seat that posts it
(``small_blind``, 0-based; ``--small-blind K``, 1-based, on the command line): the replay starts
below the root chance node's edge ``3 + small_blind``, with that seat acting first, and round 2
is opened as the rules open it (:func:`teamleduc.rules.second_round_first`), so the replay
walks the very nodes of the public tree.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from . import rules
from .config import ConfigLike, GameConfig, get_config
from .errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from .infosets import infoset_tables
from .payoffs import utilities_at
from .tree import CHANCE, TERMINAL, build_tree


@dataclass(frozen=True)
class ReplayStep:
    seat: int  # 0-based
    action: str  # 'c', 'r' or 'f'
    infoset: str  # the information-set string the actor saw
    infoset_id: int  # its 0-based line in the seat's information-set file
    legal: str  # legal actions there, e.g. 'crf'


@dataclass(frozen=True)
class ReplayResult:
    config: GameConfig
    cards: tuple[int, ...]
    community: int
    steps: tuple[ReplayStep, ...]
    utilities: tuple[float, ...]
    node: int = field(default=-1)
    small_blind: int = field(default=-1)  # 0-based seat posting a dealt small blind, else -1

    def team_utilities(self) -> tuple[float, ...]:
        return tuple(sum(self.utilities[s] for s in team) for team in self.config.teams)

    def __str__(self) -> str:
        c = self.config
        lines = [
            f"preset {c.name}: cards "
            + ", ".join(f"seat {s + 1} {c.ranks[r]}" for s, r in enumerate(self.cards))
            + (f"; community {c.ranks[self.community]}" if self.community >= 0 else "")
            + (f"; small blind seat {self.small_blind + 1}" if self.small_blind >= 0 else "")
        ]
        for st in self.steps:
            lines.append(
                f"  seat {st.seat + 1} plays {st.action}  at {st.infoset}"
                f"  (line {st.infoset_id + 1}, legal {st.legal})"
            )
        lines.append(
            "utilities: " + ", ".join(f"seat {s + 1} {u:+g}" for s, u in enumerate(self.utilities))
        )
        lines.append(
            "teams: "
            + ", ".join(
                f"{'+'.join(str(s + 1) for s in team)} {u:+g}"
                for team, u in zip(c.teams, self.team_utilities())
            )
        )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        c = self.config
        blind = {"small_blind": self.small_blind + 1} if self.small_blind >= 0 else {}
        return {
            "preset": c.name,
            "cards": [c.ranks[r] for r in self.cards],
            "community": c.ranks[self.community] if self.community >= 0 else None,
            **blind,
            "steps": [
                {
                    "seat": s.seat + 1,
                    "action": s.action,
                    "infoset": s.infoset,
                    "line": s.infoset_id + 1,
                }
                for s in self.steps
            ],
            "utilities": list(self.utilities),
            "team_utilities": list(self.team_utilities()),
        }


def split_cards(text: str, what: str = "cards") -> list[str]:
    """The rank names of ``text``: separated by commas (``"J,Q,Q,K"``, blanks around them
    allowed) or by blanks (``"J Q Q K"``). An empty field (``"Q,K,Q,K,,"``, ``",Q,K"``,
    ``"Q,,K"``) is an ArgumentValueError naming ``what`` and the field, never dropped: the
    cards given would no longer be those meant."""
    from .arguments import excerpt

    stripped = text.strip()
    if not stripped:
        raise ArgumentValueError(f"{what}: empty; give one rank per seat, e.g. J,Q,Q,K")
    if "," not in stripped:
        return stripped.split()
    out: list[str] = []
    for k, field_text in enumerate(stripped.split(","), 1):
        names = field_text.split()
        if not names:
            raise ArgumentValueError(
                f"{what} {excerpt(text)}: field {k} is empty; give one rank per seat "
                "separated by commas, e.g. J,Q,Q,K"
            )
        out += names
    return out


def parse_rank(config: GameConfig, text, what: str) -> int:
    """0-based rank of ``text``: a rank name (any case) or an int 0..R-1 (numpy integers
    included); TeamLeducError naming ``what`` otherwise (a bool, a float, -1: Python's
    negative indexing would have dealt the top rank)."""
    if isinstance(text, str):
        name = text.strip()
        for k, r in enumerate(config.ranks):
            if r.upper() == name.upper():
                return k
        raise ArgumentValueError(
            f"{what}: unknown rank {text!r}; ranks are {', '.join(config.ranks)}"
        )
    if isinstance(text, numbers.Integral) and not isinstance(text, (bool, np.bool_)):
        if 0 <= text < config.num_ranks:
            return int(text)
        raise ArgumentValueError(
            f"{what}: rank index {int(text)} is out of range 0..{config.num_ranks - 1} "
            f"({', '.join(config.ranks)})"
        )
    raise ArgumentTypeError(
        f"{what}: give a rank name ({', '.join(config.ranks)}) or a 0-based rank index, not "
        f"{type(text).__name__} {text!r}"
    )


def check_small_blind(config: GameConfig, small_blind) -> int:
    """``small_blind`` checked against ``config``: the 0-based seat (an int 0..S-1) where the
    small blind is dealt, where it is required; None elsewhere, where any other value is
    refused. Returns the seat, or -1 for None; ArgumentTypeError / ArgumentValueError naming
    ``small_blind`` otherwise."""
    if not config.dealt_blind:
        if small_blind is not None:
            raise ArgumentValueError(
                f"small_blind: {config.name} does not deal the small blind; leave it None, "
                f"not {small_blind!r}"[:300]
            )
        return -1
    S = config.num_seats
    if small_blind is None:
        raise ArgumentValueError(
            f"small_blind: {config.name} deals the small blind; give the 0-based seat that "
            f"posts it (0..{S - 1}) (--small-blind 1..{S} on the command line)"
        )
    if isinstance(small_blind, (bool, np.bool_)) or not isinstance(small_blind, numbers.Integral):
        raise ArgumentTypeError(
            f"small_blind: the 0-based seat that posts the small blind (an int 0..{S - 1}), "
            f"not {type(small_blind).__name__} {small_blind!r}"[:300]
        )
    if not 0 <= small_blind < S:
        raise ArgumentValueError(
            f"small_blind: seat {int(small_blind)} is out of range 0..{S - 1} (0-based) "
            f"on {config.name}"
        )
    return int(small_blind)


def replay(
    config: ConfigLike,
    cards: Sequence[int | str] | str,
    actions: str,
    community: int | str | None = None,
    small_blind: int | None = None,
) -> ReplayResult:
    """Replay a hand; raises :class:`TeamLeducError` naming the first illegal step.

    ``cards``: one rank per seat, as names (``"J,Q,Q,K"`` or ``["J", "Q", ...]``) or 0-based
    rank indices; ``community``: a rank name or index, or None; ``actions``: a string such as
    ``"1:r 2:f 3:f 4:c / 1:c 4:r 1:r 4:c"``; ``small_blind``: the 0-based seat that posts the
    small blind, required where it is dealt (``rlcard-leduc``) and refused elsewhere
    (:func:`check_small_blind`).
    """
    config = get_config(config)
    sb = check_small_blind(config, small_blind)
    tree = build_tree(config)
    tables = infoset_tables(tree)
    if isinstance(cards, str):
        cards = split_cards(cards)
    elif isinstance(cards, (bytes, Mapping)) or not isinstance(cards, Iterable):
        raise ArgumentTypeError(
            f"cards: give one rank per seat, e.g. 'J,Q' or ['J', 'Q'], not {cards!r}"[:200]
        )
    cards = list(cards)
    if len(cards) != config.num_seats:
        raise TeamLeducError(
            f"{config.name} has {config.num_seats} seats but {len(cards)} cards were given"
        )
    cards = [parse_rank(config, c, f"card {i + 1}") for i, c in enumerate(cards)]
    if not isinstance(actions, str):
        raise ArgumentTypeError(
            f"actions: a string such as '1:c 2:r 1:c', not {type(actions).__name__}"
        )
    comm = -1
    if community is not None and not (isinstance(community, str) and community.strip() == ""):
        if not config.has_community:
            raise TeamLeducError(f"{config.name} has no community card")
        comm = parse_rank(config, community, "community")
    used = list(cards) + ([comm] if comm >= 0 else [])
    for k in set(used):
        if used.count(k) > config.suits:
            raise TeamLeducError(
                f"the deck has only {config.suits} card(s) of rank {config.ranks[k]}, "
                f"{used.count(k)} were dealt"
            )
    tokens = re.findall(r"/|[^\s/]+", actions)
    if sb >= 0:  # below the root chance node that deals the small blind
        state = rules.initial_state(config, sb)
        node = int(tree.children[0, 3 + sb])
    else:
        state = rules.initial_state(config)
        node = 0
    steps = []
    for pos, tok in enumerate(tokens, 1):
        where = f"action {pos} ({tok!r})"
        if tok == "/":
            if tree.kind[node] != CHANCE:
                raise TeamLeducError(f"{where}: round {state.round + 1} is not over here")
            continue
        m = re.fullmatch(r"[Pp]?(\d+):([crfCRF])", tok)
        if not m:
            raise TeamLeducError(f"{where}: expected SEAT:ACTION such as 1:r (actions c, r, f)")
        seat, a = int(m.group(1)) - 1, "crf".index(m.group(2).lower())
        if tree.kind[node] == CHANCE:
            if tree.kind[tree.children[node, 3]] == TERMINAL:
                raise TeamLeducError(
                    f"{where}: an all-in was called: no more betting, the hand goes to showdown"
                )
            if comm < 0:
                raise TeamLeducError(
                    f"{where}: round 1 is over and round 2 needs a community card (--community)"
                )
            # round 2 is opened as the rules (and the tree) open it: from the seat
            # second_round_first names after the seat whose action closed round 1
            closer = int(tree.actor[tree.parent[node]])
            node = int(tree.children[node, 3 + comm])
            contrib = tuple(int(v) for v in tree.contrib[node])
            active = tuple(bool(v) for v in tree.active[node])
            first = rules.second_round_first(config, closer)
            state = rules.start_round(config, 1, contrib, active, first)
        if tree.kind[node] == TERMINAL:
            raise TeamLeducError(f"{where}: the hand is already over")
        if seat != state.to_act:
            raise TeamLeducError(
                f"{where}: it is seat {state.to_act + 1}'s turn, not seat {seat + 1}'s"
            )
        reason = rules.illegal_reason(config, state, a)
        if reason is not None:
            raise TeamLeducError(f"{where}: illegal: {reason}")
        table = tables[seat]
        iid = int(table.id_of[node, cards[seat]])
        legal = "".join(ch for ch, ok in zip("crf", tree.legal[node]) if ok)
        steps.append(ReplayStep(seat, "crf"[a], table.strings[iid], iid, legal))
        state = rules.step(config, state, a)
        node = int(tree.children[node, a])
    if tree.kind[node] == CHANCE and comm >= 0:
        # an all-in was called: the community card is dealt and the hand goes to showdown
        child = int(tree.children[node, 3 + comm])
        if tree.kind[child] == TERMINAL:
            node = child
    if tree.kind[node] != TERMINAL:
        all_in = tree.kind[node] == CHANCE and tree.kind[tree.children[node, 3]] == TERMINAL
        what = (
            "the community card (--community) for the showdown of the called all-in"
            if all_in
            else "a community card and round 2"
            if tree.kind[node] == CHANCE
            else f"seat {int(tree.actor[node]) + 1} to act"
        )
        raise TeamLeducError(
            f"the hand is not over after {len(steps)} action(s): it waits for {what}"
        )
    if tree.community[node] >= 0 and comm < 0:
        raise TeamLeducError("round 2 was played without a community card (--community)")
    u = utilities_at(tree, node, cards, int(tree.community[node]))
    return ReplayResult(
        config=config,
        cards=tuple(cards),
        community=int(tree.community[node]),
        steps=tuple(steps),
        utilities=tuple(float(v) for v in u),
        node=node,
        small_blind=sb,
    )
