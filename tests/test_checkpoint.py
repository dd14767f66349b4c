"""The solver's checkpoints (:mod:`teamleduc.solver.checkpoint`): damaged ones are refused."""

from __future__ import annotations

import json

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


def test_the_averaging_exponent_in_a_checkpoint_file(tmp_path):
    """A checkpoint records the averaging exponent; a file without it (0.4.6 and before, t**2
    averages) reads as gamma 2, and resuming it rescales the averages (sum s**3 / sum s**2);
    an exponent that is not a finite number in [0, 8] is refused naming the file, before
    anything is written."""
    from teamleduc.solver import checkpoint as ckpt

    config = get_config("tiny-team-leduc")
    run = tmp_path / "run"
    solve(config, "dcfr", max_iterations=50, time_limit=GUARD_SECONDS, out_dir=run,
          refine_seconds=0, handle_sigint=False)  # fmt: skip
    path = run / "checkpoint.npz"
    with np.load(path) as z:
        good = {k: z[k] for k in z.files}
    assert float(ckpt.load(run, config).state["gamma"]) == 3.0
    before_048 = ("alg/gamma", "alg/rsum0", "alg/rsum1", "alg/wsum")  # 0.4.6 had none
    np.savez(path, **{k: v for k, v in good.items() if k not in before_048})
    old = ckpt.load(run, config)
    assert float(old.state["gamma"]) == 2.0
    resumed = solve(config, None, resume=run, max_iterations=51, time_limit=GUARD_SECONDS,
                    refine_seconds=0, handle_sigint=False)  # fmt: skip
    assert resumed.iterations == 51
    for bad, message in (
        (np.array(100.0), "averaging exponent 100.0 is not in"),
        (np.array(np.nan), "'gamma' holds non-finite values"),
        (np.array([3.0, 3.0]), "'gamma' is float64 \\(2,\\)"),
    ):
        np.savez(path, **{**good, "alg/gamma": bad})
        out = tmp_path / "out"
        with pytest.raises(TeamLeducError, match=f"checkpoint .*checkpoint.npz.*{message}"):
            solve(config, None, resume=run, max_iterations=51, time_limit=GUARD_SECONDS,
                  out_dir=out, refine_seconds=0, handle_sigint=False)  # fmt: skip
        assert not out.exists()


def test_the_reach_sums_in_a_checkpoint_file(tmp_path):
    """A checkpoint keeps the sums of the iterates' terminal reaches (``alg/rsum0``,
    ``alg/rsum1``); a file of 0.4.7 without them resumes (they are rebuilt from the
    cumulative strategies); sums that are negative or not the reach of the cumulative
    strategy are refused naming the file, before anything is written."""
    config = get_config("tiny-team-leduc")
    run = tmp_path / "run"
    solve(config, "dcfr", max_iterations=30, time_limit=GUARD_SECONDS, out_dir=run,
          refine_seconds=0, handle_sigint=False)  # fmt: skip
    path = run / "checkpoint.npz"
    with np.load(path) as z:
        good = {k: z[k] for k in z.files}
    assert good["alg/rsum0"].shape == good["alg/rsum1"].shape and good["alg/rsum0"].max() > 0
    assert float(good["alg/wsum"]) == sum(float(s) ** 3 for s in range(1, 31))
    np.savez(path, **{k: v for k, v in good.items() if not k.startswith(("alg/rsum", "alg/wsum"))})
    resumed = solve(config, None, resume=run, max_iterations=31, time_limit=GUARD_SECONDS,
                    refine_seconds=0, handle_sigint=False)  # fmt: skip
    assert resumed.iterations == 31
    meta = json.loads(str(good["meta"]))
    for key, bad, message in (
        ("alg/rsum0", -good["alg/rsum0"], "'rsum0' holds negative values"),
        ("alg/rsum0", good["alg/rsum0"] * 2, "rsum0 .*is not the reach of its cumulative"),
        ("alg/rsum0", good["alg/rsum0"][:1], "'rsum0' is float64 \\(1, "),
        # sums within a hair: the bounds of the average would move as much (a review's case)
        ("alg/rsum0", good["alg/rsum0"] * (1 - 1e-4), "rsum0 .*is not the reach of its cumul"),
        ("alg/wsum", good["alg/wsum"] * 3, "weight sum .* is not that of 30 iterations"),
        ("alg/wsum", np.array(0.0), "weight sum 0.0 is not that of 30 iterations weighed t\\*\\*3"),
        ("alg/wsum", np.array(np.nan), "'wsum' holds non-finite values"),
        # an iteration count that is not the metadata's (one of 10**12 stalled a resume)
        ("alg/t", np.array(10**12), "made 1000000000000 iterations, its metadata says 30"),
        ("alg/rsum1", None, "does not match the method \\(array 'rsum1'\\)"),  # all or none
        ("alg/t", np.array(-5), "'t' holds negative values"),
        ("alg/t", np.array(30.0), "iteration count 't' is float64"),
        ("meta", np.array(json.dumps({**meta, "iterations": 10**13})), "more than a run makes"),
        ("meta", np.array(json.dumps({**meta, "seconds": 1e308})), "more than a run makes"),
    ):
        arrays = {**good, key: bad}
        if bad is None:
            del arrays[key]
        np.savez(path, **arrays)
        out = tmp_path / "out"
        with pytest.raises(TeamLeducError, match=f"checkpoint .*checkpoint.npz.*{message}"):
            solve(config, None, resume=run, max_iterations=31, time_limit=GUARD_SECONDS,
                  out_dir=out, refine_seconds=0, handle_sigint=False)  # fmt: skip
        assert not out.exists()
