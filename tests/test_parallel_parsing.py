"""Strategy files parsed on threads: the same results and findings, in the same order, as one
file after the other; memory bounded; errors and the pool's threads handled."""

import os
import threading

import numpy as np
import pytest

import teamleduc.files.container as container
from teamleduc.config import get_config
from teamleduc.files.container import parsed_in_order, read_container
from teamleduc.files.findings import Finding
from teamleduc.files.model import Submission
from teamleduc.files.safeio import open_container
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
    serial = list(parsed_in_order(_items(40), _read, _parse, threads=1))
    assert list(parsed_in_order(_items(40), _read, _parse, threads=threads)) == serial
    assert [item for item, _ in serial] == _items(40)
    assert isinstance(serial[3][1], Finding) and serial[4][1] == ("file4", 5, b"\x04")


def test_files_in_flight_are_bounded_by_count_and_by_bytes(monkeypatch):
    taken = []
    most = []

    def read(k, name):
        most.append(k + 1 - len(taken))  # read and not yet taken, this one included
        return b"x" * 1000

    for item, _ in parsed_in_order(_items(30), read, _parse, threads=3):
        taken.append(item)
    assert max(most) == 2 * 3 + 1
    monkeypatch.setattr(container, "MAX_BYTES_IN_FLIGHT", 2500)
    taken.clear()
    most.clear()
    for item, _ in parsed_in_order(_items(30), read, _parse, threads=3):
        taken.append(item)
    assert max(most) == 3  # a third file of 1,000 bytes passes 2,500: the first is taken


def test_a_failing_parse_raises_and_leaves_no_thread():
    before = threading.active_count()

    def parse(data, k, name):
        if k == 7:
            raise RuntimeError("boom at 7")
        return k

    got = []
    with pytest.raises(RuntimeError, match="boom at 7"):
        for _, r in parsed_in_order(_items(30), _read, parse, threads=3):
            got.append(r)
    assert [r for r in got if not isinstance(r, Finding)] == [0, 1, 2, 4, 5, 6]
    assert threading.active_count() == before


def test_stopping_early_leaves_no_thread():
    before = threading.active_count()
    gen = parsed_in_order(_items(30), _read, _parse, threads=3)
    next(gen)
    gen.close()  # what an exception in the caller's loop does
    assert threading.active_count() == before


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
    monkeypatch.setattr(container, "PARSE_THREADS", threads)
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


def test_parse_threads_default_and_setting(monkeypatch):
    monkeypatch.setattr(container, "PARSE_THREADS", None)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert container.cpu_count() == cpus
    assert container.parse_threads() == max(1, min(container.MAX_PARSE_THREADS, cpus))
    monkeypatch.setattr(container, "PARSE_THREADS", 1)
    assert container.parse_threads() == 1


@pytest.mark.parametrize(
    ("cpus", "jobs", "threads"),
    [(2, 2, 2), (2, 1, 2), (16, 16, 2), (16, 4, 4), (16, 2, 4), (8, 3, 2)],
)
def test_grading_workers_share_the_cpus_with_two_threads_at_least(monkeypatch, cpus, jobs, threads):
    from teamleduc.grade.workers import worker_parse_threads

    monkeypatch.setattr(container, "cpu_count", lambda: cpus)
    assert worker_parse_threads(jobs) == threads
