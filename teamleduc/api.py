"""The Python API in one import, mirroring the commands (for notebooks and scripts)::

    import teamleduc.api as tl
    config = tl.get_config("team-leduc")
    sub = tl.build_submission(lambda infoset, legal: ..., config, out="my-sub")
    sub = tl.load_submission("my-sub/", config)
    tl.evaluate(sub, "uniform", config)            # teamleduc evaluate: exact team-A value
    tl.match(sub, "cautious", config)              # teamleduc match: both seatings
    tl.exploitability(config, sub)                 # teamleduc exploitability: exact gap
    tl.grade(["a/", "b.zip"], config, baselines="all", out="grading/")
    tl.solve(config, method="dcfr", time_limit=60) # teamleduc solve

Every argument that takes a submission also takes a baseline name or a loaded Submission.
"""

from . import __version__
from .baselines import baseline
from .best_response import best_response, exploitability, nash_conv
from .config import PRESETS, GameConfig, get_config
from .evaluate import evaluate, match
from .files.model import Submission
from .files.reading import load_submission
from .files.writing import write_submission
from .grade import grade
from .infosets import infoset_tables, parse_infoset, write_infoset_files
from .replay import replay
from .strategy import build_submission, infoset_frame, infoset_table
from .tree import build_tree
from .validate import validate_submission


def solve(*args, **kwargs):
    """:func:`teamleduc.solver.solve` (imported on first use: it compiles the solver's kernels)."""
    from .solver import solve as _solve

    return _solve(*args, **kwargs)


__all__ = [
    "__version__",
    "PRESETS",
    "GameConfig",
    "get_config",
    "build_tree",
    "infoset_tables",
    "write_infoset_files",
    "infoset_table",
    "infoset_frame",
    "parse_infoset",
    "build_submission",
    "Submission",
    "load_submission",
    "write_submission",
    "validate_submission",
    "baseline",
    "replay",
    "evaluate",
    "match",
    "grade",
    "best_response",
    "exploitability",
    "nash_conv",
    "solve",
]
