#!/usr/bin/env bash
# `make test-sql-spark`: the statements lakeaudit writes, parsed by Spark's
# own parsers (planner/scripts/check_sql.py): Spark 4.0.1's for ALTER TABLE ..
# CLUSTER BY, CREATE OR REPLACE, ANALYZE, CALL and the OPTIMIZE predicates;
# Iceberg 1.10.2's (Spark 3.5 runtime jar) for WRITE ORDERED BY and CALL.
# Inputs: the ddl snapshots, plan.sql of the samples with every table
# plannable, its maintenance.sql, and the compaction statements of the
# table fixtures.
#
# Usage: spark/test_sql.sh SPARK4_PYTHON ICEBERG_PYTHON LAKEAUDIT
set -euo pipefail
cd "$(dirname "$0")/.."
spark_py="$1"
iceberg_py="$2"
bin="$3"

if ! command -v java >/dev/null 2>&1 || ! java -version >/dev/null 2>&1; then
  echo "test-sql-spark: SKIPPED: no Java on PATH (Spark's parser needs Java 17)"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$bin" analyze samples --tables samples/warehouse --min-table-size 0 --out "$tmp/a" 2> "$tmp/a.err"
"$bin" tables tests/data/tables/warehouse samples/warehouse --out "$tmp/t" --format jsonl 2> "$tmp/t.err"
"$spark_py" - "$tmp/t/compaction.jsonl" > "$tmp/compaction.sql" <<'PY'
import json, sys
seen = set()
for line in open(sys.argv[1]):
    s = json.loads(line)["statement"]
    if s and not s.startswith("--") and s not in seen:
        seen.add(s)
        print(s + ";")
PY
files=(planner/src/snapshots/planner__ddl__tests__ddl_snapshot.snap
       planner/src/snapshots/planner__ddl__tests__ddl_by_format.snap
       "$tmp/a/plan.sql" "$tmp/a/maintenance.sql" "$tmp/compaction.sql")
echo "test-sql-spark: Spark 4.0.1's parser"
"$spark_py" planner/scripts/check_sql.py spark "${files[@]}" 2> "$tmp/spark.log" || {
  tail -20 "$tmp/spark.log"; echo "test-sql-spark: FAILED (spark)"; exit 1; }
echo "test-sql-spark: Iceberg's parser (Spark 3.5 + iceberg-spark-runtime)"
"$iceberg_py" planner/scripts/check_sql.py iceberg "${files[@]}" 2> "$tmp/iceberg.log" || {
  tail -20 "$tmp/iceberg.log"; echo "test-sql-spark: FAILED (iceberg)"; exit 1; }
echo "test-sql-spark: ok"
