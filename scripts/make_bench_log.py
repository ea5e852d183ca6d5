#!/usr/bin/env python3
"""Produce the big, task-heavy Spark event log used by `make bench`.

The log is written by Apache Spark itself (pyspark 4.0.1, Spark 4.0 event-log
defaults: zstd codec, rolling `eventlog_v2_<appId>/` directory). This script
only picks settings that make many tasks -- thousands of input partitions and
shuffle partitions, AQE on but partition coalescing off, broadcasts off so
joins run as SortMergeJoin -- and runs a few SQL join/aggregate queries over
`range()` tables a number of rounds. Most bytes of the resulting log are
`SparkListenerTaskEnd` events, which is the shape that dominates real
production logs. Nothing in the log is edited afterwards.

Usage:

    make spark-venv        # .venv/spark4 with pyspark==4.0.1 (or any venv of yours)
    scripts/make_bench_log.py [--out target/bench/big-eventlog] [--rounds 16] [--minutes M]
        [--python .venv/spark4/bin/python] [--force]

With no `--force`, an existing finished log in OUT is kept (exit 0). The
script re-runs itself under the pyspark interpreter given by `--python` (or
$SPARK_PYTHON, else `python3` on PATH) when the current interpreter lacks
pyspark.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

DEFAULT_PYTHON = "python3"

# Join and aggregate queries over range() tables. The fact side has few
# input partitions and the shuffle has many, so most tasks are cheap reduce
# tasks; every reduce task runs several co-partitioned SortMergeJoins plus an
# aggregate in one stage, so its TaskEnd event carries many SQL metric
# accumulables (the bulky part of real task events). The joins also give the
# log real SQL plans with join keys (and AQE plan updates).
QUERIES = [
    # four-way SortMergeJoin on one key (one reduce stage) + aggregate
    """SELECT f.k % 97 AS g, count(*) AS n, sum(a.v) AS sa, sum(b.v) AS sb, sum(c.v) AS sc
       FROM (SELECT id % 100000 AS k, id AS x FROM range(0, {rows}, 1, {parts})) f
       JOIN (SELECT id AS k, id * 3 AS v FROM range(0, 100000, 1, {dparts})) a ON f.k = a.k
       JOIN (SELECT id AS k, id * 5 AS v FROM range(0, 100000, 1, {dparts})) b ON f.k = b.k
       LEFT JOIN (SELECT id AS k, id * 7 AS v FROM range(0, 50000, 1, {dparts})) c ON f.k = c.k
       WHERE a.v % 11 <> 3
       GROUP BY f.k % 97""",
    # semi join via IN, anti join via NOT EXISTS, then a distinct count
    """SELECT count(DISTINCT f.k) AS n
       FROM (SELECT id % 100000 AS k FROM range(0, {rows}, 1, {parts})) f
       WHERE f.k IN (SELECT id * 2 FROM range(0, 50000, 1, {dparts}))
         AND NOT EXISTS (SELECT 1 FROM range(0, 100000, 1, {dparts}) z
                         WHERE z.id = f.k AND z.id % 13 = 0)""",
]


def log_done(out):
    """A finished rolling log (appstatus marker without .inprogress) in OUT."""
    for d in glob.glob(os.path.join(out, "eventlog_v2_*")):
        status = glob.glob(os.path.join(d, "appstatus_*"))
        if status and not any(s.endswith(".inprogress") for s in status):
            return d
    return None


def run_spark(args):
    from pyspark.sql import SparkSession

    os.makedirs(args.out, exist_ok=True)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("lakeaudit-bench")
        .config("spark.driver.memory", "4g")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", "file://" + os.path.abspath(args.out))
        # Spark 4.0 defaults, spelled out: zstd, rolling directory.
        .config("spark.eventLog.compress", "true")
        .config("spark.eventLog.compression.codec", "zstd")
        .config("spark.eventLog.rolling.enabled", "true")
        # A task-heavy log must not lose events on the listener bus.
        .config("spark.scheduler.listenerbus.eventqueue.capacity", "200000")
        .config("spark.sql.shuffle.partitions", str(args.shuffle_partitions))
        .config("spark.sql.adaptive.enabled", "true")
        .config("spark.sql.adaptive.coalescePartitions.enabled", "false")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config("spark.sql.adaptive.autoBroadcastJoinThreshold", "-1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    t0 = time.time()
    for r in range(args.rounds):
        if args.minutes and time.time() - t0 > args.minutes * 60:
            print(f"time budget of {args.minutes} min reached after {r} rounds", flush=True)
            break
        for i, q in enumerate(QUERIES):
            sql = q.format(rows=args.rows, parts=args.parts, dparts=args.dim_parts)
            rows = spark.sql(sql).collect()
            print(f"round {r} query {i}: {len(rows)} rows, {time.time() - t0:.0f} s",
                  flush=True)
    spark.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="target/bench/big-eventlog")
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--minutes", type=float, default=0,
                    help="stop starting new rounds after this many minutes (0: no limit)")
    ap.add_argument("--rows", type=int, default=400_000)
    ap.add_argument("--parts", type=int, default=40)
    ap.add_argument("--dim-parts", type=int, default=8)
    ap.add_argument("--shuffle-partitions", type=int, default=2000)
    ap.add_argument("--python", default=os.environ.get("SPARK_PYTHON", DEFAULT_PYTHON))
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.inner:
        run_spark(args)
        return 0
    done = log_done(args.out)
    if done and not args.force:
        print(f"bench log exists: {done}")
        return 0
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    try:
        import pyspark  # noqa: F401
        python = sys.executable
    except ImportError:
        python = args.python
        if not os.path.exists(python):
            sys.exit(f"no pyspark here and no interpreter at {python}; see --help")
    cmd = [python, os.path.abspath(__file__), "--inner"] + [
        a for a in sys.argv[1:] if a != "--force"
    ]
    rc = subprocess.call(cmd)
    if rc != 0:
        return rc
    done = log_done(args.out)
    if not done:
        sys.exit(f"Spark finished but no complete event log is in {args.out}")
    print(f"bench log written: {done}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
