"""Compatibility face: safe reading of submission containers, under its first import path.

The code lives in :mod:`teamleduc.files.safeio`; every name this module used to define keeps
working.
"""

from .files.safeio import (
    CSV_BYTES_PER_LINE,
    DEFAULT_CAP,
    KIB,
    MAX_COMPRESSION_RATIO,
    MAX_ENTRIES,
    META_LIMIT,
    META_NAME,
    MIB,
    MIN_LIMIT,
    NPY_HEADER_LIMIT,
    RATIO_CHECK_MIN_SIZE,
    Container,
    Finding,
    SubmissionError,
    csv_limit,
    npy_limit,
    open_container,
)

__all__ = [
    "CSV_BYTES_PER_LINE",
    "DEFAULT_CAP",
    "KIB",
    "MAX_COMPRESSION_RATIO",
    "MAX_ENTRIES",
    "META_LIMIT",
    "META_NAME",
    "MIB",
    "MIN_LIMIT",
    "NPY_HEADER_LIMIT",
    "RATIO_CHECK_MIN_SIZE",
    "Container",
    "Finding",
    "SubmissionError",
    "csv_limit",
    "npy_limit",
    "open_container",
]
