#!/usr/bin/env python3
"""A Spark log over a Delta table's directory read as plain Parquet.

Spark's Parquet source (`spark.read.parquet(dir)`) knows nothing of the
Delta log: it lists the directory and opens every file, whatever the
files' statistics in `_delta_log` say. Its scans' `number of files read`
is therefore the table's file count, and lakeaudit's calibration must find
that `none` reproduces it while `minmax` (Delta data skipping) would read
fewer. This script makes that case with the real writers and engine:

1. A Delta table by deltalake (`events`: ROWS rows, `day` a date over
   2024, `user_id`, `amount`), written as FILES appends in `day` order, so
   each file covers a few weeks and Delta's min/max statistics separate
   them.
2. pyspark 4.0.1 (local[2], event log on, zstd) reads the directory with
   `spark.read.parquet` and runs QUERIES (date ranges, an equality, an
   IN list) against it.

Writes into OUT: delta/events/, events/ (the event log, a rolling
directory of one part), expected.json (the table directory as Spark saw
it, which the log names and a test replaces; the table's file count, which
is what every scan must have read; each query's result rows).

Usage: make_parquet_read.py OUT --spark-python PY   (PY: a python with
pyspark 4.0.1; this script's python needs deltalake 1.6.6 and pyarrow)
"""

import json
import os
import sys

from events_table import FILES, prepare, spark_run

SEED = 31

QUERIES = [
    ("pq1 one week", "SELECT sum(amount) FROM events WHERE day >= DATE'2024-03-04' AND day < DATE'2024-03-11'"),
    ("pq2 one day", "SELECT count(*) FROM events WHERE day = DATE'2024-07-15'"),
    ("pq3 two days", "SELECT count(*) FROM events WHERE day IN (DATE'2024-01-02', DATE'2024-12-30')"),
    ("pq4 a quarter", "SELECT count(DISTINCT user_id) FROM events WHERE day BETWEEN DATE'2024-10-01' AND DATE'2024-12-31'"),
]


def main():
    py, out, table = prepare(SEED, ordered=True)
    from deltalake import DeltaTable

    files = sorted(DeltaTable(table).file_uris())
    assert len(files) == FILES, files
    rows = spark_run(py, table, os.path.join(out, "events"),
                     "lakeaudit parquet read of a delta dir", QUERIES)
    expected = {
        "table_dir": table,
        "files": len(files),
        "rows": rows,
    }
    json.dump(expected, open(os.path.join(out, "expected.json"), "w"), indent=1, sort_keys=True)
    print(json.dumps(expected, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
