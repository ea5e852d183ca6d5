#!/usr/bin/env python3
"""Run the 22 TPC-H queries with pyspark (local[2]) and keep the event log.

No delta-spark jar is available offline, so each Delta table is registered as
a plain Parquet table over its data files:

    CREATE TABLE lineitem USING parquet LOCATION '<tables>/lineitem'

Spark skips `_delta_log` (names starting with `_` are hidden from file
listing), so this reads exactly the table's rows only when every Parquet file
in the directory is a live file of the Delta table. That is checked first
(the set of *.parquet files under the directory must equal the set of `add`
paths of the current snapshot); a table with removed-but-present files (an
OPTIMIZE or z_order without VACUUM) is refused.

Spark reads Parquet, not Delta, so it does no file skipping on Delta
statistics here: the point of this run is the event log (scans, pushed
predicates, joins, AQE plan updates) that lakeaudit reads.

Event log: `spark.eventLog.enabled=true`, zstd, rolling directory (Spark 4.0
defaults) in --eventlog-dir. Each query runs once, in order, as one SQL
execution with the job description "tpch qNN". --summary writes one JSON line
per query: status, seconds, rows, and from the final (AQE) physical plan the
join operators and each FileScan's table and pushed filters.

Query texts: Spark versions in q01.sql ... q22.sql (default: the repository's
tests/data/spark-logs/sql, found relative to this script).

Usage:
    run_spark.py --tables DIR --eventlog-dir DIR [--summary FILE.jsonl]
        [--queries DIR] [--shuffle-partitions 8] [--driver-memory 4g]
        [--app-name NAME] [--python PY]
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_QUERIES = os.path.normpath(os.path.join(HERE, "..", "..", "tests", "data", "spark-logs", "sql"))
TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
JOINS = ["BroadcastHashJoin", "SortMergeJoin", "ShuffledHashJoin", "BroadcastNestedLoopJoin",
         "CartesianProduct"]


def check_table(path):
    """None when the directory's Parquet files are exactly the live files."""
    from urllib.parse import unquote

    import pyarrow as pa
    from deltalake import DeltaTable

    adds = DeltaTable(path).get_add_actions(flatten=True)
    adds = adds if isinstance(adds, pa.Table) else pa.table(adds)
    live = {os.path.normpath(unquote(p)) for p in adds.column("path").to_pylist()}
    on_disk = set()
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        for f in files:
            if f.endswith(".parquet") and not f.startswith(("_", ".")):
                on_disk.add(os.path.normpath(os.path.relpath(os.path.join(root, f), path)))
    extra, missing = on_disk - live, live - on_disk
    if extra or missing:
        return (f"{len(extra)} Parquet files not in the snapshot (removed, not vacuumed), "
                f"{len(missing)} live files missing")
    return None


def final_only(plan):
    """The plan text without AQE's "== Initial Plan ==" sections (the
    executed plan's string shows both the final and the initial plan of
    every AdaptiveSparkPlan, subqueries included)."""
    out, skip_deeper_than = [], None
    for line in plan.splitlines():
        m = re.search(r"[+:]- |[^ :|]", line)
        col = m.start() if m else len(line)
        if skip_deeper_than is not None:
            if col > skip_deeper_than:
                continue
            skip_deeper_than = None
        if "== Initial Plan ==" in line:
            skip_deeper_than = line.index("== Initial Plan ==") - 3
            continue
        out.append(line)
    return "\n".join(out)


def plan_facts(plan):
    plan = final_only(plan)
    joins = {j: len(re.findall(rf"\b{j}\b", plan)) for j in JOINS}
    scans = []
    for line in plan.splitlines():
        m = re.search(r"FileScan parquet (\S+?)\[", line)
        if not m:
            continue
        pushed = re.search(r"PushedFilters: \[(.*?)\](?:, |$)", line)
        scans.append({"table": m.group(1).split(".")[-1],
                      "pushed_filters": pushed.group(1) if pushed else None})
    return {"joins": {k: v for k, v in joins.items() if v}, "scans": scans}


def query_numbers(d):
    """The numbers of the qNN.sql files in D, in order (q01 ... q22 for TPC-H)."""
    return sorted(int(m.group(1)) for f in os.listdir(d)
                  if (m := re.fullmatch(r"q(\d\d)\.sql", f)))


def run(args):
    from pyspark.sql import SparkSession

    tables = os.path.abspath(args.tables)
    evdir = os.path.abspath(args.eventlog_dir)
    os.makedirs(evdir, exist_ok=True)
    scratch = os.path.join(evdir, "..", f".spark-scratch-{os.getpid()}")
    spark = (
        SparkSession.builder.master("local[2]")
        .appName(args.app_name)
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", "file://" + evdir)
        .config("spark.eventLog.compress", "true")
        .config("spark.eventLog.compression.codec", "zstd")
        .config("spark.eventLog.rolling.enabled", "true")
        .config("spark.sql.shuffle.partitions", str(args.shuffle_partitions))
        .config("spark.sql.warehouse.dir", "file://" + os.path.abspath(scratch) + "/warehouse")
        .config("spark.local.dir", os.path.abspath(scratch) + "/local")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("WARN")
    app_id = spark.sparkContext.applicationId
    print(f"spark {spark.version}, app {app_id}, event log in {evdir}", flush=True)
    for t in TABLES:
        loc = os.path.join(tables, t).replace("'", "\\'")
        spark.sql(f"CREATE TABLE IF NOT EXISTS {t} USING parquet LOCATION '{loc}'")
    out = open(args.summary, "w") if args.summary else None
    t_all = time.time()
    for q in query_numbers(args.queries):
        with open(os.path.join(args.queries, f"q{q:02d}.sql")) as f:
            sql = f.read()
        spark.sparkContext.setJobDescription(f"tpch q{q:02d}")
        rec = {"query": q, "app_id": app_id}
        t0 = time.time()
        try:
            df = spark.sql(sql)
            rows = df.collect()
            rec.update(status="ok", rows=len(rows), seconds=round(time.time() - t0, 2))
            rec.update(plan_facts(df._jdf.queryExecution().executedPlan().toString()))
        except Exception as e:  # recorded, the next query still runs
            rec.update(status="error", seconds=round(time.time() - t0, 2),
                       error=str(e).strip().splitlines()[0][:500])
        print(f"Q{q:02d}: {rec['status']} {rec['seconds']} s "
              f"{rec.get('joins', rec.get('error', ''))}", flush=True)
        if out:
            out.write(json.dumps(rec) + "\n")
            out.flush()
    spark.sparkContext.setJobDescription(None)
    spark.stop()
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{len(query_numbers(args.queries))} queries in {time.time() - t_all:.1f} s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", required=True)
    ap.add_argument("--eventlog-dir", required=True)
    ap.add_argument("--summary", help="JSON lines, one per query")
    ap.add_argument("--queries", default=DEFAULT_QUERIES)
    ap.add_argument("--shuffle-partitions", type=int, default=8)
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--app-name", default="lakeaudit-bench-skipping")
    ap.add_argument("--python", default=os.environ.get("SPARK_PYTHON", "python3"),
                    help="interpreter with pyspark, used when this one has none")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if not os.path.isfile(os.path.join(args.queries, "q01.sql")):
        sys.exit(f"no q01.sql in {args.queries} (--queries)")
    if args.inner:
        run(args)
        return 0
    bad = {}
    for t in TABLES:
        path = os.path.join(args.tables, t)
        if not os.path.isdir(os.path.join(path, "_delta_log")):
            bad[t] = "not a Delta table"
            continue
        why = check_table(path)
        if why:
            bad[t] = why
    if bad:
        for t, why in bad.items():
            print(f"refusing {t}: {why}", file=sys.stderr)
        sys.exit("a plain Parquet table over these directories would not read the Delta snapshot")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        sys.exit("no java on PATH and no JAVA_HOME: pyspark needs Java 17")
    try:
        import pyspark  # noqa: F401
        python = sys.executable
    except ImportError:
        python = args.python
    before = set(glob.glob(os.path.join(args.eventlog_dir, "*")))
    rc = subprocess.call([python, os.path.abspath(__file__), "--inner"] + sys.argv[1:])
    new = sorted(set(glob.glob(os.path.join(args.eventlog_dir, "*"))) - before)
    for n in new:
        print(f"event log: {n}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
