"""Grading at scale: the fixed-order pair kernel, the on-disk cache (incremental, resumable,
keyed by content, preset and version, distrusting corrupt files) and one Ctrl-C."""

import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import teamleduc.grade.cache as grade_cache
from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.evaluate import BLOCK, _dot, evaluate
from teamleduc.files.writing import write_submission
from teamleduc.grade import grade, kernel, loading, memory, products
from teamleduc.grade.cache import GradeCache, entrant_key
from teamleduc.grade.kernel import pair_values
from teamleduc.grade.memory import parse_memory
from teamleduc.grade.run import default_cache

from . import interrupting
from .test_evaluate import random_submission

PRESET = "small-team-leduc"  # 10,323 terms per pair: three blocks, the last one partial


@pytest.fixture(scope="module")
def subs(tmp_path_factory):
    """Five random submissions as folders (1 to 3 signals)."""
    root = tmp_path_factory.mktemp("subs")
    config = get_config(PRESET)
    paths = []
    for k in range(5):
        write_submission(random_submission(config, 1 + k % 3, 500 + k), root / f"s{k}")
        paths.append(root / f"s{k}")
    return paths


@pytest.fixture(scope="module")
def reference(subs):
    """``evaluate``'s value for every ordered pair of the submissions and two baselines."""
    specs = subs + ["cautious", "random-pure:2"]
    return {
        (i, j): evaluate(x, y, PRESET).value
        for i, x in enumerate(specs)
        for j, y in enumerate(specs)
        if i != j
    }


def count_loads(monkeypatch) -> list:
    """Record every entrant the grader loads (in-process grading, jobs=1)."""
    loads = []
    real = loading.load_entrant

    def counting(spec, config, seats=None):
        loads.append(str(spec))
        return real(spec, config, seats)

    monkeypatch.setattr(loading, "load_entrant", counting)
    return loads


def small_tiles(monkeypatch, rows=3, cols=2, blocks=1):
    """Tiles of a few rows and columns and one block per read, as a tight budget would give."""
    monkeypatch.setattr(products, "tile_plan", lambda r, c, budget: (rows, cols, blocks))


def same_standings(a, b) -> bool:
    """Equal leaderboards, field by field (repr: exact floats, and nan equals nan)."""
    return [repr(s) for s in a.standings] == [repr(s) for s in b.standings]


def assert_equals_reference(result, reference, count):
    assert len(result.names) == count
    for i in range(count):
        for j in range(count):
            if i != j:
                assert result.values[i, j] == reference[(i, j)]  # bit for bit


# --------------------------------------------------------------------------- the kernel


def test_the_dot_product_fuses_each_multiply_add_with_one_rounding():
    """``_dot`` = block by block, s = a[l] * b[l] + s rounded once (exact rationals, then one
    correctly rounded conversion), l ascending; plain multiply-then-add differs somewhere."""
    from fractions import Fraction

    rng = np.random.default_rng(1)
    L = BLOCK + 300
    a, b = rng.standard_normal(L), rng.standard_normal(L)
    total = 0.0
    for lo in range(0, L, BLOCK):
        s = 0.0
        for x, y in zip(a[lo : lo + BLOCK].tolist(), b[lo : lo + BLOCK].tolist(), strict=True):
            s = float(Fraction(x) * Fraction(y) + Fraction(s))
        total += s
    assert _dot(a, b, BLOCK) == total
    plain = 0.0
    for lo in range(0, L, BLOCK):
        s = 0.0
        for x, y in zip(a[lo : lo + BLOCK].tolist(), b[lo : lo + BLOCK].tolist(), strict=True):
            s += x * y
        plain += s
    assert plain != total


def test_pair_values_equal_the_fixed_order_dot_bit_for_bit():
    rng = np.random.default_rng(7)
    L = 3 * BLOCK + 123
    a = rng.standard_normal((37, L)) * rng.random((37, 1)) ** 8  # widely varying magnitudes
    b = rng.standard_normal((70, L))
    b[5] = 0.0
    V = pair_values(a, b)
    assert V.shape == (37, 70)
    for i in range(37):
        for j in range(70):
            assert V[i, j] == _dot(a[i], b[j], BLOCK)
    # not what a BLAS product gives in general: the order is the kernel's own
    assert np.allclose(V, a @ b.T, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("terms", [1, 13 * BLOCK * 28, 1 << 29])  # 14, 28, all rows a call
def test_pair_kernel_calls_split_by_rows_give_the_same_bytes(monkeypatch, terms):
    """The kernel's calls (a few rows each, for Ctrl-C) and its 14 x 16 register tiles with
    ragged edges leave every pair's sum in index order: bit for bit the single dot."""
    rng = np.random.default_rng(terms)
    a = rng.standard_normal((43, BLOCK + 77))
    b = rng.standard_normal((13, BLOCK + 77))
    monkeypatch.setattr(kernel, "MAX_TERMS_PER_CALL", terms)
    V = pair_values(a, b)
    assert V.shape == (43, 13)
    for i in range(43):
        for j in range(13):
            assert V[i, j] == _dot(a[i], b[j], BLOCK)


def test_pair_kernel_cache_blocking_keeps_every_sums_order():
    """Work items of several row bands x column groups, each carrying its chains through
    passes of a few hundred terms (a last pass shorter): every pair still bit for bit the
    single dot."""
    rng = np.random.default_rng(5)
    rows = kernel.ROWS * kernel.BAND * 2 + 5  # 3 bands, the last one short
    cols = kernel.COLS * kernel.GROUP * 2 + 3  # 3 groups
    L = BLOCK + kernel.DEPTH + 44
    a = rng.standard_normal((rows, L)) * rng.random((rows, 1)) ** 8
    b = rng.standard_normal((cols, L))
    V = pair_values(a, b)
    assert V.shape == (rows, cols)
    for i in range(rows):
        for j in range(cols):
            assert V[i, j] == _dot(a[i], b[j], BLOCK)


def test_pairs_of_nonzero_blocks_alone_give_the_full_products_bytes():
    """Leaving out the pairs whose block is all zero on one side changes no byte of any total:
    those block sums are +0.0, and the others go through a zeroed buffer (0.0 + s is s)."""
    rng = np.random.default_rng(11)
    L = 4 * BLOCK + 5
    a = rng.standard_normal((19, L))
    b = rng.standard_normal((10, L)) * 1e-3
    zero_a = rng.random((19, 5)) < 0.5  # rows x blocks that are all zero
    zero_b = rng.random((10, 5)) < 0.5
    for x, zero in ((a, zero_a), (b, zero_b)):
        for r, blk in zip(*np.nonzero(zero), strict=True):
            x[r, blk * BLOCK : (blk + 1) * BLOCK] = 0.0
    a[3] = -a[2]  # totals that cancel to zero on the way
    zero_a[3] = zero_a[2]
    full = np.zeros((kernel.padded_rows(19), 10))
    sparse = full.copy()
    for blk in range(5):
        lo, hi = blk * BLOCK, min(L, (blk + 1) * BLOCK)
        kernel.add_block(a, b, lo, hi, full)
        rows, cols = np.flatnonzero(~zero_a[:, blk]), np.flatnonzero(~zero_b[:, blk])
        kernel.add_block(a, b, lo, hi, sparse, rows, cols)
    assert full.tobytes() == sparse.tobytes()
    for i in range(19):
        for j in range(10):
            assert sparse[i, j] == _dot(a[i], b[j], BLOCK)
    assert not np.signbit(sparse[full == 0]).any()  # never -0.0


def test_all_zero_blocks_are_left_out_of_the_cache_and_read_back_as_the_same_bytes(tmp_path):
    config = get_config(PRESET)
    cache = GradeCache(tmp_path, config)
    L = 5 * BLOCK + 100
    rng = np.random.default_rng(3)
    a = rng.standard_normal(L)
    a[BLOCK : 2 * BLOCK] = 0.0  # block 1 left out
    a[3 * BLOCK : 4 * BLOCK] = 0.0  # block 3 left out
    a[4 * BLOCK : 5 * BLOCK] = -0.0  # kept: read back as -0.0
    b = np.zeros(L)  # nothing kept
    key = "k" * 64
    stored = cache.store(grade_cache.EntrantRecord(key=key, valid=True), a, b)
    assert stored.blocks_a == (0, 2, 4, 5) and stored.blocks_b == ()
    header = 128
    assert cache.path(key, "a").stat().st_size == header + 4 * BLOCK * 8
    assert cache.path(key, "b").stat().st_size == header
    record = cache.record(key, L)
    assert record == stored
    assert cache.read_array(record, "a").tobytes() == a.tobytes()
    assert cache.read_array(record, "b").tobytes() == b.tobytes()
    out = np.full(3 * BLOCK, np.nan)
    mask = cache.read_blocks(record, "a", 1, 4, out)
    assert mask.tolist() == [False, True, False]
    assert out.tobytes() == a[BLOCK : 4 * BLOCK].tobytes()
    assert cache.read_blocks(record, "b", 2, 6, np.empty(4 * BLOCK)).tolist() == [False] * 4


@pytest.mark.parametrize("blocks", [(2, 0, 4, 5), (0, 2, 4, 6), (0, 0, 2, 4), (0, 2, 4)], ids=str)
def test_a_record_whose_block_list_does_not_fit_its_array_is_dropped(tmp_path, blocks):
    """Out of order, past the end, repeated, or one block fewer than the file holds."""
    from dataclasses import replace

    cache = GradeCache(tmp_path, get_config(PRESET))
    L = 5 * BLOCK + 100
    a = np.ones(L)
    a[BLOCK : 2 * BLOCK] = a[3 * BLOCK : 4 * BLOCK] = 0.0
    record = cache.store(grade_cache.EntrantRecord(key="k" * 64, valid=True), a, a)
    assert cache.record("k" * 64, L) == record
    checks = record.check_a[: len(blocks)]
    cache.store(replace(record, blocks_a=blocks, check_a=checks))  # the record alone, sealed
    assert cache.record("k" * 64, L) is None
    assert not cache.path("k" * 64, "a").exists()


def test_grading_strategies_with_zero_blocks_equals_evaluate_bit_for_bit(tmp_path, monkeypatch):
    """Pure baselines on team-leduc-2025 leave out most of their blocks (43 per array); the
    grading, tiled and read one block at a time, still equals evaluate on every pair."""
    preset = "team-leduc-2025"
    specs = ["always-call", "aggressive", "random-pure:0", "random-pure:1", "cautious"]
    small_tiles(monkeypatch, rows=3, cols=2, blocks=2)
    r = grade(baselines=specs, config=preset, worst_case=False, cache=tmp_path / "c")
    for i, x in enumerate(specs):
        for j, y in enumerate(specs):
            if i != j:
                assert r.values[i, j] == evaluate(x, y, preset).value
    sizes = [f.stat().st_size for f in (tmp_path / "c" / "entrants").glob("*.npy")]
    dense = 173_331 * 8
    assert len(sizes) == 10 and sum(sizes) < 0.6 * 10 * dense
    assert min(sizes) < 0.3 * dense


def test_tile_plan_fits_the_budget():
    for rows, cols, budget in [
        (1010, 1010, 1 << 30),
        (10, 1010, 256 << 20),
        (5000, 5000, 64 << 20),
    ]:
        r, c, blocks = memory.tile_plan(rows, cols, budget)
        pr = kernel.padded_rows(r)
        # the blocks read, one block of each packed, the tile's partial sums, one block's
        used = ((pr + c) * (blocks + 1) + kernel.COLS) * BLOCK * 8 + 2 * pr * c * 8
        assert used <= budget and 1 <= blocks <= memory.MAX_CHUNK_BLOCKS
    assert memory.tile_plan(1010, 1010, 1 << 30)[:2] == (1010, 1010)  # one tile
    assert parse_memory("2G") == 2 << 30 and parse_memory("512MiB") == 512 << 20
    assert parse_memory(None) == memory.DEFAULT_MEMORY
    for bad in ("lots", "1M", "-3G"):
        with pytest.raises(TeamLeducError):
            parse_memory(bad)


# --------------------------------------------------------------------------- same values


def test_cached_blocked_grading_equals_evaluate(subs, reference, monkeypatch, tmp_path):
    specs = dict(baselines="cautious,random-pure:2", worst_case=False)
    plain = grade(subs, PRESET, **specs, cache=tmp_path / "one")
    assert_equals_reference(plain, reference, 7)
    small_tiles(monkeypatch)
    tiled = grade(subs, PRESET, **specs, cache=tmp_path / "two", jobs=2)
    again = grade(subs, PRESET, **specs, cache=tmp_path / "two")  # every value from the cache
    assert again.work["pairs_computed"] == 0 and again.work["entrants_loaded"] == 0
    for r in (tiled, again):
        assert r.values.tobytes() == plain.values.tobytes()
        assert same_standings(r, plain)
    assert tiled.work["pairs_computed"] == 49


@pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="no posix_fadvise here")
def test_the_next_blocks_are_prefetched_within_each_array(subs, monkeypatch, tmp_path):
    """While the kernel works on a chunk, the next chunk of every array of the tile is asked
    of the disk (a read-ahead hint): within the array's data, one chunk ahead, never past it."""
    calls = []
    real = os.posix_fadvise

    def spy(fd, offset, length, advice):
        calls.append((os.fstat(fd).st_size, offset, length, advice))
        return real(fd, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", spy)
    small_tiles(monkeypatch, rows=8, cols=8, blocks=1)
    result = grade(subs, PRESET, baselines="cautious", worst_case=False, cache=tmp_path / "c")
    assert calls and all(a == os.POSIX_FADV_WILLNEED for *_, a in calls)
    for size, offset, length, _ in calls:
        assert offset >= 10 and 0 < length <= BLOCK * 8 and offset + length <= size
    header = min(offset for _, offset, _, _ in calls) - 8 * BLOCK  # the second block's start
    blocks = -(-(calls[0][0] - header) // (8 * BLOCK))
    n = len(result.names)
    assert blocks > 1 and n <= 8  # one tile, several chunks
    assert len(calls) == 2 * n * (blocks - 1)  # every array, every chunk but the first


def test_regrade_with_a_new_entrant_computes_only_its_arrays_and_pairs(
    subs, reference, monkeypatch, tmp_path
):
    cache = tmp_path / "cache"
    loads = count_loads(monkeypatch)
    first = grade(subs[:4], PRESET, worst_case=False, cache=cache)
    assert len(loads) == 4 and first.work["entrants_loaded"] == 4
    loads.clear()
    second = grade(subs, PRESET, worst_case=False, cache=cache)
    assert loads == [str(subs[4])]
    w = second.work
    assert w["entrants_loaded"] == 1 and w["pairs_cached"] == 16
    assert w["pairs_computed"] == 5 + 4  # its row against all five, and its column
    assert_equals_reference(second, reference, 5)
    fresh = grade(subs, PRESET, worst_case=False, cache=False)
    assert second.values.tobytes() == fresh.values.tobytes()
    assert same_standings(second, fresh)
    # a renamed copy of a folder keeps its entry: the key is the content
    import shutil

    shutil.copytree(subs[0], tmp_path / "renamed")
    loads.clear()
    third = grade([*subs, tmp_path / "renamed"], PRESET, worst_case=False, cache=cache)
    assert loads == [] and third.work["pairs_computed"] == 0
    assert third.values[5, 1] == third.values[0, 1]


def test_worst_cases_are_cached_and_added_later(subs, monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    grade(subs[:2], PRESET, baselines="uniform", worst_case=False, cache=cache)
    loads = count_loads(monkeypatch)
    with_worst = grade(subs[:2], PRESET, baselines="uniform", cache=cache)
    assert loads == [] and with_worst.work["worst_cases_computed"] == 3
    again = grade(subs[:2], PRESET, baselines="uniform", cache=cache)
    assert again.work["worst_cases_computed"] == 0
    fresh = grade(subs[:2], PRESET, baselines="uniform", cache=False)
    assert same_standings(again, fresh) and same_standings(with_worst, fresh)
    assert np.isfinite(fresh.standings[0].worst_case_as_team_a)


# --------------------------------------------------------------------------- interrupted


def test_interrupted_loading_resumes(subs, reference, monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    loads = count_loads(monkeypatch)
    real = loading.load_entrant

    def interrupted(spec, config, seats=None):
        if len(loads) == 3:
            raise KeyboardInterrupt
        return real(spec, config, seats)

    monkeypatch.setattr(loading, "load_entrant", interrupted)
    with pytest.raises(KeyboardInterrupt):
        grade(subs, PRESET, worst_case=False, cache=cache)
    loads = count_loads(monkeypatch)
    r = grade(subs, PRESET, worst_case=False, cache=cache)
    assert len(loads) == 2 and r.work["entrants_loaded"] == 2
    assert_equals_reference(r, reference, 5)


def test_reads_run_in_threads_that_end_with_the_products(subs, reference, monkeypatch, tmp_path):
    """A chunk's arrays are read by several threads; none is left when the grading returns,
    nor after a Ctrl-C in the middle of the reads."""
    import threading

    small_tiles(monkeypatch, rows=5, cols=5, blocks=1)
    readers = set()
    real = GradeCache.read_blocks

    def spy(self, *args, **kwargs):
        readers.add(threading.current_thread().name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(GradeCache, "read_blocks", spy)
    r = grade(subs, PRESET, worst_case=False, cache=tmp_path / "cache")
    assert_equals_reference(r, reference, 5)
    assert readers and all(name.startswith("read") for name in readers)
    assert not [t for t in threading.enumerate() if t.name.startswith("read")]

    def interrupted(self, record, which, first, stop, out, fill=True):
        if first == 1:
            raise KeyboardInterrupt
        return real(self, record, which, first, stop, out, fill)

    monkeypatch.setattr(GradeCache, "read_blocks", interrupted)
    with pytest.raises(KeyboardInterrupt):
        grade(subs, PRESET, worst_case=False, cache=tmp_path / "cache2")
    assert not [t for t in threading.enumerate() if t.name.startswith("read")]


def test_interrupted_products_resume_from_their_last_point(subs, reference, monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    small_tiles(monkeypatch, rows=5, cols=5, blocks=1)  # one tile, read one block at a time
    monkeypatch.setattr(products, "SAVE_EVERY", 0.0)  # a resume point after every block
    reads = []
    real = GradeCache.read_blocks

    def interrupted(self, record, which, first, stop, out, fill=True):
        reads.append(first)
        if first == 2:  # the third block: two are done and saved
            raise KeyboardInterrupt
        return real(self, record, which, first, stop, out, fill)

    monkeypatch.setattr(GradeCache, "read_blocks", interrupted)
    with pytest.raises(KeyboardInterrupt):
        grade(subs, PRESET, worst_case=False, cache=cache)
    assert len(list((cache / "progress").glob("*.npz"))) == 1
    monkeypatch.setattr(GradeCache, "read_blocks", real)
    loads = count_loads(monkeypatch)
    r = grade(subs, PRESET, worst_case=False, cache=cache)
    assert loads == [] and r.work["blocks_resumed"] == 2 and r.work["pairs_computed"] == 25
    assert_equals_reference(r, reference, 5)
    assert list((cache / "progress").glob("*.npz")) == []


def test_the_cache_folder_defaults_beside_out_and_must_be_usable(subs, tmp_path, monkeypatch):
    assert default_cache(tmp_path / "grading") == tmp_path / "grading.cache"
    monkeypatch.chdir(tmp_path / "..")
    here = Path.cwd()
    assert default_cache(".") == here.parent / f"{here.name}.cache"
    r = grade(subs[:2], PRESET, worst_case=False, out=tmp_path / "g", heatmap=False)
    assert (
        Path(r.work["cache"]) == tmp_path / "g.cache" and (tmp_path / "g.cache" / "pairs").is_dir()
    )
    (tmp_path / "file").write_text("x")
    with pytest.raises(TeamLeducError, match="cannot use .*file as the grading cache"):
        grade(subs[:2], PRESET, worst_case=False, cache=tmp_path / "file")


# --------------------------------------------------------------------------- keys


def test_a_changed_file_invalidates_its_entry(subs, monkeypatch, tmp_path):
    import shutil

    folder = tmp_path / "mine"
    shutil.copytree(subs[1], folder)
    cache = tmp_path / "cache"
    entrants = [subs[0], folder, subs[2]]
    before = grade(entrants, PRESET, worst_case=False, cache=cache)
    meta = folder / "meta-strategy.csv"
    lines = meta.read_text().splitlines()
    (signal_a, p_a), (signal_b, p_b) = (line.split(",") for line in lines)
    lines = [f"{signal_a},{p_b}", f"{signal_b},{p_a}"]  # swap the two signals' weights
    meta.write_text("\n".join(lines) + "\n")
    loads = count_loads(monkeypatch)
    after = grade(entrants, PRESET, worst_case=False, cache=cache)
    assert loads == [str(folder)] and after.work["pairs_computed"] == 3 + 2
    assert after.values[1, 0] != before.values[1, 0]
    assert after.values[1, 0] == evaluate(folder, subs[0], PRESET).value
    assert after.values[0, 2] == before.values[0, 2]


def test_the_key_holds_preset_version_and_content(subs, monkeypatch, tmp_path):
    tiny, small = get_config("tiny-team-leduc"), get_config(PRESET)
    assert entrant_key(subs[0], small) != entrant_key(subs[0], tiny)
    assert entrant_key(subs[0], small) != entrant_key(subs[1], small)
    assert entrant_key("uniform", small, baseline=True) != entrant_key("uniform", tiny, True)
    assert entrant_key(tmp_path / "nothing", small) is None
    key = entrant_key(subs[0], small)
    cache = tmp_path / "cache"
    grade(subs[:2], PRESET, worst_case=False, cache=cache)
    monkeypatch.setattr(grade_cache, "__version__", "9.9.9")
    assert entrant_key(subs[0], small) != key
    loads = count_loads(monkeypatch)
    r = grade(subs[:2], PRESET, worst_case=False, cache=cache)
    assert len(loads) == 2 and r.work["pairs_cached"] == 0  # nothing of another version is used
    # a record of another version under the current key is not trusted either
    store = GradeCache(cache, small)
    new_key = entrant_key(subs[0], small)
    monkeypatch.setattr(grade_cache, "__version__", "0.0.1")
    assert store.record(new_key, 10323) is None


# --------------------------------------------------------------------------- corruption


def flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x10
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["array byte", "array truncated", "record", "pairs"])
def test_corrupt_cache_files_are_recomputed_not_trusted(
    subs, reference, monkeypatch, tmp_path, damage
):
    cache = tmp_path / "cache"
    grade(subs[:3], PRESET, worst_case=False, cache=cache)
    key = entrant_key(subs[1], get_config(PRESET))
    a = cache / "entrants" / f"{key}.a.npy"
    if damage == "array byte":
        flip_byte(a, a.stat().st_size - 8 * 5000)  # in the second block
    elif damage == "array truncated":
        a.write_bytes(a.read_bytes()[:-8])
    elif damage == "record":
        meta = cache / "entrants" / f"{key}.json"
        meta.write_text(meta.read_text().replace('"signals": 2', '"signals": 3'))
    if damage != "pairs":
        for p in (cache / "pairs").glob("*.npz"):  # so that the arrays are read again
            p.unlink()
    else:
        (pairs,) = (cache / "pairs").glob("*.npz")
        flip_byte(pairs, pairs.stat().st_size // 2)
    loads = count_loads(monkeypatch)
    r = grade(subs[:3], PRESET, worst_case=False, cache=cache)
    assert loads == ([] if damage == "pairs" else [str(subs[1])])
    assert r.work["pairs_computed"] == 9
    assert r.signals == (1, 2, 3)
    assert_equals_reference(r, reference, 3)


# --------------------------------------------------------------------------- one Ctrl-C


@pytest.mark.parametrize("delay", [1.0, 3.5, 6.0])
def test_one_ctrl_c_ends_grade_jobs_2(tmp_path, delay):
    teamleduc = Path(sys.executable).with_name("teamleduc")
    # 32 entrants: about 9 s on a quiet machine, so that every delay lands inside the run
    baselines = ",".join(f"random-pure:{k}" for k in range(32))
    out = tmp_path / "out"

    def attempt(delay):
        shutil.rmtree(out, ignore_errors=True)
        run = interrupting.interrupt(
            [str(teamleduc), "grade", "--baselines", baselines, "--preset", "team-leduc"]
            + ["--jobs", "2", "--out", str(out), "--no-heatmap"],
            delay,
            tmp_path,
            timeout=10,
        )  # no process of the group (no worker) is left: checked there
        text = run.err
        assert "Traceback" not in text and "Exception ignored" not in text, text
        if run.finished_before or run.code == 0:
            # ended before the signal, or as it was exiting with its work done: complete
            assert run.code == 0 and (out / "grade.json").exists(), text
            assert "wrote leaderboard.csv" in text, text
        else:
            assert run.code == 130, text
            run.assert_prompt(2.0)
            assert "aborted" in text
        assert not out.exists() or (out / "grade.json").exists()
        return run

    interrupting.until_it_lands(attempt, delay)
