#!/usr/bin/env bash
# The file-skipping test fixture (README.md here, "Test fixture"): TPC-H at a
# tiny scale factor written by real writers, read by real engines, into
# tests/data/skipping/:
#
#   delta/{random,date}/{lineitem,orders}/  Delta tables by deltalake (make_tables.py)
#   duckdb-{random,date}.jsonl              DuckDB's per-scan file counts of the 22
#                                           queries on all 8 tables, lineitem and
#                                           orders lines only (fixture_duckdb.py)
#   spark-events/eventlog_v2_<app>/         Spark's event log of the 22 queries on
#                                           the date layout, as Spark wrote it
#   iceberg/orders/                         orders as an Iceberg table by pyiceberg,
#   iceberg-expected.json                   and the files it plans per predicate
#                                           (make_iceberg_fixture.py)
#
#   scripts/skipping/make_fixture.sh
#
# Runs from any directory; paths below are relative to the repository root.
# The other six tables and every intermediate result stay in SCRATCH.
# Environment:
#   SF                 TPC-H scale factor (default 0.005)
#   TARGET_FILE_SIZE   deltalake target file size, bytes (default 81920)
#   ICEBERG_TARGET_FILE_SIZE  pyiceberg write.target-file-size-bytes (default 131072)
#   SEED               shuffle seed of the random layout (default 42)
#   SCRATCH            work directory (default target/skipping-fixture)
#   DEST               fixture directory (default tests/data/skipping)
#   VENV               venv of requirements.txt (default .venv/skipping)
#   ICEBERG_VENV       venv of requirements-iceberg.txt (default .venv/tables)
#   NICE               prefix of every heavy command (default "nice -n 19")
# A layout already in SCRATCH with the same parameters is reused (so are its
# files' names); delete SCRATCH for a fresh write. DuckDB, Spark and pyiceberg
# always run again.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
S=scripts/skipping
SF=${SF:-0.005}
TARGET_FILE_SIZE=${TARGET_FILE_SIZE:-81920}
ICEBERG_TARGET_FILE_SIZE=${ICEBERG_TARGET_FILE_SIZE:-131072}
SEED=${SEED:-42}
SCRATCH=${SCRATCH:-target/skipping-fixture}
DEST=${DEST:-tests/data/skipping}
VENV=${VENV:-.venv/skipping}
ICEBERG_VENV=${ICEBERG_VENV:-.venv/tables}
NICE=${NICE-nice -n 19}
LAYOUTS="random date"
KEEP="lineitem orders"

mkdir -p "$SCRATCH" "$DEST"
TIMES=$SCRATCH/timings.tsv
: >"$TIMES"
T_ALL=$EPOCHREALTIME

step() { # step NAME CMD...: run, time, log
    local name=$1 t0 rc=0
    shift
    t0=$EPOCHREALTIME
    "$@" || rc=$?
    awk -v n="$name" -v a="$t0" -v b="$EPOCHREALTIME" -v rc="$rc" \
        'BEGIN { printf "%s\t%.1f%s\n", n, b - a, rc ? " (exit " rc ")" : "" }' |
        tee -a "$TIMES" >&2
    return "$rc"
}

venv() { # venv DIR REQUIREMENTS MARKER: pinned, reinstalled when REQUIREMENTS changes
    if [ ! -x "$1/bin/python" ] || ! cmp -s "$2" "$1/$3"; then
        python3 -m venv "$1"
        $NICE "$1/bin/pip" install -q -r "$2"
        cp "$2" "$1/$3"
    fi
}
venv "$VENV" "$S/requirements.txt" .bench-skipping-requirements
venv "$ICEBERG_VENV" "$S/requirements-iceberg.txt" .skipping-fixture-requirements
PY=$VENV/bin/python

# 1. Delta tables: all 8 in SCRATCH/<layout>/, lineitem and orders copied.
for layout in $LAYOUTS; do
    step "tables $layout" $NICE "$PY" "$S/make_tables.py" --sf "$SF" --out "$SCRATCH" \
        --raw "$SCRATCH/raw-sf$SF" --layout "$layout" --target-file-size "$TARGET_FILE_SIZE" \
        --seed "$SEED"
    for t in $KEEP; do
        rm -rf "$DEST/delta/$layout/$t"
        mkdir -p "$DEST/delta/$layout"
        cp -a "$SCRATCH/$layout/$t" "$DEST/delta/$layout/$t"
    done
done
"$PY" - "$SCRATCH" $LAYOUTS <<'PY'
import json, sys
for layout in sys.argv[2:]:
    t = json.load(open(f"{sys.argv[1]}/{layout}/layout.json"))["tables"]
    print(f"{layout}: lineitem {t['lineitem']['files']} files, orders {t['orders']['files']} files")
    if t["lineitem"]["files"] < 10 or t["orders"]["files"] < 4:
        sys.exit("want at least 10 lineitem and 4 orders files: lower TARGET_FILE_SIZE")
PY

# 2. DuckDB on each layout; the fixture keeps lineitem, orders and failures.
for layout in $LAYOUTS; do
    step "duckdb $layout" $NICE "$PY" "$S/run_duckdb.py" --tables "$SCRATCH/$layout" \
        --out "$SCRATCH/duckdb-$layout.jsonl" --layout "$layout"
    "$PY" "$S/fixture_duckdb.py" "$SCRATCH/duckdb-$layout.jsonl" "$DEST/duckdb-$layout.jsonl"
done

# 3. Spark on the date layout: one application, its event log as written.
rm -rf "$SCRATCH/spark-events"
mkdir -p "$SCRATCH/spark-events"
step "spark date" $NICE "$PY" "$S/run_spark.py" --tables "$SCRATCH/date" \
    --eventlog-dir "$SCRATCH/spark-events" --summary "$SCRATCH/spark-date.jsonl" \
    --app-name "lakeaudit skipping fixture sf$SF date"
logs=("$SCRATCH"/spark-events/*)
if [ "${#logs[@]}" -ne 1 ] || [ ! -e "${logs[0]}" ]; then
    echo "expected one event log in $SCRATCH/spark-events, found: ${logs[*]}" >&2
    exit 1
fi
rm -rf "$DEST/spark-events"
mkdir -p "$DEST/spark-events"
cp -a "${logs[0]}" "$DEST/spark-events/"

# 4. Iceberg orders (pyiceberg) and the files it plans per predicate.
step "iceberg" $NICE "$ICEBERG_VENV/bin/python" "$S/make_iceberg_fixture.py" \
    --orders "$SCRATCH/raw-sf$SF/orders.parquet" --scratch "$SCRATCH/iceberg" \
    --out "$DEST/iceberg/orders" --expected "$DEST/iceberg-expected.json" \
    --target-file-size "$ICEBERG_TARGET_FILE_SIZE"

# 5. Sizes.
echo
du -sh "$DEST"/delta/*/* "$DEST"/spark-events "$DEST"/iceberg "$DEST"/*.json*
du -sh "$DEST"
bytes=$(du -sb "$DEST" | cut -f1)
if [ "$bytes" -gt 5500000 ]; then
    echo "warning: $DEST holds $bytes bytes (over about 5 MB)" >&2
fi
awk -v a="$T_ALL" -v b="$EPOCHREALTIME" 'BEGIN { printf "total\t%.1f\n", b - a }' | tee -a "$TIMES" >&2
echo "fixture in $DEST; timings in $TIMES"
