"""rlcard-leduc against the originals, 200,000 hands per pair (optional extras: `pip install -e
'.[crosscheck]'`).

For each pair of :data:`teamleduc.studies.rlcard_crosscheck.PAIRS` (uniform, RLCard's rule agents
V1 and V2 as RLCard's own objects, seeded random pure policies, on both seats), the mean payoff of
seat 1 over hands played in RLCard's own `rlcard.make('leduc-holdem')` env and in PettingZoo's
`leduc_holdem_v4` (their dealing, blinds, turn order and judger; every step's legal actions checked
against our information set) beside our exact value, in big blinds, and the distance in standard
errors. `BENCH_RLCARD_HANDS` / `BENCH_PETTINGZOO_HANDS` set the hands per pair (default 200,000
each; PettingZoo's wrapper is several times slower per hand than RLCard's env). Skipped when
rlcard is not installed.
"""

import time
import warnings

from benchmarks.settings import setting


def _count(raw: str) -> int:
    n = int(raw)
    if n < 2:
        raise ValueError
    return n


def main() -> None:
    try:
        import rlcard  # noqa: F401
    except ImportError:
        print("rlcard is not installed: skipped (pip install -e '.[crosscheck]')")
        return
    from teamleduc.studies.rlcard_crosscheck import PAIRS, compare

    counts = {
        "rlcard": setting("BENCH_RLCARD_HANDS", "200000", _count),
        "pettingzoo": setting("BENCH_PETTINGZOO_HANDS", "200000", _count),
    }
    worst = 0.0
    for env, hands in counts.items():
        for k, pair in enumerate(PAIRS):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = compare(env, pair, hands, seed=1000 + k)
            worst = max(worst, abs(r.z))
            print(f"{r}  ({time.perf_counter() - t0:.1f} s)", flush=True)
    print(f"largest distance: {worst:.2f} standard errors (bound 4)")


if __name__ == "__main__":
    main()
