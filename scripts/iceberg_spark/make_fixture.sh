#!/usr/bin/env bash
# The Spark + Iceberg fixture of tests/data/iceberg-spark/ (its README.md):
# a real Spark 3.5.6 + Iceberg 1.10.2 application (make_log.py) over three
# small Iceberg tables, its event log, and the tables as they are after it.
#
#   scripts/iceberg_spark/make_fixture.sh
#
# Runs from any directory; paths are relative to the repository root.
# Environment:
#   VENV     venv with pyspark and the patched Iceberg runtime (default
#            .venv/iceberg-spark; made or repaired by setup.sh here)
#   SCRATCH  work directory (default target/iceberg-spark-fixture)
#   DEST     fixture directory (default tests/data/iceberg-spark)
#   NICE     prefix of the Spark run (default "nice -n 19")
# Needs java (17) on the PATH.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
VENV=${VENV:-.venv/iceberg-spark}
SCRATCH=${SCRATCH:-target/iceberg-spark-fixture}
DEST=${DEST:-tests/data/iceberg-spark}
NICE=${NICE-nice -n 19}

jar=$("$HERE/setup.sh" "$VENV" | tail -n 1)
$NICE "$VENV/bin/python" "$HERE/make_log.py" --jar "$jar" --out "$SCRATCH"

logs=("$SCRATCH"/events/*)
if [ "${#logs[@]}" -ne 1 ] || [ ! -f "${logs[0]}" ]; then
    echo "expected one event log in $SCRATCH/events, found: ${logs[*]}" >&2
    exit 1
fi
rm -rf "$DEST/events" "$DEST/warehouse"
mkdir -p "$DEST/events"
# Spark's zstd stream (level 1) recompressed at level 19: the same events,
# an eighth of the bytes.
name=$(basename "${logs[0]}")
zstd -dc "${logs[0]}" | zstd -19 -q -o "$DEST/events/$name"
# The tables without Hadoop's .crc side files (Iceberg never reads them).
cp -a "$SCRATCH/warehouse" "$DEST/warehouse"
find "$DEST/warehouse" -name '.*.crc' -delete
cp "$SCRATCH/expected.json" "$DEST/expected.json"
du -sh "$DEST"/events "$DEST"/warehouse "$DEST"
echo "the log names the warehouse it ran with:"
zstd -dc "$DEST/events/$name" | grep -o -m 1 '"spark.sql.catalog.lake.warehouse":"[^"]*"' | head -n 1
