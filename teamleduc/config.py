"""Game configuration: every rule value of the Leduc/Kuhn family in one frozen record.

The toolkit never hard-codes a rule: the public tree, the information sets, the payoffs and
every algorithm read them from a :class:`GameConfig`. Named presets cover the challenge game
(``team-leduc``, the spec's default), the 2025 edition (``team-leduc-2025``), the classic
games with published values (``leduc``, ``kuhn`` and their 3-player forms, ``kuhn-100``)
and small variants that tests solve by brute force.

Seats are 0-based inside the library and 1-based in strings, files and on the command line.
"""

from __future__ import annotations

import dataclasses
import difflib
import numbers
from dataclasses import dataclass

from .errors import ArgumentTypeError, ArgumentValueError

#: "each player may raise at most once per round" (the spec's rule for team-leduc)
ONCE_PER_PLAYER = "once-per-player"
#: "at most ``max_raises`` raises per round in total" (classic Leduc, Kuhn, the 2025 edition)
CAP = "cap"
#: no limit on raises: the stacks end the betting (``leduc-stack50``; needs a ``stack``)
NO_CAP = "no-cap"
RAISE_RULES = (ONCE_PER_PLAYER, CAP, NO_CAP)

#: fold is legal only when facing a bet (the spec's rule, OpenSpiel's)
FOLD_FACING_BET = "facing-bet"
#: fold is always legal, also when not facing a bet (RLCard's Leduc)
FOLD_ALWAYS = "always"
FOLD_RULES = (FOLD_FACING_BET, FOLD_ALWAYS)

#: round 2 starts with the lowest-numbered active seat (the spec's rule, OpenSpiel's)
LOWEST_SEAT = "lowest-seat"
#: round 2 starts with the next active seat after the one whose action closed round 1 (RLCard)
AFTER_CLOSER = "after-closer"
ROUND2_ORDERS = (LOWEST_SEAT, AFTER_CLOSER)


#: the largest pot a game may reach, in chips: contributions are int32 in the public tree
#: (:mod:`teamleduc.tree`), so a pot of every seat at its largest contribution must fit an int32
#: with a factor-2 margin; utilities (``share * pot - paid``, float64) are then exact integers
MAX_POT = 2**30
#: the longest betting sequence a game may have (edges from the root to a terminal, chance
#: nodes included): the tree builder and the tree walks recurse once per edge, well below
#: Python's default recursion limit of 1000, with room for their callers' frames
MAX_DEPTH = 200
#: the most ranks of a two-round game: the tree holds the community rank in an int8
MAX_COMMUNITY_RANKS = 127


def default_rank_names(num_ranks: int) -> tuple[str, ...]:
    """Rank names, weakest first: J Q K for three ranks, the top of 2..A up to 13, else 1..n."""
    if num_ranks <= 3:
        return ("J", "Q", "K")[3 - num_ranks :]
    if num_ranks <= 13:
        return tuple("23456789TJQKA"[13 - num_ranks :])
    return tuple(str(k) for k in range(1, num_ranks + 1))


@dataclass(frozen=True)
class GameConfig:
    """All rule values of one game.

    Attributes
    ----------
    name : preset name (informational; appears in reports).
    num_seats : number of players.
    ranks : rank names, weakest first (suits only affect dealing probabilities).
    suits : copies of each rank in the deck.
    ante : chips every seat puts in before the deal.
    raise_sizes : raise size per betting round; its length is the number of rounds. With two
        rounds one community card is dealt face up between them.
    raise_rule : ``"once-per-player"`` (each player raises at most once per round) or
        ``"cap"`` (at most ``max_raises`` raises per round in total).
    max_raises : the cap for ``raise_rule == "cap"``; ignored otherwise.
    teams : the teams as tuples of 0-based seats; team 0 is "team A".
    stack : chips every seat starts the hand with, ante included; None = unlimited (every
        preset but ``leduc-stack50``). A raise the seat cannot cover in full is for all its
        chips (all-in); a seat with nothing left after calling, or facing an all-in opponent,
        may not raise; once every seat but one is all-in the hand runs to showdown without
        more betting. Two seats only: side pots are not modelled.
    blinds : ``(small, big)`` chips posted, on top of the ante, by the small-blind seat and the
        seat after it; with blinds the small blind acts first in round 1. ``()`` = no blinds
        (every preset but ``rlcard-leduc``).
    dealt_blind : the small-blind seat is drawn uniformly at random each hand, in public (a
        chance node at the root of the tree); False = seat 1 posts the small blind.
    round2_order : ``"lowest-seat"`` (the lowest active seat starts round 2) or
        ``"after-closer"`` (the next active seat after the one whose action closed round 1,
        RLCard's order).
    fold_rule : ``"facing-bet"`` (fold only when facing a bet) or ``"always"`` (RLCard).
    """

    name: str
    num_seats: int
    ranks: tuple[str, ...]
    suits: int
    ante: int
    raise_sizes: tuple[int, ...]
    raise_rule: str
    max_raises: int
    teams: tuple[tuple[int, ...], ...]
    stack: int | None = None
    blinds: tuple[int, ...] = ()
    dealt_blind: bool = False
    round2_order: str = LOWEST_SEAT
    fold_rule: str = FOLD_FACING_BET

    def __post_init__(self) -> None:
        if self.num_seats < 2:
            raise ValueError("a game needs at least 2 seats")
        if len(self.ranks) < 1 or len(set(self.ranks)) != len(self.ranks):
            raise ValueError(f"rank names must be distinct and non-empty: {self.ranks}")
        if any(("?" in r or "/" in r or not r) for r in self.ranks):
            raise ValueError("rank names may not be empty or contain '?' or '/'")
        if self.suits < 1 or self.ante < 0:
            raise ValueError("suits must be >= 1 and ante >= 0")
        if len(self.raise_sizes) not in (1, 2) or any(r <= 0 for r in self.raise_sizes):
            raise ValueError("raise_sizes: one or two positive sizes (one per round)")
        if self.raise_rule not in RAISE_RULES:
            raise ValueError(f"unknown raise rule {self.raise_rule!r}; use one of {RAISE_RULES}")
        if self.raise_rule == CAP and self.max_raises < 1:
            raise ValueError("max_raises must be >= 1 with the 'cap' raise rule")
        if self.stack is not None:
            if self.num_seats != 2:
                raise ValueError("stacks are supported for two seats only (no side pots)")
            if self.stack <= self.ante:
                raise ValueError(f"stack {self.stack} must exceed the ante {self.ante}")
        elif self.raise_rule == NO_CAP:
            raise ValueError("the 'no-cap' raise rule needs a stack (else betting never ends)")
        if self.blinds:
            if len(self.blinds) != 2 or not 0 < self.blinds[0] <= self.blinds[1]:
                raise ValueError(f"blinds: (small, big) with 0 < small <= big, not {self.blinds}")
            if self.stack is not None:
                raise ValueError("blinds and stacks together are not supported")
        elif self.dealt_blind:
            raise ValueError("dealt_blind needs blinds (who posts the small blind is dealt)")
        if self.round2_order not in ROUND2_ORDERS:
            raise ValueError(f"unknown round2_order {self.round2_order!r}; use {ROUND2_ORDERS}")
        if self.fold_rule not in FOLD_RULES:
            raise ValueError(f"unknown fold_rule {self.fold_rule!r}; use one of {FOLD_RULES}")
        cards_needed = self.num_seats + (1 if self.num_rounds == 2 else 0)
        if self.num_cards < cards_needed:
            raise ValueError(f"the deck has {self.num_cards} cards, the game needs {cards_needed}")
        seats = sorted(s for team in self.teams for s in team)
        if seats != list(range(self.num_seats)):
            raise ValueError(f"teams {self.teams} must partition the seats 0..{self.num_seats - 1}")
        self._check_limits()

    def _raises_per_round(self, round_: int) -> int | None:
        """The most raises betting round ``round_`` (0-based) can hold: ``max_raises`` under the
        cap, one per seat under once-per-player, and with a stack at most as many as fit in it
        (every raise but an all-in one adds the round's raise size); None = unbounded."""
        if self.raise_rule == CAP:
            most = self.max_raises
        elif self.raise_rule == ONCE_PER_PLAYER:
            most = self.num_seats
        else:
            most = None
        if self.stack is not None:
            size = self.raise_sizes[round_]
            by_stack = -(-(self.stack - self.ante) // size)  # ceil: the last raise may be all-in
            most = by_stack if most is None else min(most, by_stack)
        return most

    def _max_depth(self) -> int:
        """An upper bound of the edges from the root to any terminal: per round, ``S`` actions
        plus ``S - 1`` per raise (S - 1 checks and a raise, S - 2 calls and a raise after each
        raise but the last, S - 1 calls after it), plus the community card and a dealt blind."""
        S = self.num_seats
        depth = int(self.has_community) + int(self.dealt_blind)
        for r in range(self.num_rounds):
            depth += S + self._raises_per_round(r) * (S - 1)
        return depth

    def _max_contribution(self) -> int:
        """The most chips one seat can put in: the ante, the big blind and every raise the rule
        allows in every round (at most its stack)."""
        most = self.ante + max(self.blinds, default=0)
        for r, size in enumerate(self.raise_sizes):
            most += self._raises_per_round(r) * size
        return most if self.stack is None else min(most, self.stack)

    def _check_limits(self) -> None:
        """ValueError naming the fields when the tree of this game would be deeper than
        :data:`MAX_DEPTH` or its chips could exceed :data:`MAX_POT` (int32 contributions)."""
        what = f"{self.num_seats} seats, {self.num_rounds} round(s)"
        if self.has_community and self.num_ranks > MAX_COMMUNITY_RANKS:
            raise ValueError(
                f"ranks: {self.num_ranks} ranks with a community card, the limit is "
                f"{MAX_COMMUNITY_RANKS} (the tree stores the community rank as an int8)"
            )
        depth = self._max_depth()
        if depth > MAX_DEPTH:
            S, rounds = self.num_seats, self.num_rounds
            fixed = int(self.has_community) + int(self.dealt_blind) + rounds * S
            if self.raise_rule == CAP:
                top = max((MAX_DEPTH - fixed) // (rounds * (S - 1)), 0)
                cause = f"max_raises={self.max_raises}"
                fix = f"max_raises may be at most {top} in this game"
            elif self.raise_rule == ONCE_PER_PLAYER:
                cause = f"num_seats={S} with the once-per-player raise rule"
                fix = "use fewer seats or the 'cap' raise rule"
            else:
                cause = f"stack={self.stack} with raise_sizes={self.raise_sizes} and no cap"
                fix = "use a smaller stack, larger raise sizes or the 'cap' raise rule"
            raise ValueError(
                f"{cause} allows betting sequences of up to {depth} actions ({what}); the "
                f"limit is {MAX_DEPTH} (MAX_DEPTH): {fix}"
            )
        pot = self.num_seats * self._max_contribution()
        if pot > MAX_POT:
            parts = [f"ante={self.ante}", f"raise_sizes={self.raise_sizes}"]
            if self.blinds:
                parts.append(f"blinds={self.blinds}")
            if self.raise_rule == CAP:
                parts.append(f"max_raises={self.max_raises}")
            if self.stack is not None:
                parts.append(f"stack={self.stack}")
            top_ante = MAX_POT // self.num_seats - (self._max_contribution() - self.ante)
            hint = f"; ante may be at most {top_ante:,} with these raises" if top_ante >= 0 else ""
            if self.stack is not None:  # the stack bounds the contributions, not the ante
                hint = ""
            raise ValueError(
                f"{', '.join(parts)}: the largest pot of this game ({self.num_seats} seats, "
                f"{self._max_contribution():,} chips each) is {pot:,} chips, above the limit "
                f"MAX_POT = 2**30 = {MAX_POT:,} (chips are 32-bit integers in the tree){hint}"
            )

    @property
    def num_ranks(self) -> int:
        return len(self.ranks)

    @property
    def num_cards(self) -> int:
        return self.num_ranks * self.suits

    @property
    def num_rounds(self) -> int:
        return len(self.raise_sizes)

    @property
    def has_community(self) -> bool:
        return self.num_rounds == 2

    @property
    def big_blind(self) -> int | None:
        """Chips of the big blind (the unit of RLCard's payoffs), None without blinds."""
        return self.blinds[1] if self.blinds else None

    def team_of(self, seat: int) -> int:
        """Index of the team that 0-based ``seat`` belongs to."""
        for t, team in enumerate(self.teams):
            if seat in team:
                return t
        raise ValueError(f"seat {seat} is in no team")

    def replace(self, **changes) -> GameConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["teams"] = [[s + 1 for s in team] for team in self.teams]  # 1-based, as users see them
        d["ranks"] = list(self.ranks)
        d["raise_sizes"] = list(self.raise_sizes)
        if self.stack is None:  # unlimited: the dictionaries of the older presets unchanged
            del d["stack"]
        # rules that only rlcard-leduc changes: listed only where they differ from the default
        d["blinds"] = list(self.blinds)
        for field, default in _RULE_DEFAULTS.items():
            if d[field] == default:
                del d[field]
        return d


#: the defaults of the fields that :meth:`GameConfig.to_dict` lists only when they differ
_RULE_DEFAULTS = {
    "blinds": [],
    "dealt_blind": False,
    "round2_order": LOWEST_SEAT,
    "fold_rule": FOLD_FACING_BET,
}


def _game(name, seats, num_ranks, suits, raises, rule, max_raises=0, teams=None, ante=1, **extra):
    if teams is None:
        teams = tuple((s,) for s in range(seats))
    return GameConfig(
        name=name,
        num_seats=seats,
        ranks=extra.pop("ranks", None) or default_rank_names(num_ranks),
        suits=suits,
        ante=ante,
        raise_sizes=tuple(raises),
        raise_rule=rule,
        max_raises=max_raises,
        teams=teams,
        **extra,
    )


_TEAMS_4 = ((0, 2), (1, 3))

PRESETS: dict[str, GameConfig] = {
    # The challenge game of the spec: 147,660 information sets per seat.
    "team-leduc": _game("team-leduc", 4, 3, 2, (2, 4), ONCE_PER_PLAYER, teams=_TEAMS_4),
    # The 2025 edition: at most two raises per round in total; 11,565 per seat.
    "team-leduc-2025": _game("team-leduc-2025", 4, 3, 2, (2, 4), CAP, 2, teams=_TEAMS_4),
    # Classic 2-player Leduc = OpenSpiel's leduc_poker (suits not told apart here).
    "leduc": _game("leduc", 2, 3, 2, (2, 4), CAP, 2),
    # OpenSpiel's leduc_poker with players=3: (players + 1) ranks x 2 suits.
    "leduc-3p": _game("leduc-3p", 3, 4, 2, (2, 4), CAP, 2),
    # Kuhn poker: one round, bet 1, at most one bet; = OpenSpiel's kuhn_poker.
    "kuhn": _game("kuhn", 2, 3, 1, (1,), CAP, 1),
    "kuhn-3p": _game("kuhn-3p", 3, 4, 1, (1,), CAP, 1),
    "kuhn-100": _game("kuhn-100", 2, 100, 1, (1,), CAP, 1),
    # The pokercamp page's Leduc: stacks of 50 (ante included), no cap on raises, Q < K < A.
    "leduc-stack50": _game(
        "leduc-stack50", 2, 3, 2, (2, 4), NO_CAP, ranks=("Q", "K", "A"), stack=50
    ),
    # Small team games that tests solve by brute force.
    "tiny-team": _game("tiny-team", 4, 2, 3, (1,), CAP, 1, teams=_TEAMS_4),
    "tiny-team-3p": _game("tiny-team-3p", 3, 2, 2, (1,), CAP, 1, teams=((0, 2), (1,))),
    "tiny-team-leduc": _game("tiny-team-leduc", 4, 2, 3, (1, 2), CAP, 1, teams=_TEAMS_4),
    "small-team-leduc": _game("small-team-leduc", 4, 3, 2, (2, 4), CAP, 1, teams=_TEAMS_4),
    # RLCard 1.2.0's leduc-holdem as its code plays it: no ante, blinds 1 and 2 with the small
    # blind seat drawn each hand, the small blind first in round 1, round 2 opened by the seat
    # after the one who closed round 1, raises 2 and 4 (two per round), fold always legal.
    "rlcard-leduc": _game(
        "rlcard-leduc",
        2,
        3,
        2,
        (2, 4),
        CAP,
        2,
        ante=0,
        blinds=(1, 2),
        dealt_blind=True,
        round2_order=AFTER_CLOSER,
        fold_rule=FOLD_ALWAYS,
    ),
}

DEFAULT_PRESET = "team-leduc"

#: what every function taking a game accepts: a GameConfig or a preset name
ConfigLike = GameConfig | str


#: the type each field of GameConfig takes (an override of another type is refused by name)
_FIELD_TYPES = {
    "name": "str",
    "num_seats": "int",
    "ranks": "strs",
    "suits": "int",
    "ante": "int",
    "raise_sizes": "ints",
    "raise_rule": "str",
    "max_raises": "int",
    "teams": "teams",
    "stack": "int or None",
    "blinds": "ints",
    "dealt_blind": "bool",
    "round2_order": "str",
    "fold_rule": "str",
}


def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _override(field: str, value):
    """``value`` for GameConfig ``field`` (lists become tuples, numpy integers ints), or
    ArgumentTypeError naming the field."""
    kind = _FIELD_TYPES[field]
    try:
        if kind == "str" and isinstance(value, str):
            return value
        if kind == "int" and _is_int(value):
            return int(value)
        if kind == "bool" and isinstance(value, bool):
            return value
        if kind == "int or None" and (value is None or _is_int(value)):
            return None if value is None else int(value)
        if not isinstance(value, (str, bytes)):
            items = tuple(value)
            if kind == "strs" and all(isinstance(r, str) for r in items):
                return items
            if kind == "ints" and all(_is_int(r) for r in items):
                return tuple(int(r) for r in items)
            if kind == "teams":
                teams = tuple(tuple(t) for t in items)
                if all(_is_int(x) for t in teams for x in t):
                    return tuple(tuple(int(x) for x in t) for t in teams)
    except TypeError:  # not iterable
        pass
    want = {
        "strs": "a sequence of rank names (str)",
        "ints": "a sequence of integers",
        "teams": "a sequence of teams, each a sequence of 0-based seats (int)",
    }.get(kind, "an int" if kind == "int" else kind)
    raise ArgumentTypeError(f"get_config: {field}={value!r} must be {want}")


def require_config(config: object) -> GameConfig:
    """``config`` itself when it is a GameConfig, else a TypeError naming ``config``: internal
    functions take the GameConfig their entry point resolved once with :func:`get_config`."""
    if not isinstance(config, GameConfig):
        raise TypeError(
            f"config: a GameConfig (a preset name is resolved once, by get_config at the entry "
            f"point), not {type(config).__name__} {config!r}"
        )
    return config


def get_config(name: str = DEFAULT_PRESET, **overrides) -> GameConfig:
    """The preset ``name`` (or a GameConfig), with any field replaced by ``overrides``
    (validated again). An unknown preset, an unknown field or a value of the wrong type
    raises :class:`ArgumentValueError` / :class:`ArgumentTypeError` naming it."""
    if overrides:
        unknown = sorted(set(overrides) - set(_FIELD_TYPES))
        if unknown:
            raise ArgumentTypeError(
                f"get_config: unknown field(s) {', '.join(unknown)}; the fields of a GameConfig "
                f"are {', '.join(_FIELD_TYPES)}"
            )
        overrides = {k: _override(k, v) for k, v in overrides.items()}
    if isinstance(name, GameConfig):
        config = name
    elif not isinstance(name, str):
        raise ArgumentTypeError(
            f"preset must be a preset name (str) or a GameConfig, not {type(name).__name__} "
            f"{name!r}"
        )
    elif name in PRESETS:
        config = PRESETS[name]
    else:
        close = difflib.get_close_matches(name.strip().lower(), PRESETS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ArgumentValueError(
            f"unknown preset {name!r}{hint} (known presets: {', '.join(PRESETS)})"
        )
    if not overrides:
        return config
    try:
        return config.replace(**overrides)
    except (ValueError, TypeError) as e:
        raise ArgumentValueError(f"get_config: {e}") from None
