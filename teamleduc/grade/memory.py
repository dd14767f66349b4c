"""The memory budget of a grading: parsing it, what the process already holds, and the tiles
of the pair products that fit in it. Internal to :mod:`teamleduc.grade`."""

from __future__ import annotations

import os
import re

from ..errors import TeamLeducError
from ..evaluate import BLOCK
from ..fused import COLS, ROWS
from .kernel import padded_rows

#: default memory budget of a grading (the main process; each loading worker holds one entrant)
DEFAULT_MEMORY = 2 << 30
#: blocks read at once at most (more does not go faster)
MAX_CHUNK_BLOCKS = 16


def parse_memory(text: str | int | None) -> int:
    """Bytes of a memory budget: an integer, or a number with K, M, G or T (powers of 1024;
    ``2G``, ``512MiB``, ``1.5g``). None gives :data:`DEFAULT_MEMORY`."""
    if text is None:
        return DEFAULT_MEMORY
    if isinstance(text, int):
        value = text
    else:
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([kmgt]?)(?:i?b)?\s*", str(text), re.I)
        if not m:
            raise TeamLeducError(
                f"memory budget {text!r}: give bytes or a number with K, M, G or T, e.g. 2G"
            )
        power = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}[m.group(2).lower()]
        value = int(float(m.group(1)) * 1024**power)
    if value < 64 << 20:
        raise TeamLeducError(f"memory budget {text!r}: at least 64M")
    return value


def resident_bytes() -> int:
    """Bytes this process holds in memory now (512 MiB where the system does not say)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 512 << 20


def tile_plan(rows: int, cols: int, budget: int) -> tuple[int, int, int]:
    """``(rows per tile, columns per tile, blocks per read)`` whose buffers fit ``budget``
    bytes: the rows of A and columns of B of one read, their packed copies of one block, and
    the tile's partial sums and the sums of one block's pairs that are not zero."""

    def need(r: int, c: int, blocks: int) -> int:
        r = padded_rows(r)
        return ((r + c) * (blocks + 1) + COLS) * BLOCK * 8 + 2 * r * c * 8 + (r + c) * 256

    r, c = rows, cols
    while need(r, c, 1) > budget and (r > ROWS or c > COLS):
        if r >= c and r > ROWS:
            r = -(-r // 2)
        else:
            c = -(-c // 2)
    blocks = 1
    while blocks < MAX_CHUNK_BLOCKS and need(r, c, blocks * 2) <= budget:
        blocks *= 2
    return r, c, blocks
