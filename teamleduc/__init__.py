"""teamleduc: exact tools for Team Leduc Hold'em (TMECor): game, files, evaluation, best responses, solver."""

__version__ = "0.1.0"
