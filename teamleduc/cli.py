"""The ``teamleduc`` command: the click group, its command modules, and the entry point.

Each module of :mod:`teamleduc.commands` contributes its list ``COMMANDS`` (``game``: info,
infosets, replay; ``submissions``: validate, convert; ``evaluation``: evaluate, match, grade,
baseline; ``best_response``: best-response, exploitability; ``explain``: show, trace;
``solve``: solve); the shared
``--preset`` option and printing live in :mod:`teamleduc.commands.options`. The modules are
listed here by name, not discovered, so the import graph shows every one of them. Errors the
user can fix (:class:`~teamleduc.errors.TeamLeducError`, click usage errors) print one message
and exit non-zero; no traceback reaches the user (set ``TEAMLEDUC_DEBUG=1`` to see one).

One Ctrl-C ends any command: "aborted" on stderr, exit code 130, no traceback, and the
outputs as :mod:`teamleduc.outputs` leaves them (untouched, or complete). ``solve`` is the one
command that catches the first Ctrl-C itself, to finish with the best strategies so far.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Sequence

import click

from . import __version__
from .commands import best_response, evaluation, explain, game, play, solve, study, submissions
from .commands.options import USER_ERRORS, exit_for_user_error
from .interrupts import behind, caused_by_ctrl_c, install
from .names import terminal_text

#: the command modules, each with its list ``COMMANDS``
COMMAND_MODULES = (game, submissions, evaluation, best_response, explain, solve, play, study)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="teamleduc")
def cli():
    """Exact tools for Team Leduc Hold'em: a 4-player poker game, seats 1+3 against 2+4, solved
    for TMECor (team max-min equilibrium with correlation).

    Generate the information-set files, validate and grade submissions by exact expected team
    utility, compute exact team best responses and exploitability, and solve the game.
    """


def _add_commands() -> None:
    for module in COMMAND_MODULES:
        for command in module.COMMANDS:
            cli.add_command(command)


_add_commands()


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the CLI and turn user errors into a message and an exit code."""
    try:
        try:
            _main(argv)
        except SystemExit:
            # every way out but an abort (which ignores Ctrl-C already): a command's own
            # ``sys.exit`` (``validate``'s 0 or 1), a user error's message, the end below. The
            # outputs are complete: a Ctrl-C while the ``teamleduc`` process shuts down must
            # not turn them into death by SIGINT (exit -2; Python restores the default handler
            # as it finishes). A caller of main() in Python keeps its own Ctrl-C.
            if argv is None:
                _ignore_ctrl_c()
            raise
    except KeyboardInterrupt as e:
        # a Ctrl-C in the instants outside _main's own handlers: while an exit left _main,
        # or here before Ctrl-C was ignored (the exit stands: the command had finished);
        # else before the command ran (an abort). Once seen on a loaded machine: a traceback
        # and exit -2 after ``validate`` had printed its verdict
        if argv is not None:
            raise
        _ignore_ctrl_c()
        leaving = behind(e, SystemExit)  # the exit this Ctrl-C interrupted, if any
        if leaving is not None:
            raise leaving from None
        _aborted(leave_at_once=True)


def _main(argv: Sequence[str] | None) -> None:
    if threading.current_thread() is threading.main_thread():
        # take Ctrl-C back from the quiet start-up handler of teamleduc/__init__.py: a
        # KeyboardInterrupt, as Python's own handler raises, but never lost, nor printed as
        # an exception Python ignores (.interrupts)
        install()
    try:
        # standalone_mode=False makes click return (not raise) the code of ctx.exit(n)
        code = cli.main(args=argv, prog_name="teamleduc", standalone_mode=False)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except (click.Abort, KeyboardInterrupt):
        _aborted(leave_at_once=argv is None)
    except click.ClickException as e:
        e.message = terminal_text(e.message)  # it may quote what was typed: escaped, bounded
        e.show()
        sys.exit(e.exit_code)
    except USER_ERRORS as e:
        exit_for_user_error(e)
    except Exception as e:  # a bug: one line for the user, the traceback on request
        if caused_by_ctrl_c(e):
            _aborted(leave_at_once=argv is None)
        if os.environ.get("TEAMLEDUC_DEBUG"):
            raise
        click.echo(
            f"internal error: {type(e).__name__}: {terminal_text(e)} "
            "(set TEAMLEDUC_DEBUG=1 for a traceback)",
            err=True,
        )
        sys.exit(3)
    sys.exit(code if isinstance(code, int) else 0)


def _ignore_ctrl_c() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _aborted(leave_at_once: bool = False) -> None:
    """Ctrl-C: one line, exit code 130; a second Ctrl-C meanwhile is ignored. The command's
    own cleanup has run by now (its ``finally`` blocks: staged outputs, worker pools), so the
    ``teamleduc`` process (``leave_at_once``; not a caller of :func:`main` in Python) ends
    its child processes and leaves without finalising the interpreter: that finalisation,
    after an interrupt, once crashed ("Fatal Python error: PyThreadState_Get", exit -6)."""
    _ignore_ctrl_c()
    click.echo("aborted", err=True)
    if leave_at_once:
        _leave(130)
    sys.exit(130)


def _leave(code: int) -> None:
    """End every child process (terminate, then kill what is left after 2 s), flush the
    output and exit with ``code`` at once."""
    if "multiprocessing" in sys.modules:
        import multiprocessing

        children = multiprocessing.active_children()
        for child in children:
            child.terminate()
        for child in children:
            child.join(timeout=2)
            if child.is_alive():
                child.kill()
                child.join()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
