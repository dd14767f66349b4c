"""The solver's engine side by side with an earlier revision: DCFR iterations and exact team
best responses per second.

Why: the engine's speed goals (issue 33) are ratios against the code before the change, and a
ratio is only fair when both run on the same machine at the same time. This benchmark exports
the base revision (``git archive``, default :data:`BASE`, the last commit before the engine
rewrite) into a temporary folder and times, in alternating child processes, one DCFR iteration
(:meth:`teamleduc.solver.dag_cfr.RegretMinimizer.iterate`: both teams' regret and flow passes)
of the base and of this working tree, per preset and thread count. Each child builds the game,
runs :data:`SETTLE` iterations (numba compiling or loading, strategies no longer uniform) and
then times :data:`TIMED` single iterations; the figure is the median, the ratio this tree's
rate over the base's; the CPU seconds per iteration (the process's, all threads) are printed
beside them, the fairer figure on a busy machine at one thread. The same child then times
:data:`TIMED` exact best responses of team B against team A's reach, as ``grade`` and
``best-response`` run them (:func:`teamleduc.dag.max_dp_levels`, serial, then the argmax walk
:func:`teamleduc.dag.extract_pure`; the weights ``W`` are computed once, outside the timing),
and :data:`TIMED` exact measurements of the averages
(:meth:`~teamleduc.solver.dag_cfr.RegretMinimizer.measure`, what each ``avg`` line of
``solve`` costs).
Rounds alternate base and tree :data:`ROUNDS` times, so that a load that comes and goes hits
both.

Environment: ``TEAMLEDUC_BENCH_BASE`` (a git revision; default :data:`BASE`),
``TEAMLEDUC_BENCH_PRESETS`` (default ``team-leduc-2025,team-leduc``),
``TEAMLEDUC_BENCH_THREADS`` (default ``1,2``), ``TEAMLEDUC_BENCH_ROUNDS`` (default 2).
Reproduce: ``python -m benchmarks engine``.
"""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
import tarfile
import tempfile

from .settings import names, positive_ints, setting

#: the last commit before the engine rewrite of issue 33
BASE = "c4e06f8"
SETTLE = 3
TIMED = 7
ROOT = pathlib.Path(__file__).resolve().parent.parent

#: what a child runs: build, settle, time single iterations, print JSON
_CHILD = r"""
import json, sys, time
import numba
numba.set_num_threads(int(sys.argv[2]))
from teamleduc.config import get_config
from teamleduc.solver.dag_cfr import RegretMinimizer, dcfr
m = RegretMinimizer(get_config(sys.argv[1]), dcfr())
m.iterate(int(sys.argv[3]))
times, cpu = [], []
for _ in range(int(sys.argv[4])):
    t0, c0 = time.perf_counter(), time.process_time()
    m.iterate(1)
    times.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
from teamleduc.dag import extract_pure, max_dp_levels
d = m.game.dags[1]
W = m.game.weights(1, m.reach[0])
br = []
for _ in range(int(sys.argv[4])):
    t0 = time.perf_counter()
    _, choice = max_dp_levels(d, W)
    extract_pure(d, choice=choice)
    br.append(time.perf_counter() - t0)
measure = []
for _ in range(int(sys.argv[4])):
    t0 = time.perf_counter()
    m.measure()
    measure.append(time.perf_counter() - t0)
import teamleduc
print(json.dumps({"times": times, "cpu": cpu, "br": br, "measure": measure,
                  "file": teamleduc.__file__}))
"""


def export_revision(rev: str, into: pathlib.Path) -> pathlib.Path:
    """The package and nothing else of revision ``rev``, unpacked under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "teamleduc"],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        raise SystemExit(f"TEAMLEDUC_BENCH_BASE: git archive {rev!r} failed: {archive.stderr!r}")
    tar = into / "base.tar"
    tar.write_bytes(archive.stdout)
    with tarfile.open(tar) as t:
        t.extractall(into / "base", filter="data")
    return into / "base"


def run_child(where: pathlib.Path, script: str, args: list[str], **env: str) -> dict:
    """The JSON that ``script`` prints last, run with ``args`` in a child process that imports
    the package under ``where`` (checked: the child reports ``teamleduc.__file__`` as
    ``file``), with ``env`` added to the environment."""
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=where,
        env=dict(os.environ, PYTHONPATH=str(where), **env),
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"child for {where} failed:\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if not result["file"].startswith(str(where)):
        raise SystemExit(f"child imported {result['file']}, not the package under {where}")
    return result


def time_iterations(where: pathlib.Path, preset: str, threads: int) -> tuple[list, ...]:
    """Wall and CPU seconds of :data:`TIMED` single DCFR iterations of the package under
    ``where``, and wall seconds of as many exact best responses and exact measurements of
    the averages."""
    result = run_child(
        where,
        _CHILD,
        [preset, str(threads), str(SETTLE), str(TIMED)],
        NUMBA_NUM_THREADS=str(max(threads, 1)),
    )
    return result["times"], result["cpu"], result["br"], result["measure"]


def main() -> None:
    base = setting("TEAMLEDUC_BENCH_BASE", BASE, str)
    presets = setting("TEAMLEDUC_BENCH_PRESETS", "team-leduc-2025,team-leduc", names)
    threads = setting("TEAMLEDUC_BENCH_THREADS", "1,2", positive_ints)
    rounds = setting("TEAMLEDUC_BENCH_ROUNDS", "2", lambda r: positive_ints(r)[0])
    cores = os.cpu_count() or 1
    print(f"DCFR iteration, base {base} against this tree; median of {TIMED} after {SETTLE}")
    print(f"(both in the same run, alternating {rounds} rounds; {cores} cores here)")
    print()
    print(
        f"{'preset':<16} {'threads':>7} {'base it/s':>10} {'tree it/s':>10} {'ratio':>6}"
        f" {'base CPU s/it':>14} {'tree CPU s/it':>14} {'CPU ratio':>9}"
    )
    responses, measures = [], []
    with tempfile.TemporaryDirectory() as tmp:
        old = export_revision(base, pathlib.Path(tmp))
        for preset in presets:
            for n in threads:
                if n > cores:
                    continue
                a, b, ca, cb, bra, brb, ma, mb = [], [], [], [], [], [], [], []
                for _ in range(rounds):
                    wall, cpu, br, me = time_iterations(old, preset, n)
                    a, ca, bra, ma = a + wall, ca + cpu, bra + br, ma + me
                    wall, cpu, br, me = time_iterations(ROOT, preset, n)
                    b, cb, brb, mb = b + wall, cb + cpu, brb + br, mb + me
                ra, rb = 1 / statistics.median(a), 1 / statistics.median(b)
                xa, xb = statistics.median(ca), statistics.median(cb)
                print(
                    f"{preset:<16} {n:>7} {ra:>10.2f} {rb:>10.2f} {rb / ra:>5.2f}x"
                    f" {xa:>14.4f} {xb:>14.4f} {xa / xb:>8.2f}x"
                )
                responses.append((preset, n, statistics.median(bra), statistics.median(brb)))
                measures.append((preset, n, statistics.median(ma), statistics.median(mb)))
    print()
    print("exact team best response (team B against A's reach: max DP, serial, and argmax walk)")
    print(f"{'preset':<16} {'threads':>7} {'base s':>10} {'tree s':>10} {'ratio':>6}")
    for preset, n, sa, sb in responses:
        print(f"{preset:<16} {n:>7} {sa:>10.4f} {sb:>10.4f} {sa / sb:>5.2f}x")
    print()
    print("exact measurement of the averages (RegretMinimizer.measure: an `avg` line of solve)")
    print(f"{'preset':<16} {'threads':>7} {'base s':>10} {'tree s':>10} {'ratio':>6}")
    for preset, n, sa, sb in measures:
        print(f"{preset:<16} {n:>7} {sa:>10.4f} {sb:>10.4f} {sa / sb:>5.2f}x")


if __name__ == "__main__":
    main()
