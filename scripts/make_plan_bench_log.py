#!/usr/bin/env python3
"""Produce a plan-heavy Spark event log: the 22 TPC-H queries, many rounds.

The counterpart of make_bench_log.py (task-heavy) for issue 18: real pyspark
4.0.1 (local[2], Spark 4.0 event-log defaults: zstd codec, rolling
`eventlog_v2_<appId>/` directory, AQE on) runs tests/data/spark-logs/sql's
q01..q22 --rounds times over small TPC-H tables, so most bytes of the log are
SQL plans: the start of every execution and each of its AQE plan updates
(`SparkListenerSQLAdaptiveExecutionUpdate`), the shape of a platform running
many short queries. Nothing in the log is edited afterwards.

The tables are TPC-H SF 1 cut down by key (`--keep 100`: the rows whose
order, customer, part and supplier keys are multiples of 100; nation and
region whole), written as Parquet under OUT/tables first, in a session
without an event log. The SF 1 Parquet files come from `make bench-skipping`
(target/bench-skipping/sf1/raw-sf1, scripts/skipping/make_tables.py).

Usage:

    scripts/make_plan_bench_log.py [--out target/bench/plan-eventlog] [--rounds 20]
        [--raw target/bench-skipping/sf1/raw-sf1] [--keep 100]
        [--python .venv/spark4/bin/python] [--force]

With no `--force`, an existing finished log in OUT is kept (exit 0).
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
QUERIES = os.path.normpath(os.path.join(HERE, "..", "tests", "data", "spark-logs", "sql"))
# Each table's key columns: a row is kept when every one is a multiple of
# --keep (so that joins along the keys still meet).
KEYS = {
    "region": [],
    "nation": [],
    "supplier": ["s_suppkey"],
    "customer": ["c_custkey"],
    "part": ["p_partkey"],
    "partsupp": ["ps_partkey", "ps_suppkey"],
    "orders": ["o_orderkey", "o_custkey"],
    "lineitem": ["l_orderkey", "l_partkey", "l_suppkey"],
}


def log_done(out):
    """A finished rolling log (appstatus marker without .inprogress) in OUT."""
    for d in glob.glob(os.path.join(out, "eventlog_v2_*")):
        status = glob.glob(os.path.join(d, "appstatus_*"))
        if status and not any(s.endswith(".inprogress") for s in status):
            return d
    return None


def session(name, conf):
    from pyspark.sql import SparkSession

    b = SparkSession.builder.master("local[2]").appName(name)
    for k, v in conf.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def run_spark(args):
    out = os.path.abspath(args.out)
    tables = os.path.join(out, "tables")
    common = {
        "spark.driver.memory": "4g",
        "spark.sql.shuffle.partitions": "8",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.local.dir": os.path.join(out, "scratch"),
        "spark.sql.warehouse.dir": "file://" + os.path.join(out, "scratch", "warehouse"),
    }
    spark = session("lakeaudit-plan-bench-tables", common)
    for t, keys in KEYS.items():
        df = spark.read.parquet(os.path.join(os.path.abspath(args.raw), f"{t}.parquet"))
        for k in keys:
            df = df.where(f"{k} % {args.keep} = 0")
        df.coalesce(1).write.mode("overwrite").parquet(os.path.join(tables, t))
    spark.stop()

    logs = os.path.join(out, "log")
    os.makedirs(logs, exist_ok=True)
    spark = session("lakeaudit-plan-bench", dict(common, **{
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": "file://" + logs,
        # Spark 4.0 defaults, spelled out: zstd, rolling directory, AQE on.
        "spark.eventLog.compress": "true",
        "spark.eventLog.compression.codec": "zstd",
        "spark.eventLog.rolling.enabled": "true",
        "spark.sql.adaptive.enabled": "true",
        "spark.scheduler.listenerbus.eventqueue.capacity": "200000",
    }))
    for t in KEYS:
        spark.sql(f"CREATE TABLE IF NOT EXISTS {t} USING parquet LOCATION '{os.path.join(tables, t)}'")
    t0 = time.time()
    for r in range(args.rounds):
        for q in range(1, 23):
            with open(os.path.join(QUERIES, f"q{q:02d}.sql")) as f:
                sql = f.read()
            spark.sparkContext.setJobDescription(f"tpch q{q:02d} round {r}")
            spark.sql(sql).collect()
        print(f"round {r}: {time.time() - t0:.0f} s", flush=True)
    spark.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="target/bench/plan-eventlog")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--raw", default="target/bench-skipping/sf1/raw-sf1")
    ap.add_argument("--keep", type=int, default=100)
    ap.add_argument("--python", default=os.environ.get("SPARK_PYTHON", "python3"))
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.inner:
        run_spark(args)
        return 0
    done = log_done(os.path.join(args.out, "log"))
    if done and not args.force:
        print(f"plan bench log exists: {done}")
        return 0
    if not os.path.isfile(os.path.join(args.raw, "lineitem.parquet")):
        sys.exit(f"no lineitem.parquet in {args.raw} (--raw; `make bench-skipping` makes it)")
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    try:
        import pyspark  # noqa: F401
        python = sys.executable
    except ImportError:
        python = args.python
    rc = subprocess.call([python, os.path.abspath(__file__), "--inner"] + sys.argv[1:])
    if rc == 0:
        shutil.rmtree(os.path.join(args.out, "scratch"), ignore_errors=True)
        print(f"plan bench log written: {log_done(os.path.join(args.out, 'log'))}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
