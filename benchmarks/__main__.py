"""Run every benchmark module (``python -m benchmarks [NAME...]``)."""

import importlib
import pkgutil
import sys

import benchmarks


def main(argv: list[str]) -> None:
    names = sorted(
        m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_")
    )
    if argv:
        names = [n for n in names if any(a in n for a in argv)]
    for name in names:
        print(f"== {name}", flush=True)
        importlib.import_module(f"benchmarks.{name}").main()


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:  # one line, like the toolkit's commands: no traceback
        print("aborted", file=sys.stderr)
        sys.exit(130)
