"""teamleduc: exact tools for Team Leduc Hold'em (TMECor): game, files, evaluation, best responses, solver.

For notebooks, :mod:`teamleduc.api` gathers the functions that mirror the commands.
"""

__version__ = "0.1.0"
