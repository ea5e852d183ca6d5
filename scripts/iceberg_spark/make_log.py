#!/usr/bin/env python3
"""A real Spark 3.5.6 + Iceberg 1.10.2 application over three small Iceberg
tables, with event logging on: the fixture of tests/data/iceberg-spark/.

Tables (Hadoop catalog `lake`, warehouse OUT/warehouse, namespace `tpch`),
generated here from a fixed seed (TPC-H-like columns, not TPC-H data):

- lineitem: 6000 rows in 12 files, written in l_orderkey order (so its
  dates are spread over every file); columns of every type the filters
  test: bigint, int, decimal(15,2), date, timestamp (UTC session), strings;
- orders: 1500 rows in 5 files, in o_orderdate order, o_comment NULL in
  about one row in ten;
- customer: 150 rows in 2 files, names with quotes (O'Brien) and commas.

Then the queries of QUERIES run once each (job description `qNN name`),
`CALL lake.system.rewrite_data_files` sorts lineitem by l_shipdate, and the
same queries run again (`qNN name after`). Each query's filters are chosen
so that Iceberg prints them in its own expression syntax in the BatchScan
node: dates, timestamps, decimals, strings with quotes, IN, NOT IN, OR,
NOT, IS NULL, LIKE 'x%', joins, a branch and a snapshot read.

Event log: `spark.eventLog.compress=true`, zstd, one file in OUT/events.
OUT/expected.json records, per query run, what Iceberg's own metrics say
is independent of the log (the files of the table's snapshot read, from
Iceberg's `files` metadata table): used to check the log, not by lakeaudit.

usage: make_log.py --jar RUNTIME.jar --out DIR
"""

import argparse
import datetime as dt
import decimal
import json
import os
import random
import shutil
import sys

SEED = 31
D = decimal.Decimal

NAMES = ["O'Brien", "D'Angelo", "Smith, Jr.", "Brown", "Nguyen", "Garcia", "Müller", "Kowalski",
         "O'Neil", "Chen", "Okafor", "Rossi", "Dubois", "Sato", "Silva"]
SEGMENTS = ["AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"]
PRIORITIES = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"]
MODES = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"]
INSTRUCT = ["COLLECT COD", "DELIVER IN PERSON", "NONE", "TAKE BACK RETURN"]
WORDS = ["it's", "quick", "packages", "deposits", "final", "regular", "ironic", "blithe"]

# (name, SQL). Table names are unqualified: USE lake.tpch runs first.
QUERIES = [
    ("date range", "SELECT count(*) FROM lineitem "
     "WHERE l_shipdate >= DATE '1995-03-01' AND l_shipdate < DATE '1995-04-01'"),
    ("timestamp range", "SELECT count(*) FROM lineitem "
     "WHERE l_shipts >= TIMESTAMP '1996-01-01 00:00:00' AND l_shipts < TIMESTAMP '1996-02-01 12:30:00'"),
    ("decimals", "SELECT sum(l_extendedprice * l_discount) FROM lineitem "
     "WHERE l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"),
    ("quoted string", "SELECT c_custkey, c_acctbal FROM customer WHERE c_name = \"O'Brien\""),
    ("quoted IN list", "SELECT count(*) FROM customer WHERE c_name IN (\"O'Neil\", 'Smith, Jr.', 'Chen')"),
    ("string IN list", "SELECT l_shipmode, count(*) FROM lineitem "
     "WHERE l_shipmode IN ('MAIL', 'SHIP') GROUP BY l_shipmode"),
    ("integer IN list", "SELECT o_orderkey, o_totalprice FROM orders WHERE o_orderkey IN (7, 700, 1400)"),
    ("NOT IN", "SELECT count(*) FROM lineitem WHERE l_shipmode NOT IN ('AIR', 'REG AIR') "
     "AND l_returnflag <> 'R'"),
    ("OR of dates", "SELECT count(*) FROM lineitem "
     "WHERE l_shipdate < DATE '1992-03-01' OR l_shipdate > DATE '1998-09-01'"),
    ("OR of columns", "SELECT count(*) FROM orders "
     "WHERE o_orderpriority = '1-URGENT' OR o_totalprice > 450000"),
    ("NOT LIKE", "SELECT count(*) FROM lineitem WHERE NOT (l_shipinstruct LIKE 'DELIVER%')"),
    ("IS NULL", "SELECT count(*) FROM orders WHERE o_comment IS NULL AND o_orderdate >= DATE '1997-01-01'"),
    ("LIKE prefix", "SELECT count(*) FROM customer WHERE c_mktsegment LIKE 'BUILD%' "
     "AND c_comment LIKE \"it's%\""),
    ("bigint equality", "SELECT l_linenumber, l_quantity FROM lineitem WHERE l_orderkey = 1234"),
    ("join orders lineitem", "SELECT o_orderpriority, count(*) FROM orders JOIN lineitem "
     "ON l_orderkey = o_orderkey WHERE o_orderdate >= DATE '1994-01-01' "
     "AND o_orderdate < DATE '1994-04-01' AND l_commitdate < l_receiptdate GROUP BY o_orderpriority"),
    ("join customer orders", "SELECT c_name, sum(o_totalprice) FROM customer JOIN orders "
     "ON c_custkey = o_custkey WHERE c_mktsegment = 'MACHINERY' AND o_orderdate < DATE '1993-01-01' "
     "GROUP BY c_name"),
    ("NOT of AND", "SELECT count(*) FROM lineitem "
     "WHERE NOT (l_shipmode = 'MAIL' AND l_quantity > 10) AND l_receiptdate >= DATE '1998-10-01'"),
    ("branch", "SELECT count(*) FROM lake.tpch.orders.branch_audit WHERE o_orderstatus = 'F'"),
    ("snapshot", "SELECT count(*) FROM orders VERSION AS OF {orders_snapshot} "
     "WHERE o_orderdate > DATE '1998-01-01'"),
]


def day(d):
    return dt.date(1992, 1, 1) + dt.timedelta(days=d)


def money(rng, lo, hi):
    return D(rng.randrange(lo * 100, hi * 100)) / 100


def generate():
    rng = random.Random(SEED)
    customer = []
    for k in range(1, 151):
        name = NAMES[k % len(NAMES)] if k % 4 else f"Customer#{k:05d}"
        comment = None if k % 11 == 0 else " ".join(rng.choice(WORDS) for _ in range(4))
        customer.append((k, name, rng.choice(SEGMENTS), money(rng, -999, 9999), comment))
    orders, lineitem = [], []
    for k in range(1, 1501):
        odate = day(rng.randrange(0, 2400))
        status = rng.choice("FOP")
        comment = None if rng.random() < 0.1 else " ".join(rng.choice(WORDS) for _ in range(3))
        lines = []
        for n in range(1, 1 + rng.randrange(1, 8)):
            ship = odate + dt.timedelta(days=rng.randrange(1, 122))
            commit = odate + dt.timedelta(days=rng.randrange(30, 91))
            receipt = ship + dt.timedelta(days=rng.randrange(1, 31))
            ts = dt.datetime.combine(ship, dt.time()) + dt.timedelta(seconds=rng.randrange(86400))
            qty = D(rng.randrange(1, 51))
            price = money(rng, 900, 100000)
            disc = D(rng.randrange(0, 11)) / 100
            flag = rng.choice("RA") if receipt <= dt.date(1995, 6, 17) else "N"
            lines.append((k, n, qty, price, disc, flag, ship, commit, receipt, ts,
                          rng.choice(MODES), rng.choice(INSTRUCT),
                          " ".join(rng.choice(WORDS) for _ in range(2))))
        total = sum((l[3] for l in lines), D(0))
        orders.append((k, rng.randrange(1, 151), status, total, odate, rng.choice(PRIORITIES),
                       comment))
        lineitem.extend(lines)
    return customer, orders, lineitem[:6000]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jar", required=True, help="the patched iceberg-spark-runtime-3.5_2.12 jar")
    ap.add_argument("--out", required=True, help="output directory (emptied first)")
    ap.add_argument("--app-name", default="lakeaudit iceberg batchscan fixture")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    for d in ("events", "warehouse", "local"):
        os.makedirs(os.path.join(out, d))

    from pyspark.sql import SparkSession
    from pyspark.sql import types as T

    spark = (
        SparkSession.builder.master("local[2]")
        .appName(args.app_name)
        .config("spark.jars", args.jar)
        .config("spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.lake.type", "hadoop")
        .config("spark.sql.catalog.lake.warehouse", os.path.join(out, "warehouse"))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", "file://" + os.path.join(out, "events"))
        .config("spark.eventLog.compress", "true")
        .config("spark.eventLog.compression.codec", "zstd")
        .config("spark.local.dir", os.path.join(out, "local"))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    sc = spark.sparkContext
    sc.setLogLevel("WARN")
    customer, orders, lineitem = generate()
    dec = T.DecimalType(15, 2)
    schemas = {
        "customer": T.StructType([
            T.StructField("c_custkey", T.LongType()), T.StructField("c_name", T.StringType()),
            T.StructField("c_mktsegment", T.StringType()), T.StructField("c_acctbal", dec),
            T.StructField("c_comment", T.StringType())]),
        "orders": T.StructType([
            T.StructField("o_orderkey", T.LongType()), T.StructField("o_custkey", T.LongType()),
            T.StructField("o_orderstatus", T.StringType()), T.StructField("o_totalprice", dec),
            T.StructField("o_orderdate", T.DateType()), T.StructField("o_orderpriority", T.StringType()),
            T.StructField("o_comment", T.StringType())]),
        "lineitem": T.StructType([
            T.StructField("l_orderkey", T.LongType()), T.StructField("l_linenumber", T.IntegerType()),
            T.StructField("l_quantity", dec), T.StructField("l_extendedprice", dec),
            T.StructField("l_discount", dec), T.StructField("l_returnflag", T.StringType()),
            T.StructField("l_shipdate", T.DateType()), T.StructField("l_commitdate", T.DateType()),
            T.StructField("l_receiptdate", T.DateType()), T.StructField("l_shipts", T.TimestampType()),
            T.StructField("l_shipmode", T.StringType()), T.StructField("l_shipinstruct", T.StringType()),
            T.StructField("l_comment", T.StringType())]),
    }
    # (rows, order column, files): each file one contiguous run of the order.
    plan = {"customer": (customer, "c_custkey", 2), "orders": (orders, "o_orderdate", 5),
            "lineitem": (lineitem, "l_orderkey", 12)}
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.tpch")
    for name, (rows, order, files) in plan.items():
        sc.setJobDescription(f"create {name}")
        df = spark.createDataFrame(rows, schemas[name]).repartitionByRange(files, order) \
            .sortWithinPartitions(order)
        (df.writeTo(f"lake.tpch.{name}").using("iceberg")
         .tableProperty("write.distribution-mode", "none")
         .tableProperty("write.parquet.compression-codec", "zstd")
         .create())
    spark.sql("ALTER TABLE lake.tpch.orders CREATE BRANCH audit")
    spark.sql("USE lake.tpch")
    orders_snapshot = spark.sql(
        "SELECT snapshot_id FROM lake.tpch.orders.snapshots ORDER BY committed_at LIMIT 1"
    ).collect()[0][0]

    expected = {"runs": []}

    def run(suffix):
        for i, (name, sql) in enumerate(QUERIES, 1):
            label = f"q{i:02d} {name}{suffix}"
            sc.setJobDescription(label)
            rows = spark.sql(sql.format(orders_snapshot=orders_snapshot)).collect()
            expected["runs"].append({"query": label, "rows": len(rows)})
            print(label, len(rows), file=sys.stderr)

    run("")
    sc.setJobDescription("rewrite lineitem sorted by l_shipdate")
    r = spark.sql(
        "CALL lake.system.rewrite_data_files(table => 'tpch.lineitem', strategy => 'sort', "
        "sort_order => 'l_shipdate ASC NULLS LAST', "
        "options => map('rewrite-all', 'true', 'target-file-size-bytes', '40000'))"
    ).collect()
    expected["rewrite"] = r[0].asDict()
    print("rewrite", r[0], file=sys.stderr)
    run(" after")
    sc.setJobDescription("files")
    for t in ("customer", "orders", "lineitem"):
        n = spark.sql(f"SELECT count(*) FROM lake.tpch.{t}.files").collect()[0][0]
        expected.setdefault("files_now", {})[t] = n
    expected["orders_snapshot"] = orders_snapshot
    spark.stop()
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True, default=str)
        f.write("\n")


if __name__ == "__main__":
    main()
