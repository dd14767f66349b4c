"""Exact evaluation: published values, brute force, the sample hand, Monte Carlo, zero sum."""

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from teamleduc.baselines import baseline
from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.evaluate import (
    EvalResult,
    conditional_value,
    evaluate,
    evaluate_reach,
    match,
    team_b_weights,
    team_seats,
)
from teamleduc.files.model import Submission
from teamleduc.files.writing import write_submission
from teamleduc.infosets import infoset_tables
from teamleduc.payoffs import chance_utility
from teamleduc.reach import team_reach
from teamleduc.tree import build_tree

from . import simulator as sim

SMALL = ["kuhn", "leduc", "tiny-team", "tiny-team-3p", "tiny-team-leduc", "small-team-leduc"]


def random_submission(config, num_signals, seed, seats=None, pure_share=0.3):
    """Random correlated strategy: per signal and seat, a random behavioural strategy over the
    legal actions (some rows pure), and random signal probabilities."""
    rng = np.random.default_rng(seed)
    tables = infoset_tables(build_tree(config))
    seats = tuple(range(config.num_seats)) if seats is None else tuple(seats)
    probs = rng.dirichlet(np.ones(num_signals))
    strategies = {}
    for s in seats:
        legal = tables[s].legal
        x = rng.random((num_signals,) + legal.shape) * legal
        pure = rng.random((num_signals, legal.shape[0])) < pure_share
        top = np.argmax(x, axis=2)
        onehot = np.zeros_like(x)
        np.put_along_axis(onehot, top[..., None], 1.0, axis=2)
        x = np.where(pure[..., None], onehot, x)
        strategies[s] = x / x.sum(axis=2, keepdims=True)
    return Submission(
        signals=np.arange(num_signals) * 3 + 1, probs=probs, seats=seats, strategies=strategies
    )


# ----------------------------------------------------------------------------- brute force


def card_deals(config):
    """{(ranks per seat, community rank or None): probability} by enumerating every ordered
    deal of the physical cards (suits told apart) and every community card."""
    cards = [r for r in range(config.num_ranks) for _ in range(config.suits)]
    counts = Counter()
    total = 0
    for perm in itertools.permutations(range(len(cards)), config.num_seats):
        ranks = tuple(cards[i] for i in perm)
        if config.has_community:
            for c in range(len(cards)):
                if c not in perm:
                    counts[ranks, cards[c]] += 1
                    total += 1
        else:
            counts[ranks, None] += 1
            total += 1
    return {k: v / total for k, v in counts.items()}


def brute_force_value(config, sub_a, sub_b):
    """Team A's expected utility by walking every action path of every deal with the
    independent simulator, over every pair of signals (the product, not the sum)."""
    A, B = config.teams
    tables = infoset_tables(build_tree(config))
    lookup = [t.lookup for t in tables]
    names = config.ranks
    total = 0.0
    for (ranks, community), p_deal in card_deals(config).items():
        masks = [
            "/C:"
            + "".join(names[ranks[s]] if o == s else "?" for o in range(config.num_seats))
            + "/"
            for s in range(config.num_seats)
        ]

        def walk(st, hist, ra, rb):
            nonlocal total
            seat = st["turn"]
            key = masks[seat] + hist
            row = lookup[seat][key]
            for a in sim.legal(config, st):
                col = "crf".index(a)
                if seat in A:
                    ra2 = ra * sub_a.strategies[seat][:, row, col]
                    rb2 = rb
                else:
                    ra2 = ra
                    rb2 = rb * sub_b.strategies[seat][:, row, col]
                if not ra2.any() or not rb2.any():
                    continue
                st2 = sim.copy_state(st)
                res = sim.act(config, st2, a)
                h2 = hist + f"P{seat + 1}:{a}/"
                if res == "hand-over" or (
                    res == "round-over" and st2["round"] == config.num_rounds - 1
                ):
                    u = sim.utilities(config, st2, ranks, community if st2["round"] > 0 else None)
                    team_u = sum(u[s] for s in A)
                    # every pair of signals (jA, jB): the product of the two teams' mixtures
                    total += p_deal * team_u * float(np.sum(np.outer(ra2, rb2)))
                elif res == "round-over":
                    sim.new_round(config, st2, st2["round"] + 1)
                    walk(st2, h2 + f"C:{names[community]}/", ra2, rb2)
                else:
                    walk(st2, h2, ra2, rb2)

        walk(sim.start(config), "", np.asarray(sub_a.probs, float), np.asarray(sub_b.probs, float))
    return total


@pytest.mark.parametrize("preset", SMALL)
def test_equals_brute_force_enumeration(preset):
    config = get_config(preset)
    A, B = team_seats(config)
    k = (1, 1) if preset == "small-team-leduc" else (3, 2)
    sub_a = random_submission(config, k[0], seed=11, seats=A)
    sub_b = random_submission(config, k[1], seed=12, seats=B)
    exact = evaluate(sub_a, sub_b, config).value
    assert exact == pytest.approx(brute_force_value(config, sub_a, sub_b), abs=1e-12)


def test_brute_force_deal_probabilities_are_exact():
    # the enumeration itself: deals of tiny-team (2 ranks x 3 suits) sum to 1, with 3/6*2/5*1/4*3/3
    # for two Q and ... checked with fractions on one deal
    probs = card_deals(get_config("tiny-team"))
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-15)
    # Q,Q,Q,K: 3/6 * 2/5 * 1/4 * 3/3
    assert probs[(0, 0, 0, 1), None] == pytest.approx(
        float(Fraction(3, 6) * Fraction(2, 5) * Fraction(1, 4))
    )


# ----------------------------------------------------------------------------- anchors


def test_uniform_values_equal_openspiel():
    # OpenSpiel's expected_game_score.policy_value of the uniform random policy
    r = evaluate("uniform", "uniform", "leduc")
    assert [r.value, r.value_b] == pytest.approx([-0.078125, 0.078125], abs=1e-12)
    r = evaluate("uniform", "uniform", "kuhn")
    assert [r.value, r.value_b] == pytest.approx([0.125, -0.125], abs=1e-12)


def test_uniform_team_leduc_value():
    # the handout's example submission against itself (the core's coalition_weights agrees)
    assert evaluate("uniform", "uniform").value == pytest.approx(-0.17475550338295784, abs=1e-12)


SAMPLE_PATH = [  # the handout's sample hand: cards J,Q,Q,K, community J
    (0, "/C:J???/", "r"),
    (1, "/C:?Q??/P1:r/", "f"),
    (2, "/C:??Q?/P1:r/P2:f/", "f"),
    (3, "/C:???K/P1:r/P2:f/P3:f/", "c"),
    (0, "/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/", "c"),
    (3, "/C:???K/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/", "r"),
    (0, "/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/P4:r/", "r"),
    (3, "/C:???K/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/P4:r/P1:r/", "c"),
]


def sample_hand_submission(config):
    """Uniform everywhere except point masses on the sample hand's actions."""
    tables = infoset_tables(build_tree(config))
    strategies = {s: tables[s].uniform_strategy()[None].copy() for s in range(4)}
    for seat, infoset, a in SAMPLE_PATH:
        row = tables[seat].parse(infoset)
        strategies[seat][0, row] = 0.0
        strategies[seat][0, row, "crf".index(a)] = 1.0
    return Submission(np.array([0]), np.array([1.0]), (0, 1, 2, 3), strategies)


def test_sample_hand_gives_team_a_plus_12():
    config = get_config("team-leduc")
    sub = sample_hand_submission(config)
    r = evaluate(sub, sub, config, cards="J,Q,Q,K", community="J")
    assert r.value == 12.0 and r.value_b == -12.0
    assert r.cards == ("J", "Q", "Q", "K") and r.community == "J"
    # with community K the point masses are off the path (uniform play there): a proper
    # conditional expectation, within the largest possible loss or gain
    other = evaluate(sub, sub, config, cards="J,Q,Q,K", community="K").value
    assert other != 12.0 and abs(other) <= 2 * (1 + 2 + 4 + 4)
    with pytest.raises(TeamLeducError, match="impossible"):  # two suits: no third Q
        evaluate(sub, sub, config, cards="J,Q,Q,K", community="Q")


def test_conditional_values_average_to_the_value():
    config = get_config("tiny-team-leduc")
    tree = build_tree(config)
    A, B = team_seats(config)
    ta = team_reach(tree, random_submission(config, 2, 5, A), A)
    tb = team_reach(tree, random_submission(config, 2, 6, B), B)
    from teamleduc.payoffs import deal_community_probabilities, deals

    joint = deal_community_probabilities(config)
    total = total_x = 0.0
    for d, cards in enumerate(deals(config)):
        if joint[d].sum() == 0:
            continue
        total_x += joint[d].sum() * conditional_value(tree, ta, tb, cards)
        for y in range(config.num_ranks):
            if joint[d, y] > 0:
                total += joint[d, y] * conditional_value(tree, ta, tb, cards, y)
    value = evaluate_reach(tree, ta, tb)
    assert total == pytest.approx(value, abs=1e-12)
    assert total_x == pytest.approx(value, abs=1e-12)


def test_monte_carlo_agrees_within_standard_error():
    """Sampled hands (cards, signals, actions) with the independent simulator: the mean
    is within 4 standard errors of the exact value (fixed seed, so the test is deterministic)."""
    config = get_config("team-leduc")
    tables = infoset_tables(build_tree(config))
    mix_a = _mixture(config, ["cautious", "uniform"], [0.6, 0.4])
    mix_b = _mixture(config, ["aggressive", "random-pure:3", "always-call"], [0.5, 0.3, 0.2])
    exact = evaluate(mix_a, mix_b, config).value

    rng = np.random.default_rng(2024)
    cards = [r for r in range(3) for _ in range(config.suits)]
    n = 20000
    decks = np.argsort(rng.random((n, len(cards))), axis=1)
    signals_a = rng.choice(len(mix_a.probs), size=n, p=mix_a.probs)
    signals_b = rng.choice(len(mix_b.probs), size=n, p=mix_b.probs)
    uniforms = rng.random((n, 40)).tolist()  # at most 4 raises + 12 answers per round
    lookup = [t.lookup for t in tables]
    out = np.empty(n)
    for h in range(n):
        deal = [cards[i] for i in decks[h].tolist()]
        ranks, community = deal[:4], deal[4]
        masks = [
            "/C:" + "".join(config.ranks[ranks[s]] if o == s else "?" for o in range(4)) + "/"
            for s in range(4)
        ]
        st = sim.start(config)
        hist = ""
        step = 0
        while True:
            seat = st["turn"]
            row = lookup[seat][masks[seat] + hist]
            if seat in (0, 2):
                pc, pr, _ = mix_a.strategies[seat][signals_a[h], row].tolist()
            else:
                pc, pr, _ = mix_b.strategies[seat][signals_b[h], row].tolist()
            u = uniforms[h][step]
            step += 1
            a = "c" if u < pc else ("r" if u < pc + pr else "f")
            res = sim.act(config, st, a)
            hist += f"P{seat + 1}:{a}/"
            if res == "hand-over" or (res == "round-over" and st["round"] == 1):
                util = sim.utilities(config, st, ranks, community if st["round"] == 1 else None)
                out[h] = util[0] + util[2]
                break
            if res == "round-over":
                sim.new_round(config, st, 1)
                hist += f"C:{config.ranks[community]}/"
    se = out.std(ddof=1) / np.sqrt(n)
    assert abs(out.mean() - exact) < 4 * se, (out.mean(), exact, se)
    # the test has power: a value off by one chip would be rejected
    assert abs(out.mean() - (exact + 1.0)) > 4 * se and abs(out.mean() - (exact - 1.0)) > 4 * se


def _mixture(config, names, probs):
    subs = [baseline(n, config) for n in names]
    return Submission(
        np.arange(len(names)),
        np.array(probs),
        tuple(range(config.num_seats)),
        {s: np.concatenate([b.strategies[s] for b in subs]) for s in range(config.num_seats)},
    )


# ----------------------------------------------------------------------------- invariants


@pytest.mark.parametrize("preset", ["tiny-team", "tiny-team-3p", "small-team-leduc", "leduc"])
def test_zero_sum_by_construction_and_by_independent_team_b_value(preset):
    config = get_config(preset)
    tree = build_tree(config)
    A, B = team_seats(config)
    x = random_submission(config, 3, 21)
    y = random_submission(config, 2, 22)
    r = evaluate(x, y, config)
    assert r.value_b == -r.value
    # team B's value computed on its own: chance x team B's utility, contracted with both reaches
    ta, tb = team_reach(tree, x, A), team_reach(tree, y, B)
    R, S = config.num_ranks, config.num_seats
    cu_b = chance_utility(tree, B).reshape((-1,) + (R,) * S)
    letters = "abcdefgh"
    ta_r = ta.reshape((-1,) + (R,) * len(A))
    tb_r = tb.reshape((-1,) + (R,) * len(B))
    spec = (
        "z"
        + letters[:S]
        + ",z"
        + "".join(letters[s] for s in A)
        + ",z"
        + "".join(letters[s] for s in B)
        + "->"
    )
    value_b = float(np.einsum(spec, cu_b, ta_r, tb_r))
    assert r.value + value_b == pytest.approx(0.0, abs=1e-13)


def test_match_is_antisymmetric_and_mean_of_seatings():
    config = get_config("tiny-team-leduc")
    x = random_submission(config, 2, 31)
    y = random_submission(config, 3, 32)
    m = match(x, y, config)
    assert m.value_xy == evaluate(x, y, config).value
    assert m.value_yx == evaluate(y, x, config).value
    assert m.score_x == 0.5 * (m.value_xy - m.value_yx)
    assert match(y, x, config).score_x == -m.score_x


def test_value_is_linear_in_each_teams_mixture():
    # v(sum_j p_j x_j, y) = sum_j p_j v(x_j, y): the signals enter linearly, never as a product
    config = get_config("small-team-leduc")
    x = random_submission(config, 4, 41)
    y = random_submission(config, 3, 42)
    parts = [
        Submission([0], [1.0], x.seats, {s: x.strategies[s][j : j + 1] for s in x.seats})
        for j in range(4)
    ]
    mixed = evaluate(x, y, config).value
    assert mixed == pytest.approx(
        sum(p * evaluate(part, y, config).value for p, part in zip(x.probs, parts)), abs=1e-12
    )


@pytest.mark.parametrize("preset", SMALL + ["team-leduc-2025"])
def test_team_b_weights_contract_core_chance_utility(preset):
    config = get_config(preset)
    tree = build_tree(config)
    A, B = team_seats(config)
    R, S = config.num_ranks, config.num_seats
    core = chance_utility(tree, A).reshape((-1,) + (R,) * S)
    core = core.transpose([0] + [1 + s for s in A] + [1 + s for s in B]).reshape(
        len(tree.terminals), R ** len(A), R ** len(B)
    )
    tb = team_reach(tree, random_submission(config, 2, 3), B)
    np.testing.assert_allclose(
        team_b_weights(tree, tb), np.einsum("zab,zb->za", core, tb), rtol=0, atol=1e-14
    )


def test_files_and_objects_give_identical_values(tmp_path):
    config = get_config("tiny-team-leduc")
    x = random_submission(config, 2, 61)
    y = random_submission(config, 2, 62)
    write_submission(x, tmp_path / "x")
    write_submission(y, tmp_path / "y.zip")
    from_files = evaluate(tmp_path / "x", tmp_path / "y.zip", config)
    assert from_files.value == evaluate(x, y, config).value
    assert (from_files.team_a, from_files.team_b) == ("x", "y")
    assert from_files.signals_a == 2


def test_team_submission_plays_its_own_team_only(tmp_path):
    config = get_config("tiny-team")
    A, B = team_seats(config)
    write_submission(random_submission(config, 1, 71, seats=A), tmp_path / "a")
    evaluate(tmp_path / "a", "uniform", config)
    with pytest.raises(TeamLeducError):
        evaluate("uniform", tmp_path / "a", config)


def test_errors_are_user_errors():
    with pytest.raises(TeamLeducError, match="exactly two"):
        evaluate("uniform", "uniform", "leduc-3p")
    with pytest.raises(TeamLeducError, match="impossible"):
        evaluate("uniform", "uniform", "team-leduc-2025", cards="K,K,K,J")
    with pytest.raises(TeamLeducError, match="no such submission"):
        evaluate("no/such/folder", "uniform", "kuhn")
    with pytest.raises(TeamLeducError, match="unknown rank"):
        evaluate("uniform", "uniform", "kuhn", cards="J,X")


def test_result_dict_and_text():
    r = evaluate("cautious", "aggressive", "kuhn")
    d = r.to_dict()
    assert d["value"] == r.value and d["preset"] == "kuhn" and "version" in d
    assert d["team_a"] == {"name": "cautious", "seats": [1], "signals": 1}
    assert f"{r.value:+.12f}" in str(r)
    assert isinstance(r, EvalResult)
