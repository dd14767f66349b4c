"""The solver's entry point (:func:`teamleduc.solver.solve`, :mod:`teamleduc.solver.driver`):
values against independent linear programmes, exact export gaps, resumed runs, Ctrl-C, refined
exports written.

The oracles are written here, independently of the solver:

* :func:`enumeration_lp_value` enumerates every joint pure strategy of each team (each seat's
  pure strategies, deduplicated by their terminal reach, then all pairs for a team of two),
  evaluates the payoff matrix exactly from :func:`teamleduc.payoffs.chance_utility`, and solves
  the matrix game with HiGHS: the TMECor value by definition;
* :func:`sequence_form_lp_value` is the classic sequence-form LP of a two-player zero-sum game
  (von Stengel 1996; Koller, Megiddo and von Stengel 1994) built from the public tree.

Every exported submission is re-measured with :func:`teamleduc.best_response.exploitability`.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import signal
import time

import numpy as np
import pytest
from scipy.optimize import linprog

from teamleduc.best_response import exploitability
from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.files.reading import load_submission
from teamleduc.infosets import infoset_tables
from teamleduc.payoffs import chance_utility
from teamleduc.reach import seat_reach
from teamleduc.solver import INTERRUPTED, ITERATION_LIMIT, METHODS, solve
from teamleduc.solver.dag_cfr import VARIANTS
from teamleduc.tree import build_tree

from .solving import GUARD_SECONDS, KUHN_VALUE

ALL_METHODS = sorted(METHODS)
CFR_METHODS = [m for m in ALL_METHODS if METHODS[m] == "dag_cfr"]
#: kuhn-3p with teams {1,3} against {2}: a small team game whose value is not 0
KUHN3_TEAMS = get_config("kuhn-3p", teams=((0, 2), (1,)))
#: team games small enough for :func:`enumeration_lp_value` whose value is not 0 (with two
#: ranks and a small ante, e.g. tiny-team-3p itself, it is 0). The values are that LP's, as
#: exact fractions (``Fraction(v).limit_denominator(10000)``, within 1e-16).
NONZERO_TEAM_GAMES = {
    # tiny-team-3p (team {1,3} against {2}) with ante 6 and three suits
    "ante6": (get_config("tiny-team-3p", ante=6, suits=3), 3 / 40),
    # team {2,3} against seat 1, who acts first; ante 4 and three suits
    "ante4-team23": (get_config("tiny-team-3p", ante=4, suits=3, teams=((1, 2), (0,))), 1 / 30),
}


def _seat_pure_reaches(tree, table) -> np.ndarray:
    """(P, Z, R) distinct terminal reaches of every pure strategy of one seat."""
    choices = [np.flatnonzero(legal) for legal in table.legal]
    seen = {}
    for combo in itertools.product(*choices):
        strategy = np.zeros((table.size, 3))
        strategy[np.arange(table.size), combo] = 1.0
        r = seat_reach(tree, table, strategy)[tree.terminals]
        seen.setdefault(r.tobytes(), r)
    return np.array(list(seen.values()))


def _team_pure_reaches(tree, tables, seats) -> np.ndarray:
    """(P, Z, R**m) terminal reach of every joint pure strategy of a team (members in order)."""
    per_seat = [_seat_pure_reaches(tree, tables[s]) for s in seats]
    if len(seats) == 1:
        return per_seat[0]
    a, b = per_seat
    joint = a[:, None, :, :, None] * b[None, :, :, None, :]
    return joint.reshape(len(a) * len(b), a.shape[1], -1)


def enumeration_lp_value(config) -> float:
    """TMECor value of team A: the matrix game over both teams' joint pure strategies."""
    tree = build_tree(config)
    tables = infoset_tables(tree)
    A, B = (tuple(sorted(t)) for t in config.teams)
    R, S = config.num_ranks, config.num_seats
    Z = len(tree.terminals)
    TA = _team_pure_reaches(tree, tables, A)
    TB = _team_pure_reaches(tree, tables, B)
    cu = chance_utility(tree, A).reshape((Z,) + (R,) * S)
    cu = cu.transpose([0] + [1 + s for s in A] + [1 + s for s in B]).reshape(
        Z, R ** len(A), R ** len(B)
    )
    G = np.einsum("zab,jzb->jza", cu, TB)  # B column j as weights on A
    M = TA.reshape(len(TA), -1) @ G.reshape(len(TB), -1).T  # (nA, nB) team A's value
    n, m = M.shape
    res = linprog(
        np.r_[np.zeros(n), -1.0],
        A_ub=np.hstack([-M.T, np.ones((m, 1))]),
        b_ub=np.zeros(m),
        A_eq=np.r_[np.ones(n), 0.0][None],
        b_eq=[1.0],
        bounds=[(0, None)] * n + [(None, None)],
        method="highs",
    )
    assert res.status == 0
    return -res.fun


@functools.cache
def _cached_enumeration_lp_value(config) -> float:
    """:func:`enumeration_lp_value`, once per game for the tests parametrised by method."""
    return enumeration_lp_value(config)


def sequence_form_lp_value(config) -> float:
    """Value of seat 1 in a two-player zero-sum game, by the sequence-form LP."""
    tree = build_tree(config)
    tables = infoset_tables(tree)
    R, N = config.num_ranks, tree.num_nodes
    Z = len(tree.terminals)
    seq_index, last_seq, parent_seq = [], [], []
    for seat in (0, 1):
        t = tables[seat]
        idx = np.full((t.size, 3), -1)
        legal = np.argwhere(t.legal)
        idx[legal[:, 0], legal[:, 1]] = 1 + np.arange(len(legal))  # 0 = empty sequence
        last = np.zeros((N, R), int)
        for h in range(1, N):
            p = tree.parent[h]
            if tree.kind[p] == 0 and tree.actor[p] == seat:
                last[h] = idx[t.id_of[p], tree.action[h]]
            else:
                last[h] = last[p]
        seq_index.append(idx)
        last_seq.append(last)
        parent_seq.append(last[t.node, t.rank])
    n0, n1 = (1 + int(tables[s].legal.sum()) for s in (0, 1))
    cu = chance_utility(tree, (0,)).reshape(Z, R, R)
    A = np.zeros((n0, n1))
    s0 = last_seq[0][tree.terminals]  # (Z, R)
    s1 = last_seq[1][tree.terminals]
    for x0 in range(R):
        for x1 in range(R):
            np.add.at(A, (s0[:, x0], s1[:, x1]), cu[:, x0, x1])

    def constraints(seat, n):
        t = tables[seat]
        E = np.zeros((1 + t.size, n))
        E[0, 0] = 1.0
        for i in range(t.size):
            E[1 + i, seq_index[seat][i][t.legal[i]]] = 1.0
            E[1 + i, parent_seq[seat][i]] -= 1.0
        e = np.zeros(1 + t.size)
        e[0] = 1.0
        return E, e

    E, e = constraints(0, n0)
    F, f = constraints(1, n1)
    # max_{x, q} f.q  s.t.  E x = e, x >= 0, F^T q - A^T x <= 0
    k = F.shape[0]
    res = linprog(
        np.r_[np.zeros(n0), -f],
        A_ub=np.hstack([-A.T, F.T]),
        b_ub=np.zeros(n1),
        A_eq=np.hstack([E, np.zeros((E.shape[0], k))]),
        b_eq=e,
        bounds=[(0, None)] * n0 + [(None, None)] * k,
        method="highs",
    )
    assert res.status == 0
    return -res.fun


def test_oracles_reproduce_published_values():
    assert enumeration_lp_value(get_config("kuhn")) == pytest.approx(KUHN_VALUE, abs=1e-9)
    assert sequence_form_lp_value(get_config("kuhn")) == pytest.approx(KUHN_VALUE, abs=1e-9)
    # classic Leduc: the published game value for the first player is about -0.0856
    assert sequence_form_lp_value(get_config("leduc")) == pytest.approx(-0.0856, abs=5e-5)


def _check_export(config, result, tol=1e-6):
    """The reported bounds are the exported submission's, re-measured independently."""
    ex = exploitability(config, result.submission)
    assert ex.worst_case_a == pytest.approx(result.lower, abs=1e-9)
    assert ex.br_a.value == pytest.approx(result.upper, abs=1e-9)
    assert result.gap == pytest.approx(ex.gap, abs=1e-9)
    assert result.gap <= tol
    assert result.signals <= 100
    assert not result.submission.problems(config)


#: iterations (rounds of the double oracle, which stops sooner when it converges) before the
#: final export in the exactness tests below
EXACT_ITERATIONS = 500


def _solve_exactly(config, method, iterations=EXACT_ITERATIONS):
    """A fixed number of iterations, then the unhurried LP export (no refinement): the same
    run on a fast or a loaded machine, so the assertions do not depend on the clock."""
    return solve(
        config,
        method,
        max_iterations=iterations,
        time_limit=GUARD_SECONDS,
        refine_seconds=0,
        handle_sigint=False,
    )


def _check_solves_to(config, method, v):
    """The solver's bounds equal ``v`` to 1e-6 and its export is exact."""
    r = _solve_exactly(config, method)
    assert r.lower == pytest.approx(v, abs=1e-6)
    assert r.upper == pytest.approx(v, abs=1e-6)
    _check_export(config, r)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_team_value_matches_enumeration_lp(method):
    config = get_config("tiny-team-3p")
    v = _cached_enumeration_lp_value(config)
    assert v == pytest.approx(0.0, abs=1e-9)  # a weak anchor: see the non-zero games below
    _check_solves_to(config, method, v)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("game", sorted(NONZERO_TEAM_GAMES))
def test_nonzero_team_value_matches_enumeration_lp(method, game):
    """The solver's bounds equal the enumeration LP's TMECor value where that value is not 0."""
    config, known = NONZERO_TEAM_GAMES[game]
    v = _cached_enumeration_lp_value(config)
    assert abs(v) > 1e-3  # the anchor cannot silently become trivial
    assert v == pytest.approx(known, abs=1e-9)
    _check_solves_to(config, method, v)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_kuhn_nash_value(method):
    r = _solve_exactly("kuhn", method)
    assert r.lower == pytest.approx(KUHN_VALUE, abs=1e-6)
    assert r.upper == pytest.approx(KUHN_VALUE, abs=1e-6)
    _check_export(get_config("kuhn"), r)


@pytest.mark.parametrize("method", CFR_METHODS)
def test_leduc_nash_value_and_nashconv(method):
    config = get_config("leduc")
    v = sequence_form_lp_value(config)
    r = _solve_exactly(config, method, iterations=1000)  # speed: see the benchmark
    assert r.lower - 1e-9 <= v <= r.upper + 1e-9
    _check_export(config, r, tol=1e-6)  # NashConv of the export (two players: the gap)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("preset", ["tiny-team", "kuhn3-teams"])
def test_team_games_exact_export(method, preset):
    config = KUHN3_TEAMS if preset == "kuhn3-teams" else get_config(preset)
    r = _solve_exactly(config, method)
    _check_export(config, r)
    if preset == "kuhn3-teams":
        assert r.lower == pytest.approx(7 / 264, abs=1e-6)  # all methods agree on v*


@pytest.mark.parametrize("method", CFR_METHODS)
def test_two_round_team_game(method):
    config = get_config("tiny-team-leduc")
    r = _solve_exactly(config, method)
    assert r.lower == pytest.approx(0.1319361388, abs=1e-6)
    _check_export(config, r)


def test_target_is_tried_early_whatever_the_limit():
    """With a target, the LP export is first tried after 0.5 s and then at doubling times,
    not after 5 % of the limit (30 s of 600 s here): tiny-team-leduc's export is exact long
    before its average (which is near 1e-5 after 2 s)."""
    limit = GUARD_SECONDS
    r = solve("tiny-team-leduc", "dcfr", time_limit=limit, target_gap=1e-9, handle_sigint=False)
    assert r.success and r.gap <= 1e-9
    exports = [m for m in r.history if m.what == "export"]
    assert exports[0].seconds < 0.05 * limit
    averages = [m for m in r.history if m.what == "average"]
    assert averages[-1].gap > 1e-9  # the export met the target, not the average


def test_solve_with_refinement_reports_the_written_gap(tmp_path):
    config = get_config("tiny-team-leduc")
    r = solve(
        config,
        "dcfr",
        time_limit=4,
        refine_seconds=1.5,
        max_signals=20,
        out_dir=tmp_path / "run",
        handle_sigint=False,
    )
    assert r.signals <= 20
    ex = exploitability(config, load_submission(tmp_path / "run" / "submission", config))
    assert ex.worst_case_a == pytest.approx(r.lower, abs=1e-9)
    assert ex.br_a.value == pytest.approx(r.upper, abs=1e-9)


def test_signal_cap_and_merge():
    config = get_config("tiny-team-leduc")
    r = solve(config, "dcfr", time_limit=4, target_gap=1e-9, max_signals=6, handle_sigint=False)
    sub = r.submission
    assert sub.num_signals <= 6
    assert r.team_signals[0] + r.team_signals[1] - 1 >= sub.num_signals
    assert sub.probs.sum() == pytest.approx(1.0, abs=1e-12)
    _check_export(config, r, tol=np.inf)  # bounds exact even when the cap costs value
    # each team's marginal: signals that share a team strategy add up to its mixture weight
    for team in config.teams:
        keys = {}
        for k, p in enumerate(sub.probs):
            key = b"".join(sub.strategies[s][k].tobytes() for s in team)
            keys[key] = keys.get(key, 0.0) + p
        assert len(keys) <= r.team_signals[config.teams.index(team)]


def _cum(folder):
    with np.load(os.path.join(folder, "checkpoint.npz")) as z:
        return {k: z[k] for k in z.files if k.startswith("alg/")}


@pytest.mark.parametrize("method", ["dcfr", "pcfr+"])
def test_resume_continues_exactly(tmp_path, method):
    config = get_config("tiny-team-leduc")
    straight = tmp_path / "straight"
    # the iteration counts end the runs: a 10 s limit leaves the main phase about 8.5 s for 60
    # iterations of about 1.5 s on a quiet machine (6 s left 5); a longer one lengthens the
    # 25-iteration run's export, which uses its budget
    solve(config, method, max_iterations=60, time_limit=10, out_dir=straight, handle_sigint=False)
    first = tmp_path / "first"
    solve(config, method, max_iterations=25, time_limit=10, out_dir=first, handle_sigint=False)
    second = tmp_path / "second"
    r = solve(
        config,
        None,
        max_iterations=60,
        time_limit=10,
        out_dir=second,
        resume=first,
        handle_sigint=False,
    )
    assert r.iterations == 60 and r.status == ITERATION_LIMIT
    a, b = _cum(straight), _cum(second)
    assert set(a) == set(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    report = json.loads((second / "solve-report.json").read_text())
    assert report["iterations"] == 60
    other = "cfr+" if method == "dcfr" else "dcfr"
    with pytest.raises(ValueError, match="made by"):
        solve(config, other, time_limit=5, resume=first, handle_sigint=False)


def test_ctrl_c_writes_checkpoint_and_valid_submission(tmp_path):
    config = get_config("tiny-team-leduc")
    seen = []

    def progress(m):
        seen.append(m)
        if len(seen) == 3:
            os.kill(os.getpid(), signal.SIGINT)

    r = solve(config, "dcfr", time_limit=60, out_dir=tmp_path, progress=progress)
    assert r.status == INTERRUPTED
    assert r.seconds < 30
    assert (tmp_path / "checkpoint.npz").exists()
    sub = load_submission(tmp_path / "submission", config)
    assert sub.num_signals == r.signals
    ex = exploitability(config, sub)
    assert ex.gap == pytest.approx(r.gap, abs=1e-9)


def _as_big(monkeypatch):
    """tiny-team-leduc treated as a big game (whose export takes tens of seconds)."""
    import teamleduc.solver.plan as plan

    monkeypatch.setattr(plan, "is_big", lambda game: True)


def _sigint_at(n: int, what: str | None = None):
    """A progress callback that sends this process SIGINT at its n-th measurement (of
    ``what`` only, if given)."""
    seen = []

    def progress(m):
        if what is None or m.what == what:
            seen.append(m)
            if len(seen) == n:
                os.kill(os.getpid(), signal.SIGINT)

    return progress


def test_ctrl_c_on_a_big_game_keeps_the_solver_state(tmp_path, monkeypatch):
    """On a big game the first Ctrl-C aborts at the next iteration and keeps the solver's
    state alone (writing a 100-signal export of team-leduc takes about 40 s); --resume
    continues from it, bit for bit, and writes the submission."""
    from teamleduc.solver.result import CheckpointKept

    _as_big(monkeypatch)
    config = get_config("tiny-team-leduc")
    out = tmp_path / "run"
    with pytest.raises(CheckpointKept) as kept:
        solve(config, "dcfr", time_limit=60, out_dir=out, progress=_sigint_at(3))
    assert kept.value.out_dir == str(out)
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint.npz"]
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # no staging folder left
    iterations = kept.value.iterations
    assert iterations >= 1 and 0 < kept.value.seconds < 30
    r = solve(config, "dcfr", max_iterations=iterations + 5, resume=out, out_dir=out)
    assert r.iterations == iterations + 5
    _check_export(config, r, tol=np.inf)
    assert sorted(p.name for p in out.iterdir()) == [
        "checkpoint.npz",
        "convergence.png",
        "solve-report.json",
        "submission",
    ]


def test_ctrl_c_during_a_big_game_measurement_does_not_wait(tmp_path, monkeypatch):
    """A Ctrl-C while a big game's average is measured (seconds on team-leduc) aborts the
    measurement; the state, whole meanwhile, is kept and resumes."""
    from teamleduc.solver.regret_algorithm import RegretAlgorithm
    from teamleduc.solver.result import CheckpointKept

    _as_big(monkeypatch)
    measure = RegretAlgorithm.measure
    calls = []

    def interrupted_measure(self, *args):
        calls.append(self.iterations)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return measure(self, *args)

    monkeypatch.setattr(RegretAlgorithm, "measure", interrupted_measure)
    config = get_config("tiny-team-leduc")
    out = tmp_path / "run"
    with pytest.raises(CheckpointKept) as kept:
        solve(config, "dcfr", time_limit=60, out_dir=out)
    assert len(calls) == 2 and kept.value.iterations == calls[1]
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint.npz"]
    monkeypatch.setattr(RegretAlgorithm, "measure", measure)
    r = solve(config, "dcfr", max_iterations=calls[1] + 3, resume=out, out_dir=out)
    assert r.iterations == calls[1] + 3


def test_ctrl_c_during_a_big_game_export_keeps_the_main_phase(tmp_path, monkeypatch):
    """After its main phase a big game saves a checkpoint and the first Ctrl-C aborts: the
    run's folder (resumed in place) keeps that checkpoint and the earlier run's submission,
    which its history includes; a third session resumes from both."""
    from teamleduc.solver.result import CheckpointKept

    config = get_config("tiny-team-leduc")
    out = tmp_path / "run"
    # 50 iterations: the LP export is exact within a second (after 10 it took 30 s), so the
    # later sessions' stratified exports (gap about 1e-2) cannot beat it
    first = solve(config, "dcfr", max_iterations=50, out_dir=out, handle_sigint=False)
    before = (out / "submission" / "meta-strategy.csv").read_bytes()
    _as_big(monkeypatch)
    with pytest.raises(CheckpointKept) as kept:
        solve(
            config,
            "dcfr",
            max_iterations=70,
            resume=out,
            out_dir=out,
            progress=_sigint_at(1, "export"),
            refine_seconds=0,
        )
    assert kept.value.iterations == 70
    assert sorted(p.name for p in out.iterdir()) == [
        "checkpoint.npz",
        "convergence.png",
        "solve-report.json",
        "submission",
    ]
    assert (out / "submission" / "meta-strategy.csv").read_bytes() == before
    r = solve(config, "dcfr", max_iterations=71, resume=out, out_dir=out, refine_seconds=0)
    assert r.iterations == 71 and r.gap <= first.gap + 1e-12


def test_an_abort_without_checkpoint_leaves_out_untouched(tmp_path, monkeypatch):
    """An abort before the run saved any checkpoint (here: while it builds its DAGs) is a
    plain KeyboardInterrupt and leaves --out as it was (an earlier run's files)."""
    import teamleduc.solver.driver as driver

    out = tmp_path / "run"
    out.mkdir()
    (out / "earlier.txt").write_text("an earlier run")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(driver, "make_algorithm", interrupted)
    with pytest.raises(KeyboardInterrupt) as e:
        solve("tiny-team-leduc", "dcfr", time_limit=5, out_dir=out, overwrite=True)
    assert type(e.value) is KeyboardInterrupt
    assert [p.name for p in out.iterdir()] == ["earlier.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_a_limit_shorter_than_one_iteration_still_exports():
    """The time limit can run out before the first iteration (it counts building the DAGs):
    the run then makes one iteration and exports it, instead of failing with "no candidate
    strategy" (as ``solve --time-limit 0.5`` on tiny-team-leduc did)."""
    config = get_config("tiny-team-leduc")
    r = solve(config, "dcfr", time_limit=1e-3, handle_sigint=False)
    assert r.iterations == 1
    _check_export(config, r, tol=np.inf)


def test_the_time_limit_counts_from_the_call(tmp_path, monkeypatch):
    """The limit's clock starts when ``solve`` is called: what comes before the game is
    built (checking the arguments and a resumed checkpoint, loading the plotting library,
    staging the output folder) counts, as it does for whoever timed the call."""
    import teamleduc.solver.driver as driver

    original = driver.plan_solve

    def slow_plan(*args, **kwargs):
        time.sleep(0.3)
        return original(*args, **kwargs)

    monkeypatch.setattr(driver, "plan_solve", slow_plan)
    seen = []
    r = solve(
        "kuhn",
        "dcfr",
        time_limit=GUARD_SECONDS,
        max_iterations=3,
        progress=seen.append,
        refine_seconds=0,
        handle_sigint=False,
        out_dir=tmp_path / "run",
    )
    assert seen[0].seconds >= 0.3 and r.seconds >= 0.3


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown method"):
        solve("kuhn", "simplex", time_limit=1)
    with pytest.raises(TeamLeducError, match="two"):
        solve("kuhn-3p", time_limit=1)
    with pytest.raises(TeamLeducError, match="no checkpoint"):
        solve("kuhn", time_limit=1, resume="/nonexistent/run")
    # NaN limits would never stop the run; more than 100 signals break the challenge's cap
    for kwargs, message in (
        (dict(time_limit=float("nan")), "time_limit"),
        (dict(time_limit=1, refine_seconds=float("nan")), "refine_seconds"),
        (dict(time_limit=1, refine_seconds=-1.0), "refine_seconds"),
        (dict(time_limit=1, target_gap=float("nan")), "target_gap"),
        (dict(time_limit=1, max_signals=101), "between 1 and 100"),
        (dict(time_limit=1, max_signals=0), "between 1 and 100"),
        (dict(time_limit=1, max_iterations=0), "max_iterations"),
    ):
        with pytest.raises(ValueError, match=message):
            solve("kuhn", "dcfr", handle_sigint=False, **kwargs)


def test_refinement_reports_each_block():
    """While refining, every block is reported with the exact bounds of the best pair so far
    that fits the cap: its gap only narrows, and the final report is the better of it and
    the plain export. The export here is stratified (equal weights on both sides), so the
    merged CSV export is refined on one shared weight vector (4 signals, both teams)."""
    seen = []
    r = solve(
        "tiny-team-leduc",
        "dcfr",
        time_limit=6,  # the LP export gets about 2 s (5 s of 12 before): still stratified
        max_iterations=30,
        max_signals=4,
        refine_seconds=3,
        progress=seen.append,
        handle_sigint=False,
    )
    exported = [m for m in seen if m.what == "export"]
    refined = [m for m in seen if m.what == "refine"]
    assert refined and exported
    assert all(b.gap <= a.gap for a, b in zip(refined, refined[1:]))
    assert r.gap == pytest.approx(min(refined[-1].gap, exported[0].gap), abs=1e-9)
    assert refined[-1].gap < exported[0].gap  # the shared weights win here
    a, b = r.mixtures
    assert np.array_equal(a.weights, b.weights) and r.signals == a.size <= 4


def _tiny_dcfr_30(config="tiny-team-leduc", **kwargs):
    """``config``'s DCFR for 30 iterations (no time limit in practice), exported in at most
    4 signals."""
    return solve(
        config,
        "dcfr",
        time_limit=GUARD_SECONDS,
        max_iterations=30,
        max_signals=4,
        handle_sigint=False,
        **kwargs,
    )


@pytest.mark.parametrize("export_format", ["csv", "teams2025"])
def test_a_refined_big_game_exports_the_refinements_start_first(monkeypatch, export_format):
    """A big game (stratified export) that is refined next is exported as the refinement's
    starting point: for the CSV submission both teams' averages as 4 equally likely
    signals, refined on shared weights; for team zips each team's average as its own
    signals with free weights (as many as the refinement time can move, at most 4), whose
    sizes the refinement keeps. Neither goes through the general export
    (``export_alternatives``). Without refinement the export is the equal weights."""
    import teamleduc.solver.plan as plan
    from teamleduc.solver.dag_cfr import RegretMinimizer
    from teamleduc.solver.refine import halves_export, refined_team_signals, stratified_export
    from teamleduc.solver.regret_algorithm import RegretAlgorithm
    from teamleduc.solver.stratify import stratified_mixture

    monkeypatch.setattr(plan, "is_big", lambda game: True)
    calls = []
    original = RegretAlgorithm.export_alternatives
    monkeypatch.setattr(
        RegretAlgorithm,
        "export_alternatives",
        lambda self, k: calls.append(k) or original(self, k),
    )
    seen = []
    r = _tiny_dcfr_30(refine_seconds=2, progress=seen.append, export_format=export_format)
    assert calls == []
    # the same 30 iterations outside the solver: the first export is exactly their start
    rm = RegretMinimizer(get_config("tiny-team-leduc"), VARIANTS["dcfr"])  # the solver's dcfr
    rm.iterate(30)

    def restart(team, k, weights=None):
        return stratified_mixture(rm.game, team, rm.average_sigma(team), k, weights=weights)

    if export_format == "csv":
        ex = stratified_export(rm.game, restart, 4)
        assert [m.size for m in ex.mixtures] == [4, 4] and ex.signals == 4
        assert np.array_equal(r.mixtures[0].weights, r.mixtures[1].weights)
        assert r.signals <= 4
    else:
        k = refined_team_signals(rm.game, 4, 2.0)
        ex = halves_export(rm.game, restart, k, per_team=True)
        assert [m.size for m in ex.mixtures] == [k, k]
        assert max(r.team_signals) <= 4
    first = [m for m in seen if m.what == "export"][0]
    assert (first.lower, first.upper) == pytest.approx((ex.lower, ex.upper), abs=1e-12)
    assert r.gap <= ex.gap + 1e-12
    plain = _tiny_dcfr_30(refine_seconds=0)
    assert calls == [4] and plain.signals == 4


def test_a_big_games_unbeaten_start_is_written(monkeypatch):
    """A big game does not hold its start's submission while refining (1.4 GB on
    team-leduc); when the refinement does not beat the start, the submission is built again
    from the start's mixtures: the written bounds are the start's, re-measured."""
    import teamleduc.solver.plan as plan
    import teamleduc.solver.steps as steps

    monkeypatch.setattr(plan, "is_big", lambda game: True)
    given = []

    def unchanged(game, ex, **kwargs):
        given.append(ex)
        return ex

    monkeypatch.setattr(steps, "refine_export", unchanged)
    config = get_config("tiny-team-leduc")
    r = _tiny_dcfr_30(config, refine_seconds=2)
    assert len(given) == 1 and given[0].submission is None
    assert r.lower == pytest.approx(given[0].lower, abs=1e-9)
    assert r.upper == pytest.approx(given[0].upper, abs=1e-9)
    assert r.signals == 4
    _check_export(config, r, tol=np.inf)


@pytest.mark.parametrize("writing", [False, True])
def test_a_big_games_refinement_keeps_the_finish_its_export_step_measured(
    tmp_path, monkeypatch, writing
):
    """A big game's refinement ends :func:`.plan.finish_after_export` seconds before the
    limit, sized by how long this run's own export step took (its speed now, load
    included), not by the quiet machine's rates of the phases' ``reserve``. Given seconds
    are a cap; ``auto`` refines up to that finish."""
    import teamleduc.solver.plan as plan
    import teamleduc.solver.steps as steps

    monkeypatch.setattr(plan, "is_big", lambda game: True)
    monkeypatch.setattr(plan, "auto_seconds", lambda game, limit, signals, startup=0.0: 2.0)
    budgets, asked = [], []

    def unchanged(game, ex, **kwargs):
        budgets.append(kwargs["time_limit"])
        return ex

    monkeypatch.setattr(steps, "refine_export", unchanged)
    for refine, reserve in ((2, -1000.0), (2, 1000.0), (None, -1000.0), (None, 1000.0)):
        monkeypatch.setattr(
            steps,
            "finish_after_export",
            lambda seconds, out, reserve=reserve: asked.append((seconds, out)) or reserve,
        )
        r = _tiny_dcfr_30(
            refine_seconds=refine,
            out_dir=tmp_path / f"out{len(budgets)}" if writing else None,
        )
        exports = [m for m in r.history if m.what == "export"]
        assert asked[-1][1] is writing and 0 < asked[-1][0] <= exports[0].seconds
        assert r.parameters["refine_seconds"] == 2.0
    # no finish to keep: the given seconds, or with auto all the time to the limit and
    # beyond; all of it to keep: the least the step gives
    assert budgets[:2] == [2.0, 0.05] and budgets[3] == 0.05 and len(asked) == 4
    assert GUARD_SECONDS + 1000 - 60 < budgets[2] <= GUARD_SECONDS + 1000


def test_finish_after_export_is_twice_the_step_and_a_margin_with_files():
    """The finish kept after a big game's export step: twice the step and 2 s when the
    files are written (team-leduc's finish measured 1.16 to 1.65 steps, team-leduc-2025's
    1.86-2.98 s after a step of 0.65-0.88 s), once the step and 0.5 s without (the
    re-measurement alone, 0.51 to 0.58 steps on team-leduc, 0.38-0.46 s on
    team-leduc-2025)."""
    from teamleduc.solver.plan import finish_after_export

    assert finish_after_export(7.25, True) == pytest.approx(16.5)
    assert finish_after_export(0.7, True) == pytest.approx(3.4)
    assert finish_after_export(0.7, False) == pytest.approx(1.2)
