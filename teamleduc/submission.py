"""Compatibility face: the submission model and the CSV files, under their first import path.

The code lives in :mod:`teamleduc.files` (model, csv_format, container, reading, writing);
``from teamleduc.submission import Submission, load_submission, write_submission`` and every
other name this module used to define keep working.
"""

from .files.container import read_container
from .files.csv_format import (
    CSV_FORMAT,
    MetaCheck,
    format_meta,
    parse_line,
    parse_meta,
    parse_number,
    parse_strategy_csv,
    prepare_text,
)
from .files.model import (
    ACTION_NAMES,
    STRATEGY_CSV,
    TOLERANCE,
    FileCheck,
    MergedMixture,
    ReadResult,
    StrategyFormat,
    Submission,
    combine_teams,
    describe_values,
    merge_team_mixtures,
    uniform_submission,
    value_problems,
    whole_teams,
)
from .files.reading import load_submission
from .files.writing import atomic_output, write_submission

__all__ = [
    "ACTION_NAMES",
    "CSV_FORMAT",
    "STRATEGY_CSV",
    "TOLERANCE",
    "FileCheck",
    "MergedMixture",
    "MetaCheck",
    "ReadResult",
    "StrategyFormat",
    "Submission",
    "atomic_output",
    "combine_teams",
    "describe_values",
    "format_meta",
    "load_submission",
    "merge_team_mixtures",
    "parse_line",
    "parse_meta",
    "parse_number",
    "parse_strategy_csv",
    "prepare_text",
    "read_container",
    "uniform_submission",
    "value_problems",
    "whole_teams",
    "write_submission",
]
