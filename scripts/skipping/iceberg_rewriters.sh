#!/usr/bin/env bash
# Check `lakeaudit whatif --rewriter iceberg-spark` against Iceberg's own
# rewrites on Spark, measured by Iceberg's own scan counts:
#
#   scripts/skipping/iceberg_rewriters.sh [SF] [OUT]   (default 0.1, target/rewriters)
#
# 1. TPC-H lineitem and orders at SF (tpchgen's Parquet files, made by
#    make_tables.py's rules under OUT/sf<SF>/raw-sf<SF>) written as Iceberg
#    tables by Spark 3.5.6 + Iceberg 1.10.2, rows shuffled, files of TARGET
#    bytes; the `keys` workload (workloads/keys) runs on them with event
#    logging: lakeaudit's input (iceberg_rewriters.py).
# 2. Each layout rewritten by `CALL rewrite_data_files` (sort on one column,
#    `zorder(…)` on two and three), the workload run again, its scans' own
#    Iceberg counts read from that log, the table rolled back.
# 3. `lakeaudit whatif --rewriter iceberg-spark --target-size TARGET` on the
#    first log and the tables, compared by rewriter_check.py (predicted and
#    real share of files skipped, file counts). Prints
#    OUT/iceberg-sf<SF>/rewriters.md.
#
# Environment: LAKEAUDIT (default target/release/lakeaudit), TARGET (bytes,
# default 1 MiB), IVENV (Spark + Iceberg venv, default .venv/iceberg-spark,
# made by scripts/iceberg_spark/setup.sh), VENV (.venv/skipping, for
# tpchgen), NICE. Needs java 17.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SF=${1:-0.1}
BASE=${2:-$ROOT/target/rewriters}
OUT=$BASE/iceberg-sf$SF
RAW=$BASE/sf$SF/raw-sf$SF
TARGET=${TARGET:-1048576}
IVENV=${IVENV:-$ROOT/.venv/iceberg-spark}
VENV=${VENV:-$ROOT/.venv/skipping}
LAKEAUDIT=${LAKEAUDIT:-$ROOT/target/release/lakeaudit}
NICE=${NICE:-nice -n 19}
if [ ! -f "$RAW/lineitem.parquet" ]; then
    if [ ! -x "$VENV/bin/python" ]; then
        python3 -m venv "$VENV"
        $NICE "$VENV/bin/pip" install -q -r "$HERE/requirements.txt"
    fi
    # make_tables.py generates the raw tables once, beside its Delta tables.
    $NICE "$VENV/bin/python" "$HERE/make_tables.py" --sf "$SF" --out "$BASE/sf$SF" \
        --layout random --target-file-size "$TARGET" --raw "$RAW"
fi
jar=$("$ROOT/scripts/iceberg_spark/setup.sh" "$IVENV" | tail -n 1)
L1="date=lineitem:l_shipdate;orders:o_orderdate"
L2="z2=lineitem:l_orderkey,l_shipdate;orders:o_custkey,o_orderdate"
L3="z3=lineitem:l_orderkey,l_shipdate,l_partkey;orders:o_custkey,o_orderdate,o_orderkey"
$NICE "$IVENV/bin/python" "$HERE/iceberg_rewriters.py" --jar "$jar" --raw "$RAW" \
    --queries "$HERE/workloads/keys" --out "$OUT" --target "$TARGET" \
    --layout "$L1" --layout "$L2" --layout "$L3"
W="$OUT/whatif.csv"
"$LAKEAUDIT" whatif "$OUT/events-before" --tables "$OUT/warehouse/tpch" --engine minmax \
    --rewriter iceberg-spark --target-size "$TARGET" \
    --layout "lineitem=l_shipdate;orders=o_orderdate" \
    --layout "lineitem=l_orderkey,l_shipdate;orders=o_custkey,o_orderdate" \
    --layout "lineitem=l_orderkey,l_shipdate,l_partkey;orders=o_custkey,o_orderdate,o_orderkey" \
    --format csv -o "$W"
python3 "$HERE/rewriter_check.py" "$W" \
    --layout "lineitem=l_shipdate=$OUT/iceberg-date.jsonl=-" \
    --layout "orders=o_orderdate=$OUT/iceberg-date.jsonl=-" \
    --layout "lineitem=l_orderkey,l_shipdate=$OUT/iceberg-z2.jsonl=-" \
    --layout "orders=o_custkey,o_orderdate=$OUT/iceberg-z2.jsonl=-" \
    --layout "lineitem=l_orderkey,l_shipdate,l_partkey=$OUT/iceberg-z3.jsonl=-" \
    --layout "orders=o_custkey,o_orderdate,o_orderkey=$OUT/iceberg-z3.jsonl=-" \
    | tee "$OUT/rewriters.md"
