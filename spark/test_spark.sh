#!/usr/bin/env bash
# `make test-spark`: the map on Spark (local[2]) over samples/ plus a corrupt
# log, the reduce here (`analyze --records`), and the single-machine run on
# the same logs: edges, plan and drift must be byte-identical, and the
# corrupt log must be in the errors table (and only its own records lost).
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
[ "$fail" = 0 ] && echo "test-spark: passed"
exit "$fail"
