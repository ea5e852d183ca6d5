#!/usr/bin/env python3
"""A real Spark event log over the table fixtures (tests/data/tables).

    python3 scripts/make_tables_log.py PYTHON_WITH_PYSPARK_4 OUT_DIR

PYTHON_WITH_PYSPARK_4 is an interpreter with pyspark==4.0.1 installed (no
Delta or Iceberg jars: nothing here can fetch them). The script copies
tests/data/tables/warehouse to /tmp/lakeaudit-tables/warehouse and, in a
Spark session with event logging on, registers the Delta fixtures' data
files as parquet tables under the names `lakeaudit tables` gives them
(`customers`, `sales`, `orders_dv`; Spark reads every `*.parquet` file in the
directory, including files a Delta commit has removed, and ignores
deletion vectors: the log shows what the joins read, not Delta's
snapshot). Broadcast joins are off so that the joins run as
SortMergeJoin, the only kind the layout planner plans for. The joins:

- sales.id = orders_dv.id, 8 times (sales has many small files);
- customers.c_custkey = orders_dv.id, 8 times (customers is clustered on
  (c_custkey, c_nation), a different key than the one the join uses).

The one event log Spark wrote is copied into OUT_DIR unchanged.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORK = "/tmp/lakeaudit-tables"
WH = os.path.join(WORK, "warehouse")
LOGS = os.path.join(WORK, "logs")

QUERIES = [
    "SELECT s.day, count(*), sum(o.amount) FROM sales s JOIN orders_dv o ON s.id = o.id GROUP BY s.day",
    "SELECT c.c_nation, count(*), sum(o.amount) FROM customers c JOIN orders_dv o ON c.c_custkey = o.id GROUP BY c.c_nation",
]
ROUNDS = 8


def child():
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("lakeaudit-tables-log")
             .config("spark.eventLog.enabled", "true")
             .config("spark.eventLog.dir", "file://" + LOGS)
             .config("spark.sql.warehouse.dir", os.path.join(WORK, "spark-warehouse"))
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.sql.autoBroadcastJoinThreshold", "-1")
             .getOrCreate())
    for t in ("customers", "orders_dv", "sales"):
        spark.sql(f"CREATE TABLE IF NOT EXISTS {t} USING parquet OPTIONS (pathGlobFilter '*.parquet') LOCATION '{os.path.join(WH, t)}'")
    spark.sql("MSCK REPAIR TABLE sales")
    for _ in range(ROUNDS):
        for q in QUERIES:
            spark.sql(q).collect()
    spark.stop()


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--child":
        child()
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    python, out = sys.argv[1], sys.argv[2]
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(LOGS)
    shutil.copytree(os.path.join(REPO, "tests", "data", "tables", "warehouse"), WH)
    subprocess.run([python, os.path.abspath(__file__), "--child"], check=True, cwd=WORK)
    (entry,) = os.listdir(LOGS)
    os.makedirs(out, exist_ok=True)
    dst = os.path.join(out, entry)
    shutil.rmtree(dst, ignore_errors=True)
    if os.path.isdir(os.path.join(LOGS, entry)):
        shutil.copytree(os.path.join(LOGS, entry), dst)
    else:
        shutil.copy2(os.path.join(LOGS, entry), dst)
    print(dst)


if __name__ == "__main__":
    main()
