"""Conformance of the whole command line: help everywhere, no traceback on bad input."""

import sys

import pytest

from teamleduc.cli import cli, main

from .cli_run import run

COMMANDS = sorted(cli.commands)


def test_the_expected_commands_exist():
    expected = {
        "info",
        "infosets",
        "replay",
        "validate",
        "convert",
        "evaluate",
        "match",
        "grade",
        "baseline",
        "best-response",
        "exploitability",
    }
    assert expected <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_explains_every_command(capsys, command):
    code, out, err = run(capsys, [command, "--help"])
    assert code == 0
    assert out.startswith(f"Usage: teamleduc {command}")
    assert len(out.splitlines()) >= 5 and "Traceback" not in out + err


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "/no/such/submission"],
        ["evaluate", "/no/such/a", "uniform"],
        ["evaluate", "uniform", "/no/such/b"],
        ["match", "uniform", "/no/such/y"],
        ["exploitability", "/no/such/sub"],
        ["best-response", "/no/such/sub", "--against", "a"],
        ["info", "--preset", "no-such-preset"],
        ["replay", "--cards", "J,Q", "--actions", "1:c"],
    ],
)
def test_bad_arguments_exit_2_without_traceback(capsys, argv):
    code, out, err = run(capsys, argv)
    assert code == 2, (argv, out, err)
    assert "Traceback" not in out + err
    assert err.strip()


def test_corrupt_zip_is_invalid_not_a_crash(capsys, tmp_path):
    bad = tmp_path / "sub.zip"
    bad.write_bytes(b"PK\x03\x04 this is not really a zip")
    code, out, err = run(capsys, ["validate", str(bad)])
    assert code == 1
    assert "sub.zip" in out + err and "Traceback" not in out + err


def test_version(capsys):
    from teamleduc import __version__

    code, out, _ = run(capsys, ["--version"])
    assert code == 0 and __version__ in out


def _ctrl_c_on_the_way_out(monkeypatch, exit_code):
    """main() of the ``teamleduc`` process (argv None) whose command ended with
    ``sys.exit(exit_code)`` and whose Ctrl-C lands as main() begins to ignore Ctrl-C (the
    first call of ``_ignore_ctrl_c`` raises it, as the signal handler would); this process's
    own SIGINT handling is left alone. Returns what main() raised and the calls made."""
    import teamleduc.cli as cli_module

    calls = []

    def ignore():
        calls.append("ignore")
        if len(calls) == 1:
            raise KeyboardInterrupt

    def command(argv):
        sys.exit(exit_code)

    monkeypatch.setattr(cli_module, "_ignore_ctrl_c", ignore)
    monkeypatch.setattr(cli_module, "_main", command)
    monkeypatch.setattr(cli_module, "_leave", lambda code: calls.append(f"leave {code}"))
    with pytest.raises(BaseException) as raised:
        main()
    return raised.value, calls


@pytest.mark.parametrize("exit_code", [0, 1])
def test_a_ctrl_c_as_a_finished_command_leaves_keeps_its_exit(monkeypatch, capsys, exit_code):
    """A Ctrl-C that lands while a finished command's exit leaves ``main`` (here: as main()
    begins to ignore Ctrl-C) is a KeyboardInterrupt outside _main's handlers: it used to end
    the process with a traceback and exit -2 after ``validate`` had printed its verdict (seen
    once in CI). The command's exit stands, Ctrl-C is ignored from then on, nothing is said."""
    raised, calls = _ctrl_c_on_the_way_out(monkeypatch, exit_code)
    assert isinstance(raised, SystemExit) and raised.code == exit_code
    assert calls == ["ignore", "ignore"]
    assert capsys.readouterr().err == ""


def test_a_ctrl_c_before_the_command_ran_is_an_abort(monkeypatch, capsys):
    """A Ctrl-C outside _main's handlers with no exit behind it (before the command ran) is
    an abort: "aborted", exit 130, as inside them."""
    import teamleduc.cli as cli_module

    calls = []

    def interrupted(argv):
        raise KeyboardInterrupt

    def leave(code):
        calls.append(code)
        raise SystemExit(code)

    monkeypatch.setattr(cli_module, "_ignore_ctrl_c", lambda: calls.append("ignore"))
    monkeypatch.setattr(cli_module, "_main", interrupted)
    monkeypatch.setattr(cli_module, "_leave", leave)
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 130 and 130 in calls
    assert capsys.readouterr().err.strip() == "aborted"
    # a caller of main() in Python keeps its own Ctrl-C
    with pytest.raises(KeyboardInterrupt):
        main(["info"])


def test_a_ctrl_c_wrapped_by_python_is_still_an_abort(capsys, monkeypatch):
    """Python wraps a KeyboardInterrupt that arrives in a class's ``__set_name__`` (as when
    Ctrl-C hits matplotlib's import) in a RuntimeError: still "aborted", exit 130, not an
    internal error. A RuntimeError of its own stays an internal error."""
    import teamleduc.cli as cli_module

    def wrapped(**kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise RuntimeError("Error calling __set_name__") from e

    monkeypatch.setattr(cli_module, "_ignore_ctrl_c", lambda: None)  # this process's SIGINT
    monkeypatch.setattr(cli_module.cli, "main", wrapped)
    with pytest.raises(SystemExit) as e:
        main(["info"])
    assert e.value.code == 130
    assert capsys.readouterr().err.strip() == "aborted"

    def bug(**kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli_module.cli, "main", bug)
    with pytest.raises(SystemExit) as e:
        main(["info"])
    assert e.value.code == 3
    assert "internal error: RuntimeError: a bug" in capsys.readouterr().err
