"""Run benchmark modules (``python -m benchmarks [NAME...]``) and write their figures.

Each benchmark that ends normally replaces its own section of docs/measured-figures.md with
what it printed (:mod:`benchmarks.figures`); ``BENCH_FIGURES=0`` leaves the page alone.
``python -m benchmarks figures`` lists the page's sections with their dates.
"""

import contextlib
import importlib
import io
import os
import pkgutil
import sys
import time

import numba

import benchmarks
from benchmarks import figures


class _Tee(io.TextIOBase):
    """Writes go to the terminal as before and are kept for the figures page."""

    def __init__(self, stream):
        self.stream, self.kept = stream, io.StringIO()

    def write(self, s: str) -> int:
        self.kept.write(s)
        return self.stream.write(s)

    def flush(self) -> None:
        self.stream.flush()


def run(name: str, record: bool) -> None:
    """Run ``benchmarks.bench_NAME``; with ``record``, write its section of the figures page."""
    short = name.removeprefix("bench_")
    module = importlib.import_module(f"benchmarks.{name}")
    tee = _Tee(sys.stdout)
    t0 = time.perf_counter()
    threads = numba.get_num_threads()
    try:
        with contextlib.redirect_stdout(tee):
            module.main()
    finally:
        # several benchmarks set numba's thread count: the next one starts from the default
        numba.set_num_threads(threads)
    if record:
        figures.write_section(short, tee.kept.getvalue(), seconds=time.perf_counter() - t0)


def main(argv: list[str]) -> None:
    if argv == ["figures"]:
        print(figures.listing())
        return
    names = sorted(
        m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_")
    )
    if argv:
        names = [n for n in names if any(a in n for a in argv)]
    record = os.environ.get("BENCH_FIGURES", "1") != "0"
    for name in names:
        print(f"== {name}", flush=True)
        run(name, record)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:  # one line, like the toolkit's commands: no traceback
        print("aborted", file=sys.stderr)
        sys.exit(130)
