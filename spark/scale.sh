#!/usr/bin/env bash
# The scaling figures of spark/README.md: the map and the aggregation in
# local mode on 1, 2 and 4 cores over 1, 4 and 16 copies of the bench log,
# the plan from the aggregates, and the reduce and the aggregation on a
# records set.
#
# Usage: spark/scale.sh PYTHON LAKEAUDIT BENCH_LOG [RECORDS_DIR]
#   PYTHON       a venv with pyspark (make spark-venv)
#   LAKEAUDIT    a release binary
#   BENCH_LOG    the rolling log scripts/make_bench_log.py makes (its
#                directory, or a directory holding it)
#   RECORDS_DIR  records for the reduce (spark/make_synthetic_records.py)
# COPIES and CORES override the lists (default "1 4 16" and "1 2 4").
# The machine's load is printed beside every timing.
set -euo pipefail
cd "$(dirname "$0")/.."
py="$1"; bin="$2"; log="$3"; records="${4:-}"
copies="${COPIES:-1 4 16}"; cores_list="${CORES:-1 2 4}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if ls "$log"/events_* > /dev/null 2>&1; then
  app="$log"
else
  app=$(ls -d "$log"/eventlog_v2_* | head -1)
fi
bytes=$(cat "$app"/events_* | wc -c)
echo "bench log: $app, $bytes bytes on disk; $(nproc) cores"
load() { cut -d' ' -f1-3 /proc/loadavg; }
timed() { # LABEL CMD...: wall seconds and the load before and after
  local label="$1"; shift
  local before s e
  before=$(load); s=$(date +%s.%N)
  "$@"
  e=$(date +%s.%N)
  echo "$label: $(echo "$e - $s" | bc) s (load before $before, after $(load))"
}

# One thread of lakeaudit on one copy, outside Spark: the floor per copy.
timed "lakeaudit alone, 1 copy, 1 thread" "$bin" --threads 1 queries "$app" -o /dev/null

for n in $copies; do
  rm -rf "$tmp/in"
  for i in $(seq 1 "$n"); do
    mkdir -p "$tmp/in/copy$i"
    cp -rl "$app" "$tmp/in/copy$i/"
  done
  for cores in $cores_list; do
    rm -rf "$tmp/out" "$tmp/agg"
    timed "map: $n copies, local[$cores]" "$py" spark/lakeaudit_map.py --master "local[$cores]" \
      --binary "$bin" --out "$tmp/out" "$tmp/in" 2> "$tmp/map.log"
    timed "aggregation: $n copies, local[$cores]" "$py" spark/lakeaudit_aggregate.py \
      --master "local[$cores]" --out "$tmp/agg" "$tmp/out" 2> "$tmp/agg.log"
  done
  timed "plan from the aggregates: $n copies" "$bin" plan --aggregates "$tmp/agg" --format json -o /dev/null
done

[ -n "$records" ] || exit 0
rows=$(find "$records" -name '*.parquet' | wc -l)
echo "records: $records ($rows Parquet files)"
for cores in $cores_list; do
  rm -rf "$tmp/agg"
  timed "aggregation of the records, local[$cores]" "$py" spark/lakeaudit_aggregate.py \
    --master "local[$cores]" --out "$tmp/agg" "$records" 2> "$tmp/agg.log"
done
/usr/bin/time -f "plan from their aggregates: %e s wall, %U s user, %M KiB peak RSS" \
  "$bin" analyze --aggregates "$tmp/agg" --out "$tmp/planned" 2>&1 >/dev/null | grep -E '^plan from'
for i in 1 2 3; do
  before=$(load)
  /usr/bin/time -f "reduce: %e s wall, %U s user, %M KiB peak RSS" \
    "$bin" analyze --records "$records" --out "$tmp/reduce" 2>&1 >/dev/null | grep -E '^reduce:|applications'
  echo "  (load before $before, after $(load))"
done
