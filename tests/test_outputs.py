"""Outputs as one unit (teamleduc.outputs): the overwrite rule of every writing command, the
staging that leaves a target untouched or complete, and permissions that follow the umask."""

import os
import socket
import stat
from pathlib import Path

import pytest

from teamleduc.errors import TeamLeducError
from teamleduc.outputs import (
    OutputExistsError,
    check_target,
    save_png,
    staged_file,
    staged_folder,
    umask,
    write_text_atomic,
)

from .cli_run import run


def listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def hidden(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


# ------------------------------------------------------------------ the rule


def test_rule_new_empty_and_non_empty_targets(tmp_path):
    assert check_target(tmp_path / "new") == tmp_path / "new"
    (tmp_path / "empty").mkdir()
    assert check_target(tmp_path / "empty") == tmp_path / "empty"
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(OutputExistsError, match="--overwrite"):
        check_target(tmp_path / "full")
    assert check_target(tmp_path / "full", overwrite=True) == tmp_path / "full"
    (tmp_path / "file.zip").write_bytes(b"z")
    with pytest.raises(FileExistsError):  # OutputExistsError is a FileExistsError too
        check_target(tmp_path / "file.zip")
    # the folder a run continues in may be written without --overwrite
    assert check_target(tmp_path / "full", allow=tmp_path / "full") == tmp_path / "full"


def test_rule_refuses_what_overwrite_cannot_fix(tmp_path, monkeypatch):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(TeamLeducError) as e:
        check_target(tmp_path / "afile" / "out", overwrite=True)
    assert "is a file" in str(e.value) and "--overwrite" not in str(e.value)
    monkeypatch.chdir(tmp_path)
    for target in (".", str(tmp_path), str(tmp_path.parent)):
        with pytest.raises(TeamLeducError, match="current folder"):
            check_target(target, overwrite=True)
    (tmp_path / "subs" / "alice").mkdir(parents=True)
    with pytest.raises(TeamLeducError, match="holds the input"):
        check_target("subs", overwrite=True, inputs=["subs/alice"])


def _special(path: Path, kind: str) -> None:
    """Make a named pipe, a socket or (as root only) a character device like /dev/null."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    else:
        try:
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device needs root")


@pytest.mark.parametrize(
    ("kind", "named"),
    [("fifo", "named pipe (FIFO)"), ("socket", "socket"), ("device", "character device")],
)
def test_rule_refuses_pipes_sockets_and_devices_even_with_overwrite(tmp_path, capsys, kind, named):
    """``--out /dev/null --overwrite`` run as root once replaced /dev/null by a folder."""
    target = tmp_path / "special"
    _special(target, kind)
    mode = target.lstat().st_mode
    for overwrite in (False, True):
        with pytest.raises(TeamLeducError) as e:
            check_target(target, overwrite=overwrite)
        assert not isinstance(e.value, OutputExistsError)
        assert str(e.value) == (
            f"{target}: refused: it is a {named}, not a file or folder; "
            "give a new file or folder's name"
        )
    for argv in (
        ["infosets", "--preset", "kuhn", "--out", str(target), "--overwrite"],
        ["baseline", "uniform", "--preset", "kuhn", "--out", str(target), "--overwrite"],
    ):
        code, _, err = run(capsys, argv)
        assert code == 2 and named in err and "Traceback" not in err
    assert target.lstat().st_mode == mode  # still what it was, not replaced
    assert hidden(tmp_path) == []


def test_a_link_to_a_device_is_replaced_not_followed(tmp_path):
    """A symbolic link is replaced itself (its target untouched), as before."""
    target = tmp_path / "fifo"
    os.mkfifo(target)
    link = tmp_path / "link"
    link.symlink_to(target)
    with staged_folder(link, overwrite=True) as stage:
        (stage / "x").write_text("x")
    assert (link / "x").read_text() == "x" and not link.is_symlink()
    assert stat.S_ISFIFO(target.lstat().st_mode)


def test_staged_folder_is_all_or_nothing(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "old.txt").write_text("previous run")
    with pytest.raises(RuntimeError), staged_folder(target, overwrite=True) as stage:
        (stage / "a.txt").write_text("a")
        raise RuntimeError("a failure midway")
    assert listing(target) == {"old.txt": b"previous run"} and hidden(tmp_path) == []
    with pytest.raises(KeyboardInterrupt), staged_folder(target, overwrite=True) as stage:
        (stage / "a.txt").write_text("a")
        raise KeyboardInterrupt
    assert listing(target) == {"old.txt": b"previous run"} and hidden(tmp_path) == []
    with staged_folder(target, overwrite=True) as stage:
        (stage / "a.txt").write_text("a")
        (stage / "b.txt").write_text("b")
    assert listing(target) == {"a.txt": b"a", "b.txt": b"b"} and hidden(tmp_path) == []


def test_staged_file_is_all_or_nothing(tmp_path):
    target = tmp_path / "sub.zip"
    target.write_bytes(b"old")
    with pytest.raises(ValueError), staged_file(target, overwrite=True) as tmp:
        tmp.write_bytes(b"half")
        raise ValueError
    assert target.read_bytes() == b"old" and hidden(tmp_path) == []
    with staged_file(target, overwrite=True) as tmp:
        tmp.write_bytes(b"new")
    assert target.read_bytes() == b"new" and hidden(tmp_path) == []


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_outputs_follow_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        with staged_folder(tmp_path / "d") as stage:
            (stage / "f").write_text("x")
        with staged_file(tmp_path / "s.zip") as tmp:
            tmp.write_bytes(b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "d").stat().st_mode) == 0o777 & ~mask
    assert stat.S_IMODE((tmp_path / "s.zip").stat().st_mode) == 0o666 & ~mask


# ------------------------------------------------------------------ every writing command


def _writers(tmp_path):
    """The argv of every writing command, its output named TARGET."""
    sub = tmp_path / "uniform-sub"
    return {
        "infosets": ["infosets", "--preset", "kuhn", "--out", "TARGET"],
        "baseline": ["baseline", "uniform", "--preset", "kuhn", "--out", "TARGET"],
        "convert": ["convert", str(sub), "TARGET", "--to", "csv", "--preset", "kuhn"],
        "best-response": [
            "best-response",
            "uniform",
            "--against",
            "a",
            "--preset",
            "kuhn",
            "--export",
            "TARGET",
        ],
        "grade": [
            "grade",
            "--baselines",
            "uniform,cautious",
            "--preset",
            "kuhn",
            "--no-heatmap",
            "--jobs",
            "1",
            "--out",
            "TARGET",
        ],
        "solve": ["solve", "--preset", "kuhn", "--time-limit", "2", "--quiet", "--out", "TARGET"],
    }


@pytest.mark.parametrize(
    "command",
    ["infosets", "baseline", "convert", "best-response", "grade", "solve"],
)
def test_one_overwrite_rule_for_every_command(tmp_path, capsys, command):
    assert (
        run(
            capsys,
            ["baseline", "uniform", "--preset", "kuhn", "--out", str(tmp_path / "uniform-sub")],
        )[0]
        == 0
    )
    argv = [str(tmp_path / "t") if a == "TARGET" else a for a in _writers(tmp_path)[command]]
    target = tmp_path / "t"
    target.mkdir()  # an empty folder is used as if new
    code, _, err = run(capsys, argv)
    assert code in (0, None), err
    first = {p.name for p in target.iterdir()}
    assert first
    # a non-empty target: refused, exit 2, untouched, the hint names --overwrite
    (target / "keep.txt").write_text("mine")
    code, _, err = run(capsys, argv)
    assert code == 2 and "--overwrite" in err and "Traceback" not in err
    assert (target / "keep.txt").read_text() == "mine"
    # --overwrite (and its alias --force) replace it as a whole
    for flag in ("--overwrite", "--force"):
        code, _, err = run(capsys, argv + [flag])
        assert code in (0, None), err
        assert {p.name for p in target.iterdir()} == first
    assert hidden(tmp_path) == []


def test_convert_into_the_current_folder_or_over_its_source(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(capsys, ["baseline", "uniform", "--preset", "kuhn", "--out", "sub"])[0] in (0, None)
    for dst in (".", str(tmp_path), "sub", str(tmp_path.parent)):
        code, out, err = run(capsys, ["convert", "sub", dst, "--to", "csv", "--overwrite"])
        assert code == 2 and "refused" in err and "internal error" not in err, (dst, err)
        assert "pass --overwrite" not in err
    assert sorted(p.name for p in (tmp_path / "sub").iterdir())[0] == "meta-strategy.csv"
    (tmp_path / "f").write_text("x")
    code, _, err = run(capsys, ["convert", "sub", "f/out", "--to", "csv"])
    assert code == 2 and "is a file" in err and "--overwrite" not in err


def test_a_failed_write_leaves_the_previous_run(tmp_path, capsys, monkeypatch):
    """grade's outputs: a failure while writing the heatmap leaves the earlier folder as it
    was, not a new leaderboard beside the old heatmap."""
    import teamleduc.leaderboard as lb

    out = tmp_path / "grading"
    argv = ["grade", "--baselines", "uniform,cautious", "--preset", "kuhn", "--jobs", "1"]
    assert run(capsys, argv + ["--out", str(out)])[0] in (0, None)
    before = listing(out)
    assert "matrix.png" in before

    def broken(result, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lb, "write_heatmap", broken)
    code, _, err = run(
        capsys, argv + ["--baselines", "uniform,aggressive", "--out", str(out), "--overwrite"]
    )
    assert code == 2 and "No space left" in err and str(out) in err  # which output
    assert listing(out) == before and hidden(tmp_path) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_a_full_disk_names_the_output(tmp_path):
    """A write that fills the disk raises an OSError without a file name; the staging names
    the output being written, and leaves nothing behind."""

    def fill():
        with open("/dev/full", "wb") as f:
            f.write(b"x" * 100_000)

    for stage, target in ((staged_folder, tmp_path / "out"), (staged_file, tmp_path / "a.zip")):
        with pytest.raises(OSError) as e, stage(target):
            fill()
        assert e.value.errno == 28 and e.value.filename == str(target)
        assert str(target) in str(e.value) and not target.exists() and hidden(tmp_path) == []
    with pytest.raises(OSError) as e, staged_folder(tmp_path / "named"):
        raise FileNotFoundError(2, "No such file or directory", "/elsewhere/input.csv")
    assert e.value.filename == "/elsewhere/input.csv"  # a named error keeps its own name


def test_one_file_is_replaced_whole_or_not_at_all(tmp_path):
    """write_text_atomic and save_png: the new content or the old one, no temporary left, the
    mode the umask gives."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = write_text_atomic(tmp_path / "a.txt", "old\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask()

    def broken(target, **kwargs):  # Ctrl-C halfway through writing the picture
        Path(target).write_text("half a pic")
        raise KeyboardInterrupt

    fig = plt.figure()
    fig.savefig = broken
    with pytest.raises(KeyboardInterrupt):
        save_png(fig, path)
    assert path.read_text() == "old\n" and sorted(os.listdir(tmp_path)) == ["a.txt"]
    fig = plt.figure()
    save_png(fig, path)
    assert path.read_bytes()[:4] == b"\x89PNG" and sorted(os.listdir(tmp_path)) == ["a.txt"]
    assert not plt.fignum_exists(fig.number)


def test_a_folder_that_cannot_be_written_is_named_not_the_temporary(tmp_path, monkeypatch):
    """A read-only folder or file system refuses the temporary sibling; the message names the
    output (``.NAME.XXXX.tmp`` means nothing to the user) and nothing is left."""
    import tempfile

    def refused(*args, dir=None, **kwargs):
        raise OSError(30, "Read-only file system", f"{dir}/.x.abc123.tmp")

    monkeypatch.setattr(tempfile, "mkdtemp", refused)
    monkeypatch.setattr(tempfile, "mkstemp", refused)
    for stage, target in ((staged_folder, tmp_path / "out"), (staged_file, tmp_path / "a.zip")):
        with pytest.raises(OSError) as e, stage(target):
            pass
        assert e.value.errno == 30 and ".tmp" not in str(e.value)
        assert str(e.value) == f"[Errno 30] cannot write {target}: Read-only file system"
        assert not target.exists() and hidden(tmp_path) == []


def test_only_write_errors_are_given_the_outputs_name(tmp_path):
    """A broken pipe to the terminal while a command writes its output (``solve --out run |
    head -1``) is not the output's fault: it keeps its own words."""
    with pytest.raises(BrokenPipeError) as e, staged_folder(tmp_path / "run"):
        raise BrokenPipeError(32, "Broken pipe")
    assert e.value.filename is None and str(e.value) == "[Errno 32] Broken pipe"


def test_a_long_but_legal_output_name_is_staged(tmp_path):
    """The temporary sibling's name is cut to fit 255 bytes: a 250-character output name is
    legal and is written (it failed with 'File name too long' on the sibling)."""
    for name in ("a" * 250, "é" * 120):  # 250 bytes in ASCII and in UTF-8
        with staged_folder(tmp_path / name) as stage:
            (stage / "x.txt").write_text("x")
        assert (tmp_path / name / "x.txt").read_text() == "x" and hidden(tmp_path) == []
        with staged_file(tmp_path / f"{name[:-4]}.zip") as tmp:
            tmp.write_bytes(b"z")
        assert (tmp_path / f"{name[:-4]}.zip").read_bytes() == b"z"


@pytest.mark.parametrize("kind", ["folder", "file"])
def test_a_ctrl_c_while_the_temporary_is_made_leaves_nothing(tmp_path, monkeypatch, kind):
    """A SIGINT that arrives just after the hidden temporary sibling is created, before its
    clean-up is registered, waits until it is: the KeyboardInterrupt then removes it (the
    window that left ``.out.XXXX.tmp`` behind ``infosets`` interrupted 0.15 s after its
    start). Without the wait the signal raises inside ``mkdtemp``/``mkstemp`` and the
    temporary stays. Another thread is alive, as numba's workers are in a command: the
    system may deliver the signal to it (blocking SIGINT in the main thread's signal mask,
    as before, then did not stop the KeyboardInterrupt: this test failed that way in a full
    run)."""
    import signal
    import tempfile
    import threading
    import time

    name = "mkdtemp" if kind == "folder" else "mkstemp"
    real = getattr(tempfile, name)

    def made_then_interrupted(*args, **kwargs):
        made = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)
        end = time.monotonic() + 0.05
        while time.monotonic() < end:  # the handler runs here unless the Ctrl-C waits
            pass
        return made

    monkeypatch.setattr(tempfile, name, made_then_interrupted)
    stage = staged_folder if kind == "folder" else staged_file
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = threading.Event()
    other = threading.Thread(target=done.wait)
    other.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            with stage(tmp_path / "out"):
                pytest.fail("the block ran: the signal was lost")
    finally:
        signal.signal(signal.SIGINT, old)
        done.set()
        other.join()
    assert list(tmp_path.iterdir()) == []
