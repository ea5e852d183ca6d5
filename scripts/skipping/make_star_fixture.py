#!/usr/bin/env python3
"""A star-schema fixture where a join's build side decides what a scan skips.

TPC-H's join keys are not correlated with the columns its queries filter,
so no join-induced predicate skips a file there. A fact table laid out by a
date key joined with a filtered date dimension is the case dynamic file
pruning exists for. This script makes it with the real writers and engines:

1. Delta tables by deltalake: `date_dim` (one row per day 1998-01-01 ..
   2002-12-31: d_date_sk, d_date, d_year, d_moy; one file) and `sales`
   (ROWS rows, s_date_sk uniform over the days, s_item, s_amount; sorted by
   s_date_sk and cut into FILES files).
2. The queries below run by pyspark 4.0.1 (local[2]) over the tables'
   Parquet files (registered as Parquet tables, as run_spark.py does), with
   the event log kept: lakeaudit's input.
3. The same queries run by DuckDB 1.5.5 with its delta extension, JSON
   profile on: per DELTA_SCAN of sales, "Total Files Read" and "Scanning
   Files" (what DuckDB really read).
4. An oracle computed by DuckDB SQL, independent of lakeaudit: the
   date_dim keys that pass each query's date_dim filter (min, max,
   count), and the sales files (by `parquet_metadata` min/max of
   s_date_sk) whose range meets the keys' range (`files_minmax`) or holds
   one of the keys (`files_values`).

Writes into OUT: delta/{date_dim,sales}/, spark-events/, duckdb.jsonl,
expected.json.

Usage: make_star_fixture.py OUT --spark-python PY   (PY: a python with
pyspark 4.0.1; this script's python needs deltalake, duckdb,
duckdb-extension-delta, pyarrow)
"""

import argparse
import datetime
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROWS = 40_000
FILES = 20
SEED = 7

# (name, SQL). Spark and DuckDB run the same text.
QUERIES = [
    ("star q1 one year", "SELECT sum(s_amount) FROM sales JOIN date_dim ON s_date_sk = d_date_sk "
                         "WHERE d_year = 2000"),
    ("star q2 december", "SELECT sum(s_amount) FROM sales JOIN date_dim ON s_date_sk = d_date_sk "
                         "WHERE d_moy = 12"),
    ("star q3 semi", "SELECT count(*) FROM sales WHERE s_date_sk IN "
                     "(SELECT d_date_sk FROM date_dim WHERE d_year = 1999 AND d_moy <= 3)"),
]
# The date_dim filter of each query, for the oracle.
BUILD_FILTERS = ["d_year = 2000", "d_moy = 12", "d_year = 1999 AND d_moy <= 3"]

SPARK = r'''
import json, sys
from pyspark.sql import SparkSession
tables, events, queries = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
spark = (SparkSession.builder.master("local[2]").appName("lakeaudit star fixture")
         .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", events)
         .config("spark.eventLog.rolling.enabled", "true")
         .config("spark.eventLog.compression.codec", "zstd")
         .config("spark.sql.shuffle.partitions", "4").config("spark.ui.enabled", "false")
         .getOrCreate())
for t in ["date_dim", "sales"]:
    spark.sql(f"CREATE TABLE {t} USING parquet LOCATION '{tables}/{t}'")
for name, sql in queries:
    spark.sparkContext.setJobDescription(name)
    print(name, spark.sql(sql).collect())
spark.stop()
'''


def write_tables(out):
    import pyarrow as pa
    from deltalake import write_deltalake

    days = []
    d = datetime.date(1998, 1, 1)
    while d <= datetime.date(2002, 12, 31):
        days.append(d)
        d += datetime.timedelta(days=1)
    sk0 = 2450815  # TPC-DS style surrogate keys: consecutive days
    dim = pa.table({
        "d_date_sk": pa.array([sk0 + i for i in range(len(days))], pa.int64()),
        "d_date": pa.array(days, pa.date32()),
        "d_year": pa.array([x.year for x in days], pa.int32()),
        "d_moy": pa.array([x.month for x in days], pa.int32()),
    })
    write_deltalake(os.path.join(out, "date_dim"), dim)
    rnd = random.Random(SEED)
    keys = sorted(sk0 + rnd.randrange(len(days)) for _ in range(ROWS))
    sales = pa.table({
        "s_date_sk": pa.array(keys, pa.int64()),
        "s_item": pa.array([rnd.randrange(1000) for _ in range(ROWS)], pa.int64()),
        "s_amount": pa.array([rnd.randrange(1, 10000) / 100 for _ in range(ROWS)], pa.float64()),
    })
    per = ROWS // FILES
    for i in range(FILES):
        write_deltalake(os.path.join(out, "sales"), sales.slice(i * per, per), mode="append")


def run_spark(out, python):
    events = os.path.join(out, "spark-events")
    os.makedirs(events, exist_ok=True)
    subprocess.run([python, "-c", SPARK, os.path.abspath(os.path.join(out, "delta")),
                    os.path.abspath(events), json.dumps(QUERIES)], check=True)


def delta_extension():
    import duckdb_extension_delta
    return glob.glob(os.path.join(os.path.dirname(duckdb_extension_delta.__file__),
                                  "extensions", "*", "delta.duckdb_extension"))[0]


def connect(tables):
    import duckdb
    c = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    c.execute(f"LOAD '{delta_extension()}'")
    for t in ["date_dim", "sales"]:
        c.execute(f"CREATE VIEW {t} AS SELECT * FROM delta_scan('{os.path.join(tables, t)}')")
    return c


def run_duckdb(out, tables):
    lines = []
    for name, sql in QUERIES:
        with tempfile.TemporaryDirectory() as tmp:
            prof = os.path.join(tmp, "p.json")
            c = connect(tables)
            c.execute("PRAGMA enable_profiling = 'json'")
            c.execute(f"PRAGMA profiling_output = '{prof}'")
            c.execute(sql).fetchall()
            c.execute("PRAGMA disable_profiling")
            c.close()
            with open(prof) as f:
                profile = json.load(f)
        scans = []

        def walk(n):
            if "DELTA_SCAN" in (n.get("operator_name"), n.get("operator_type")):
                scans.append(n.get("extra_info", {}))
            for ch in n.get("children", []):
                walk(ch)
        walk(profile)
        for info in scans:
            names = info.get("Filename(s)") or ""
            table = "sales" if "/sales/" in names else "date_dim" if "/date_dim/" in names else None
            lines.append({"query": name, "table": table,
                          "files_read": int(info.get("Total Files Read", 0)),
                          "files_scanning": info.get("Scanning Files"),
                          "dynamic_filters": info.get("Dynamic Filters")})
    with open(os.path.join(out, "duckdb.jsonl"), "w") as f:
        for line in lines:
            f.write(json.dumps(line, sort_keys=True) + "\n")


def oracle(out, tables):
    from deltalake import DeltaTable

    c = connect(tables)
    files = DeltaTable(os.path.join(tables, "sales")).file_uris()
    c.execute("CREATE TABLE sf AS SELECT file_name, min(stats_min_value::BIGINT) AS lo, "
              "max(stats_max_value::BIGINT) AS hi FROM parquet_metadata(?) "
              "WHERE path_in_schema = 's_date_sk' GROUP BY file_name", [files])
    rows = []
    for (name, _), flt in zip(QUERIES, BUILD_FILTERS):
        c.execute(f"CREATE OR REPLACE TABLE b AS SELECT DISTINCT d_date_sk AS k FROM date_dim WHERE {flt}")
        lo, hi, n = c.execute("SELECT min(k), max(k), count(*) FROM b").fetchone()
        total, mm, vals = c.execute(f"""SELECT count(*),
            count(*) FILTER (hi >= {lo} AND lo <= {hi}),
            count(*) FILTER (EXISTS (SELECT 1 FROM b WHERE b.k BETWEEN sf.lo AND sf.hi))
            FROM sf""").fetchone()
        rows.append({"query": name, "build_min": lo, "build_max": hi, "build_keys": n,
                     "files_total": total, "files_minmax": mm, "files_values": vals})
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(rows, f, indent=1)
        f.write("\n")
    for r in rows:
        print(r)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--spark-python", required=True)
    a = ap.parse_args()
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    tables = os.path.join(a.out, "delta")
    write_tables(tables)
    run_spark(a.out, a.spark_python)
    run_duckdb(a.out, os.path.abspath(tables))
    oracle(a.out, os.path.abspath(tables))


if __name__ == "__main__":
    sys.exit(main())
