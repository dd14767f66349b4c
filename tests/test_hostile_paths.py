"""Hostile paths (issue 34): what a path is, what is read of it, and one bad entry of a class.

Every command agrees on what a path is (:func:`teamleduc.entrants.baseline_or_path`: a baseline
name that is also a file or folder here is refused, ``./NAME`` is the folder and
``baseline:NAME`` the baseline), nothing opens a pipe or a device or reads an unbounded file
(the grading cache's key reads what the loader reads, the way it reads it), and in a class one
bad entry is one invalid row. Each test runs under an alarm: a hang fails it instead of
stalling the suite.
"""

import json
import os
import shutil
import signal
import socket
import struct
import zipfile
from pathlib import Path

import pytest

from teamleduc.baselines import baseline, canonical_name, parse_baseline
from teamleduc.config import get_config
from teamleduc.entrants import baseline_or_path, entrant_name, load_entrant, resolve_preset
from teamleduc.errors import TeamLeducError
from teamleduc.evaluate import evaluate
from teamleduc.files.convert import convert
from teamleduc.files.findings import SubmissionError
from teamleduc.files.safeio import MAX_DIRECTORY, open_container
from teamleduc.files.writing import write_submission
from teamleduc.grade import grade
from teamleduc.grade.cache import entrant_key
from teamleduc.grade.loading import load_estimate
from teamleduc.validate import class_entries, is_class_folder, validate_many

from .cli_run import run

PRESET = "tiny-team-leduc"
CONFIG = get_config(PRESET)
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False
FAST = ["--no-heatmap", "--no-worst-case", "--jobs", "1", "--no-cache"]


@pytest.fixture(autouse=True)
def deadline():
    """A hang (a FIFO opened, /dev/zero read) fails the test after 60 s instead of stalling."""

    def expired(*_):
        raise TimeoutError("hung on a hostile path")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> tuple[Path, Path]:
    """Two valid submissions: the uniform and the cautious baselines written as folders."""
    root = tmp_path_factory.mktemp("good")
    write_submission(baseline("uniform", CONFIG), root / "u")
    write_submission(baseline("cautious", CONFIG), root / "c")
    return root / "u", root / "c"


def zip_of(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w") as z:
        for f in sorted(folder.iterdir()):
            z.write(f, f.name)
    return target


def huge_directory_zip(path: Path) -> Path:
    """A sparse file whose end record declares a 4 GB central directory (zipfile would read
    it whole into memory)."""
    size = 0xFFFF0000
    with open(path, "wb") as f:
        f.truncate(size + 100)
        f.seek(size + 100)
        f.write(struct.pack("<4s4H2LH", b"PK\005\006", 0, 0, 60000, 60000, size, 100, 0))
    return path


@pytest.fixture
def hostile_class(tmp_path, good) -> Path:
    """A class folder: two good entries and one of each kind of bad one."""
    cls = tmp_path / "class"
    cls.mkdir()
    shutil.copytree(good[0], cls / "alice")
    zip_of(good[1], cls / "bob.zip")
    (cls / "dangling.zip").symlink_to(tmp_path / "nowhere")
    (cls / "loop1.zip").symlink_to("loop2.zip")
    (cls / "loop2.zip").symlink_to("loop1.zip")
    os.mkfifo(cls / "fifo.zip")
    (cls / "zero.zip").symlink_to("/dev/zero")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(cls / "sock.zip"))
    (cls / "empty").mkdir()
    shutil.copytree(good[0], cls / "withfifo")
    os.mkfifo(cls / "withfifo" / "notes")
    (cls / "self").symlink_to(".")  # the class itself, as an entry
    huge_directory_zip(cls / "bigdir.zip")
    return cls


BAD = {
    "bigdir": "central directory of 4,294,901,760 bytes",
    "dangling": "broken or looping symbolic link",
    "empty": "holds no files",
    "fifo": "not a regular file",
    "loop1": "broken or looping symbolic link",
    "loop2": "broken or looping symbolic link",
    "self": "refused: symbolic link",
    "sock": "not a regular file",
    "withfifo": "notes: refused: not a regular file",
    "zero": "not a regular file",
}


# ------------------------------------------------------------------ 1. one bad entry, one row


def test_validate_class_one_row_per_bad_entry(capsys, hostile_class):
    code, out, err = run(capsys, ["validate", hostile_class, "--preset", PRESET, "--json"])
    assert code == 1, err
    rows = {Path(r["path"]).name.removesuffix(".zip"): r for r in json.loads(out)["submissions"]}
    assert sorted(rows) == sorted([*BAD, "alice", "bob"])
    assert rows["alice"]["ok"] and rows["bob"]["ok"]
    for name, words in BAD.items():
        assert not rows[name]["ok"] and words in rows[name]["first_problem"], name


def test_validate_many_library_keeps_going(hostile_class):
    batch = validate_many([hostile_class], CONFIG)
    assert [r.ok for r in batch.reports].count(True) == 2 and len(batch.reports) == 12
    with pytest.raises(ValueError):  # bad seats are the batch's error, raised once
        validate_many([hostile_class], CONFIG, seats=[0])


def test_grade_class_lists_bad_entries_and_grades_the_rest(capsys, hostile_class, tmp_path):
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, ["grade", hostile_class, "--out", out_dir, "--json", *FAST])
    assert code == 0, err
    result = json.loads(out)
    assert sorted(s["name"] for s in result["leaderboard"]) == ["alice", "bob"]
    invalid = {i["name"]: i["message"] for i in result["invalid"]}
    assert sorted(invalid) == sorted(BAD)
    for name, words in BAD.items():
        assert words in invalid[name], name
    # the two graded are the baselines they were written from, exactly
    rows = {s["name"]: s for s in result["leaderboard"]}
    assert rows["bob"]["mean_score"] == -rows["alice"]["mean_score"]
    bob_as_a = evaluate(hostile_class / "bob.zip", hostile_class / "alice", PRESET).value
    assert (
        result["values_team_a"][result["names"].index("bob")][result["names"].index("alice")]
        == bob_as_a
    )


def test_a_submission_in_its_top_folder_is_not_a_class(capsys, tmp_path, good):
    cls = tmp_path / "class"
    shutil.copytree(good[0], cls / "alice" / "submission")  # alice's files in one top folder
    shutil.copytree(good[1], cls / "bob")
    assert is_class_folder(cls) and not is_class_folder(cls / "alice")
    assert [p.name for p in class_entries(cls)] == ["alice", "bob"]
    code, out, _ = run(capsys, ["validate", cls, "--preset", PRESET])
    assert code == 0 and [line.split()[0] for line in out.splitlines()[1:3]] == ["alice", "bob"]
    code, out, _ = run(capsys, ["validate", cls / "alice", "--preset", PRESET])
    assert code == 0 and out.startswith("VALID: ")  # one report, not a table of one


def test_unreadable_entries_are_rows(monkeypatch, hostile_class, good):
    """An entry that cannot be listed or opened (simulated: the suite may run as root)."""
    locked = hostile_class / "locked"
    shutil.copytree(good[0], locked)
    zip_of(good[0], hostile_class / "lockedzip.zip")
    real_scandir, real_open = os.scandir, os.open

    def scandir(path="."):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    def open_(path, flags, *args, **kwargs):
        if Path(path).name == "lockedzip.zip":
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "open", open_)
    reports = {Path(r.path).name: r for r in validate_many([hostile_class], CONFIG).reports}
    assert "cannot list folder" in str(reports["locked"].errors[0])
    assert "cannot open: Permission denied" in str(reports["lockedzip.zip"].errors[0])
    assert reports["alice"].ok


@pytest.mark.skipif(ROOT, reason="root reads files whatever their mode")
def test_chmod_000_entries_are_rows(capsys, hostile_class, good):
    shutil.copytree(good[0], hostile_class / "locked")
    zip_of(good[0], hostile_class / "lockedzip.zip")
    os.chmod(hostile_class / "locked", 0)
    os.chmod(hostile_class / "lockedzip.zip", 0)
    try:
        code, out, _ = run(capsys, ["validate", hostile_class, "--preset", PRESET, "--json"])
        rows = {Path(r["path"]).name: r for r in json.loads(out)["submissions"]}
        assert code == 1 and rows["alice"]["ok"]
        assert "cannot" in rows["locked"]["first_problem"]
        assert "Permission denied" in rows["lockedzip.zip"]["first_problem"]
    finally:
        os.chmod(hostile_class / "locked", 0o755)
        os.chmod(hostile_class / "lockedzip.zip", 0o644)


# ------------------------------------------------------------------ 2. reading only what is read


def test_key_reads_only_what_the_loader_reads(tmp_path, good):
    sub = tmp_path / "sub"
    shutil.copytree(good[0], sub)
    key = entrant_key(sub, CONFIG)
    with open(sub / "video.bin", "wb") as f:  # a huge sparse file the loader never reads
        f.truncate(1 << 40)
    os.mkfifo(sub / "notes.txt")  # and a pipe: the container refuses it
    assert entrant_key(sub, CONFIG) is None
    (sub / "notes.txt").unlink()
    with_video = entrant_key(sub, CONFIG)
    assert with_video not in (None, key)  # its name and size count, its bytes are not read
    with open(sub / "video.bin", "r+b") as f:
        f.write(b"other bytes")
    assert entrant_key(sub, CONFIG) == with_video
    # one byte the loader reads changes the key; a rename does not
    path = sub / "strategy0-player2.csv"
    data = path.read_bytes()
    path.write_bytes(data.replace(b"0.5", b"0.4", 1) if b"0.5" in data else data + b"\n")
    assert entrant_key(sub, CONFIG) != with_video
    path.write_bytes(data)
    sub.rename(tmp_path / "renamed")
    assert entrant_key(tmp_path / "renamed", CONFIG) == with_video


def test_key_of_a_zip_and_of_team_zips(tmp_path, good):
    z = zip_of(good[0], tmp_path / "u.zip")
    key = entrant_key(z, CONFIG)
    assert key is not None and key != entrant_key(good[0], CONFIG)  # the kind counts
    # a huge sparse file with a valid zip at its end: the loader reads the end, so does the key
    big = tmp_path / "big.zip"
    with open(big, "wb") as f:
        f.truncate(1 << 40)
        f.seek(1 << 40)
        f.write(z.read_bytes())
    assert entrant_key(big, CONFIG) == key  # the same members, the same bytes read
    assert load_entrant(big, CONFIG).num_signals == 1
    # a folder of team zips: the members of the team zips are read, and count
    convert(good[0], tmp_path / "teams", "npy2025", CONFIG)
    convert(good[1], tmp_path / "other", "npy2025", CONFIG)
    key = entrant_key(tmp_path / "teams", CONFIG)
    assert key is not None
    shutil.copy(tmp_path / "other" / "team24.zip", tmp_path / "teams" / "team24.zip")
    assert entrant_key(tmp_path / "teams", CONFIG) not in (None, key)
    r = grade([tmp_path / "teams", tmp_path / "other"], PRESET, worst_case=False, cache=False)
    assert r.values[0, 1] == evaluate(tmp_path / "teams", tmp_path / "other", PRESET).value


@pytest.mark.parametrize("case", ["fifo", "zero", "stdin", "socket", "bigdir", "loop"])
def test_no_path_is_opened_unless_it_is_a_regular_file(tmp_path, case):
    path = {
        "fifo": tmp_path / "p.zip",
        "zero": Path("/dev/zero"),
        "stdin": Path("/dev/stdin"),
        "socket": tmp_path / "s.zip",
        "bigdir": tmp_path / "bigdir.zip",
        "loop": tmp_path / "loop.zip",
    }[case]
    if case == "fifo":
        os.mkfifo(path)
    elif case == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
    elif case == "bigdir":
        huge_directory_zip(path)
    elif case == "loop":
        path.symlink_to(path.name)
    if case == "stdin" and Path("/dev/stdin").resolve().is_file():
        pytest.skip("stdin is a regular file here")
    assert entrant_key(path, CONFIG) is None
    assert load_estimate(path) == 192 << 20
    with pytest.raises((SubmissionError, FileNotFoundError)):
        open_container(path).close()
    with pytest.raises(TeamLeducError):
        load_entrant(path, CONFIG)
    result = grade([path, "uniform", "cautious"], PRESET, worst_case=False, cache=False)
    assert result.names == ("uniform", "cautious") and len(result.invalid) == 1


def test_a_central_directory_is_bounded_before_it_is_read(tmp_path):
    with pytest.raises(SubmissionError, match="central directory") as e:
        open_container(huge_directory_zip(tmp_path / "big.zip"))
    assert f"limit {MAX_DIRECTORY:,}" in str(e.value)


def test_odd_paths_are_what_they_look_like(capsys, tmp_path, good):
    # a trailing slash; a folder named like a zip; a file named just ".zip"
    code, out, _ = run(capsys, ["validate", f"{good[0]}/", "--preset", PRESET])
    assert code == 0 and out.startswith("VALID")
    assert entrant_name(f"{good[0]}/") == "u"
    shutil.copytree(good[0], tmp_path / "folder.zip")
    assert load_entrant(tmp_path / "folder.zip", CONFIG).name == "folder"
    dotzip = zip_of(good[0], tmp_path / ".zip")
    assert entrant_name(dotzip) == ".zip" and load_entrant(dotzip, CONFIG).name == ".zip"
    # a folder holding both the CSV files and a team zip is the CSV submission, the zip unread
    mixed = tmp_path / "mixed"
    shutil.copytree(good[0], mixed)
    zip_of(good[1], mixed / "team13.zip")
    code, out, _ = run(capsys, ["validate", mixed, "--preset", PRESET])
    assert code == 0 and "team13.zip: not read" in out
    # an empty folder; objects that are no path
    (tmp_path / "empty").mkdir()
    code, out, _ = run(capsys, ["validate", tmp_path / "empty", "--preset", PRESET])
    assert code == 1 and "holds no files" in out
    with pytest.raises(TypeError, match="not int"):
        load_entrant(3, CONFIG)
    with pytest.raises(TeamLeducError, match="no such submission"):
        load_entrant("a\0b", CONFIG)


# ------------------------------------------------------------------ 3. a path or a baseline


@pytest.fixture
def ambiguous(tmp_path, good, monkeypatch) -> Path:
    """The current folder holds folders named ``cautious`` and ``random-pure:3`` (the
    uniform strategy: a different value from the baselines of those names)."""
    shutil.copytree(good[0], tmp_path / "cautious")
    shutil.copytree(good[0], tmp_path / "random-pure:3")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "cautious", "uniform"],
        ["evaluate", "uniform", "random-pure:3"],
        ["match", "cautious", "uniform"],
        ["exploitability", "cautious"],
        ["trace", "cautious"],
        ["grade", "cautious", "uniform", "--out", "g", *FAST],
        ["grade", "x=cautious", "uniform", "--out", "g", *FAST],
    ],
)
def test_a_baseline_name_that_is_a_folder_here_is_refused(capsys, ambiguous, argv):
    code, out, err = run(capsys, [*argv, "--preset", PRESET])
    assert code == 2 and "is both a baseline and a folder" in err, out + err
    assert "./" in err and "baseline:" in err
    assert not (ambiguous / "g").exists()


def test_each_spelling_is_what_it_says(capsys, ambiguous):
    folder = evaluate("./cautious", "uniform", PRESET).value
    named = evaluate("baseline:cautious", "uniform", PRESET).value
    assert folder == evaluate(baseline("uniform", CONFIG), "uniform", PRESET).value
    assert named == evaluate(baseline("cautious", CONFIG), "uniform", PRESET).value
    assert folder != named
    argv = ["evaluate", "./cautious", "baseline:uniform", "--json", "--preset", PRESET]
    code, out, _ = run(capsys, argv)
    assert code == 0 and json.loads(out)["value"] == folder
    # library: a Path is a path; a bare name here is refused; the prefix is a baseline
    assert load_entrant(Path("cautious"), CONFIG).source == "cautious"
    assert load_entrant("baseline:cautious", CONFIG).source == "baseline"
    with pytest.raises(TeamLeducError, match="both a baseline"):
        load_entrant("cautious", CONFIG)
    with pytest.raises(TeamLeducError, match="both a baseline"):
        resolve_preset(CONFIG, ["random-pure:3"])
    assert baseline_or_path("uniform") == "uniform" and baseline_or_path("cautious/") is None
    assert baseline_or_path("cautious", base=ambiguous / "random-pure:3") == "cautious"
    assert parse_baseline("Baseline:Random-Pure:3") == ("random-pure", 3)
    assert canonical_name("baseline:cfr:10") == "cfr:10"
    with pytest.raises(TeamLeducError, match="unknown baseline"):
        load_entrant("baseline:nope", CONFIG)


def test_grade_keeps_folders_and_baselines_apart(capsys, ambiguous):
    # a class folder's entries named like baselines are folders; --baselines are baselines
    out_dir = str(ambiguous.parent / f"{ambiguous.name}-grading")  # outside the class "."
    code, out, err = run(
        capsys, ["grade", ".", "--baselines", "cautious", "--out", out_dir, "--json", *FAST]
    )
    assert code == 0, err
    result = json.loads(out)
    sources = {s["name"]: s["source"] for s in result["leaderboard"]}
    assert sources == {
        "cautious": "cautious",
        "random-pure:3": "random-pure:3",
        "cautious (2)": "baseline",
    }
    # Path objects in the library: the same
    r = grade([Path("cautious")], PRESET, baselines="cautious", worst_case=False, cache=False)
    u = evaluate(baseline("uniform", CONFIG), "baseline:cautious", PRESET).value
    assert r.sources == ("cautious", "baseline") and r.values[0, 1] == u


def test_a_names_file_row_is_read_from_the_files_folder(tmp_path, monkeypatch):
    """In a names file, a baseline name that is also a folder beside the file is refused with
    the file and line; beside the file nothing of that name: the baseline, whatever the
    current folder holds."""
    from teamleduc.entrants import read_names_file

    sub = tmp_path / "class"
    sub.mkdir()
    names = sub / "names.csv"
    names.write_text("alice,uniform\nbob,cautious\n")
    (tmp_path / "cautious").mkdir()  # in the current folder, not beside the file
    monkeypatch.chdir(tmp_path)
    got = read_names_file(names)
    assert [(n.name, n.path) for n in got] == [
        ("alice", "baseline:uniform"),
        ("bob", "baseline:cautious"),
    ]
    (sub / "cautious").mkdir()
    with pytest.raises(TeamLeducError, match=r"names.csv, line 2: 'cautious' is both a baseline"):
        read_names_file(names)
