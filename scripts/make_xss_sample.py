#!/usr/bin/env python3
"""Produce tests/data/xss/: a real Spark event log whose names are markup.

lakeaudit's reports (report.md, report.html) print names that come from the
logs: table, column and application names, SQL text, warnings with paths.
This script makes real Spark write such names into a log, so the tests can
check that the reports show them as text and that no viewer runs them:

- the application name and a job description are `<img src=x onerror=alert(1)>`;
- two catalog tables join on a column named `<img src=x onerror=alert(1)>`
  (quoted identifier), so the join key carries it;
- a path-based table lives in a directory whose path ends in
  `</td><script>alert(1)</script>` (the session catalog rejects that text as a
  table name, see below; a path read has no catalog name, so the path is the
  table's name) and joins a catalog table on a column named
  ``a`b|c*d*`` (backtick, pipe and emphasis marks: Markdown's code-span,
  table and emphasis syntax);
- a third catalog table has a column named `[x](javascript:alert(1))`
  (Markdown link syntax) used as a join key.

What Spark 4.0.1 accepted and refused (the script records it in the
manifest `accepted.json` beside the log, from the exceptions it caught):
`CREATE TABLE` with a quoted name like `` `</td><script>alert(1)</script>` ``
fails with INVALID_SCHEMA_OR_RELATION_NAME ("Valid names only contain
alphabet characters, numbers and _"), and so does `CREATE DATABASE` with
such a name; column names, the application name and job descriptions take
any text.

Joins run as SortMergeJoin (broadcast off) so the planner plans for them.
Spark writes the log (zstd, one file); nothing in it is edited.

Usage (pyspark 4.0.1 in a venv outside the repo):

    python3 -m venv .venv/spark4 && .venv/spark4/bin/pip install pyspark==4.0.1
    python3 scripts/make_xss_sample.py --python .venv/spark4/bin/python --out tests/data/xss
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

WORK = os.path.join(tempfile.gettempdir(), "lakeaudit-xss")
IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "</td><script>alert(1)</script>"
TICKS = "a`b|c*d*"
LINK = "[x](javascript:alert(1))"
# The path-based table: nested directories, since the text holds slashes.
PATH_TABLE = os.path.join(WORK, "data", "t" + SCRIPT)


def q(name):
    """A Spark SQL quoted identifier (backticks doubled)."""
    return "`" + name.replace("`", "``") + "`"


def app(out):
    from pyspark.sql import SparkSession

    events = os.path.join(WORK, "events")
    spark = (
        SparkSession.builder.master("local[2]")
        .appName(IMG)
        .config("spark.ui.enabled", "false")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", events)
        .config("spark.eventLog.compress", "true")
        .config("spark.eventLog.compression.codec", "zstd")
        .config("spark.eventLog.rolling.enabled", "false")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", os.path.join(WORK, "warehouse"))
        .getOrCreate()
    )
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    accepted = {"application name": IMG, "job description": IMG}

    def attempt(what, sql):
        try:
            spark.sql(sql)
            accepted[what] = sql
            return True
        except Exception as e:  # record Spark's own refusal
            accepted[what] = "refused: " + str(e).splitlines()[0]
            return False

    attempt("table name " + SCRIPT, f"CREATE TABLE {q(SCRIPT)} (id BIGINT) USING parquet")
    attempt("database name " + IMG, f"CREATE DATABASE {q(IMG)}")

    n = 20000
    df = spark.range(n)
    # Two catalog tables keyed by the <img> column.
    df.selectExpr(f"id % 5000 AS {q(IMG)}", "id AS v").write.mode("overwrite").saveAsTable("xss_orders")
    df.selectExpr(f"id % 7000 AS {q(IMG)}", f"id % 3000 AS {q(TICKS)}",
                  f"id % 900 AS {q(LINK)}", "id * 2 AS w").write.mode("overwrite").saveAsTable("xss_lines")
    # A path-based table under a directory named like markup.
    df.selectExpr(f"id % 3000 AS {q(TICKS)}", "id AS p").write.mode("overwrite").parquet(PATH_TABLE)
    df.selectExpr(f"id % 900 AS {q(LINK)}", "id AS z").write.mode("overwrite").saveAsTable("xss_links")
    accepted["column names"] = [IMG, TICKS, LINK]
    accepted["path table"] = PATH_TABLE

    spark.read.parquet(PATH_TABLE).createOrReplaceTempView("xss_path")
    queries = [
        f"SELECT count(*) FROM xss_orders o JOIN xss_lines l ON o.{q(IMG)} = l.{q(IMG)}",
        f"SELECT sum(o.v) FROM xss_orders o JOIN xss_lines l ON o.{q(IMG)} = l.{q(IMG)} WHERE l.w > 10",
        f"SELECT count(*) FROM xss_lines l JOIN xss_path p ON l.{q(TICKS)} = p.{q(TICKS)}",
        f"SELECT max(p.p) FROM xss_path p JOIN xss_lines l ON p.{q(TICKS)} = l.{q(TICKS)} WHERE l.w < 5000",
        f"SELECT count(*) FROM xss_lines l JOIN xss_links k ON l.{q(LINK)} = k.{q(LINK)}",
    ]
    for i, sql in enumerate(queries):
        sc.setJobDescription(IMG if i == 0 else f"{IMG} query {i}")
        spark.sql(sql).collect()
    sc.setJobDescription(None)
    app_id = sc.applicationId
    spark.stop()

    os.makedirs(out, exist_ok=True)
    logs = glob.glob(os.path.join(events, app_id + "*"))
    if len(logs) != 1:
        sys.exit(f"expected one event log for {app_id}, found {logs}")
    shutil.copy(logs[0], os.path.join(out, os.path.basename(logs[0])))
    with open(os.path.join(out, "accepted.json"), "w") as f:
        json.dump({"app_id": app_id, "queries": queries, "accepted": accepted}, f, indent=2)
        f.write("\n")
    print(f"wrote {os.path.join(out, os.path.basename(logs[0]))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", help="the Python interpreter that has pyspark 4.0.1")
    ap.add_argument("--out", required=True, help="output directory (tests/data/xss)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        app(os.path.abspath(a.out))
        return
    if not a.python:
        sys.exit("--python is required (the interpreter with pyspark 4.0.1)")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(os.path.join(WORK, "events"))
    subprocess.run([a.python, os.path.abspath(__file__), "--child", "--out", a.out], check=True)


if __name__ == "__main__":
    main()
