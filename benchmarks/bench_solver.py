"""TMECor solver: exact gap against time for every algorithm (issue 6).

Each run is a fresh ``teamleduc solve --json`` process (so that its peak memory is its own);
the table shows, per run, the exact gap of the strategies inside the algorithm against time
(average strategies of a regret minimiser, restricted equilibrium of the double oracle), then
the exported submission's exact value bounds, gap, signals, peak memory and the ratio of the
exported gap to the issue's target.

Targets (2 cores): leduc NashConv <= 1e-4 within 2 s; team-leduc-2025 gap <= 1e-3 within 60 s;
team-leduc gap <= 1e-2 within 5 min and <= 1e-3 within 30 min; peak memory <= 12 GiB.

Environment: ``BENCH_SOLVER_FULL=1`` also runs every algorithm on team-leduc for 5 minutes and
dcfr for 30 minutes (about an hour in all); by default team-leduc runs dcfr for 5 minutes and
the double oracle for 2 minutes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

CFR = ["dcfr", "cfr+", "pcfr+"]
ALL = CFR + ["double-oracle"]


def _runs():
    full = os.environ.get("BENCH_SOLVER_FULL") == "1"
    runs = [("leduc", m, 2.0, 1e-4) for m in CFR]
    runs += [("team-leduc-2025", m, 60.0, 1e-3) for m in ALL]
    if full:
        runs += [("team-leduc", m, 300.0, 1e-2) for m in ALL]
        runs += [("team-leduc", "dcfr", 1800.0, 1e-3)]
    else:
        runs += [("team-leduc", "dcfr", 300.0, 1e-2), ("team-leduc", "double-oracle", 120.0, 1e-2)]
    return runs


def _solve(preset: str, method: str, seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as out:
        cmd = [
            sys.executable,
            "-m",
            "teamleduc",
            "solve",
            "--preset",
            preset,
            "--algorithm",
            method,
            "--time-limit",
            str(seconds),
            "--out",
            out,
            "--json",
            "--quiet",
        ]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {res.stderr.strip()}")
        return json.loads(res.stdout)


def _curve(history) -> str:
    inner = [h for h in history if h["what"] not in ("export", "refine")]
    if not inner:
        return "-"
    # about eight points, log-spaced in time
    picks, last_t = [], 0.0
    for h in inner:
        if h["seconds"] >= 1.6 * last_t or h is inner[-1]:
            picks.append(h)
            last_t = max(h["seconds"], 1e-3)
    return " ".join(f"{h['seconds']:.1f}s:{h['gap']:.1e}" for h in picks[-9:])


def main() -> None:
    print(
        "exact saddle-point gap (team-A chips per hand); curve = strategies inside the algorithm, "
        "export = the written submission"
    )
    for preset, method, seconds, target in _runs():
        r = _solve(preset, method, seconds)
        inner = [h for h in r["history"] if h["what"] not in ("export", "refine")]
        best_inner = min((h["gap"] for h in inner), default=float("nan"))
        print(
            f"{preset:>16} {method:>13} {seconds:6.0f} s: {r['iterations']} iterations, "
            f"value in [{r['value_lower']:+.6f}, {r['value_upper']:+.6f}], "
            f"export gap {r['gap']:.3e} with {r['signals']} signals, "
            f"best inner gap {best_inner:.3e}, peak {r['peak_memory_gib']:.2f} GiB, "
            f"target {target:g}: ratio {r['gap'] / target:.3g} (export), "
            f"{best_inner / target:.3g} (inner)",
            flush=True,
        )
        print(f"{'':>16} {'':>13}   curve {_curve(r['history'])}", flush=True)


if __name__ == "__main__":
    main()
