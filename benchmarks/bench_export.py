"""Export: exact gap of the written strategies against the number of signals (issue 6).

One DCFR run on team-leduc-2025 (``BENCH_EXPORT_SECONDS``, default 60 s), then both teams'
averages are exported as K stratified signals (:mod:`teamleduc.solver.stratify`) for several K,
and every export is measured exactly (each team's mixture against the other team's exact best
response on its whole belief DAG). For comparison: the averages themselves (not a submission:
a mixture of far more than 100 pure strategies) and one signal of the members' marginals (what
"averaging the marginals" would export). Prints the gap, the ratio to the averages' gap and
the seconds per export.
"""

from __future__ import annotations

import os
import time

from teamleduc.config import get_config
from teamleduc.solver.dag_cfr import VARIANTS, RegretMinimizer
from teamleduc.solver.export import guaranteed_value
from teamleduc.solver.stratify import stratified_mixture

PRESET = "team-leduc-2025"
SIGNALS = (1, 8, 25, 50, 100)


def main() -> None:
    seconds = float(os.environ.get("BENCH_EXPORT_SECONDS", "60"))
    rm = RegretMinimizer(get_config(PRESET), VARIANTS["dcfr"])  # the solver's dcfr
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        rm.iterate(1)
    avg = rm.measure()
    print(
        f"{PRESET}: dcfr {rm.t} iterations in {seconds:.0f} s, averages' exact gap "
        f"{avg.gap:.3e} (value in [{avg.lower:+.5f}, {avg.upper:+.5f}])"
    )
    sig = [rm.average_sigma(k) for k in (0, 1)]
    for K in SIGNALS:
        t = time.perf_counter()
        mixtures = [stratified_mixture(rm.game, k, sig[k], K) for k in (0, 1)]
        built = time.perf_counter() - t
        lower, upper = (guaranteed_value(rm.game, m) for m in mixtures)
        what = "marginals" if K == 1 else "stratified"
        print(
            f"  {K:4d} signals ({what:>10}): bounds [{lower:+.5f}, {upper:+.5f}], exact gap "
            f"{upper - lower:.4f} = {(upper - lower) / avg.gap:7.1f} x the averages'; "
            f"built in {built:.2f} s, measured in {time.perf_counter() - t - built:.2f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
