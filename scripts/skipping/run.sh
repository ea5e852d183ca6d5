#!/usr/bin/env bash
# The file-skipping experiment (README.md here): TPC-H at scale factor SF as
# Delta tables in several layouts, the 22 queries on DuckDB's delta extension
# (files read per scan) and on pyspark (event logs for lakeaudit), a summary.
#
#   scripts/skipping/run.sh [SF] [OUT]        (make bench-skipping)
#
# SF defaults to 1, OUT to target/bench-skipping (relative to the current
# directory); results go to OUT/sf<SF>/. Environment:
#   LAYOUTS        layouts for DuckDB (default "random date joinkey")
#   ZORDER         e.g. "lineitem=l_shipdate,l_orderkey;orders=o_orderdate"
#                  adds a layout "zorder" written by deltalake's z_order
#   SPARK_LAYOUTS  layouts Spark runs on (default "random"; "" skips Spark)
#   TARGET_FILE_SIZE  bytes (default 2097152)
#   SEED           shuffle seed of the random layout (default 42)
#   VENV           Python venv (default .venv/skipping at the repository root)
#   NICE           prefix of every heavy command (default "nice -n 19")
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SF=${1:-1}
OUT=${2:-target/bench-skipping}
LAYOUTS=${LAYOUTS:-random date joinkey}
SPARK_LAYOUTS=${SPARK_LAYOUTS-random}
TARGET_FILE_SIZE=${TARGET_FILE_SIZE:-2097152}
SEED=${SEED:-42}
VENV=${VENV:-$ROOT/.venv/skipping}
NICE=${NICE-nice -n 19}
DIR=$OUT/sf$SF
mkdir -p "$DIR"
TIMES=$DIR/timings.tsv
: >"$TIMES"

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

# The venv, pinned; reinstalled when requirements.txt changes.
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$HERE/requirements.txt" "$VENV/.bench-skipping-requirements"; then
    python3 -m venv "$VENV"
    $NICE "$VENV/bin/pip" install -q -r "$HERE/requirements.txt"
    cp "$HERE/requirements.txt" "$VENV/.bench-skipping-requirements"
fi
PY=$VENV/bin/python

ALL_LAYOUTS=$LAYOUTS
[ -n "${ZORDER:-}" ] && ALL_LAYOUTS="$ALL_LAYOUTS zorder"
for layout in $ALL_LAYOUTS; do
    spec=$layout
    [ "$layout" = zorder ] && spec="zorder:$ZORDER"
    step "tables $layout" $NICE "$PY" "$HERE/make_tables.py" --sf "$SF" --out "$DIR" \
        --layout "$spec" --name "$layout" --target-file-size "$TARGET_FILE_SIZE" --seed "$SEED"
done

DUCK=()
for layout in $ALL_LAYOUTS; do
    step "duckdb $layout" $NICE "$PY" "$HERE/run_duckdb.py" --tables "$DIR/$layout" \
        --out "$DIR/duckdb-$layout.jsonl" --layout "$layout"
    DUCK+=("$DIR/duckdb-$layout.jsonl")
done

SPARK=()
if [ -n "$SPARK_LAYOUTS" ]; then
    if command -v java >/dev/null 2>&1 || [ -n "${JAVA_HOME:-}" ]; then
        for layout in $SPARK_LAYOUTS; do
            rm -rf "$DIR/spark-events/$layout"
            mkdir -p "$DIR/spark-events/$layout"
            # a Spark failure is reported; the DuckDB summary is still printed
            if step "spark $layout" $NICE "$PY" "$HERE/run_spark.py" --tables "$DIR/$layout" \
                --eventlog-dir "$DIR/spark-events/$layout" --summary "$DIR/spark-$layout.jsonl" \
                --app-name "bench-skipping sf$SF $layout"; then
                SPARK+=(--spark "$layout=$DIR/spark-$layout.jsonl")
            else
                echo "Spark on $layout failed; see the output above" >&2
            fi
        done
    else
        echo "no java: Spark skipped" >&2
    fi
fi

"$PY" "$HERE/summarise.py" "${DUCK[@]}" --per-table --per-query "${SPARK[@]}" \
    --title "TPC-H SF $SF, $TARGET_FILE_SIZE-byte target files" >"$DIR/summary.md"

# lakeaudit's prediction against DuckDB: each layout as it is, and the date
# layout predicted from the random tables before any rewrite
# (compare_whatif.py). Any Spark log of the run serves: the predicates are
# the same on every layout.
LAKEAUDIT=${LAKEAUDIT:-$ROOT/target/release/lakeaudit}
LOGDIR=$(ls -d "$DIR"/spark-events/*/ 2>/dev/null | head -n 1)
if [ -x "$LAKEAUDIT" ] && [ -n "$LOGDIR" ]; then
    {
        echo
        echo "lakeaudit whatif (minmax engine) against DuckDB's files after its static file filters:"
        for layout in $ALL_LAYOUTS; do
            "$LAKEAUDIT" whatif "$LOGDIR" --tables "$DIR/$layout" --current-only \
                --engine all --format csv -o "$DIR/whatif-$layout.csv" 2>/dev/null
            echo
            echo "$layout as it is: $("$PY" "$HERE/compare_whatif.py" "$DIR/whatif-$layout.csv" \
                "$DIR/duckdb-$layout.jsonl" | grep 'pairs equal')"
            # The same DuckDB counts against each engine lakeaudit models
            # (at SF 1 DuckDB's files read, after its dynamic join filters,
            # equal its files after the static ones on every scan).
            for engine in minmax join-range values; do
                echo "  --engine $engine: $("$PY" "$HERE/compare_whatif.py" "$DIR/whatif-$layout.csv" \
                    "$DIR/duckdb-$layout.jsonl" --engine "$engine" | tail -n 1)"
            done
        done
        if [ -f "$DIR/duckdb-date.jsonl" ] && [ -d "$DIR/random" ]; then
            "$LAKEAUDIT" whatif "$LOGDIR" --tables "$DIR/random" \
                --layout 'lineitem=l_shipdate;orders=o_orderdate' \
                --format csv -o "$DIR/whatif-date-from-random.csv" 2>/dev/null
            echo
            echo "date predicted from random, against the real date layout:"
            for t in lineitem:l_shipdate orders:o_orderdate; do
                "$PY" "$HERE/compare_whatif.py" "$DIR/whatif-date-from-random.csv" \
                    "$DIR/duckdb-date.jsonl" --layout "${t#*:}" --tables "${t%%:*}" | tail -n 1
            done
        fi
    } >>"$DIR/summary.md"
else
    echo "no $LAKEAUDIT or no Spark log: the whatif comparison is skipped (make build)" >&2
fi
{
    echo
    echo "Wall times (s):"
    echo
    echo "| step | seconds |"
    echo "|---|---|"
    awk -F'\t' '{print "| " $1 " | " $2 " |"}' "$TIMES"
} >>"$DIR/summary.md"
cat "$DIR/summary.md"
echo
echo "results in $DIR (summary.md, duckdb-*.jsonl, spark-events/)"
