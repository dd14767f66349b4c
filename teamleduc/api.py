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

import numbers

from . import __version__
from . import baselines as _baselines
from . import infosets as _infosets
from . import tree as _tree
from .arguments import check_flag as _check_flag
from .arguments import check_path as _check_path
from .best_response import best_response, exploitability, nash_conv
from .config import PRESETS, GameConfig, get_config
from .errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from .evaluate import evaluate, match
from .files.model import Submission
from .files.reading import load_submission
from .files.writing import write_submission
from .grade import grade
from .replay import replay
from .strategy import build_submission, infoset_frame, infoset_table
from .validate import validate_submission


def build_tree(config) -> _tree.PublicTree:
    """:func:`teamleduc.tree.build_tree` of a GameConfig or preset name (checked, cached)."""
    return _tree.build_tree(get_config(config))


def _tree_of(game) -> _tree.PublicTree:
    """A PublicTree as it is; a GameConfig or preset name as its tree."""
    return game if isinstance(game, _tree.PublicTree) else build_tree(game)


def infoset_tables(game) -> tuple:
    """:func:`teamleduc.infosets.infoset_tables` of a PublicTree, GameConfig or preset name."""
    return _infosets.infoset_tables(_tree_of(game))


def write_infoset_files(game, out_dir, examples: bool = True):
    """:func:`teamleduc.infosets.write_infoset_files` of a PublicTree, GameConfig or preset
    name."""
    _check_path(out_dir, "out_dir")
    _check_flag(examples, "examples")
    return _infosets.write_infoset_files(_tree_of(game), out_dir, examples=examples)


def parse_infoset(config, string: str) -> tuple[int, int]:
    """``(seat, id)`` of an information-set string (:func:`teamleduc.infosets.parse_infoset`):
    0-based seat, 0-based line of the seat's file; ValueError naming why it is not one."""
    if not isinstance(string, str):
        raise ArgumentTypeError(
            f"string: an information-set string such as '/C:J???/', not {type(string).__name__}"
        )
    return _infosets.parse_infoset(get_config(config), string)


def baseline(name: str, config, seats=None) -> Submission:
    """:func:`teamleduc.baselines.baseline`: the baseline ``name`` as a one-signal Submission
    playing ``seats`` (0-based ints, as in a Submission; default every seat)."""
    config = get_config(config)
    if not isinstance(name, str):
        raise ArgumentTypeError(f"name: a baseline name (str), not {type(name).__name__}")
    if seats is not None:
        if isinstance(seats, (str, bytes)) or not hasattr(seats, "__iter__"):
            raise ArgumentTypeError(f"seats: a sequence of 0-based seats, not {seats!r}")
        seats = list(seats)
        for s in seats:
            if isinstance(s, bool) or not isinstance(s, numbers.Integral):
                raise ArgumentTypeError(f"seats: a seat is a 0-based int, not {s!r}")
            if not 0 <= s < config.num_seats:
                raise ArgumentValueError(
                    f"seats: 0-based seat {s} is not in 0..{config.num_seats - 1} ({config.name})"
                )
        if len(set(seats)) != len(seats):
            raise ArgumentValueError(f"seats {seats}: a seat is given twice")
    return _baselines.baseline(name, config, seats)


def solve(*args, **kwargs):
    """:func:`teamleduc.solver.solve` (imported on first use: it compiles the solver's kernels)."""
    from .solver import solve as _solve

    return _solve(*args, **kwargs)


__all__ = [
    "__version__",
    "TeamLeducError",
    "ArgumentValueError",
    "ArgumentTypeError",
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
