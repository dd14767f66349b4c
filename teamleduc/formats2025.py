"""Compatibility face: the 2025 course formats and conversion, under their first import path.

The code lives in :mod:`teamleduc.files` (format2025: the 2025 files; reading: detecting and
reading any format; convert: conversion); every name this module used to define keeps working.
"""

from .files.convert import TARGETS, ConvertResult, convert
from .files.format2025 import (
    COLUMNS_2025,
    INFOSETS_2025,
    NAME_WIDTH,
    NPY_FORMAT,
    Order2025,
    name_2025,
    npy_bytes,
    orders_2025,
    parse_strategy_npy,
    read_infosets_2025,
    team_zip_name,
    write_infosets_2025,
    write_submission_2025,
    write_team_zip,
)
from .files.reading import detect_format, read_path

__all__ = [
    "COLUMNS_2025",
    "INFOSETS_2025",
    "NAME_WIDTH",
    "NPY_FORMAT",
    "TARGETS",
    "ConvertResult",
    "Order2025",
    "convert",
    "detect_format",
    "name_2025",
    "npy_bytes",
    "orders_2025",
    "parse_strategy_npy",
    "read_infosets_2025",
    "read_path",
    "team_zip_name",
    "write_infosets_2025",
    "write_submission_2025",
    "write_team_zip",
]
