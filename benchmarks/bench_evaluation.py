"""Exact evaluation and grading on team-leduc (issue 4).

Targets: one ``evaluate`` call between two 1-signal CSV submissions, load included, <= 1 s;
a 20-submission round robin with the five baselines <= 60 s. Also printed: the cold first call
(fresh process: tree build and numba cache loading included), the command-line wall time, and
how the cost grows with 1, 10 and 100 signals (loading and evaluating separately).

Submissions are generated in a temporary folder (not timed): CFR-like behavioural strategies
with full-precision floats, mixtures of pure strategies and rounded mixtures, 1 to 4 signals.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PRESET = "team-leduc"


def _behavioural(tables, rng, digits=None):
    out = {}
    for s, t in enumerate(tables):
        x = rng.random((t.size, 3)) * t.legal
        x = x / x.sum(axis=1, keepdims=True)
        if digits is not None:
            x = np.round(x, digits)
            x[:, 0] = 0.0
            x[:, 0] = np.where(t.legal[:, 0], 1.0 - x.sum(axis=1), 0.0)  # c is always legal
            x = np.clip(x, 0.0, 1.0)
        out[s] = x
    return out


def _pure(tables, rng):
    out = {}
    for s, t in enumerate(tables):
        n_legal = t.legal.sum(axis=1)
        k = (rng.random(t.size) * n_legal).astype(int)
        order = np.cumsum(t.legal, axis=1) - 1
        a = np.argmax(t.legal & (order == k[:, None]), axis=1)
        x = np.zeros((t.size, 3))
        x[np.arange(t.size), a] = 1.0
        out[s] = x
    return out


def _submission(kind, num_signals, tables, rng, seats=None):
    from teamleduc.files.model import Submission

    seats = tuple(range(len(tables))) if seats is None else tuple(seats)
    per_signal = []
    for _j in range(num_signals):
        if kind == "cfr":
            per_signal.append(_behavioural(tables, rng))
        elif kind == "rounded":
            per_signal.append(_behavioural(tables, rng, digits=2))
        else:
            per_signal.append(_pure(tables, rng))
    probs = rng.dirichlet(np.ones(num_signals))
    return Submission(
        np.arange(num_signals),
        probs,
        seats,
        {s: np.stack([p[s] for p in per_signal]) for s in seats},
    )


def _median_time(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _line(label, seconds, target=None):
    tail = f" (target {target:.0f} s, ratio {seconds / target:.2f})" if target else ""
    print(f"  {label:<58} {seconds:8.3f} s{tail}", flush=True)


def main() -> None:
    from teamleduc.config import get_config
    from teamleduc.evaluate import evaluate, evaluate_reach, team_seats
    from teamleduc.files.reading import load_submission
    from teamleduc.files.threads import threads_to_use
    from teamleduc.files.writing import write_submission
    from teamleduc.grade import grade
    from teamleduc.infosets import infoset_tables
    from teamleduc.reach import team_reach
    from teamleduc.tree import build_tree

    config = get_config(PRESET)
    tree = build_tree(config)
    tables = infoset_tables(tree)
    A, B = team_seats(config)
    rng = np.random.default_rng(4)
    jobs = os.cpu_count() or 1
    print(
        f"preset {PRESET}: {len(tree.terminals):,} terminals, {tables[0].size:,} information "
        f"sets per seat; {jobs} CPU(s)"
    )

    with tempfile.TemporaryDirectory(prefix="teamleduc-bench-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        a = write_submission(_submission("cfr", 1, tables, rng), root / "cfr-a")
        b = write_submission(_submission("cfr", 1, tables, rng), root / "cfr-b")
        print(
            f"  (generated two 1-signal CFR-like CSV submissions in {time.perf_counter() - t0:.1f} s)"
        )

        # 1. one evaluate call, load included
        evaluate("uniform", "uniform", config)  # tree, tables, kernels: a warm session
        warm = _median_time(lambda: evaluate(a, b, config))
        _line("evaluate, two 1-signal CSV submissions, warm session", warm, 1.0)
        code = (
            "import sys, time; t0 = time.perf_counter(); from teamleduc.evaluate import evaluate; "
            f"evaluate(sys.argv[1], sys.argv[2], '{PRESET}'); print(time.perf_counter() - t0)"
        )
        cold = float(
            subprocess.run(
                [sys.executable, "-c", code, str(a), str(b)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.split()[-1]
        )
        _line("  same, first call in a fresh process (imports, tree, kernels)", cold)
        exe = Path(sys.executable).with_name("teamleduc")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "teamleduc"]
        t0 = time.perf_counter()
        subprocess.run(cmd + ["evaluate", str(a), str(b)], check=True, capture_output=True)
        _line("  same, `teamleduc evaluate A B` wall time", time.perf_counter() - t0)

        # 2. a 20-submission round robin with the baselines
        t0 = time.perf_counter()
        kinds = ["cfr"] * 8 + ["pure"] * 8 + ["rounded"] * 4
        signals = [1] * 8 + [2, 3, 2, 3, 2, 3, 2, 3] + [4, 4, 2, 2]
        subs = []
        for k, (kind, n) in enumerate(zip(kinds, signals)):
            subs.append(
                write_submission(_submission(kind, n, tables, rng), root / f"sub{k:02d}-{kind}")
            )
        print(
            f"  (generated 20 submissions, {sum(signals)} signals in all, in "
            f"{time.perf_counter() - t0:.1f} s)"
        )
        t0 = time.perf_counter()
        result = grade(subs, config, baselines="all", jobs=jobs, out=root / "grading")
        total = time.perf_counter() - t0
        n = len(result.names)
        _line(
            f"grade: 20 submissions + 5 baselines, {n * (n - 1)} seatings, --jobs {jobs}",
            total,
            60.0,
        )
        best = result.standings[0]
        print(f"    leader {best.name} {best.mean_score:+.4f}; {len(result.invalid)} invalid")

        # 3. scaling with the number of signals (team A as a team submission, seats 1, 3)
        print("  scaling with signals (team A mixture of pure strategies vs a 1-signal team B):")
        opponent = _submission("cfr", 1, tables, rng, seats=B)
        for k in (1, 10, 100):
            sub = _submission("pure", k, tables, rng, seats=A)
            path = write_submission(sub, root / f"signals-{k}")
            t0 = time.perf_counter()
            loaded = load_submission(path, config, seats=A)
            load_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            evaluate(loaded, opponent, config)
            eval_s = time.perf_counter() - t0
            print(
                f"    {k:>3} signal(s): load {load_s:7.3f} s, evaluate {eval_s:7.3f} s "
                f"({eval_s / k * 1000:6.1f} ms per signal)",
                flush=True,
            )
            del loaded
        # both teams with 100 signals: linear in 100 + 100, not in 100 x 100
        big_a = _submission("pure", 100, tables, rng, seats=A)
        big_b = _submission("pure", 100, tables, rng, seats=B)
        t0 = time.perf_counter()
        ta = team_reach(tree, big_a, A)
        tb = team_reach(tree, big_b, B)
        evaluate_reach(tree, ta, tb)
        print(
            f"    100 x 100 signals (both teams), in memory: {time.perf_counter() - t0:.3f} s "
            f"(10,000 signal pairs, never enumerated)"
        )
        # the signals' passes on threads, added up in signal order (the same bits)
        best = {1: float("inf"), None: float("inf")}
        for _ in range(3):
            for threads in (1, None):
                t0 = time.perf_counter()
                again = team_reach(tree, big_a, A, threads=threads)
                best[threads] = min(best[threads], time.perf_counter() - t0)
                if not np.array_equal(again, ta):
                    raise SystemExit("bench_evaluation: team_reach differs between thread counts")
        print(
            f"    a team's reach under 100 signals: {best[1]:.3f} s on 1 thread, "
            f"{best[None]:.3f} s on {threads_to_use()} (the same bits; best of 3, alternating)"
        )


if __name__ == "__main__":
    main()
