#!/usr/bin/env bash
# `lakeaudit whatif` with every rewriter on TPC-H at SF (default 1), five
# candidate layouts per table, on one core (`--threads 1`): wall time and
# peak RSS of each whole run (issue 30's benchmark: under 10 s each, memory
# bounded by the sample).
#
#   scripts/skipping/bench_whatif.sh [SF] [OUT]   (make bench-whatif; default 1, target/rewriters)
#
# Inputs, generated when missing (the data is not kept in the repository):
# - Delta: lineitem and orders written by deltalake, rows shuffled, files of
#   TARGET bytes (make_tables.py, layout `random`), and the `keys` workload
#   run on them by Spark 4 with event logging (run_spark.py);
# - Iceberg: the same rows written by Spark 3.5.6 + Iceberg 1.10.2 and the
#   same workload (iceberg_rewriters.py --before-only).
# The Delta rewriters (delta-rs, spark-delta, databricks) run on the Delta
# tables, iceberg-spark on the Iceberg ones. Prints OUT/bench-whatif-sf<SF>.md.
#
# Environment: LAKEAUDIT (default target/release/lakeaudit), TARGET (bytes,
# default 8 MiB), VENV (.venv/skipping), IVENV (.venv/iceberg-spark), NICE
# (prefix of the input-making commands, not of the timed ones). Needs java 17.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SF=${1:-1}
BASE=${2:-$ROOT/target/rewriters}
TARGET=${TARGET:-8388608}
VENV=${VENV:-$ROOT/.venv/skipping}
IVENV=${IVENV:-$ROOT/.venv/iceberg-spark}
LAKEAUDIT=${LAKEAUDIT:-$ROOT/target/release/lakeaudit}
NICE=${NICE-nice -n 19}
D=$BASE/bench-sf$SF
RAW=$D/raw-sf$SF
Q=$HERE/workloads/keys
mkdir -p "$D"
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$HERE/requirements.txt" "$VENV/.bench-skipping-requirements"; then
    python3 -m venv "$VENV"
    $NICE "$VENV/bin/pip" install -q -r "$HERE/requirements.txt"
    cp "$HERE/requirements.txt" "$VENV/.bench-skipping-requirements"
fi
PY=$VENV/bin/python
$NICE "$PY" "$HERE/make_tables.py" --sf "$SF" --out "$D" --layout random \
    --target-file-size "$TARGET" --raw "$RAW"
if [ ! -d "$D/spark-events" ] || [ -z "$(ls -A "$D/spark-events")" ]; then
    SPARK_PYTHON="$PY" $NICE "$PY" "$HERE/run_spark.py" --tables "$D/random" --queries "$Q" \
        --eventlog-dir "$D/spark-events" --app-name lakeaudit-bench-whatif
fi
I=$D/iceberg
if [ ! -d "$I/events-before" ] || [ -z "$(ls -A "$I/events-before")" ]; then
    jar=$("$ROOT/scripts/iceberg_spark/setup.sh" "$IVENV" | tail -n 1)
    $NICE "$IVENV/bin/python" "$HERE/iceberg_rewriters.py" --jar "$jar" --raw "$RAW" \
        --queries "$Q" --out "$I" --target "$TARGET" --before-only
fi

# Five candidates per table: two sorts, two and three Z-order columns, and
# the join key alone.
LAYOUTS=(
    --layout "lineitem=l_shipdate;orders=o_orderdate"
    --layout "lineitem=l_partkey;orders=o_custkey"
    --layout "lineitem=l_orderkey,l_shipdate;orders=o_custkey,o_orderdate"
    --layout "lineitem=l_orderkey,l_shipdate,l_partkey;orders=o_custkey,o_orderdate,o_orderkey"
    --layout "lineitem=l_orderkey;orders=o_orderkey"
)
MD=$BASE/bench-whatif-sf$SF.md
{
    echo "| rewriter | tables | rows | wall s | peak RSS MB |"
    echo "|---|---|---:|---:|---:|"
} >"$MD"
run() { # run REWRITER LOGS TABLES
    local r=$1 logs=$2 tables=$3 out=$D/whatif-$1.csv t
    t=$(mktemp)
    /usr/bin/time -f "%e %M" -o "$t" "$LAKEAUDIT" --threads 1 whatif "$logs" --tables "$tables" \
        --engine minmax --rewriter "$r" "${LAYOUTS[@]}" --format csv -o "$out"
    read -r secs kb <"$t"
    rm -f "$t"
    echo "| $r | $(basename "$tables") | $(($(wc -l <"$out") - 1)) | $secs | $((kb / 1024)) |" >>"$MD"
}
for r in delta-rs spark-delta databricks; do
    run "$r" "$D/spark-events" "$D/random"
done
run iceberg-spark "$I/events-before" "$I/warehouse/tpch"
cat "$MD"
