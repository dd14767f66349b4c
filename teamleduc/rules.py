"""The betting rules as one small pure state machine.

Both the public-tree builder and ``teamleduc replay`` step through this module, so the rules
live in exactly one place. A :class:`BettingState` is the public state of one betting round;
contributions are chips put in so far (ante included).

With a ``stack`` (``leduc-stack50``) no seat ever puts in more than its stack: a raise it cannot
cover in full is for all its chips (all-in); raising is illegal for a seat with no chips left
after calling and against an all-in opponent; and a round in which fewer than two active seats
have chips left has no betting at all (after a called all-in the remaining card is dealt and
the hand goes to showdown).

With ``blinds`` (``rlcard-leduc``) the small-blind seat and the seat after it post the blinds on
top of the ante and the small blind acts first in round 1; ``round2_order == "after-closer"``
opens round 2 with the next active seat after the one whose action closed round 1; and
``fold_rule == "always"`` makes fold legal also when not facing a bet.

Actions are integers: ``CALL = 0`` (call/check), ``RAISE = 1``, ``FOLD = 2``; this is also the
column order c, r, f of every strategy array.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .config import AFTER_CLOSER, CAP, FOLD_ALWAYS, ONCE_PER_PLAYER, GameConfig

CALL, RAISE, FOLD = 0, 1, 2
ACTION_CHARS = "crf"
NUM_ACTIONS = 3

#: status values of a state
TO_ACT, ROUND_OVER, HAND_OVER = "to-act", "round-over", "hand-over"


@dataclass(frozen=True)
class BettingState:
    """Public state inside one betting round.

    ``pending[i]`` is true while active seat i still has to act before the round can end
    (every active seat must act after the last raise). ``to_act`` is the seat to act or -1.
    """

    round: int
    contrib: tuple[int, ...]
    active: tuple[bool, ...]
    raised: tuple[bool, ...]
    num_raises: int
    pending: tuple[bool, ...]
    to_act: int

    @property
    def level(self) -> int:
        return max(self.contrib)

    @property
    def status(self) -> str:
        if sum(self.active) == 1:
            return HAND_OVER
        return TO_ACT if self.to_act >= 0 else ROUND_OVER


def _next_pending(pending: tuple[bool, ...], after: int) -> int:
    n = len(pending)
    for k in range(1, n + 1):
        seat = (after + k) % n
        if pending[seat]:
            return seat
    return -1


def start_round(
    config: GameConfig,
    round_: int,
    contrib: tuple[int, ...],
    active: tuple[bool, ...],
    first: int = 0,
) -> BettingState:
    """State at the start of betting round ``round_``: the first active seat from ``first`` on
    (0-based; the lowest active seat by default) acts first.

    With stacks, a round where fewer than two active seats have chips left is over at once."""
    n = config.num_seats
    pending = tuple(active)
    if config.stack is not None:
        with_chips = sum(a and c < config.stack for a, c in zip(active, contrib))
        if with_chips < 2:
            pending = (False,) * n
    return BettingState(
        round=round_,
        contrib=tuple(contrib),
        active=tuple(active),
        raised=(False,) * n,
        num_raises=0,
        pending=pending,
        to_act=_next_pending(pending, first - 1),
    )


def posted(config: GameConfig, small_blind: int = 0) -> tuple[int, ...]:
    """Chips every seat has in before round 1: the ante, plus the blinds when 0-based seat
    ``small_blind`` posts the small one and the seat after it the big one."""
    n = config.num_seats
    contrib = [config.ante] * n
    if config.blinds:
        contrib[small_blind % n] += config.blinds[0]
        contrib[(small_blind + 1) % n] += config.blinds[1]
    return tuple(contrib)


def initial_state(config: GameConfig, small_blind: int = 0) -> BettingState:
    """State after the antes (and blinds, ``small_blind`` posting the small one), before the
    first seat acts: seat 1, or the small blind in a game with blinds."""
    n = config.num_seats
    first = small_blind % n if config.blinds else 0
    return start_round(config, 0, posted(config, small_blind), (True,) * n, first)


def second_round_first(config: GameConfig, closer: int) -> int:
    """0-based seat from which round 2's first actor is sought (:func:`start_round`'s
    ``first``) when 0-based seat ``closer`` took the action that ended round 1."""
    if config.round2_order == AFTER_CLOSER:
        return (closer + 1) % config.num_seats
    return 0


def illegal_reason(config: GameConfig, state: BettingState, action: int) -> str | None:
    """Why ``action`` is illegal for the seat to act, or None when it is legal."""
    seat = state.to_act
    if seat < 0:
        return "nobody is to act: the betting round is over"
    if action == CALL:
        return None
    if action == RAISE:
        if config.raise_rule == ONCE_PER_PLAYER:
            if state.raised[seat]:
                return f"seat {seat + 1} already raised in this round (each player raises at most once per round)"
        elif config.raise_rule == CAP and state.num_raises >= config.max_raises:
            return f"this round already has {state.num_raises} raise(s), the cap is {config.max_raises}"
        if config.stack is not None:
            all_in = [
                s + 1
                for s, (a, c) in enumerate(zip(state.active, state.contrib))
                if a and s != seat and c >= config.stack
            ]
            if all_in:
                return f"seat {all_in[0]} is all-in: no raise against an all-in player"
            if state.level >= config.stack:
                return f"seat {seat + 1} has no chips left after calling (stack {config.stack})"
        return None
    if action == FOLD:
        if config.fold_rule == FOLD_ALWAYS:
            return None
        if state.contrib[seat] >= state.level:
            return f"seat {seat + 1} is not facing a bet (fold is legal only when facing a bet)"
        return None
    return f"unknown action {action!r}"


def legal_actions(config: GameConfig, state: BettingState) -> tuple[int, ...]:
    """Legal actions of the seat to act, in the order c, r, f."""
    return tuple(a for a in (CALL, RAISE, FOLD) if illegal_reason(config, state, a) is None)


def step(config: GameConfig, state: BettingState, action: int) -> BettingState:
    """The state after the seat to act takes ``action`` (which must be legal)."""
    reason = illegal_reason(config, state, action)
    if reason is not None:
        raise ValueError(reason)
    seat = state.to_act
    contrib = list(state.contrib)
    pending = list(state.pending)
    active = list(state.active)
    raised = list(state.raised)
    num_raises = state.num_raises
    level = state.level
    cap = config.stack if config.stack is not None else level + config.raise_sizes[state.round]
    if action == CALL:
        contrib[seat] = min(level, cap)
        pending[seat] = False
    elif action == RAISE:
        contrib[seat] = min(level + config.raise_sizes[state.round], cap)  # all-in if short
        raised[seat] = True
        num_raises += 1
        pending = [a and s != seat for s, a in enumerate(active)]
    else:
        active[seat] = False
        pending[seat] = False
    pending_t = tuple(pending)
    to_act = -1 if sum(active) == 1 else _next_pending(pending_t, seat)
    return replace(
        state,
        contrib=tuple(contrib),
        active=tuple(active),
        raised=tuple(raised),
        num_raises=num_raises,
        pending=pending_t,
        to_act=to_act,
    )


def hand_strength(rank: int, community: int, num_ranks: int) -> int:
    """Showdown strength: a pair with the community card beats every unpaired card."""
    return rank + (num_ranks if rank == community else 0)
