"""Where the regret pass's time goes: the leaves, the sums at other nodes, the team nodes.

Why: issue 33 asks for DCFR iterations 2.5 times faster and, where a target is not reached,
for the roofline to say why with numbers. ``bench_roofline`` shows that the regret pass
(``cfr_update``, about two thirds of an iteration) runs 4-6 times above the floor set by the
machine's memory bandwidth, so bandwidth is not what bounds it. This benchmark shows what does:
it splits the pass into its three kinds of work and gives the team nodes' cost per row.

What: per preset, :data:`SETTLE` DCFR iterations
(:class:`teamleduc.solver.dag_cfr.RegretMinimizer`), then team A's regret pass from that state,
timed with the parallel kernel ``_cfr_par`` and with two variants compiled from the source of
:mod:`teamleduc.dag.kernels` with one change each (written once into a cache folder in the
system's temporary folder, so numba compiles each once):

* ``no team nodes``: a team node only marks itself live; no gathers of the children's values,
  no regret update, no regret matching;
* ``no team nodes, no leaves``: the terminals skip their values too.

So ``team nodes`` = full - no team nodes, ``leaves`` = no team nodes - no leaves, and ``sums and
loops`` = the second variant (the chance and other-team nodes' sums of their children, and the
level loops themselves). The regrets and strategies are put back before every run, so each
run starts from the same state; best of ``REPEATS`` runs, the three alternating.

Also printed: the team rows (one per prescription of a team node and belief), how many rows a
(team node, belief) has, the team nodes' nanoseconds per row, and the floor of their own row
traffic: regrets and strategies read and written, 16 bytes per row, at the bandwidth of a
STREAM triad measured in the same run (:func:`.bench_roofline.triad_gbs`).

Environment: ``TEAMLEDUC_BENCH_PRESETS`` (default ``team-leduc-2025,team-leduc``),
``TEAMLEDUC_BENCH_THREADS`` (default ``1,2``), ``TEAMLEDUC_BENCH_REPEATS`` (default 7),
``TEAMLEDUC_BENCH_TRIAD_MIB`` (MiB per triad array, default 256, as ``bench_roofline``).
Reproduce: ``python -m benchmarks regret_parts``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from teamleduc.config import get_config
from teamleduc.dag import kernels, passes
from teamleduc.dag.structure import passes_in_parallel
from teamleduc.solver.dag_cfr import RegretMinimizer, dcfr

from .bench_roofline import _rows_per_belief, triad_gbs, triad_mib
from .settings import pool_threads, positive_ints, preset_names, setting

#: DCFR iterations before the timed passes (signed regrets, sparse strategies)
SETTLE = 20

_TEAM_NODE = """                if member[h] < 0:
                    _sum_children(h, child_all, V, B, nonzero)
                else:
"""
_NO_TEAM_NODE = """                if member[h] < 0:
                    _sum_children(h, child_all, V, B, nonzero)
                elif True:
                    nonzero[h] = True  # the variant: no work at a team node
                else:
"""
_LEAF = """        h = terminals[z]
        nonzero[h] = _leaf("""
_NO_LEAF = """        h = terminals[z]
        if True:
            nonzero[h] = True  # the variant: no leaf values
            continue
        nonzero[h] = _leaf("""

#: variant name -> the changes made to ``_cfr_par``'s source
VARIANTS = {
    "no team nodes": [(_TEAM_NODE, _NO_TEAM_NODE)],
    "no team nodes, no leaves": [(_TEAM_NODE, _NO_TEAM_NODE), (_LEAF, _NO_LEAF)],
}


def variant_source(changes) -> str:
    """:mod:`teamleduc.dag.kernels`'s source with ``changes`` made inside ``_cfr_par`` only
    (each must occur there exactly once: a SystemExit names the one that no longer does)."""
    source = Path(kernels.__file__).read_text()
    start = source.index("\ndef _cfr_par(")
    end = source.index("\n@njit", start)
    body = source[start:end]
    for old, new in changes:
        if body.count(old) != 1:
            first = old.strip().splitlines()[-1].strip()
            raise SystemExit(
                f"bench_regret_parts: _cfr_par in {kernels.__file__} no longer has the "
                f"statement {first!r} once; update this benchmark's variants"
            )
        body = body.replace(old, new)
    return source[:start] + body + source[end:]


def load_variant(name: str):
    """The ``_cfr_par`` of variant ``name``, from a module file written once per source (its
    name carries the source's hash, so numba's cache of it stays valid between runs)."""
    text = variant_source(VARIANTS[name])
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / "teamleduc-bench-regret-parts"
    folder.mkdir(exist_ok=True)
    path = folder / f"cfr_par_{digest}.py"
    if not path.exists():  # written whole under a name of its own, then renamed
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    module_name = f"_bench_regret_parts_{digest}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return module._cfr_par


@contextlib.contextmanager
def regret_kernel(kernel):
    """:func:`teamleduc.dag.passes.cfr_update` runs ``kernel`` as its parallel pass."""
    saved = passes._cfr_par
    passes._cfr_par = kernel
    try:
        yield
    finally:
        passes._cfr_par = saved


class RegretPass:
    """Team A's regret pass from a fixed state, run again and again (the level-parallel
    kernel, also on presets small enough for the serial one)."""

    def __init__(self, preset: str):
        self.rm = RegretMinimizer(get_config(preset), dcfr())
        self.rm.iterate(SETTLE)
        self.saved = (self.rm.reg[0].copy(), self.rm.sigma[0].copy())
        self.factors = dcfr().factors(SETTLE + 1)

    @property
    def dag(self):
        return self.rm.game.dags[0]

    def run(self, kernel) -> float:
        """Seconds of one regret pass with ``kernel``, from the saved state."""
        rm = self.rm
        rm.reg[0][...], rm.sigma[0][...] = self.saved
        pos_f, neg_f = self.factors
        # the level-parallel pass whatever the size (small presets run the serial one)
        with regret_kernel(kernel), passes_in_parallel(True):
            t0 = time.perf_counter()
            passes.cfr_update(
                rm.game, 0, rm.reach[1], rm.V[0], rm.reg[0], rm.sigma[0], rm.last[0],
                pos_f, neg_f, False,
            )  # fmt: skip
            return time.perf_counter() - t0


def parts(regret: RegretPass, kernels_: dict, repeats: int) -> dict:
    """Best seconds of each kernel over ``repeats`` alternating runs, and the parts."""
    best = {name: np.inf for name in kernels_}
    for _ in range(repeats):
        for name, kernel in kernels_.items():
            best[name] = min(best[name], regret.run(kernel))
    full = best["full"]
    no_team = best["no team nodes"]
    bare = best["no team nodes, no leaves"]
    return {
        "full pass": full,
        "team nodes": full - no_team,
        "leaves": no_team - bare,
        "sums and loops": bare,
    }


def main() -> None:
    presets = preset_names("TEAMLEDUC_BENCH_PRESETS", "team-leduc-2025,team-leduc")
    threads = pool_threads("TEAMLEDUC_BENCH_THREADS", "1,2")
    repeats = setting("TEAMLEDUC_BENCH_REPEATS", "7", lambda r: positive_ints(r)[0])
    triad_n = triad_mib() * 2**20 // 8
    kernels_ = {"full": kernels._cfr_par} | {name: load_variant(name) for name in VARIANTS}
    print(f"team A's regret pass after {SETTLE} DCFR iterations, best of {repeats}\n")
    for preset in presets:
        t0 = time.perf_counter()
        regret = RegretPass(preset)
        for kernel in kernels_.values():
            regret.run(kernel)  # numba loads (or compiles, once) each kernel: not timed
        dag = regret.dag
        counts = _rows_per_belief(dag)
        rows = dag.num_rows
        print(
            f"{preset}: {rows:,} team rows in {counts.shape[0]:,} team nodes x "
            f"{dag.num_beliefs} beliefs; rows per (team node, belief): mean "
            f"{counts.mean():.2f}, {np.mean(counts <= 4):.0%} of them at most 4 "
            f"(set up and kernels loaded in {time.perf_counter() - t0:.1f} s)"
        )
        print(
            "  threads  full pass  team nodes     leaves  sums+loops  ns/team row  "
            "triad GB/s  row floor  team nodes/floor"
        )
        for n in threads:
            numba.set_num_threads(n)
            p = parts(regret, kernels_, repeats)
            gbs = triad_gbs(triad_n, 3)[0]
            floor = 16 * rows / (gbs * 1e9)
            print(
                f"  {n:7d} {p['full pass']:10.4f} {p['team nodes']:11.4f} {p['leaves']:10.4f} "
                f"{p['sums and loops']:11.4f} {1e9 * p['team nodes'] / rows:12.1f} "
                f"{gbs:11.1f} {floor:10.4f} {p['team nodes'] / floor:16.1f}x",
                flush=True,
            )
        print()


if __name__ == "__main__":
    main()
