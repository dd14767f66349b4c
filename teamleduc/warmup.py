"""Compile and cache the numba kernels once (``python -m teamleduc.warmup``, run by ``make install``).

Kernels are compiled with ``cache=True``; running them once on a small game at install time keeps
their compile time out of the tests and the first real command.
"""

import importlib
import pkgutil
import time

#: the framework adapters (optional extras, which ``make run`` does not install; they have no
#: kernels of their own): skipped where their library is missing
OPTIONAL = ("openspiel", "rlcard")


def modules() -> list:
    """The package's top-level modules, imported (the optional adapters only where their
    library is installed)."""
    import teamleduc

    out = []
    for info in sorted(pkgutil.iter_modules(teamleduc.__path__), key=lambda m: m.name):
        if info.name in ("warmup", "__main__"):
            continue
        try:
            out.append(importlib.import_module(f"teamleduc.{info.name}"))
        except ImportError:
            if info.name not in OPTIONAL:
                raise
    return out


def main() -> None:
    t0 = time.perf_counter()
    warmed = []
    for module in modules():
        hook = getattr(module, "_warmup", None)
        if hook is not None:
            hook()
            warmed.append(module.__name__.removeprefix("teamleduc."))
    print(
        f"teamleduc: kernels ready ({', '.join(warmed) or 'none'}) in {time.perf_counter() - t0:.1f} s"
    )


if __name__ == "__main__":
    main()
