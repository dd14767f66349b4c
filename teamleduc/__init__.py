"""teamleduc: exact tools for Team Leduc Hold'em (TMECor): game, files, evaluation, best responses, solver.

For notebooks, :mod:`teamleduc.api` gathers the functions that mirror the commands.
"""

import os as _os
import signal as _signal
import sys as _sys

# numba's OpenMP threads otherwise spin-wait ~8 ms after every parallel region on some VMs;
# this must be set before the first parallel kernel starts the pool.
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

__version__ = "0.4.15"


def _quiet_interrupt(signum, frame):  # pragma: no cover - exercised by the interrupt tests
    """Ctrl-C while the ``teamleduc`` command is still importing: "aborted", exit 130, no
    traceback (``teamleduc.cli.main`` installs Python's usual handler once it runs)."""
    _os.write(2, b"aborted\n")
    _os._exit(130)


if _os.path.basename(_sys.argv[0] if _sys.argv else "") == "teamleduc":
    _signal.signal(_signal.SIGINT, _quiet_interrupt)
