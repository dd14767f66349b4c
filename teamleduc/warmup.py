"""Compile and cache the numba kernels once (``python -m teamleduc.warmup``, run by ``make install``).

Kernels are compiled with ``cache=True``; running them once on a small game at install time keeps
their compile time out of the tests and the first real command.
"""

import importlib
import pkgutil
import time


def main() -> None:
    t0 = time.perf_counter()
    import teamleduc

    warmed = []
    for info in sorted(pkgutil.iter_modules(teamleduc.__path__), key=lambda m: m.name):
        if info.name in ("warmup", "__main__"):
            continue
        module = importlib.import_module(f"teamleduc.{info.name}")
        hook = getattr(module, "_warmup", None)
        if hook is not None:
            hook()
            warmed.append(info.name)
    print(
        f"teamleduc: kernels ready ({', '.join(warmed) or 'none'}) in {time.perf_counter() - t0:.1f} s"
    )


if __name__ == "__main__":
    main()
