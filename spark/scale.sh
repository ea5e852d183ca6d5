#!/usr/bin/env bash
# The scaling figure of spark/README.md: the map in local mode on 1, 2 and 4
# copies of the bench log (2 cores), and the reduce on a records set.
#
# Usage: spark/scale.sh PYTHON LAKEAUDIT BENCH_LOG RECORDS_DIR
#   PYTHON       a venv with pyspark (make spark-venv)
#   LAKEAUDIT    a release binary
#   BENCH_LOG    the rolling log scripts/make_bench_log.py makes
#   RECORDS_DIR  records for the reduce (spark/make_synthetic_records.py)
# The machine's load is printed beside every timing.
set -euo pipefail
cd "$(dirname "$0")/.."
py="$1"; bin="$2"; log="$3"; records="$4"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
app=$(ls -d "$log"/eventlog_v2_* | head -1)
bytes=$(cat "$app"/events_* | wc -c)
echo "bench log: $app, $bytes bytes on disk"
load() { cut -d' ' -f1-3 /proc/loadavg; }

# One thread of lakeaudit on one copy, outside Spark: the floor per copy.
s=$(date +%s.%N); "$bin" --threads 1 queries "$app" -o /dev/null; e=$(date +%s.%N)
echo "lakeaudit alone, 1 copy, 1 thread: $(echo "$e - $s" | bc) s (load $(load))"

for n in 1 2 4; do
  rm -rf "$tmp/in" "$tmp/out"
  for i in $(seq 1 "$n"); do
    mkdir -p "$tmp/in/copy$i"
    cp -rl "$app" "$tmp/in/copy$i/"
  done
  for cores in 1 2; do
    rm -rf "$tmp/out"
    before=$(load)
    s=$(date +%s.%N)
    "$py" spark/lakeaudit_map.py --master "local[$cores]" --binary "$bin" \
      --out "$tmp/out" "$tmp/in" 2> "$tmp/map.log" | tail -1
    e=$(date +%s.%N)
    echo "map: $n copies, local[$cores]: $(echo "$e - $s" | bc) s (load before $before, after $(load))"
  done
done

rows=$(find "$records" -name '*.parquet' | wc -l)
echo "reduce input: $records ($rows Parquet files)"
for i in 1 2 3; do
  before=$(load)
  /usr/bin/time -f "reduce: %e s wall, %U s user, %M KiB peak RSS" \
    "$bin" analyze --records "$records" --out "$tmp/reduce" 2>&1 >/dev/null | grep -E '^reduce:|applications'
  echo "  (load before $before, after $(load))"
done
