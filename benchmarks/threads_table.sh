#!/usr/bin/env bash
# The thread table of issue 33, for a machine with many cores (run once on a 16-core machine
# through the device tool; CI never runs it): the roofline of the solver's iteration at 2, 4,
# 8 and 16 threads on team-leduc-2025 and team-leduc (the passes' splits of the levels
# against equal node counts included) and of the refinement's iteration (its parts and their
# traffic), then team-leduc-2025 solved for 60 s with 16 and with 2 threads, and the DCFR
# iteration under three settings of OpenMP's spin count (GOMP_SPINCOUNT). Every output goes
# under OUTDIR (log.txt, roofline.txt, refinement.txt, one solve report per run). About 5.5
# minutes on a 16-core machine; `make run`'s solve with 16 threads (about 5 minutes more)
# fits a second call: SOLVES=team-leduc:300:16 with the steps before it skipped (ONLY_SOLVES=1).
#
# It first checks that every module teamleduc imports is there (the device's image lacks
# gymnasium, pettingzoo and orjson: carry their wheels) and stops if one is missing.
#
#   bash benchmarks/threads_table.sh OUTDIR      # PY=python3 by default
set -uo pipefail
out=${1:?usage: bash benchmarks/threads_table.sh OUTDIR}
py=${PY:-python3}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 BENCH_FIGURES=0
log="$out/log.txt"
{
    date -u
    echo "commit ${COMMIT:-unknown}; $(nproc) CPUs"
    lscpu | grep -E 'Model name|Socket|Core|Thread|NUMA node|L3' || true
    free -g | head -n 2
    "$py" -c 'import numba, numpy, sys; print("python", sys.version.split()[0], "numba", numba.__version__, "numpy", numpy.__version__)'
} 2>&1 | tee "$log"

# every module the warm-up imports, or stop: a missing one would leave the kernels to be
# compiled inside the first timed run
if ! "$py" -c 'import teamleduc.warmup as w; w.modules()' >>"$log" 2>&1; then
    tail -n 1 "$log"
    echo "stopped: a module teamleduc needs is missing (carry its wheel)" | tee -a "$log"
    exit 1
fi

t0=$SECONDS
"$py" -m teamleduc.warmup 2>&1 | tee -a "$log"
echo "warm-up: $((SECONDS - t0)) s" | tee -a "$log"

if [ -z "${ONLY_SOLVES:-}" ]; then
t0=$SECONDS
TEAMLEDUC_BENCH_THREADS=2,4,8,16 TEAMLEDUC_BENCH_REPEATS=3 "$py" -m benchmarks roofline 2>&1 |
    tee "$out/roofline.txt"
echo "roofline: $((SECONDS - t0)) s" | tee -a "$log"

# the refinement's iteration part by part, with its traffic, at the same thread counts
t0=$SECONDS
TEAMLEDUC_BENCH_THREADS=2,4,8,16 TEAMLEDUC_BENCH_ITERS=11 "$py" -m benchmarks refinement 2>&1 |
    tee "$out/refinement.txt"
echo "refinement: $((SECONDS - t0)) s" | tee -a "$log"
fi

# preset:seconds:threads of each solve (SOLVES overrides)
for run in ${SOLVES:-team-leduc-2025:60:16 team-leduc-2025:60:2}; do
    IFS=: read -r preset seconds n <<<"$run"
    t0=$SECONDS
    NUMBA_NUM_THREADS=$n "$py" -m teamleduc solve --preset "$preset" --time-limit "$seconds" \
        --out "/tmp/threads-$preset-$n" --overwrite 2>&1 | tr '\r' '\n' | tail -n 25 | tee -a "$log"
    cp "/tmp/threads-$preset-$n/solve-report.json" "$out/solve-$preset-$seconds-s-$n-threads.json"
    echo "solve of $preset with $n threads: $((SECONDS - t0)) s" | tee -a "$log"
done

[ -n "${ONLY_SOLVES:-}" ] && exit 0
# a parallel region's start: the pool as teamleduc sets it (passive) against bounded spins
for spin in unset 10000 100000; do
    for preset in team-leduc-2025 team-leduc; do
        if [ "$spin" = unset ]; then
            "$py" -m benchmarks.iteration_threads "$preset" 6
        else
            GOMP_SPINCOUNT=$spin "$py" -m benchmarks.iteration_threads "$preset" 6
        fi
    done
done 2>&1 | tee -a "$log"
