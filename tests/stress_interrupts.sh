#!/usr/bin/env bash
# Every Ctrl-C test, RUNS times in a row, with two busy loops beside it: the check that no
# interrupt test flakes on a loaded machine. Usage, from the repository root after `make install`:
#   tests/stress_interrupts.sh [RUNS=20] [OUTDIR=stress-out]
# OUTDIR/summary.txt gets one line per run and the count; OUTDIR/timings.txt the CPU and wall
# seconds of every check with its bound (tests/interrupting.py).
set -u
RUNS="${1:-20}"
OUTDIR="${2:-stress-out}"
mkdir -p "$OUTDIR"
rm -f "$OUTDIR"/summary.txt "$OUTDIR"/timings.txt "$OUTDIR"/run-*.log
sh -c 'while :; do :; done' & B1=$!
sh -c 'while :; do :; done' & B2=$!
trap 'kill $B1 $B2 2>/dev/null' EXIT
passed=0
for r in $(seq "$RUNS"); do
  if TEAMLEDUC_TEST_TIMINGS="$OUTDIR/timings.txt" .venv/bin/pytest -q -p no:cacheprovider \
      tests/test_interrupts.py tests/test_interrupts_study.py \
      tests/test_grade_cache.py::test_one_ctrl_c_ends_grade_jobs_2 \
      tests/test_solver_driver.py::test_ctrl_c_writes_checkpoint_and_valid_submission \
      tests/test_solver_driver.py::test_ctrl_c_during_a_big_game_measurement_does_not_wait \
      tests/test_solver_driver.py::test_ctrl_c_on_a_big_game_keeps_the_solver_state \
      tests/test_cli.py::test_a_ctrl_c_wrapped_by_python_is_still_an_abort \
      > "$OUTDIR/run-$r.log" 2>&1; then
    passed=$((passed + 1))
    echo "run $r: passed" >> "$OUTDIR/summary.txt"
  else
    echo "run $r FAILED: $(tail -1 "$OUTDIR/run-$r.log")" >> "$OUTDIR/summary.txt"
  fi
done
echo "passed $passed of $RUNS runs" >> "$OUTDIR/summary.txt"
cat "$OUTDIR/summary.txt"
