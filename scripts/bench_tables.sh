#!/usr/bin/env bash
# Audit time and peak memory of `lakeaudit tables` on a large real Delta
# table (`make bench-tables` runs it).
#
#   scripts/bench_tables.sh [TABLE]
#
# TABLE defaults to target/bench/big-delta, written when missing by
# scripts/make_bench_table.py with the deltalake package (PYTHON, default
# .venv/tables/bin/python): 110 commits, 110,000 files, a checkpoint at
# version 99 and 10 JSON commits after it. Reports the best wall time of
# BENCH_RUNS (3) runs with --threads 1 and peak RSS (GNU time).
set -euo pipefail

cd "$(dirname "$0")/.."
TABLE=${1:-target/bench/big-delta}
PYTHON=${PYTHON:-.venv/tables/bin/python}
RUNS=${BENCH_RUNS:-3}
CARGO=${CARGO:-cargo}
TARGET=${CARGO_TARGET_DIR:-target}

die() { echo "bench_tables.sh: $*" >&2; exit 2; }
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) is needed for peak RSS"
if [ ! -d "$TABLE/_delta_log" ]; then
    [ -x "$PYTHON" ] || die "no $TABLE and no $PYTHON (python3 -m venv .venv/tables && .venv/tables/bin/pip install deltalake pyarrow)"
    "$PYTHON" scripts/make_bench_table.py "$TABLE"
fi
"$CARGO" build --profile profiling --bin lakeaudit
BIN="$TARGET/profiling/lakeaudit"

best=""
rss=0
for _ in $(seq "$RUNS"); do
    out=$( { /usr/bin/time -f '%e %M' "$BIN" --threads 1 tables "$TABLE" >/dev/null; } 2>&1 | tail -1)
    t=${out% *}
    m=${out#* }
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    [ "$m" -gt "$rss" ] && rss=$m
done
files=$("$BIN" tables "$TABLE" | sed -n 's/.*"files":\([0-9]*\).*/\1/p')
commits=$(ls "$TABLE/_delta_log" | grep -c '\.json$')
echo "lakeaudit tables: $files files, $commits JSON commits: best of $RUNS ${best}s wall (--threads 1), peak RSS $((rss / 1024)) MB"
