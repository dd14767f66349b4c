"""The pokercamp studies (issue 19): seconds for ``study p2-advantage`` (exact LPs of kuhn,
kuhn-100, leduc, leduc-stack50, each measured by exact NashConv), for ``study abstraction``
(kuhn-100, 10 buckets, uniform and optimised), and for the leduc-stack50 tree and the cfr:N
baselines of the page's tournament.

``BENCH_STUDIES_CFR`` (default ``10,100,1000``): the cfr:N iteration counts timed.
"""

import tempfile
import time


def main() -> None:
    from teamleduc.config import get_config
    from teamleduc.solver.cfr_baseline import solver_average  # the cached one
    from teamleduc.studies.abstraction import abstraction_study
    from teamleduc.studies.abstraction import write_outputs as write_abstraction
    from teamleduc.studies.p2_advantage import DEFAULT_PRESETS, p2_advantage, write_outputs
    from teamleduc.tree import build_tree

    from .settings import positive_ints, setting

    cfr_iterations = setting("BENCH_STUDIES_CFR", "10,100,1000", positive_ints)

    build_tree.cache_clear()
    t0 = time.perf_counter()
    build_tree(get_config("leduc-stack50"))
    print(f"leduc-stack50 tree: {time.perf_counter() - t0:.3f} s")

    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        result = p2_advantage(DEFAULT_PRESETS)
        write_outputs(result, d)
        print(f"study p2-advantage (lp): {time.perf_counter() - t0:.2f} s")
        for r in result.rows:
            print(f"  {r.preset:>14}: {r.seconds:.2f} s, NashConv {r.nash_conv:.1e}")
        t0 = time.perf_counter()
        result = abstraction_study(get_config("kuhn-100"), 10)
        write_abstraction(result, d)
        evaluations = result.rows[-1].evaluations
        print(
            f"study abstraction (kuhn-100, 10 buckets): {time.perf_counter() - t0:.2f} s, "
            f"{evaluations} bucketings measured"
        )
    for preset in ("kuhn-100", "leduc-stack50"):
        for n in cfr_iterations:
            solver_average.cache_clear()
            t0 = time.perf_counter()
            solver_average(get_config(preset), n)
            print(f"cfr:{n} on {preset}: {time.perf_counter() - t0:.2f} s")
