#!/usr/bin/env bash
# A DCFR iteration at 16, 8 and 2 threads, an older tree against this one, alternating (for a
# lent 16-core machine, where git's history does not travel; CI never runs it). The older
# tree is a plain copy of a commit inside the working tree, git-ignored and carried:
#
#   mkdir -p .base && git archive REV | tar -x -C .base && echo /.base/ >> .git/info/exclude
#   bash benchmarks/threads_ab.sh .base OUTDIR        # PY=python3, ROUNDS=2 by default
#
# Each round runs `python -m benchmarks.iteration_threads PRESET` (best of 6 iterations per
# thread count, from one settled state) in the older tree, then in this one, the order turned
# every other round, for team-leduc-2025 and team-leduc; lines go to OUTDIR/ab.txt.
set -uo pipefail
base=${1:?usage: bash benchmarks/threads_ab.sh BASE_DIR OUTDIR}
out=${2:?usage: bash benchmarks/threads_ab.sh BASE_DIR OUTDIR}
py=${PY:-python3}
base=$(cd "$base" && pwd) || exit 1
here=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$base/benchmarks/iteration_threads.py" ] || {
    echo "$base: no benchmarks/iteration_threads.py (a tree older than that module?)"
    exit 1
}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 BENCH_FIGURES=0
log="$out/ab.txt"
run() {  # run TREE LABEL PRESET
    (cd "$1" && PYTHONPATH="$1${PYTHONPATH:+:$PYTHONPATH}" "$py" -m benchmarks.iteration_threads "$3" 6 2>&1 |
        sed "s/^/$2 /")
}
for tree in "$base" "$here"; do  # the kernels compiled before any timing
    (cd "$tree" && PYTHONPATH="$tree${PYTHONPATH:+:$PYTHONPATH}" "$py" -m teamleduc.warmup) 2>&1 | tail -n 1
done | tee "$log"
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
    for preset in team-leduc-2025 team-leduc; do
        if ((r % 2)); then
            run "$base" base "$preset"; run "$here" tree "$preset"
        else
            run "$here" tree "$preset"; run "$base" base "$preset"
        fi
    done
done 2>&1 | tee -a "$log"
