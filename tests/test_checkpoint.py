"""The solver's checkpoints (:mod:`teamleduc.solver.checkpoint`): damaged ones are refused."""

from __future__ import annotations

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.solver import solve

from .solving import GUARD_SECONDS


def test_damaged_checkpoint_candidates_are_refused(tmp_path):
    """A checkpoint whose candidate arrays are missing, of different lengths or of an unknown
    kind gives TeamLeducError naming the file (it gave TypeError or IndexError)."""
    from teamleduc.solver import checkpoint as ckpt

    config = get_config("tiny-team-leduc")
    solve(
        config,
        "dcfr",
        max_iterations=50,  # its LP export is exact within a second (after 20: 30 s)
        time_limit=GUARD_SECONDS,
        out_dir=tmp_path,
        refine_seconds=0,
        handle_sigint=False,
    )
    path = tmp_path / "checkpoint.npz"
    with np.load(path) as z:
        good = {k: z[k] for k in z.files}
    assert ckpt.load(tmp_path, config).candidates.items[0]
    damaged = {
        "incomplete": {k: v for k, v in good.items() if k != "cand0/1"},
        "differ in shape": {**good, "cand0/batch": good["cand0/batch"][:-1]},
        "unknown kind": {**good, "cand1/kind": good["cand1/kind"] + 100},
    }
    for message, arrays in damaged.items():
        np.savez(path, **arrays)
        pattern = f"checkpoint .*checkpoint.npz: team .'s candidates.*{message}"
        with pytest.raises(TeamLeducError, match=pattern):
            ckpt.load(tmp_path, config)
