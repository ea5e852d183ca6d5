#!/usr/bin/env bash
# Check `lakeaudit whatif --rewriter delta-rs` against deltalake's own
# rewrites, measured by DuckDB's delta extension:
#
#   scripts/skipping/rewriters.sh [SF] [OUT]     (default 0.1, target/rewriters)
#
# 1. TPC-H at SF written by deltalake in four layouts (make_tables.py):
#    `random`; `date` (a sorted write: lineitem by l_shipdate, orders by
#    o_orderdate); `z2` and `z3`: deltalake's `optimize.z_order` on 2 and 3
#    columns of lineitem and orders. Target file size TARGET (default 1 MiB).
# 2. The `keys` workload (workloads/keys: key ranges, point lookups, dates)
#    run by Spark on `random` with event logging: lakeaudit's input.
# 3. The same workload run by DuckDB on every layout: the real counts.
# 4. `lakeaudit whatif` on the log and the `random` tables, simulating each
#    layout with `--rewriter delta-rs --target-size TARGET`, compared by
#    rewriter_check.py (predicted and real share of files skipped, file
#    counts). Prints OUT/sf<SF>/rewriters.md.
#
# Environment: LAKEAUDIT (the binary; default target/release/lakeaudit),
# TARGET (bytes), VENV (default .venv/skipping, made by run.sh's rules).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SF=${1:-0.1}
OUT=${2:-$ROOT/target/rewriters}/sf$SF
TARGET=${TARGET:-1048576}
VENV=${VENV:-$ROOT/.venv/skipping}
LAKEAUDIT=${LAKEAUDIT:-$ROOT/target/release/lakeaudit}
NICE=${NICE:-nice -n 19}
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$HERE/requirements.txt" "$VENV/.bench-skipping-requirements"; then
    python3 -m venv "$VENV"
    $NICE "$VENV/bin/pip" install -q -r "$HERE/requirements.txt"
    cp "$HERE/requirements.txt" "$VENV/.bench-skipping-requirements"
fi
PY=$VENV/bin/python
Q=$HERE/workloads/keys
mkdir -p "$OUT"
L2="lineitem=l_orderkey,l_shipdate;orders=o_custkey,o_orderdate"
L3="lineitem=l_orderkey,l_shipdate,l_partkey;orders=o_custkey,o_orderdate,o_orderkey"
$NICE "$PY" "$HERE/make_tables.py" --sf "$SF" --out "$OUT" --layout random --target-file-size "$TARGET"
$NICE "$PY" "$HERE/make_tables.py" --sf "$SF" --out "$OUT" --layout date --target-file-size "$TARGET"
$NICE "$PY" "$HERE/make_tables.py" --sf "$SF" --out "$OUT" --layout "zorder:$L2" --name z2 --target-file-size "$TARGET"
$NICE "$PY" "$HERE/make_tables.py" --sf "$SF" --out "$OUT" --layout "zorder:$L3" --name z3 --target-file-size "$TARGET"
for l in random date z2 z3; do
    $NICE "$PY" "$HERE/run_duckdb.py" --tables "$OUT/$l" --queries "$Q" --out "$OUT/duckdb-$l.jsonl" >/dev/null
done
if [ ! -d "$OUT/spark-events" ] || [ -z "$(ls -A "$OUT/spark-events")" ]; then
    SPARK_PYTHON="$PY" $NICE "$PY" "$HERE/run_spark.py" --tables "$OUT/random" --queries "$Q" \
        --eventlog-dir "$OUT/spark-events" --app-name lakeaudit-rewriters
fi
W="$OUT/whatif.csv"
"$LAKEAUDIT" whatif "$OUT/spark-events" --tables "$OUT/random" --engine minmax \
    --rewriter delta-rs --target-size "$TARGET" \
    --layout "lineitem=l_shipdate;orders=o_orderdate" --layout "$L2" --layout "$L3" \
    --format csv -o "$W"
"$PY" "$HERE/rewriter_check.py" "$W" \
    --layout "lineitem=l_shipdate=$OUT/duckdb-date.jsonl=$OUT/date/lineitem" \
    --layout "orders=o_orderdate=$OUT/duckdb-date.jsonl=$OUT/date/orders" \
    --layout "lineitem=l_orderkey,l_shipdate=$OUT/duckdb-z2.jsonl=$OUT/z2/lineitem" \
    --layout "orders=o_custkey,o_orderdate=$OUT/duckdb-z2.jsonl=$OUT/z2/orders" \
    --layout "lineitem=l_orderkey,l_shipdate,l_partkey=$OUT/duckdb-z3.jsonl=$OUT/z3/lineitem" \
    --layout "orders=o_custkey,o_orderdate,o_orderkey=$OUT/duckdb-z3.jsonl=$OUT/z3/orders" \
    | tee "$OUT/rewriters.md"
