"""teamleduc: exact tools for Team Leduc Hold'em (TMECor): game, files, evaluation, best responses, solver.

For notebooks, :mod:`teamleduc.api` gathers the functions that mirror the commands.
"""

import os as _os

# numba's OpenMP threads otherwise spin-wait ~8 ms after every parallel region on some VMs;
# this must be set before the first parallel kernel starts the pool.
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

__version__ = "0.1.0"
