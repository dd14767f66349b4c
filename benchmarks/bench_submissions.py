"""Submissions: time to load and to validate a full team-leduc submission of 1 and 20 signals,
and the 20-signal load side by side with an earlier revision and on one thread.

Target (issue 3): loading 4 seats of one signal under 1 s on the 2-core machine, and time
linear in the number of signals. The strategies are random over the legal actions (17-digit
decimals, the worst case for parsing); the 20 signals are made by shuffling the lines of one
formatted file among information sets with the same legal actions, so each file is a
different valid strategy and generating them costs little. CPU seconds are the process's, all
threads together (strategy files are parsed on up to
:data:`teamleduc.files.threads.MAX_THREADS` threads).

The comparison loads the 20-signal folder in child processes, alternating
:data:`ROUNDS` times: the package of ``TEAMLEDUC_BENCH_SUBMISSIONS_BASE`` (a git revision,
default :data:`BASE`, the last one that parsed one file after the other), this tree, and this
tree on one parsing thread (``teamleduc.files.threads.THREADS = 1``); best wall time of each. Then the writing
of that submission (``write_submission`` into a fresh folder, best of 2 in each child), by
``TEAMLEDUC_BENCH_WRITE_BASE`` (default :data:`WRITE_BASE`, the last one that formatted floats
with ``repr``) and by this tree, alternating; their files must be identical. Its strategies
are the worst case for writing: every row of a file distinct (the solver's files repeat most
rows: about 6,600 distinct rows of 147,660 in a 300 s team-leduc solve's).
``TEAMLEDUC_BENCH_WRITE_FOLDER=DIR`` also times the writing of the team-leduc submission in
``DIR`` (e.g. ``out/solution/submission`` after ``make run``) the same way.
Reproduce: ``python -m benchmarks submissions``.
"""

import os
import tempfile
import time
from pathlib import Path

import numpy as np

from .bench_engine import ROOT, export_revision, run_child
from .settings import setting

#: the last revision that parsed a submission's files one after the other
BASE = "14a02f2"
#: the last revision that formatted a submission's floats with ``repr``
WRITE_BASE = "260465a"
ROUNDS = 2

#: what a child runs: load the folder once, print the wall seconds and the package's path
_CHILD = r"""
import json, sys, time
if sys.argv[2] == "1":  # this tree only
    import teamleduc.files.threads as file_threads
    file_threads.THREADS = 1
from teamleduc.files.reading import load_submission
import pandas
t0 = time.perf_counter()
load_submission(sys.argv[1], "team-leduc")
import teamleduc
print(json.dumps({"seconds": time.perf_counter() - t0, "file": teamleduc.__file__}))
"""

#: what a child runs to time the writing: load the folder, write it twice into a fresh folder
#: under argv[2]/argv[3] (keeping the last one), print the best wall seconds
_CHILD_WRITE = r"""
import json, shutil, sys, time
from pathlib import Path
from teamleduc.files.reading import load_submission
from teamleduc.files.writing import write_submission
sub = load_submission(sys.argv[1], "team-leduc")
out = Path(sys.argv[2]) / sys.argv[3]
best = float("inf")
for _ in range(2):
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    write_submission(sub, out)
    best = min(best, time.perf_counter() - t0)
import teamleduc
print(json.dumps({"seconds": best, "file": teamleduc.__file__}))
"""


def _seat_lines(table, rng) -> tuple[list[bytes], list[np.ndarray]]:
    """Formatted lines of one random strategy, and the groups of rows with equal legal sets."""
    from teamleduc.decimals import format_rows

    a = rng.random((table.size, 3)) * table.legal
    a /= a.sum(axis=1, keepdims=True)
    lines = format_rows(a).split(b"\n")[:-1]
    keys = table.legal @ np.array([1, 2, 4])
    return lines, [np.flatnonzero(keys == k) for k in np.unique(keys)]


def _write(root: Path, num_signals: int, tables, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    root.mkdir(parents=True)
    probs = rng.random(num_signals) + 0.5
    probs /= probs.sum()
    (root / "meta-strategy.csv").write_text(
        "".join(f"{j},{p!r}\n" for j, p in enumerate(probs.tolist()))
    )
    for table in tables:
        lines, groups = _seat_lines(table, rng)
        for j in range(num_signals):
            order = np.arange(table.size)
            for g in groups:
                order[g] = rng.permutation(g)
            (root / f"strategy{j}-player{table.seat + 1}.csv").write_bytes(
                b"\n".join(lines[i] for i in order.tolist()) + b"\n"
            )
    return root


def _zip(folder: Path) -> Path:
    import zipfile

    target = folder.with_suffix(".zip")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for p in sorted(folder.iterdir()):
            zf.write(p, p.name)
    return target


def _best(fn, repeat: int) -> tuple[float, float]:
    """Best wall-clock and CPU seconds of ``repeat`` runs (CPU time is immune to other load)."""
    times = []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append((time.perf_counter() - t0, time.process_time() - c0))
    return min(t for t, _ in times), min(c for _, c in times)


def main() -> None:
    from teamleduc.config import get_config
    from teamleduc.files.reading import load_submission
    from teamleduc.infosets import infoset_tables
    from teamleduc.tree import build_tree
    from teamleduc.validate import validate_submission

    config = get_config("team-leduc")
    tables = infoset_tables(build_tree(config))
    import pandas  # noqa: F401

    target = 1.0
    per_signal = {}
    with tempfile.TemporaryDirectory() as d:
        for k in (1, 20):
            t0 = time.perf_counter()
            folder = _write(Path(d) / f"sub{k}", k, tables, seed=k)
            archive = _zip(folder)
            made = time.perf_counter() - t0
            os.sync()  # let the write-back finish before timing reads
            size = sum(p.stat().st_size for p in folder.iterdir())
            repeat = 3 if k == 1 else 1
            for label, path in (("folder", folder), ("zip", archive)):
                load, load_cpu = _best(lambda: load_submission(path, config), repeat)
                reports = []
                check, _ = _best(lambda: reports.append(validate_submission(path, config)), repeat)
                assert reports[-1].ok, str(reports[-1])
                per_signal[k, label] = load_cpu / k
                line = (
                    f"team-leduc {k:>2} signal{'s' if k > 1 else ' '} ({4 * k} files, "
                    f"{size / 2**20:,.0f} MiB) {label:>6}: load {load:6.2f} s (cpu {load_cpu:5.2f} s), "
                    f"validate {check:6.2f} s"
                )
                if k == 1:
                    line += f" (target {target:.1f} s, ratio {load / target:.2f})"
                else:
                    line += (
                        f" ({load_cpu / k:.3f} cpu s per signal, x{per_signal[k, label] / per_signal[1, label]:.2f} "
                        f"of the 1-signal rate)"
                    )
                print(line, flush=True)
            print(f"  (generated in {made:.1f} s)", flush=True)
        compare(Path(d) / "sub20", Path(d))
        compare_writing(
            Path(d) / "sub20", Path(d), "the 20-signal submission (80 files, every row distinct)"
        )
        extra = setting("TEAMLEDUC_BENCH_WRITE_FOLDER", "", str)
        if extra:
            if not Path(extra).is_dir():
                raise SystemExit(f"TEAMLEDUC_BENCH_WRITE_FOLDER: {extra!r} is not a folder")
            compare_writing(Path(extra).resolve(), Path(d) / "extra", extra)


def _child_load(where: Path, folder: Path, one_thread: bool) -> float:
    """Wall seconds of one load of ``folder`` by the package under ``where``, in a child."""
    return run_child(where, _CHILD, [str(folder), "1" if one_thread else "0"])["seconds"]


def compare(folder: Path, tmp: Path) -> None:
    """The 20-signal load: the base revision, this tree, this tree on one parsing thread."""
    from teamleduc.files.threads import threads_to_use

    base = setting("TEAMLEDUC_BENCH_SUBMISSIONS_BASE", BASE, str)
    old = export_revision(base, tmp)
    runs = {"base": (old, False), "tree": (ROOT, False), "tree, 1 thread": (ROOT, True)}
    best = {k: float("inf") for k in runs}
    for _ in range(ROUNDS):
        for k, (where, one) in runs.items():
            best[k] = min(best[k], _child_load(where, folder, one))
    print()
    print(
        f"loading the 20-signal folder, best of {ROUNDS} alternating child runs "
        f"(base {base}; this tree parses on {threads_to_use()} threads here)"
    )
    for k, t in best.items():
        print(f"  {k:<15} {t:6.2f} s   {best['base'] / t:5.2f}x the base's speed")


def compare_writing(folder: Path, tmp: Path, what: str) -> None:
    """The submission in ``folder`` written by the writing base revision and by this tree."""
    base = setting("TEAMLEDUC_BENCH_WRITE_BASE", WRITE_BASE, str)
    (tmp / "write-base").mkdir(parents=True)
    old = export_revision(base, tmp / "write-base")
    runs = {"base": old, "tree": ROOT}
    best = {k: float("inf") for k in runs}
    for _ in range(ROUNDS):
        for k, where in runs.items():
            seconds = run_child(where, _CHILD_WRITE, [str(folder), str(tmp), f"written-{k}"])
            best[k] = min(best[k], seconds["seconds"])
    written = {k: tmp / f"written-{k}" for k in runs}
    names = sorted(p.name for p in written["base"].iterdir())
    same = names == sorted(p.name for p in written["tree"].iterdir()) and all(
        (written["base"] / n).read_bytes() == (written["tree"] / n).read_bytes() for n in names
    )
    print()
    print(
        f"writing {what}, best of {ROUNDS} alternating child runs of 2 "
        f"(base {base}); files identical: {same}"
    )
    for k, t in best.items():
        print(f"  {k:<15} {t:6.2f} s   {best['base'] / t:5.2f}x the base's speed")
    if not same:
        raise SystemExit("the two revisions wrote different files")


if __name__ == "__main__":
    main()
