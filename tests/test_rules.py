"""The betting rules (teamleduc.rules): scripted hands on several presets, checked step by step
against the rules of docs/rules-and-presets.md and the challenge handout's sample hand."""

from __future__ import annotations

import pytest

from teamleduc.config import get_config
from teamleduc.rules import (
    CALL,
    FOLD,
    HAND_OVER,
    RAISE,
    ROUND_OVER,
    TO_ACT,
    hand_strength,
    illegal_reason,
    initial_state,
    legal_actions,
    start_round,
    step,
)

CHAR = {"c": CALL, "r": RAISE, "f": FOLD}
J, Q, K = 0, 1, 2


def play(config, state, actions: str):
    """Step through ``actions`` (one character each), returning every state visited after
    the first, with the seat that acted before it."""
    out = []
    for a in actions:
        seat = state.to_act
        state = step(config, state, CHAR[a])
        out.append((seat, state))
    return out


def next_round(config, state):
    """The state at the start of round 2, after ``state`` ended round 1."""
    assert state.status == ROUND_OVER
    return start_round(config, state.round + 1, state.contrib, state.active)


def showdown_payoffs(config, state, cards, community):
    """Each seat's utility at a showdown: the strongest active hands split the pot."""
    strength = [
        hand_strength(c, community, config.num_ranks) if a else -1
        for c, a in zip(cards, state.active, strict=True)
    ]
    winners = [s == max(strength) for s in strength]
    pot = sum(state.contrib)
    return [pot * w / sum(winners) - c for w, c in zip(winners, state.contrib, strict=True)]


def terminal_histories(config, state, prefix=""):
    """Every betting sequence of one round from ``state``, with how it ends."""
    if state.status != TO_ACT:
        return {prefix: state.status}
    out = {}
    for a in legal_actions(config, state):
        out |= terminal_histories(config, step(config, state, a), prefix + "crf"[a])
    return out


def test_handout_sample_hand_replays_exactly():
    """Cards J, Q, Q, K; 1:r 2:f 3:f 4:c; community J; 1:c 4:r 1:r 4:c: +13, -1, -1, -11."""
    config = get_config("team-leduc")
    state = initial_state(config)
    assert state.contrib == (1, 1, 1, 1) and state.to_act == 0 and state.level == 1
    assert legal_actions(config, state) == (CALL, RAISE)  # nobody faces a bet: no fold

    steps = play(config, state, "rffc")
    assert [seat for seat, _ in steps] == [0, 1, 2, 3]
    assert [s.contrib for _, s in steps] == [(3, 1, 1, 1), (3, 1, 1, 1), (3, 1, 1, 1), (3, 1, 1, 3)]
    assert [s.active for _, s in steps][-1] == (True, False, False, True)
    assert [s.to_act for _, s in steps] == [1, 2, 3, -1]
    state = steps[-1][1]
    assert state.status == ROUND_OVER

    state = next_round(config, state)
    assert state.round == 1 and state.to_act == 0 and state.raised == (False,) * 4
    steps = play(config, state, "crrc")
    assert [seat for seat, _ in steps] == [0, 3, 0, 3]  # folded seats 2 and 3 are skipped
    assert [s.contrib for _, s in steps] == [
        (3, 1, 1, 3),
        (3, 1, 1, 7),  # raise of 4 in round 2
        (11, 1, 1, 7),  # seat 1's re-raise to 11
        (11, 1, 1, 11),
    ]
    state = steps[-1][1]
    assert state.status == ROUND_OVER and state.to_act == -1
    assert sum(state.contrib) == 24

    payoffs = showdown_payoffs(config, state, (J, Q, Q, K), community=J)
    assert payoffs == [13, -1, -1, -11]
    team_a = payoffs[0] + payoffs[2]
    team_b = payoffs[1] + payoffs[3]
    assert (team_a, team_b) == (12, -12)


def test_team_leduc_each_player_raises_at_most_once_per_round():
    config = get_config("team-leduc")
    steps = play(config, initial_state(config), "rrrr")
    assert [s.contrib for _, s in steps][-1] == (3, 5, 7, 9)
    state = steps[-1][1]
    assert state.to_act == 0 and state.num_raises == 4
    assert legal_actions(config, state) == (CALL, FOLD)
    assert illegal_reason(config, state, RAISE) == (
        "seat 1 already raised in this round (each player raises at most once per round)"
    )
    with pytest.raises(ValueError, match="seat 1 already raised"):
        step(config, state, RAISE)
    # everyone calls the last raise in turn, seat 4 (the last raiser) does not act again
    steps = play(config, state, "ccc")
    assert [seat for seat, _ in steps] == [0, 1, 2]
    assert [legal_actions(config, s) for _, s in steps[:-1]] == [(CALL, FOLD), (CALL, FOLD)]
    state = steps[-1][1]
    assert state.contrib == (9, 9, 9, 9) and state.status == ROUND_OVER

    # a new round: every seat may raise once again, by 4
    state = next_round(config, state)
    assert legal_actions(config, state) == (CALL, RAISE)
    steps = play(config, state, "crcr")
    assert [s.contrib for _, s in steps][-1] == (9, 13, 13, 17)
    state = steps[-1][1]
    # seat 1 checked, so it may still raise; seat 2 raised already
    assert state.to_act == 0 and legal_actions(config, state) == (CALL, RAISE, FOLD)
    state = step(config, state, RAISE)
    assert state.contrib == (21, 13, 13, 17) and state.to_act == 1
    assert legal_actions(config, state) == (CALL, FOLD)


def test_team_leduc_fold_rules_and_hand_end():
    config = get_config("team-leduc")
    state = initial_state(config)
    assert illegal_reason(config, state, FOLD) == (
        "seat 1 is not facing a bet (fold is legal only when facing a bet)"
    )
    assert illegal_reason(config, state, 7) == "unknown action 7"
    checks = play(config, state, "cccc")
    assert [s.to_act for _, s in checks] == [1, 2, 3, -1]
    assert checks[-1][1].status == ROUND_OVER and checks[-1][1].contrib == (1, 1, 1, 1)
    assert illegal_reason(config, checks[-1][1], CALL) == (
        "nobody is to act: the betting round is over"
    )

    # everyone folds to a raise: the hand ends at once, nobody acts
    steps = play(config, state, "rfff")
    end = steps[-1][1]
    assert end.status == HAND_OVER and end.to_act == -1
    assert end.contrib == (3, 1, 1, 1) and end.active == (True, False, False, False)
    # in round 2 too: the last seat but one folding ends the hand
    state = next_round(config, play(config, state, "rcfc")[-1][1])
    assert state.active == (True, True, False, True) and state.contrib == (3, 3, 1, 3)
    steps = play(config, state, "rff")
    assert [seat for seat, _ in steps] == [0, 1, 3]
    assert steps[-1][1].status == HAND_OVER and steps[-1][1].contrib == (7, 3, 1, 3)


def test_lowest_active_seat_acts_first_in_round_two():
    config = get_config("team-leduc")
    # 1:c 2:r 3:c 4:c 1:f: seat 1 is out, round 2 is played by seats 2, 3, 4
    state = play(config, initial_state(config), "crccf")[-1][1]
    assert state.status == ROUND_OVER and state.active == (False, True, True, True)
    assert state.contrib == (1, 3, 3, 3)
    state = next_round(config, state)
    assert state.to_act == 1 and state.contrib == (1, 3, 3, 3)
    steps = play(config, state, "ccc")
    assert [seat for seat, _ in steps] == [1, 2, 3]
    assert steps[-1][1].status == ROUND_OVER


def test_leduc_cap_of_two_raises_per_round():
    config = get_config("leduc")
    state = initial_state(config)
    steps = play(config, state, "rr")
    assert [s.contrib for _, s in steps] == [(3, 1), (3, 5)]
    state = steps[-1][1]
    assert legal_actions(config, state) == (CALL, FOLD)
    assert illegal_reason(config, state, RAISE) == "this round already has 2 raise(s), the cap is 2"
    state = step(config, state, CALL)
    assert state.contrib == (5, 5) and state.status == ROUND_OVER
    state = next_round(config, state)
    assert state.to_act == 0 and state.num_raises == 0
    steps = play(config, state, "crr")
    assert [s.contrib for _, s in steps] == [(5, 5), (5, 9), (13, 9)]
    assert illegal_reason(config, steps[-1][1], RAISE) == (
        "this round already has 2 raise(s), the cap is 2"
    )
    end = step(config, steps[-1][1], FOLD)
    assert end.status == HAND_OVER and end.active == (True, False)


def test_leduc_round_sequences():
    """A round of 2-player Leduc ends in 9 ways: 5 with both in, 4 with a fold."""
    config = get_config("leduc")
    ends = terminal_histories(config, initial_state(config))
    assert ends == {
        "cc": ROUND_OVER,
        "crc": ROUND_OVER,
        "crrc": ROUND_OVER,
        "rc": ROUND_OVER,
        "rrc": ROUND_OVER,
        "crf": HAND_OVER,
        "crrf": HAND_OVER,
        "rf": HAND_OVER,
        "rrf": HAND_OVER,
    }


def test_kuhn_sequences_and_pots():
    config = get_config("kuhn")
    ends = terminal_histories(config, initial_state(config))
    assert ends == {
        "cc": ROUND_OVER,
        "crc": ROUND_OVER,
        "crf": HAND_OVER,
        "rc": ROUND_OVER,
        "rf": HAND_OVER,
    }
    pots = {h: play(config, initial_state(config), h)[-1][1].contrib for h in ends}
    assert pots == {"cc": (1, 1), "crc": (2, 2), "crf": (1, 2), "rc": (2, 2), "rf": (2, 1)}
    state = step(config, initial_state(config), RAISE)
    assert illegal_reason(config, state, RAISE) == "this round already has 1 raise(s), the cap is 1"
    # showdown after c c: the higher card takes the pot of 2
    cc = play(config, initial_state(config), "cc")[-1][1]
    assert showdown_payoffs(config, cc, (K, Q), community=-1) == [1, -1]
    assert showdown_payoffs(config, cc, (J, Q), community=-1) == [-1, 1]


def test_stack_all_in_ends_the_betting():
    """leduc-stack50: the 25th raise is for the last chips (50, not 51); no raise against it,
    and round 2 has no betting."""
    config = get_config("leduc-stack50")
    state = initial_state(config)
    for _ in range(24):
        state = step(config, state, RAISE)
    assert state.contrib == (47, 49) and state.to_act == 0
    state = step(config, state, RAISE)
    assert state.contrib == (50, 49) and state.to_act == 1
    assert (
        illegal_reason(config, state, RAISE)
        == "seat 1 is all-in: no raise against an all-in player"
    )
    assert legal_actions(config, state) == (CALL, FOLD)
    state = step(config, state, CALL)
    assert state.contrib == (50, 50) and state.status == ROUND_OVER
    after = next_round(config, state)
    assert after.to_act == -1 and after.status == ROUND_OVER


def test_hand_strength_pair_beats_every_high_card():
    for num_ranks in (2, 3, 13):
        for community in range(num_ranks):
            order = sorted(range(num_ranks), key=lambda r: hand_strength(r, community, num_ranks))
            unpaired = [r for r in range(num_ranks) if r != community]
            assert order == unpaired + [community]
    assert hand_strength(J, J, 3) > hand_strength(K, J, 3) > hand_strength(Q, J, 3)
    assert hand_strength(Q, -1, 3) == Q  # no community card (Kuhn): the rank
