"""``study abstraction``: the abstract game against a separate LP written from the bucket-pair
formulas, the lifted strategies, the study's numbers, its outputs and bad arguments."""

import json

import numpy as np
import pytest
from scipy.optimize import linprog

from teamleduc.config import get_config
from teamleduc.solver.sequence_form import solve_sequence_form
from teamleduc.studies.abstraction import (
    abstraction_study,
    bucket_of,
    ranges_text,
    uniform_cuts,
    write_outputs,
)

from .cli_run import run

K100 = get_config("kuhn-100")


def abstract_kuhn_value(sizes) -> float:
    """Seat 1's value of Kuhn over buckets of ``sizes`` consecutive cards, from the formulas
    P(b1, b2) = n1 (n2 - [b1 = b2]) / (N (N - 1)) and w = 1, 0 or 1/2 (same bucket)."""
    sizes = np.asarray(sizes, float)
    B, N = len(sizes), sizes.sum()
    P = np.outer(sizes, sizes) - np.diag(sizes)
    P /= N * (N - 1)
    w = np.tril(np.ones((B, B)), -1) + 0.5 * np.eye(B)  # w[b1, b2]: seat 1 higher
    sd = 2 * w - 1  # expected showdown result per chip

    # seat 1 sequences: 0 empty, then per bucket c, r, (c, r) f, (c, r) c
    # seat 2 sequences: 0 empty, then per bucket (after c) c, r, (after r) f, c
    def s1(b, k):
        return 1 + 4 * b + k

    def s2(b, k):
        return 1 + 4 * b + k

    n = 1 + 4 * B
    A = np.zeros((n, n))
    for b1 in range(B):
        for b2 in range(B):
            p = P[b1, b2]
            A[s1(b1, 0), s2(b2, 0)] += p * sd[b1, b2]  # check, check
            A[s1(b1, 2), s2(b2, 1)] += p * -1.0  # check, raise, fold
            A[s1(b1, 3), s2(b2, 1)] += p * 2 * sd[b1, b2]  # check, raise, call
            A[s1(b1, 1), s2(b2, 2)] += p * 1.0  # raise, fold
            A[s1(b1, 1), s2(b2, 3)] += p * 2 * sd[b1, b2]  # raise, call
    E = np.zeros((1 + 2 * B, n))
    F = np.zeros((1 + 2 * B, n))
    E[0, 0] = F[0, 0] = 1
    for b in range(B):
        E[1 + 2 * b, [s1(b, 0), s1(b, 1)]] = 1
        E[1 + 2 * b, 0] = -1
        E[2 + 2 * b, [s1(b, 2), s1(b, 3)]] = 1
        E[2 + 2 * b, s1(b, 0)] = -1
        F[1 + 2 * b, [s2(b, 0), s2(b, 1)]] = 1
        F[1 + 2 * b, 0] = -1
        F[2 + 2 * b, [s2(b, 2), s2(b, 3)]] = 1
        F[2 + 2 * b, 0] = -1
    k = F.shape[0]
    e = np.zeros(E.shape[0])
    e[0] = 1
    c = np.zeros(n + k)
    c[n] = -1
    res = linprog(
        c,
        A_ub=np.hstack([-A.T, F.T]),
        b_ub=np.zeros(n),
        A_eq=np.hstack([E, np.zeros((E.shape[0], k))]),
        b_eq=e,
        bounds=[(0, None)] * n + [(None, None)] * k,
        method="highs",
    )
    assert res.status == 0
    return -res.fun


@pytest.mark.parametrize(
    "cuts",
    [
        uniform_cuts(100, 10),
        (16, 18, 20, 42, 50, 52, 70, 84, 86),
        (3, 50, 99),
        (),
    ],
)
def test_abstract_game_matches_the_bucket_pair_formulas(cuts):
    sizes = np.diff([0, *cuts, 100])
    sol = solve_sequence_form(K100, bucket_of(100, cuts))
    assert sol.value == pytest.approx(abstract_kuhn_value(sizes), abs=1e-9)


def test_identity_buckets_are_the_full_game_and_kuhn_3_is_an_abstraction():
    full = solve_sequence_form(K100).value
    assert solve_sequence_form(K100, np.arange(100)).value == pytest.approx(full, abs=1e-12)
    assert abstract_kuhn_value(np.ones(3)) == pytest.approx(-1 / 18, abs=1e-9)


def test_lifted_strategy_is_constant_on_each_bucket():
    cuts = uniform_cuts(100, 10)
    sol = solve_sequence_form(K100, bucket_of(100, cuts))
    rows = sol.strategies[0].reshape(-1, 100, 3)  # (decision node, card, action)
    per_bucket = rows.reshape(rows.shape[0], 10, 10, 3)
    assert np.allclose(per_bucket, per_bucket[:, :, :1, :])


def test_cuts_and_ranges():
    assert uniform_cuts(100, 10) == (10, 20, 30, 40, 50, 60, 70, 80, 90)
    assert ranges_text(K100, (10, 20, 30, 40, 50, 60, 70, 80, 90)).startswith("1-10 11-20 21-30")
    assert bucket_of(100, (10, 20))[[0, 9, 10, 19, 20, 99]].tolist() == [0, 0, 1, 1, 2, 2]


@pytest.fixture(scope="module")
def study():
    return abstraction_study(K100, 10)


def test_study_numbers(study):
    uniform, better = study.rows
    assert study.full_value == pytest.approx(-5605 / 99000, abs=1e-12)
    assert uniform.ranges == "1-10 11-20 21-30 31-40 41-50 51-60 61-70 71-80 81-90 91-100"
    assert uniform.abstract_value == pytest.approx(-97 / 1800, abs=1e-9)
    assert uniform.lifted_nash_conv == pytest.approx(0.009918, abs=1e-6)
    # the optimised buckets: a third of the uniform NashConv or less, and closer to the
    # full game's value and to the equilibrium's score in a match
    assert better.lifted_nash_conv < uniform.lifted_nash_conv / 3
    assert abs(better.abstract_value - study.full_value) < abs(
        uniform.abstract_value - study.full_value
    )
    assert uniform.ev_vs_equilibrium < better.ev_vs_equilibrium <= 1e-12
    assert better.buckets == 10


def test_outputs(study, tmp_path):
    paths = write_outputs(study, tmp_path)
    assert sorted(p.name for p in paths) == sorted(
        f"abstraction.{e}" for e in ("md", "csv", "json", "png")
    )
    data = json.loads((tmp_path / "abstraction.json").read_text())
    assert [b["bucketing"] for b in data["bucketings"]] == ["uniform", "optimised"]
    assert (
        "| uniform | 10 | -0.053888889 | +0.053888889 | 0.009918 |"
        in (tmp_path / "abstraction.md").read_text()
    )
    first = (tmp_path / "abstraction.png").read_bytes()
    write_outputs(study, tmp_path)
    assert (tmp_path / "abstraction.png").read_bytes() == first  # reproducible bytes


def test_command_on_small_kuhn(capsys, tmp_path):
    code, out, err = run(
        capsys,
        ["study", "abstraction", "--preset", "kuhn", "--buckets", "2", "--out", str(tmp_path)],
    )
    assert code == 0 and "uniform buckets: J-Q K" in out and "optimising the cuts" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--buckets", "0"], "--buckets must be between 1 and 100"),
        (["--buckets", "101"], "--buckets must be between 1 and 100"),
        (["--preset", "team-leduc"], "team-leduc is not a two-player game"),
        (["--preset", "nope"], "unknown preset 'nope'"),
    ],
)
def test_bad_arguments_one_line_exit_2(capsys, tmp_path, argv, message):
    code, out, err = run(capsys, ["study", "abstraction", *argv, "--out", str(tmp_path / "x")])
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()
