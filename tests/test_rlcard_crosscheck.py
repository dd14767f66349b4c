"""rlcard-leduc against the originals: hands played in RLCard's own ``leduc-holdem`` env and in
PettingZoo's ``leduc_holdem_v4`` (their dealing, blinds, turn order and judger), our policies
queried through our information sets, RLCard's rule agents acting on RLCard's own state. Every
step compares RLCard's legal actions with our information set's; the mean payoff lies within 4
standard errors of our exact value. (benchmarks/bench_rlcard_leduc.py: 200,000 hands.)"""

from __future__ import annotations

import pytest

pytest.importorskip("rlcard")

from teamleduc.studies.rlcard_crosscheck import PAIRS, compare, play_rlcard  # noqa: E402


@pytest.mark.parametrize("pair", PAIRS)
def test_rlcard_env_agrees_with_exact_values(pair):
    r = compare("rlcard", pair, 2000, seed=7)
    assert abs(r.z) < 4, str(r)


@pytest.mark.parametrize("pair", [("rlcard-v1", "uniform"), ("uniform", "rlcard-v2")])
def test_pettingzoo_env_agrees_with_exact_values(pair):
    pytest.importorskip("pettingzoo.classic")
    r = compare("pettingzoo", pair, 1000, seed=3)
    assert abs(r.z) < 4, str(r)


def test_rule_agents_hand_by_hand():
    """In RLCard's env V1 (raise, else call) against V2 (folds at its first decision: its
    round-1 rule tests the suit of 'SJ'/'HK' against 'K' and 'Q') wins exactly the small
    blind's 1 chip or the big blind's 2 every hand: +0.5 or +1 bb; the exact value is 0.75."""
    pay = play_rlcard(("rlcard-v1", "rlcard-v2"), 400, seed=1)
    assert set(pay.tolist()) == {0.5, 1.0}
    assert compare("rlcard", ("rlcard-v1", "rlcard-v2"), 10, seed=1).exact == pytest.approx(0.75)
    pay = play_rlcard(("rlcard-v2", "rlcard-v2"), 400, seed=2)  # the small blind always folds
    assert set(pay.tolist()) == {-0.5, 0.5}
