#!/usr/bin/env python3
"""A Delta table rewritten by deltalake's `optimize.z_order`, with Spark 4
logs of the same workload before and after: `lakeaudit verify`'s input.

No Delta reader for Spark can be installed here (delta-spark's jars come
from Maven, which this machine does not reach), so Spark reads the table's
live files through its Parquet source, as `make_parquet_read.py` does:

1. A Delta table by deltalake 1.6.6 (`events`: ROWS rows, `day` a date
   over 2024, `user_id`, `amount`) written as FILES appends of shuffled
   rows, so every file spans the year and no statistics separate them.
2. pyspark 4.0.1 (local[2], event log on, zstd) reads the directory with
   `spark.read.parquet` (every file is live) and runs QUERIES: the `before`
   application.
3. `DeltaTable.optimize.z_order(["day", "user_id"], target_size=TARGET)`:
   deltalake rewrites the table into fewer files (its own commit, operation
   `OPTIMIZE`, with its metrics; the old files stay for time travel, as
   until a VACUUM).
4. pyspark reads the live files again and runs the same QUERIES: the
   `after` application. deltalake writes the files it adds with zstd
   (`….zstd.parquet`) and the appends' with snappy (`….snappy.parquet`), so
   `pathGlobFilter` `*.zstd.parquet` picks exactly the live files while the
   plan still names the table directory. The queries' results are checked
   equal before and after.

Writes into OUT: delta/events/, before/ and after/ (one event log each, a
rolling directory of one part), expected.json (the table directory as
Spark saw it, which the logs name and a test replaces; the live file
counts before and after, which every scan must have read; the rewrite's
commit version; each query's result rows).

Usage: make_delta_rewrite.py OUT --spark-python PY   (PY: a python with
pyspark 4.0.1; this script's python needs deltalake 1.6.6 and pyarrow)
"""

import glob
import json
import os
import sys

from events_table import FILES, prepare, spark_run

TARGET = 20 * 1024
SEED = 47

QUERIES = [
    ("dz1 one week", "SELECT round(sum(amount), 2) FROM events WHERE day >= DATE'2024-03-04' AND day < DATE'2024-03-11'"),
    ("dz2 one day", "SELECT count(*) FROM events WHERE day = DATE'2024-07-15'"),
    ("dz3 a quarter", "SELECT count(DISTINCT user_id) FROM events WHERE day BETWEEN DATE'2024-10-01' AND DATE'2024-12-31'"),
    ("dz4 one user", "SELECT count(*) FROM events WHERE user_id = 42"),
]


def main():
    py, out, table = prepare(SEED, ordered=False)
    from deltalake import DeltaTable

    before_files = len(DeltaTable(table).file_uris())
    assert before_files == FILES, before_files
    assert len(glob.glob(os.path.join(table, "*.parquet"))) == FILES
    rows_before = spark_run(py, table, os.path.join(out, "before"),
                            "lakeaudit delta z-order before", QUERIES)
    dt = DeltaTable(table)
    metrics = dt.optimize.z_order(["day", "user_id"], target_size=TARGET)
    dt = DeltaTable(table)
    live = sorted(os.path.basename(u) for u in dt.file_uris())
    assert live and all(f.endswith(".zstd.parquet") for f in live), live
    assert sorted(os.path.basename(p) for p in glob.glob(os.path.join(table, "*.zstd.parquet"))) == live
    rows_after = spark_run(py, table, os.path.join(out, "after"),
                           "lakeaudit delta z-order after", QUERIES, "*.zstd.parquet")
    if rows_after != rows_before:
        sys.exit(f"the queries' results changed across the rewrite: {rows_before} {rows_after}")
    expected = {
        "table_dir": table,
        "files_before": before_files,
        "files_after": len(live),
        "rewrite_version": dt.version(),
        "z_order": metrics,
        "rows": rows_before,
    }
    json.dump(expected, open(os.path.join(out, "expected.json"), "w"), indent=1, sort_keys=True)
    print(json.dumps(expected, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
