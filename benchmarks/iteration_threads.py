"""Best time of one DCFR iteration per thread count, in one process (no figures section).

``python -m benchmarks.iteration_threads PRESET [REPEATS]``: builds PRESET's DCFR state as
:mod:`benchmarks.bench_roofline` does, settles it for 5 iterations, then for 16, 8 and 2
threads (those numba's pool holds), each from that same state, prints the best of REPEATS
(default 6) iterations.
``benchmarks/threads_table.sh`` runs it under several ``GOMP_SPINCOUNT`` settings, which
OpenMP reads when the process starts: how long a parallel region's threads spin before they
sleep.
"""

import os
import sys
import time

import numba

from teamleduc.config import get_config
from teamleduc.dag import dag_game

from .bench_roofline import DcfrState


def main(argv: list[str]) -> None:
    if not 1 <= len(argv) <= 2:
        raise SystemExit("usage: python -m benchmarks.iteration_threads PRESET [REPEATS]")
    preset, repeats = argv[0], int(argv[1]) if len(argv) > 1 else 6
    state = DcfrState.start(dag_game(get_config(preset)))
    for _ in range(5):
        state.iterate()
    saved = state.snapshot()
    out = []
    for n in (16, 8, 2):
        if n > numba.config.NUMBA_NUM_THREADS:
            continue
        state.restore(saved)  # each count from the same state (an iteration changes it)
        numba.set_num_threads(n)
        state.iterate()
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            state.iterate()
            best = min(best, time.perf_counter() - t0)
        out.append(f"{n} threads {best:.4f} s")
    spin = os.environ.get("GOMP_SPINCOUNT", "unset")
    print(f"{preset}: {numba.threading_layer()}, GOMP_SPINCOUNT {spin}: {'; '.join(out)}")


if __name__ == "__main__":
    main(sys.argv[1:])
