"""Strategy files parsed on threads: the same results and findings, in the same order, as one
file after the other; memory bounded; errors and the pool's threads handled."""

import os
import threading

import numpy as np
import pytest

import teamleduc.files.threads as file_threads
from teamleduc.config import get_config
from teamleduc.decimals import format_rows as _real_format_rows
from teamleduc.files.container import read_container
from teamleduc.files.findings import Finding
from teamleduc.files.model import Submission
from teamleduc.files.safeio import open_container
from teamleduc.files.threads import in_order
from teamleduc.files.writing import write_submission
from teamleduc.infosets import infoset_tables
from teamleduc.tree import build_tree

SMALL = get_config("small-team-leduc")


def _items(n):
    return [(k, f"file{k}") for k in range(n)]


def _read(k, name):
    if k % 5 == 3:
        return Finding(name, None, None, "cannot read")
    return bytes([k % 256]) * (k + 1)


def _parse(data, k, name):
    return (name, len(data), data[:1])


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_results_come_in_order_as_without_threads(threads):
    serial = list(in_order(_items(40), _read, _parse, threads=1))
    assert list(in_order(_items(40), _read, _parse, threads=threads)) == serial
    assert [item for item, _ in serial] == _items(40)
    assert isinstance(serial[3][1], Finding) and serial[4][1] == ("file4", 5, b"\x04")


def test_files_in_flight_are_bounded_by_count_and_by_bytes(monkeypatch):
    taken = []
    most = []

    def read(k, name):
        most.append(k + 1 - len(taken))  # read and not yet taken, this one included
        return b"x" * 1000

    for item, _ in in_order(_items(30), read, _parse, threads=3):
        taken.append(item)
    assert max(most) == 2 * 3 + 1
    monkeypatch.setattr(file_threads, "MAX_BYTES_IN_FLIGHT", 2500)
    taken.clear()
    most.clear()
    for item, _ in in_order(_items(30), read, _parse, threads=3):
        taken.append(item)
    assert max(most) == 3  # a third file of 1,000 bytes passes 2,500: the first is taken


def _join_parse_threads():
    for t in threading.enumerate():
        if t.name.startswith("teamleduc-files"):
            t.join(60)
            assert not t.is_alive()


def _blocking_parse(release, done, fail_at=None, free=()):
    """A parse that raises at ``fail_at``, returns at once for ``free`` and otherwise blocks
    until ``release`` is set."""

    def parse(data, k, name):
        if k == fail_at:
            raise RuntimeError(f"boom at {k}")
        if k not in free:
            release.wait(60)
        done.append(k)
        return k

    return parse


def test_an_error_does_not_wait_for_the_parses_under_way():
    release, done = threading.Event(), []
    with pytest.raises(RuntimeError, match="boom at 0"):
        for _ in in_order(_items(30), _read, _blocking_parse(release, done, 0), threads=3):
            pass
    assert done == []  # back here while the three threads still parse files 1, 2 and 4
    release.set()
    _join_parse_threads()
    assert sorted(done) == [1, 2, 4]  # nothing queued behind them was started


def test_stopping_early_does_not_wait_for_the_parses_under_way():
    release, done = threading.Event(), []
    gen = in_order(_items(30), _read, _blocking_parse(release, done, free=(0,)), threads=3)
    assert next(gen) == ((0, "file0"), 0)
    gen.close()  # what an exception in the caller's loop does
    assert done == [0]  # back here while the threads still parse files 1, 2 and 4
    release.set()
    _join_parse_threads()
    assert sorted(done) == [0, 1, 2, 4]


def test_a_big_file_is_parsed_alone_here(monkeypatch):
    monkeypatch.setattr(file_threads, "ALONE_BYTES", 20)
    running = []
    where = {}

    def parse(data, k, name):
        running.append(k)
        where[k] = (threading.current_thread() is threading.main_thread(), len(running))
        running.remove(k)
        return k

    serial = [r for _, r in in_order(_items(40), _read, parse, threads=1)]
    where.clear()
    assert [r for _, r in in_order(_items(40), _read, parse, threads=3)] == serial
    assert len(where) == 32  # the 8 Findings are not parsed
    for k, (here, at_once) in where.items():
        big = k + 1 > 20
        assert here == big and (at_once == 1 or not big)


def test_a_thread_that_cannot_start_leaves_the_work_to_this_one(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    def refuse(self, *args, **kwargs):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(ThreadPoolExecutor, "submit", refuse)
    serial = list(in_order(_items(20), _read, _parse, threads=1))
    assert list(in_order(_items(20), _read, _parse, threads=3)) == serial


def _damaged_submission(tmp_path):
    """A small-team-leduc submission of 9 signals with bad, missing and oversized files."""
    rng = np.random.default_rng(5)
    tables = infoset_tables(build_tree(SMALL))
    strategies = {}
    for s in range(4):
        a = rng.random((9, tables[s].size, 3)) * tables[s].legal
        strategies[s] = a / a.sum(axis=2, keepdims=True)
    probs = rng.random(9) + 0.1
    sub = Submission(np.arange(9), probs / probs.sum(), (0, 1, 2, 3), strategies)
    path = write_submission(sub, tmp_path / "s", config=SMALL)
    lines = (path / "strategy2-player3.csv").read_bytes().split(b"\n")
    lines[4] = b"0.5,0.7,nan"
    lines[9] = b"0.5;0.5;0"
    (path / "strategy2-player3.csv").write_bytes(b"\n".join(lines))
    (path / "strategy4-player1.csv").write_bytes(b"1,0,0\r\n" * 3)
    (path / "strategy5-player2.csv").unlink()
    (path / "strategy6-player4.csv").write_bytes(b"0" * (10 * 2**20))  # above its limit
    (path / "strategy7-player2.csv").write_bytes(b"")
    return path, sub


def _read_with(threads, path, keep, monkeypatch):
    monkeypatch.setattr(file_threads, "THREADS", threads)
    with open_container(path) as c:
        return read_container(c, SMALL, keep=keep)


@pytest.mark.parametrize("keep", [True, False])
def test_a_damaged_submission_reads_the_same_on_threads(tmp_path, monkeypatch, keep):
    path, _ = _damaged_submission(tmp_path)
    serial = _read_with(1, path, keep, monkeypatch)
    assert len(serial.errors) >= 6 and serial.files_checked == 35
    assert [f.file for f in serial.errors[:5]] == [
        "strategy2-player3.csv",
        "strategy2-player3.csv",
        "strategy4-player1.csv",
        "strategy6-player4.csv",
        "strategy7-player2.csv",
    ]
    for threads in (2, 4):
        r = _read_with(threads, path, keep, monkeypatch)
        assert (r.errors, r.warnings, r.files_checked) == (
            serial.errors,
            serial.warnings,
            serial.files_checked,
        )


def test_a_good_submission_loads_bit_for_bit_on_threads(tmp_path, monkeypatch):
    path, sub = _damaged_submission(tmp_path)
    write_submission(sub, path, config=SMALL, overwrite=True)
    for threads in (1, 3):
        r = _read_with(threads, path, True, monkeypatch)
        assert not r.errors
        for s in sub.seats:
            assert np.array_equal(r.submission.strategies[s], sub.strategies[s])


@pytest.mark.parametrize("name", ["s", "s.zip"])
def test_a_submission_is_written_the_same_on_threads(tmp_path, monkeypatch, name):
    """Strategy files formatted on threads: the same bytes, file for file, as on one thread,
    read back bit for bit; a formatting that fails half-way leaves nothing."""
    import zipfile

    import teamleduc.files.writing as writing

    _, sub = _damaged_submission(tmp_path / "damaged")

    def files(path):
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as z:
                return [(i.filename, z.read(i)) for i in z.infolist()]
        return sorted((p.name, p.read_bytes()) for p in path.iterdir())

    written = {}
    for threads in (1, 3):
        monkeypatch.setattr(file_threads, "THREADS", threads)
        (tmp_path / f"{threads}").mkdir()
        written[threads] = files(write_submission(sub, tmp_path / f"{threads}" / name))
    assert written[1] == written[3] and len(written[1]) == 1 + 9 * 4
    back = _read_with(3, tmp_path / "3" / name, True, monkeypatch).submission
    assert all(np.array_equal(back.strategies[s], sub.strategies[s]) for s in sub.seats)

    calls = []

    def failing(rows):
        calls.append(1)
        if len(calls) == 7:
            raise OSError("disk full")
        return _real_format_rows(rows)

    monkeypatch.setattr(writing, "format_rows", failing)
    (tmp_path / "failed").mkdir()
    with pytest.raises(OSError, match="disk full"):
        write_submission(sub, tmp_path / "failed" / name)
    assert not (tmp_path / "failed" / name).exists()
    assert [p.name for p in (tmp_path / "failed").iterdir()] == []
    _join_parse_threads()


def test_parse_threads_default_and_setting(monkeypatch):
    monkeypatch.setattr(file_threads, "THREADS", None)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert file_threads.cpu_count() == cpus
    assert file_threads.threads_to_use() == max(1, min(file_threads.MAX_THREADS, cpus))
    monkeypatch.setattr(file_threads, "THREADS", 1)
    assert file_threads.threads_to_use() == 1


@pytest.mark.parametrize(
    ("cpus", "jobs", "threads"),
    [(2, 2, 2), (2, 1, 2), (16, 16, 2), (16, 4, 4), (16, 2, 4), (8, 3, 2)],
)
def test_grading_workers_share_the_cpus_with_two_threads_at_least(monkeypatch, cpus, jobs, threads):
    from teamleduc.grade.workers import worker_parse_threads

    monkeypatch.setattr(file_threads, "cpu_count", lambda: cpus)
    assert worker_parse_threads(jobs) == threads


@pytest.mark.parametrize(
    ("cpus", "jobs", "threads"),
    [(2, 2, 1), (2, 1, 2), (16, 16, 1), (16, 4, 4), (16, 3, 5), (8, 3, 2), (4, 8, 1)],
)
def test_grading_workers_compute_reaches_on_their_share_of_the_cpus(
    monkeypatch, cpus, jobs, threads
):
    from teamleduc.grade.workers import worker_reach_threads

    monkeypatch.setattr(file_threads, "cpu_count", lambda: cpus)
    assert worker_reach_threads(jobs) == threads
