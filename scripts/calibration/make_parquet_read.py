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

import argparse
import datetime
import json
import os
import random
import shutil
import subprocess
import sys

ROWS = 8_000
FILES = 8
SEED = 31

QUERIES = [
    ("pq1 one week", "SELECT sum(amount) FROM events WHERE day >= DATE'2024-03-04' AND day < DATE'2024-03-11'"),
    ("pq2 one day", "SELECT count(*) FROM events WHERE day = DATE'2024-07-15'"),
    ("pq3 two days", "SELECT count(*) FROM events WHERE day IN (DATE'2024-01-02', DATE'2024-12-30')"),
    ("pq4 a quarter", "SELECT count(DISTINCT user_id) FROM events WHERE day BETWEEN DATE'2024-10-01' AND DATE'2024-12-31'"),
]

SPARK = r'''
import json, sys
from pyspark.sql import SparkSession
table, events, out = sys.argv[1], sys.argv[2], sys.argv[3]
queries = json.loads(sys.argv[4])
spark = (SparkSession.builder.master("local[2]").appName("lakeaudit parquet read of a delta dir")
         .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", events)
         .config("spark.eventLog.compress", "true")
         .config("spark.eventLog.compression.codec", "zstd")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
         .getOrCreate())
sc = spark.sparkContext
spark.read.parquet(table).createOrReplaceTempView("events")
rows = {}
for name, sql in queries:
    sc.setJobDescription(name)
    rows[name] = [list(r) for r in spark.sql(sql).collect()]
sc.setJobDescription(None)
json.dump({"rows": rows}, open(out, "w"), default=str)
spark.stop()
'''


def write_table(path):
    import pyarrow as pa
    from deltalake import write_deltalake

    rnd = random.Random(SEED)
    start = datetime.date(2024, 1, 1)
    days = sorted(start + datetime.timedelta(days=rnd.randrange(366)) for _ in range(ROWS))
    per = ROWS // FILES
    for k in range(FILES):
        chunk = days[k * per:(k + 1) * per]
        t = pa.table({
            "day": pa.array(chunk, pa.date32()),
            "user_id": pa.array([rnd.randrange(500) for _ in chunk], pa.int64()),
            "amount": pa.array([round(rnd.uniform(1, 100), 2) for _ in chunk], pa.float64()),
        })
        write_deltalake(path, t, mode="append")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--spark-python", required=True)
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    shutil.rmtree(out, ignore_errors=True)
    table = os.path.join(out, "delta", "events")
    events = os.path.join(out, "events")
    os.makedirs(events)
    write_table(table)
    from deltalake import DeltaTable

    files = sorted(DeltaTable(table).file_uris())
    spark_out = os.path.join(out, "spark.json")
    subprocess.run([a.spark_python, "-c", SPARK, table, events, spark_out, json.dumps(QUERIES)],
                   check=True)
    got = json.load(open(spark_out))
    os.remove(spark_out)
    expected = {
        "table_dir": table,
        "files": len(files),
        "rows": got["rows"],
    }
    json.dump(expected, open(os.path.join(out, "expected.json"), "w"), indent=1, sort_keys=True)
    print(json.dumps(expected, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
