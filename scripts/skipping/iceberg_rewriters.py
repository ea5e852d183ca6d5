#!/usr/bin/env python3
"""Real Iceberg rewrites on Spark for `lakeaudit whatif --rewriter iceberg-spark`.

    iceberg_rewriters.py --jar RUNTIME.jar --raw RAW_DIR --queries DIR --out OUT
        --target BYTES --layout NAME=TABLE:COLS[;TABLE:COLS...] [...]

A real Spark 3.5.6 + Iceberg 1.10.2 run (the runtime of
scripts/iceberg_spark/setup.sh), in two applications with event logging:

1. `before`: TPC-H lineitem and orders (RAW_DIR's Parquet files, as
   make_tables.py's tpchgen writes them) become Iceberg tables of the Hadoop
   catalog `lake` (warehouse OUT/warehouse, namespace tpch), rows shuffled
   by a fixed seed and written with `write.target-file-size-bytes` = BYTES;
   then every qNN.sql of DIR runs once (job description `qNN`). Its log
   (OUT/events-before) and the tables are lakeaudit's input.
2. `after`: for each --layout, `CALL lake.system.rewrite_data_files` rewrites
   each named table (one column: strategy sort; two or more: sort_order
   'zorder(a, b)'), target-file-size-bytes BYTES, rewrite-all; the same
   queries run again (`qNN NAME`); the file count of the rewritten snapshot
   is read from Iceberg's `files` metadata table; then
   `rollback_to_snapshot` puts the table back, so every layout starts from
   the same files and the warehouse ends as it began.

Then the `after` log is read here, independently of lakeaudit: for each
query run, the BatchScan nodes' own Iceberg metrics (`number of result data
files`, SparkListenerDriverAccumUpdates) give the files Iceberg planned.
OUT/iceberg-NAME.jsonl holds them in run_duckdb.py's record shape (query,
table, files_scanning, files_total), which rewriter_check.py reads.
"""

import argparse
import collections
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys

TABLES = ("lineitem", "orders")


def spark_session(jar, out, events, app):
    from pyspark.sql import SparkSession

    os.makedirs(events, exist_ok=True)
    return (
        SparkSession.builder.master("local[2]")
        .appName(app)
        .config("spark.jars", jar)
        .config("spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.lake.type", "hadoop")
        .config("spark.sql.catalog.lake.warehouse", os.path.join(out, "warehouse"))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", "file://" + events)
        .config("spark.eventLog.compress", "true")
        .config("spark.eventLog.compression.codec", "zstd")
        .config("spark.local.dir", os.path.join(out, "local"))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )


def queries(path):
    out = []
    for f in sorted(glob.glob(os.path.join(path, "q[0-9][0-9].sql"))):
        n = int(re.search(r"q(\d+)", os.path.basename(f)).group(1))
        out.append((n, open(f).read().strip().rstrip(";")))
    return out


def run_queries(spark, qs, suffix):
    for n, sql in qs:
        spark.sparkContext.setJobDescription(f"q{n:02d}{suffix}")
        spark.sql(sql).collect()


def parse_layouts(specs):
    """[(name, {table: [cols]})]"""
    out = []
    for spec in specs:
        name, rest = spec.split("=", 1)
        cols = {}
        for part in rest.split(";"):
            t, c = part.split(":", 1)
            if t not in TABLES:
                sys.exit(f"--layout {spec}: table {t!r} is not one of {TABLES}")
            cols[t] = [x.strip() for x in c.split(",")]
        out.append((name, cols))
    return out


def before(args, out, qs):
    from pyspark.sql import functions as F

    spark = spark_session(args.jar, out, os.path.join(out, "events-before"),
                          "lakeaudit iceberg rewriters before")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.tpch")
    for t in TABLES:
        spark.sparkContext.setJobDescription(f"create {t}")
        df = spark.read.parquet(os.path.join(args.raw, f"{t}.parquet"))
        # One task writes the shuffled rows: its rolling writer cuts files
        # at the target, as a bulk load does.
        df = df.withColumn("_r", F.rand(args.seed)).orderBy("_r").drop("_r").coalesce(1)
        (df.writeTo(f"lake.tpch.{t}").using("iceberg")
         .tableProperty("write.distribution-mode", "none")
         .tableProperty("write.target-file-size-bytes", str(args.target))
         .create())
    spark.sql("USE lake.tpch")
    run_queries(spark, qs, "")
    spark.stop()


def after(args, out, qs, layouts):
    spark = spark_session(args.jar, out, os.path.join(out, "events-after"),
                          "lakeaudit iceberg rewriters after")
    spark.sql("USE lake.tpch")
    base = {t: spark.sql(f"SELECT snapshot_id FROM lake.tpch.{t}.snapshots "
                         "ORDER BY committed_at DESC LIMIT 1").collect()[0][0] for t in TABLES}
    files = {}
    for name, cols in layouts:
        for t, c in cols.items():
            if len(c) == 1:
                order = f"strategy => 'sort', sort_order => '{c[0]} ASC NULLS FIRST'"
            else:
                order = f"strategy => 'sort', sort_order => 'zorder({', '.join(c)})'"
            spark.sparkContext.setJobDescription(f"rewrite {t} {name}")
            r = spark.sql(
                f"CALL lake.system.rewrite_data_files(table => 'tpch.{t}', {order}, "
                f"options => map('rewrite-all', 'true', 'target-file-size-bytes', '{args.target}'))"
            ).collect()[0].asDict()
            files[(name, t)] = spark.sql(f"SELECT count(*) FROM lake.tpch.{t}.files").collect()[0][0]
            print(f"{name} {t}: {r}; {files[(name, t)]} files", file=sys.stderr)
        run_queries(spark, qs, f" {name}")
        for t in cols:
            spark.sql(f"CALL lake.system.rollback_to_snapshot('tpch.{t}', {base[t]})").collect()
    spark.stop()
    return files


def log_lines(path):
    data = open(path, "rb").read()
    if path.endswith(".zstd"):
        data = subprocess.run(["zstd", "-dc"], input=data, capture_output=True, check=True).stdout
    return io.StringIO(data.decode())


def iceberg_counts(log):
    """{description: [(table, result data files)]}, from the BatchScan nodes'
    SQL metrics and the driver's accumulator updates."""
    desc, metric_of, values = {}, {}, collections.Counter()

    def walk(node, ex):
        name = node.get("nodeName", "")
        m = re.match(r"BatchScan (\S+)", name)
        if m:
            table = m.group(1).split(".")[-1]
            for met in node.get("metrics", []):
                if met["name"] == "number of result data files":
                    metric_of[met["accumulatorId"]] = (ex, table)
        for c in node.get("children", []):
            walk(c, ex)

    for line in log:
        e = json.loads(line)
        ev = e["Event"]
        if ev.endswith("SparkListenerSQLExecutionStart"):
            desc[e["executionId"]] = e.get("description", "")
            walk(e["sparkPlanInfo"], e["executionId"])
        elif ev.endswith("SparkListenerSQLAdaptiveExecutionUpdate"):
            walk(e["sparkPlanInfo"], e["executionId"])
        elif ev.endswith("SparkListenerDriverAccumUpdates"):
            for acc, v in e["accumUpdates"]:
                values[acc] += v
    out = collections.defaultdict(list)
    for acc, (ex, table) in sorted(metric_of.items()):
        out[desc.get(ex, "")].append((table, values[acc]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jar", required=True)
    ap.add_argument("--raw", required=True, help="directory of TABLE.parquet (tpchgen)")
    ap.add_argument("--queries", required=True, help="directory of qNN.sql")
    ap.add_argument("--out", required=True, help="output directory (emptied first)")
    ap.add_argument("--target", type=int, default=1 << 20, help="target file size, bytes")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--layout", action="append", default=[],
                    help="NAME=TABLE:COL[,COL...][;TABLE:COLS]")
    ap.add_argument("--before-only", action="store_true",
                    help="write the tables and run the workload once (no rewrite): "
                         "lakeaudit's input alone, as the whatif benchmark needs")
    args = ap.parse_args()
    if not args.layout and not args.before_only:
        ap.error("give --layout (one or more) or --before-only")
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "local"))
    qs = queries(args.queries)
    layouts = parse_layouts(args.layout)
    before(args, out, qs)
    if args.before_only:
        shutil.rmtree(os.path.join(out, "local"), ignore_errors=True)
        return
    files = after(args, out, qs, layouts)
    (log,) = glob.glob(os.path.join(out, "events-after", "*"))
    counts = iceberg_counts(log_lines(log))
    for name, cols in layouts:
        with open(os.path.join(out, f"iceberg-{name}.jsonl"), "w") as f:
            for n, _ in qs:
                for scan, (table, read) in enumerate(counts.get(f"q{n:02d} {name}", [])):
                    if table not in cols:
                        continue
                    f.write(json.dumps({"layout": name, "query": n, "scan": scan, "table": table,
                                        "status": "ok", "files_scanning": read,
                                        "files_total": files[(name, table)]}) + "\n")
    shutil.rmtree(os.path.join(out, "local"), ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
