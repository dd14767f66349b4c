"""Grading a whole class: time and peak memory against the number of entrants.

For n = 10, 100 and 1,000 entrants on team-leduc (random-pure baselines plus a few 100-signal
random mixtures written as CSV submissions), runs ``teamleduc grade --no-worst-case --jobs J``
in a fresh process with a fresh cache and prints its wall time and the peak resident memory of
its whole process tree (the main process and its loading workers, sampled every 50 ms; pages
shared after the fork are counted in every process, so the sum is an upper bound). Then it
grades again with 10 new entrants added: only their arrays and pairs are computed.

Targets: peak <= 4 GiB at 1,000 entrants; the re-grade a small fraction of the full run.

``TEAMLEDUC_BENCH_GRADE_SIZES`` chooses the sizes (default ``10,100,1000``), ``TEAMLEDUC_BENCH_DIR``
the scratch folder (default: a temporary one). The cache leaves out all-zero blocks, so a
random-pure entrant takes about 7 MB, but a dense one (a mixture, a solver's export) up to
36 MB: a size whose cache might not fit, counted at 36 MB per entrant, is skipped.

``TEAMLEDUC_BENCH_GRADE_PRODUCTS=N`` also times the pair products alone for N dense entrants
(the uniform strategy, which keeps every block) whose cache entries share one array file (hard
links: 36 MB of disk, so the disk reads are not measured, the page cache serves them), with
the peak memory of that process; then for 10 more such entrants (their pairs only): a class
of dense entrants, where leaving out zero blocks saves nothing.

``TEAMLEDUC_BENCH_GRADE_DENSE=N`` grades a class of N dense submissions in full, as above:
1-signal CSV submissions whose every legal action has a positive probability (random
behavioural strategies, what a student's CFR average looks like), each with its own arrays
(entrant k swaps two probabilities on line k of one file; the other files are hard links, so
the class takes 7 MB of disk per entrant and the cache 36 MB), then again with 10 more.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

PRESET = "team-leduc"
MIXTURE_SIGNALS = 100
NEW_ENTRANTS = 10
BYTES_PER_ENTRANT = 2 * 8 * 250_915 * 9  # T_A and W_B, float64


def _tree_rss(root: int) -> tuple[int, int]:
    """(sum, largest) resident bytes of ``root`` and its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    page = os.sysconf("SC_PAGE_SIZE")
    total = largest = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/statm") as f:
                rss = int(f.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue
        total += rss
        largest = max(largest, rss)
    return total, largest


def _run(cmd: list[str]) -> tuple[float, int, int, str]:
    """Run ``cmd``; (seconds, peak tree RSS, peak single-process RSS, stderr)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = [0, 0]

    def sample() -> None:
        while proc.poll() is None:
            total, largest = _tree_rss(proc.pid)
            peak[0], peak[1] = max(peak[0], total), max(peak[1], largest)
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err = proc.stderr.read()
    proc.wait()
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}): {err[-2000:]}")
    return time.perf_counter() - t0, peak[0], peak[1], err


def _mixture(path: Path, seed: int) -> Path:
    """A 100-signal submission: random pure strategies with random weights, as CSV files."""
    from teamleduc.baselines import baseline_strategy
    from teamleduc.config import get_config
    from teamleduc.files.model import Submission
    from teamleduc.files.writing import write_submission
    from teamleduc.tree import build_tree

    config = get_config(PRESET)
    tree = build_tree(config)
    rng = np.random.default_rng(seed)
    seeds = [10_000 * (seed + 1) + k for k in range(MIXTURE_SIGNALS)]
    strategies = {
        s: np.stack([baseline_strategy(f"random-pure:{k}", tree, s) for k in seeds])
        for s in range(config.num_seats)
    }
    sub = Submission(
        np.arange(MIXTURE_SIGNALS),
        rng.dirichlet(np.ones(MIXTURE_SIGNALS)),
        tuple(strategies),
        strategies,
    )
    return write_submission(sub, path)


def _dense_submission(path: Path) -> Path:
    """A 1-signal CSV submission, every legal action with a probability of at least 1e-3."""
    from teamleduc.config import get_config
    from teamleduc.files.model import Submission
    from teamleduc.files.writing import write_submission
    from teamleduc.infosets import infoset_tables
    from teamleduc.tree import build_tree

    config = get_config(PRESET)
    tables = infoset_tables(build_tree(config))
    rng = np.random.default_rng(0)
    strategies = {}
    for seat in range(config.num_seats):
        legal = tables[seat].legal
        x = (rng.random(legal.shape) + 1e-3) * legal
        strategies[seat] = (x / x.sum(axis=1, keepdims=True))[None]
    sub = Submission(np.arange(1), np.ones(1), tuple(strategies), strategies)
    return write_submission(sub, path)


def _dense_entrants(base: Path, folder: Path, first: int, stop: int) -> None:
    """Entrants ``first .. stop - 1`` of a dense class in ``folder``: entrant k is ``base``
    with the first two probabilities of the k-th line having both positive swapped in
    ``strategy0-player1.csv`` (its own arrays), the other files hard-linked."""
    name = "strategy0-player1.csv"
    lines = (base / name).read_bytes().split(b"\n")
    eligible = [
        j
        for j, line in enumerate(lines)
        if line and all(float(x) > 0 for x in line.split(b",")[:2])
    ]
    for k in range(first, stop):
        entrant = folder / f"entrant-{k:04d}"
        entrant.mkdir(parents=True)
        for f in base.iterdir():
            if f.name != name:
                os.link(f, entrant / f.name)
        changed = list(lines)
        j = eligible[k]
        a, b, rest = lines[j].split(b",", 2)
        changed[j] = b",".join((b, a, rest))
        (entrant / name).write_bytes(b"\n".join(changed))


def _dense_class(n: int, root: Path, tl: list[str], jobs: int) -> None:
    """The full grading of ``n`` dense entrants, then of 10 more (see the docstring)."""
    need = (n + NEW_ENTRANTS) * (BYTES_PER_ENTRANT + 7e6) * 1.05
    free = shutil.disk_usage(root).free
    if free < need:
        print(
            f"  dense class of {n}: skipped, it needs {need / 1e9:.0f} GB, {free / 1e9:.0f} GB free"
        )
        return
    t0 = time.perf_counter()
    base = _dense_submission(root / "dense-base")
    folder = root / "dense-class"
    _dense_entrants(base, folder, 0, n)
    print(f"  (wrote a dense class of {n} in {time.perf_counter() - t0:.0f} s)", flush=True)
    cache, out = root / "dense-cache", root / "dense-grading"
    cmd = tl + ["grade", str(folder), "--preset", PRESET, "--no-worst-case", "--jobs", str(jobs)]
    cmd += ["--memory", "2G", "--no-heatmap", "--cache", str(cache), "--out", str(out)]
    seconds, peak, largest, err = _run(cmd)
    size = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file())
    print(
        f"  dense class, n = {n} (1-signal CSV, every legal action positive): {seconds:7.1f} s, "
        f"peak {_gib(peak)} (process tree), {_gib(largest)} (largest process); cache "
        f"{size / 1e9:.1f} GB",
        flush=True,
    )
    _dense_entrants(base, folder, n, n + NEW_ENTRANTS)
    again, peak2, _, err2 = _run(cmd + ["--overwrite"])
    print(
        f"    + {NEW_ENTRANTS} new entrants, same cache: {again:7.1f} s "
        f"({again / seconds:.0%} of the full run), peak {_gib(peak2)}; {_work(err2)}",
        flush=True,
    )
    shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)


def _gib(x: int) -> str:
    return f"{x / 2**30:5.2f} GiB"


def _work(err: str) -> str:
    m = re.search(r"computed [^\n;]*", err)
    return m.group(0) if m else ""


def _kernel_speed(threads: int) -> tuple[float, float, bool]:
    """Billions of pair products per second: the grader's fixed-order kernel on ``threads``
    threads (1,000 x 1,000 pairs, 4 blocks), and a BLAS product (its own order) for scale;
    and whether BLAS gives the same bytes for the first 5 x 7 pairs computed alone as within
    the whole product (an incremental re-grade computes its pairs in other shapes)."""
    import numba

    from teamleduc.grade.cache import BLOCK
    from teamleduc.grade.kernel import Scratch, add_block, padded_rows

    rng = np.random.default_rng(0)
    a, b = rng.random((1000, 4 * BLOCK)), rng.random((1000, 4 * BLOCK))
    total = np.zeros((padded_rows(1000), 1000))
    numba.set_num_threads(threads)
    scratch = Scratch()
    add_block(a, b, 0, BLOCK, total, scratch=scratch)  # compiled or loaded, buffers made
    t0 = time.perf_counter()
    for k in range(4):
        add_block(a, b, k * BLOCK, (k + 1) * BLOCK, total, scratch=scratch)
    kernel = a.size * 1000 / (time.perf_counter() - t0) / 1e9
    t0 = time.perf_counter()
    full = a @ b.T
    blas = a.size * 1000 / (time.perf_counter() - t0) / 1e9
    return kernel, blas, bool(np.array_equal(full[:5, :7], a[:5] @ b[:7].T))


_PRODUCTS = """
import hashlib, os, sys, time
from dataclasses import replace
from pathlib import Path
from teamleduc.config import get_config
from teamleduc.grade.cache import GradeCache
from teamleduc.grade.loading import prepare
from teamleduc.grade.memory import DEFAULT_MEMORY, resident_bytes
from teamleduc.grade.products import pair_matrix
n, root = int(sys.argv[1]), Path(sys.argv[2])
config = get_config("team-leduc")
L = 250_915 * 9
_, first, _, _ = prepare((0, "uniform", config, False, str(root), L))
assert len(first.blocks_a) == len(first.blocks_b) == -(-L // 4096)  # dense
store = GradeCache(root, config)
records = {first.key: first}
for k in range(1, n + 10):
    key = hashlib.sha256(f"synthetic {k}".encode()).hexdigest()
    for which in ("a", "b"):
        os.link(store.path(first.key, which), store.path(key, which))
    records[key] = store.store(replace(first, key=key))
keys = list(records)
import numba
numba.set_num_threads(os.cpu_count() or 1)
budget = max(64 << 20, DEFAULT_MEMORY - resident_bytes())
for count in (n, n + 10):
    work = dict(entrants_loaded=0, pairs_computed=0, pairs_cached=0, blocks_resumed=0)
    t0 = time.perf_counter()
    values = pair_matrix(store, keys[:count], records, L, budget, None, False, work)
    assert (values == values[0, 0]).all()
    print(time.perf_counter() - t0, work["pairs_computed"])
"""


def _products_only(n: int, root: Path) -> None:
    """The pair products of ``n`` entrants sharing one array file (see the docstring)."""
    cache = root / f"products-{n}"
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", _PRODUCTS, str(n), str(cache)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid)[0])
        time.sleep(0.05)
    out, err = proc.communicate()
    shutil.rmtree(cache, ignore_errors=True)
    if proc.returncode != 0:
        raise RuntimeError(err[-2000:])
    seconds, pairs, seconds2, pairs2 = out.split()
    print(
        f"  pair products alone, {n} dense entrants ({int(pairs):,} pairs, arrays hard-linked): "
        f"{float(seconds):.0f} s, peak {_gib(peak)} ({time.perf_counter() - t0:.0f} s with set-up); "
        f"+ 10 more: {float(seconds2):.1f} s ({int(pairs2):,} pairs)",
        flush=True,
    )


def main() -> None:
    sizes = [
        int(s)
        for s in os.environ.get("TEAMLEDUC_BENCH_GRADE_SIZES", "10,100,1000").split(",")
        if s.strip()
    ]
    jobs = os.cpu_count() or 1
    exe = Path(sys.executable).with_name("teamleduc")
    tl = [str(exe)] if exe.exists() else [sys.executable, "-m", "teamleduc"]
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"preset {PRESET}, --jobs {jobs}, --memory 2G; load average {load:.1f} on {jobs} CPU(s)")
    kernel, blas, blas_stable = _kernel_speed(jobs)
    print(
        f"  pair kernel (fixed order, {jobs} threads): {kernel:.1f} billion products/s; BLAS "
        f"(its own order): {blas:.1f}, same bytes for a pair in a 5 x 7 product as in the "
        f"1,000 x 1,000 one: {'yes' if blas_stable else 'no'}; 1,000 entrants' products would "
        f"take about {1000**2 * 250_915 * 9 / kernel / 1e9:.0f} s",
        flush=True,
    )
    scratch = os.environ.get("TEAMLEDUC_BENCH_DIR")
    if scratch:
        Path(scratch).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="teamleduc-bench-grade-", dir=scratch) as tmp:
        root = Path(tmp)
        mixtures: list[Path] = []
        for n in sizes:
            n_mix = 1 if n < 100 else 2 if n < 1000 else 3
            need = (n + NEW_ENTRANTS) * BYTES_PER_ENTRANT * 1.1
            free = shutil.disk_usage(root).free
            if free < need + 3 * MIXTURE_SIGNALS * 7e6:
                print(
                    f"  n = {n}: skipped, its cache needs {need / 1e9:.0f} GB, {free / 1e9:.0f} GB free"
                )
                continue
            t0 = time.perf_counter()
            while len(mixtures) < n_mix:
                mixtures.append(_mixture(root / f"mixture{len(mixtures)}", len(mixtures)))
            if time.perf_counter() - t0 > 1:
                print(
                    f"  (wrote {len(mixtures)} {MIXTURE_SIGNALS}-signal submission(s) in {time.perf_counter() - t0:.0f} s)"
                )
            pure = ",".join(f"random-pure:{k}" for k in range(n - n_mix))
            out, cache = root / f"grading-{n}", root / f"cache-{n}"
            base = tl + [
                "grade",
                *map(str, mixtures[:n_mix]),
                "--preset",
                PRESET,
                "--no-worst-case",
            ]
            base += ["--jobs", str(jobs), "--memory", "2G", "--no-heatmap", "--cache", str(cache)]
            seconds, peak, largest, err = _run(base + ["--baselines", pure, "--out", str(out)])
            print(
                f"  n = {n:>5} ({n_mix} x {MIXTURE_SIGNALS} signals): {seconds:7.1f} s, peak "
                f"{_gib(peak)} (process tree), {_gib(largest)} (largest process); cache "
                f"{sum(f.stat().st_size for f in cache.rglob('*') if f.is_file()) / 1e9:.1f} GB",
                flush=True,
            )
            late = ",".join(f"random-pure:{k}" for k in range(10**6, 10**6 + NEW_ENTRANTS))
            again, peak2, _, err2 = _run(
                base + ["--baselines", f"{pure},{late}", "--out", str(out) + "-late"]
            )
            print(
                f"    + {NEW_ENTRANTS} new entrants, same cache: {again:7.1f} s "
                f"({again / seconds:.0%} of the full run), peak {_gib(peak2)}; {_work(err2)}",
                flush=True,
            )
            shutil.rmtree(cache, ignore_errors=True)
        products = os.environ.get("TEAMLEDUC_BENCH_GRADE_PRODUCTS")
        if products:
            _products_only(int(products), root)
        dense = os.environ.get("TEAMLEDUC_BENCH_GRADE_DENSE")
        if dense:
            _dense_class(int(dense), root, tl, jobs)


if __name__ == "__main__":
    main()
