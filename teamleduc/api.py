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

import inspect
from pathlib import Path as _Path

from . import __version__
from . import baselines as _baselines
from . import infosets as _infosets
from . import tree as _tree
from .arguments import check_flag as _check_flag
from .arguments import check_path as _check_path
from .arguments import check_seats as _check_seats
from .best_response import best_response, exploitability, nash_conv
from .config import PRESETS, GameConfig, get_config
from .errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from .evaluate import evaluate, match
from .files.model import Submission
from .files.reading import load_submission
from .files.writing import write_submission
from .grade import grade
from .outputs import staged_folder as _staged_folder
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


def write_infoset_files(game, out_dir, examples: bool = True, *, overwrite: bool = False):
    """:func:`teamleduc.infosets.write_infoset_files` of a PublicTree, GameConfig or preset
    name into the folder ``out_dir``, by the rule of ``teamleduc infosets --out``
    (:func:`teamleduc.outputs.staged_folder`): the folder appears complete or not at all; an
    existing non-empty one is refused unless ``overwrite`` (which replaces it whole), and a
    file, a device, a pipe or the current folder always. Returns the paths written."""
    _check_path(out_dir, "out_dir")
    _check_flag(examples, "examples")
    _check_flag(overwrite, "overwrite")
    tree = _tree_of(game)
    with _staged_folder(out_dir, overwrite) as stage:
        staged = _infosets.write_infoset_files(tree, stage, examples=examples)
    return [_Path(out_dir) / p.relative_to(stage) for p in staged]


def parse_infoset(config, string: str) -> tuple[int, int]:
    """``(seat, id)`` of an information-set string (:func:`teamleduc.infosets.parse_infoset`):
    0-based seat, 0-based line of the seat's file; ArgumentValueError (a ValueError) naming
    ``string`` and why it is not one."""
    if not isinstance(string, str):
        raise ArgumentTypeError(
            f"string: an information-set string such as '/C:J???/', not {type(string).__name__}"
        )
    config = get_config(config)
    try:
        return _infosets.parse_infoset(config, string)
    except ValueError as e:
        if isinstance(e, TeamLeducError):
            raise
        text = str(e)  # it quotes the string: a megabyte one is not echoed whole
        if len(text) > 400:
            text = f"{text[:400]}... ({len(text):,} characters)"
        raise ArgumentValueError(f"string: {text}") from None


def baseline(name: str, config, seats=None) -> Submission:
    """:func:`teamleduc.baselines.baseline`: the baseline ``name`` as a one-signal Submission
    playing ``seats`` (0-based ints, as in a Submission; default every seat)."""
    config = get_config(config)
    if not isinstance(name, str):
        raise ArgumentTypeError(f"name: a baseline name (str), not {type(name).__name__}")
    if seats is not None:
        seats = _check_seats(seats, config.num_seats, "seats")
    return _baselines.baseline(name, config, seats)


def solve(*args, **kwargs):
    """:func:`teamleduc.solver.solve` (imported on first use: it compiles the solver's kernels).
    Every argument is checked before anything runs or is written
    (:func:`teamleduc.solver.plan.check_solve_arguments`): ArgumentTypeError /
    ArgumentValueError naming it."""
    from .solver import solve as _solve
    from .solver.plan import check_solve_arguments

    try:
        bound = inspect.signature(_solve).bind(*args, **kwargs)
    except TypeError as e:  # a missing or unknown argument: Python's own words
        raise ArgumentTypeError(f"solve: {e}") from None
    bound.apply_defaults()
    bound.arguments.update(check_solve_arguments(**bound.arguments))
    return _solve(*bound.args, **bound.kwargs)


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
