"""The peak memory ``solve`` reports is its own process's, not that of the process that
started it (teamleduc.peak_memory): Linux keeps ``ru_maxrss`` across fork and exec."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from teamleduc.peak_memory import _vm_hwm, peak_resident_bytes

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/status is Linux's")

#: what the parent holds while its child runs
HELD = 600 << 20


def _run_holding(*args: str) -> str:
    """The output of ``python ARGS``, started by this process while it holds HELD bytes."""
    held = np.ones(HELD // 8)  # touched: resident
    try:
        out = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True)
    finally:
        del held
    return out.stdout


def test_the_status_line_is_read_in_bytes():
    status = b"Name:\tpython\nVmPeak:\t  900 kB\nVmHWM:\t  123456 kB\nVmRSS:\t 1000 kB\n"
    assert _vm_hwm(status) == 123456 * 1024
    assert _vm_hwm(b"Name:\tpython\n") is None
    assert _vm_hwm(b"VmHWM:\tlots kB\n") is None


def test_this_process_peak_holds_what_it_touched():
    before = peak_resident_bytes()
    a = np.ones(300 << 17)  # 300 MiB, touched
    assert peak_resident_bytes() >= max(before, a.nbytes)


@linux_only
def test_a_child_does_not_report_its_parents_memory():
    code = (
        "import resource; from teamleduc.peak_memory import peak_resident_bytes; "
        "print(peak_resident_bytes(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)"
    )
    ours, maxrss = map(int, _run_holding("-c", code).split())
    assert maxrss >= HELD  # what the old figure said: the parent's memory
    assert ours < HELD // 2  # a Python with teamleduc imported holds far less


@linux_only
def test_solve_reports_its_own_peak(tmp_path):
    """``teamleduc solve`` started from a process holding HELD bytes reports far less."""
    out = _run_holding(
        "-m", "teamleduc", "solve", "--preset", "kuhn", "--max-iterations", "20",
        "--time-limit", "60", "--out", str(tmp_path / "run"), "--json", "--quiet",
    )  # fmt: skip
    report = json.loads(out)
    assert 0 < report["peak_memory_bytes"] < HELD // 2


#: a fresh process that solves kuhn into ``sys.argv[1]`` while writing its submission touches
#: 100 MiB more than its peak so far, and prints the solve's and the report's peak and that
_WRITING_PEAK = """
import json, sys
import numpy as np
from teamleduc.peak_memory import peak_resident_bytes
from teamleduc.solver import result as result_module
from teamleduc.solver import solve

write = result_module.write_submission
touched = []

def heavy_write(*args, **kwargs):
    big = np.ones((peak_resident_bytes() + (100 << 20)) // 8)  # touched: resident
    touched.append(peak_resident_bytes())
    del big
    return write(*args, **kwargs)

result_module.write_submission = heavy_write
r = solve("kuhn", "dcfr", max_iterations=20, time_limit=60, out_dir=sys.argv[1],
          handle_sigint=False)
report = json.loads(open(sys.argv[1] + "/solve-report.json").read())
print(r.peak_memory, report["peak_memory_bytes"], touched[0])
"""


@linux_only
def test_the_reported_peak_counts_the_submissions_writing(tmp_path):
    """Writing a big game's submission can be a run's peak: the peak in the result and in
    ``solve-report.json`` is taken once the submission is written."""
    out = subprocess.run(
        [sys.executable, "-c", _WRITING_PEAK, str(tmp_path / "run")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    reported, in_report, while_writing = map(int, out.stdout.split())
    # (Linux syncs its per-thread RSS counters lazily: VmHWM readings may lag by a few
    # hundred kB; without the writing the peak would be 100 MiB lower)
    assert reported == in_report > while_writing - (8 << 20)
