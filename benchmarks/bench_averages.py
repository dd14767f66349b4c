"""Averages alone: DCFR's exact average gap against seconds of solving (issue 6).

Why: the solver's time goes to solving, exporting, refining and writing; this curve shows
what the regret minimiser alone reaches in the targets' time (team-leduc-2025 60 s,
team-leduc 290 s of the 5 minutes), so that the export's share of the gap is visible.
Measurements (exact best responses on both DAGs) are not counted in the seconds.
``BENCH_AVERAGES`` = comma-separated ``preset:seconds`` pairs (default
``team-leduc-2025:60,team-leduc:290``; team-leduc needs about 6 minutes and 3.5 GiB).
"""

from __future__ import annotations

import os
import time

from teamleduc.config import get_config
from teamleduc.solver.dag_cfr import VARIANTS, RegretMinimizer

DEFAULT = "team-leduc-2025:60,team-leduc:290"


def curve(preset: str, seconds: float) -> None:
    t0 = time.perf_counter()
    rm = RegretMinimizer(get_config(preset), VARIANTS["dcfr"])  # the solver's dcfr
    print(f"{preset}: dcfr, both DAGs built in {time.perf_counter() - t0:.2f} s", flush=True)
    solving, next_measure = 0.0, 1
    while solving < seconds:
        t = time.perf_counter()
        rm.iterate(1)
        solving += time.perf_counter() - t
        if rm.t >= next_measure or solving >= seconds:
            m = rm.measure()
            print(
                f"  {rm.t:6d} iterations {solving:8.2f} s solving   gap {m.gap:.3e}   "
                f"value in [{m.lower:+.6f}, {m.upper:+.6f}]",
                flush=True,
            )
            next_measure = int(next_measure * 1.5) + 1


def main() -> None:
    runs = []
    for item in os.environ.get("BENCH_AVERAGES", DEFAULT).split(","):
        preset, _, seconds = item.partition(":")
        try:
            runs.append((preset.strip(), float(seconds)))
        except ValueError:
            raise SystemExit(f"BENCH_AVERAGES: {item!r} is not preset:seconds") from None
    for preset, seconds in runs:
        curve(preset, seconds)
