"""What the calibration fixtures' scripts share: the `events` Delta table
written by deltalake, and a pyspark run of named queries over its files
read through Spark's Parquet source with the event log on.

Used by make_parquet_read.py and make_delta_rewrite.py.
"""

import argparse
import datetime
import json
import os
import random
import shutil
import subprocess

ROWS = 8_000
FILES = 8

SPARK = r'''
import json, sys
from pyspark.sql import SparkSession
table, events, out, app, glob_filter = sys.argv[1:6]
queries = json.loads(sys.argv[6])
spark = (SparkSession.builder.master("local[2]").appName(app)
         .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", events)
         .config("spark.eventLog.compress", "true")
         .config("spark.eventLog.compression.codec", "zstd")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
         .getOrCreate())
sc = spark.sparkContext
reader = spark.read
if glob_filter:
    reader = reader.option("pathGlobFilter", glob_filter)
reader.parquet(table).createOrReplaceTempView("events")
rows = {}
for name, sql in queries:
    sc.setJobDescription(name)
    rows[name] = [list(r) for r in spark.sql(sql).collect()]
sc.setJobDescription(None)
json.dump({"rows": rows}, open(out, "w"), default=str)
spark.stop()
'''


def write_table(path, seed, ordered):
    """`events` (`day` a date over 2024, `user_id`, `amount`): ROWS rows in
    FILES appends, in `day` order when `ordered` (each file a few weeks),
    else shuffled (every file spans the year)."""
    import pyarrow as pa
    from deltalake import write_deltalake

    rnd = random.Random(seed)
    start = datetime.date(2024, 1, 1)
    days = [start + datetime.timedelta(days=rnd.randrange(366)) for _ in range(ROWS)]
    if ordered:
        days.sort()
    per = ROWS // FILES
    for k in range(FILES):
        chunk = days[k * per:(k + 1) * per]
        t = pa.table({
            "day": pa.array(chunk, pa.date32()),
            "user_id": pa.array([rnd.randrange(500) for _ in chunk], pa.int64()),
            "amount": pa.array([round(rnd.uniform(1, 100), 2) for _ in chunk], pa.float64()),
        })
        write_deltalake(path, t, mode="append")


def spark_run(py, table, events, app, queries, glob_filter=""):
    """Run `queries` ([(name, sql)]) with pyspark 4 (`py`) over `table`'s
    files (those `glob_filter` matches), the event log into `events`;
    returns each query's result rows."""
    os.makedirs(events, exist_ok=True)
    out = events.rstrip("/") + ".json"
    subprocess.run([py, "-c", SPARK, table, events, out, app, glob_filter, json.dumps(queries)],
                   check=True)
    got = json.load(open(out))["rows"]
    os.remove(out)
    return got


def prepare(seed, ordered):
    """The scripts' common start: parse `OUT --spark-python PY`, empty OUT,
    write the events table into OUT/delta/events (`write_table`); returns
    (PY, OUT, the table's directory)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--spark-python", required=True)
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    shutil.rmtree(out, ignore_errors=True)
    table = os.path.join(out, "delta", "events")
    write_table(table, seed, ordered)
    return a.spark_python, out, table
