#!/usr/bin/env bash
# `make test-spark`: the map on Spark (local[2]) over samples/ plus a corrupt
# log, the reduce here (`analyze --records`), and the single-machine run on
# the same logs: edges, plan and drift must be byte-identical, and the
# corrupt log must be in the errors table (and only its own records lost).
# Then the aggregation on Spark (`spark/lakeaudit_aggregate.py`) and the
# plan here from its aggregates (`analyze --aggregates`): the same outputs
# again, --cost and --table-stats chosen when planning, other options and
# record-level outputs refused, a damaged table named.
#
# Usage: spark/test_spark.sh PYTHON LAKEAUDIT [wheel]
#   PYTHON: a venv with pyspark. With `wheel`, the lakeaudit wheel is
#   installed in that venv and the map is given no binary: it must find the
#   wheel's on the executors by itself (PATH holds no lakeaudit).
set -euo pipefail
cd "$(dirname "$0")/.."
py="$1"
bin="$2"
mode="${3:-binary}"

if ! command -v java >/dev/null 2>&1 || ! java -version >/dev/null 2>&1; then
  echo "test-spark: SKIPPED: no Java on PATH (the Spark map needs Java 17)"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Two broken copies of real samples (the complete copies in samples/ win,
# on one machine as in the reduce). A corrupt log: a real zstd sample cut in the middle of its stream.
part=$(ls samples/spark4-zstd/eventlog_v2_*/events_1_*)
mkdir -p "$tmp/corrupt"
head -c 60000 "$part" > "$tmp/corrupt/local-1796017976232-cut.zstd"
# A rolling log with a part lost: lakeaudit names the missing index; the map
# hands it the directory under its own names so the same rule applies.
mkdir -p "$tmp/gap"
cp -r samples/spark4-rolling-multi/eventlog_v2_* "$tmp/gap/"
rm "$tmp"/gap/eventlog_v2_*/events_2_*
inputs=(samples "$tmp/corrupt" "$tmp/gap")

if [ "$mode" = wheel ]; then
  venv_bin="$(dirname "$py")"
  [ -x "$venv_bin/lakeaudit" ] || { echo "test-spark: FAILED: no lakeaudit wheel installed in $venv_bin"; exit 1; }
  echo "test-spark: the map in local[2], with the wheel's binary ($venv_bin/lakeaudit) found by the map itself"
  # Only the system's directories on PATH: no lakeaudit there to fall back
  # on. The executors' Python is the venv's (PYSPARK_PYTHON), as a cluster
  # library installs into the executors' own environment.
  PATH=/usr/bin:/bin PYSPARK_PYTHON="$py" "$py" spark/lakeaudit_map.py --master 'local[2]' \
    --out "$tmp/records" "${inputs[@]}" 2> "$tmp/map.log" || {
    tail -50 "$tmp/map.log"; echo "test-spark: FAILED: the map job failed"; exit 1; }
else
  echo "test-spark: the map in local[2]"
  "$py" spark/lakeaudit_map.py --master 'local[2]' --binary "$bin" \
    --out "$tmp/records" "${inputs[@]}" 2> "$tmp/map.log" || {
    tail -50 "$tmp/map.log"; echo "test-spark: FAILED: the map job failed"; exit 1; }
fi

set +e
"$bin" analyze "${inputs[@]}" --out "$tmp/single" 2> "$tmp/single.err"
single=$?
"$bin" analyze --records "$tmp/records" --out "$tmp/reduce" 2> "$tmp/reduce.err"
reduce=$?
set -e

fail=0
for f in edges.csv edges.parquet drift.csv plan.json plan.sql; do
  if cmp -s "$tmp/single/$f" "$tmp/reduce/$f"; then
    echo "test-spark: $f identical"
  else
    echo "test-spark: FAILED: $f differs between the single-machine run and map + reduce"
    diff "$tmp/single/$f" "$tmp/reduce/$f" | head -20 || true
    fail=1
  fi
done
# Both runs read the broken logs, report them and exit 2; the reduce names it
# from the map's errors table, with lakeaudit's reason.
if [ "$single" != 2 ] || [ "$reduce" != 2 ]; then
  echo "test-spark: FAILED: exit codes single=$single reduce=$reduce, expected 2 (broken inputs)"
  fail=1
fi
err_re='^lakeaudit: [^ ]*corrupt/local-1796017976232-cut.zstd:[0-9]+: corrupt zstd stream'
if grep -qE "$err_re" "$tmp/reduce.err" && grep -qE "${err_re#^lakeaudit: }" "$tmp/reduce/report.md"; then
  echo "test-spark: the corrupt log is in the errors table: $(grep -m1 -E "$err_re" "$tmp/reduce.err")"
else
  echo "test-spark: FAILED: the corrupt log is not among the reduce's errors:"
  cat "$tmp/reduce.err"
  fail=1
fi
if grep -qE '^lakeaudit: [^ ]*gap/eventlog_v2_local-1796087710349: rolling event-log part 2 is missing' "$tmp/reduce.err"; then
  echo "test-spark: the missing rolling part is in the errors table"
else
  echo "test-spark: FAILED: the missing rolling part is not among the reduce's errors:"
  cat "$tmp/reduce.err"
  fail=1
fi
apps_single=$(grep -c '^- `' "$tmp/single/report.md" || true)
apps_reduce=$(grep -c '^- `' "$tmp/reduce/report.md" || true)
if [ "$apps_single" != "$apps_reduce" ]; then
  echo "test-spark: FAILED: report lists $apps_single inputs from logs, $apps_reduce from records"
  fail=1
fi

# The aggregation on Spark and the plan from its aggregates.
echo "test-spark: the aggregation in local[2]"
"$py" spark/lakeaudit_aggregate.py --master 'local[2]' --out "$tmp/agg" "$tmp/records" 2> "$tmp/agg.log" || {
  tail -50 "$tmp/agg.log"; echo "test-spark: FAILED: the aggregation job failed"; exit 1; }
# An earlier run's queries.parquet in the output directory must go.
"$bin" analyze samples/spark4-plain --out "$tmp/aggregated" 2> /dev/null
set +e
"$bin" analyze --aggregates "$tmp/agg" --out "$tmp/aggregated" 2> "$tmp/aggregated.err"
aggregated=$?
set -e
for f in edges.csv edges.parquet drift.csv plan.json plan.sql; do
  if cmp -s "$tmp/single/$f" "$tmp/aggregated/$f"; then
    echo "test-spark: $f identical from --aggregates"
  else
    echo "test-spark: FAILED: $f differs between the single-machine run and --aggregates"
    diff "$tmp/single/$f" "$tmp/aggregated/$f" | head -20 || true
    fail=1
  fi
done
if [ "$aggregated" != 2 ] || ! grep -qE "$err_re" "$tmp/aggregated.err"; then
  echo "test-spark: FAILED: --aggregates: exit code $aggregated (expected 2) or the corrupt log not reported:"
  cat "$tmp/aggregated.err"
  fail=1
fi
if [ -e "$tmp/aggregated/queries.parquet" ] || ! grep -q 'warning: queries.parquet is not written: --aggregates' "$tmp/aggregated.err"; then
  echo "test-spark: FAILED: analyze --aggregates wrote queries.parquet or did not say it left it out"
  fail=1
fi
apps_aggregated=$(grep -c '^- `' "$tmp/aggregated/report.md" || true)
if [ "$apps_single" != "$apps_aggregated" ]; then
  echo "test-spark: FAILED: report lists $apps_single inputs from logs, $apps_aggregated from aggregates"
  fail=1
fi
# The cost measure and --table-stats are chosen when planning.
printf 'table,bytes,rows\norders,5000000000,1500000\nlineitem,20000000000,6000000\ncustomer,900000000,150000\n' > "$tmp/stats.csv"
same() { # NAME CMD-ON-LOGS... -- CMD-ON-AGGREGATES...
  local name="$1"; shift
  local logs=() agg=()
  while [ "$1" != -- ]; do logs+=("$1"); shift; done; shift
  agg=("$@")
  "$bin" "${logs[@]}" -o "$tmp/$name.logs" 2> /dev/null || true
  "$bin" "${agg[@]}" -o "$tmp/$name.agg" 2> /dev/null || true
  if [ -s "$tmp/$name.logs" ] && cmp -s "$tmp/$name.logs" "$tmp/$name.agg"; then
    echo "test-spark: $name identical from --aggregates"
  else
    echo "test-spark: FAILED: $name differs between the logs and --aggregates"
    diff "$tmp/$name.logs" "$tmp/$name.agg" | head -10 || true
    fail=1
  fi
}
same drift-cpu.csv drift "${inputs[@]}" --cost cpu --format csv -- drift --aggregates "$tmp/agg" --cost cpu --format csv
same plan-stats.json plan "${inputs[@]}" --table-stats "$tmp/stats.csv" --format json -- plan --aggregates "$tmp/agg" --table-stats "$tmp/stats.csv" --format json
same edges-windows.csv edges "${inputs[@]}" --window 7d --format csv -- edges --aggregates "$tmp/agg" --window 7d --format csv
# Refusals: an option the aggregates were not made with, an output made of
# the executions; both name what to do, exit 2, write nothing.
refused() { # WHAT EXPECTED-MESSAGE ARGS...
  local what="$1" msg="$2"; shift 2
  set +e
  "$bin" "$@" -o "$tmp/refused-output" > /dev/null 2> "$tmp/refused.err"
  local code=$?
  set -e
  if [ "$code" = 2 ] && grep -qF -- "$msg" "$tmp/refused.err" && [ ! -e "$tmp/refused-output" ]; then
    echo "test-spark: --aggregates refuses $what: $(head -1 "$tmp/refused.err")"
  else
    echo "test-spark: FAILED: --aggregates with $what: exit $code, expected 2 and \"$msg\":"
    cat "$tmp/refused.err"
    fail=1
  fi
}
refused "another --window" "were made with --window 7d, and this run is with --window 1d" plan --aggregates "$tmp/agg" --window 1d --format json
refused "--since" "were made without --since, and this run is with --since 1700000000000" drift --aggregates "$tmp/agg" --since 1700000000000 --format csv
refused "queries" "the executions are needed here" queries --aggregates "$tmp/agg" --format jsonl
refused "edges --explain" "the executions are needed here" edges --aggregates "$tmp/agg" --explain 'orders-lineitem'
# Untrusted input: a damaged table is named.
cp -r "$tmp/agg" "$tmp/agg-bad"
bad=$(ls "$tmp"/agg-bad/edges/*.parquet | head -1)
head -c 100 "$(ls "$tmp"/agg/edges/*.parquet | head -1)" > "$bad"
refused "a damaged edges/ file" "$(basename "$bad")" plan --aggregates "$tmp/agg-bad" --format json
[ "$fail" = 0 ] && echo "test-spark: passed"
exit "$fail"
