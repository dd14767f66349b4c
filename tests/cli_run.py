"""Running the ``teamleduc`` command in the test process, as the tests of the CLI do."""

from __future__ import annotations

import pytest

from teamleduc.cli import main


def run(capsys, argv) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of ``teamleduc ARGV`` (paths allowed in ``argv``). A
    command never ends on a traceback or an internal error (a bug): that fails the test."""
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in argv])
    out = capsys.readouterr()
    both = out.out + out.err
    assert "Traceback" not in both and "internal error" not in both, both[-2000:]
    return e.value.code, out.out, out.err
