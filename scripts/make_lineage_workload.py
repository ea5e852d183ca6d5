#!/usr/bin/env python3
"""Produce the real Spark event logs of the lineage workload (tests/data/lineage/).

A harder join workload than TPC-H, run by real pyspark in three applications:

- `spark4-default`: pyspark 4.0.1 with Spark's defaults;
- `spark4-v2-nobroadcast`: pyspark 4.0.1 with
  `spark.sql.autoBroadcastJoinThreshold=-1` and `spark.sql.sources.useV1SourceList=""`
  (path reads become DataSource V2 `BatchScan`s, joins run as SortMergeJoin);
- `spark35-default`: the newest pyspark 3.5.x with Spark's defaults, plus
  `spark.eventLog.compress=true` (3.5 writes uncompressed logs by default).

It covers path-based reads of the same directories as catalog tables, V2 file
scans, null-safe joins, casts in join keys (lossy, reordering and widening),
INSERT INTO ... SELECT and CREATE TABLE AS SELECT (collected, so the
CommandResult executions appear), cached DataFrames, dynamic partition pruning,
bucketed tables, explode, ROLLUP, a Python UDF on a join key, window partitions
passed through to a join, and joins inside HAVING subqueries. Every query's text
is in this script (`QUERIES`, `CACHED`, `PATH_VIEWS`).

Spark writes the logs; nothing in them is edited. The script copies Spark's own
files and writes, next to them, the query text as run (`sql/`) and one
executions manifest per application (`executions/<app>.json`: which SQL
execution ids each statement produced, plus each execution's
`rootExecutionId` and root operator, read from the log).

Usage (pyspark lives in venvs outside the repo):

    python3 -m venv .venv/spark4  && .venv/spark4/bin/pip install pyspark==4.0.1
    python3 -m venv .venv/spark35 && .venv/spark35/bin/pip install 'pyspark>=3.5,<3.6'
    python3 scripts/make_lineage_workload.py all --spark4 .venv/spark4/bin/python \
        --spark35 .venv/spark35/bin/python --out tests/data/lineage

`all` runs one child process per application (`app` sub-command), because
event-log and source settings are fixed when a SparkSession starts.
"""

import argparse
import datetime
import glob
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(tempfile.gettempdir(), "lakeaudit-lineage")
WAREHOUSE = os.path.join(WORK, "warehouse")  # the data, written once, read by every app
SPARK_WAREHOUSE = os.path.join(WORK, "spark-warehouse")  # INSERT / CTAS targets, fresh per app

ORDERS_COLS = ("o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus STRING, o_totalprice DOUBLE, "
               "o_orderdate DATE, o_orderpriority STRING, o_clerk STRING, o_shippriority INT, o_comment STRING")
LINEITEM_COLS = ("l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT, l_quantity DOUBLE, "
                 "l_extendedprice DOUBLE, l_discount DOUBLE, l_tax DOUBLE, l_returnflag STRING, "
                 "l_linestatus STRING, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, "
                 "l_shipinstruct STRING, l_shipmode STRING, l_comment STRING")

# Catalog tables of every application: name -> (column list, clause) of CREATE
# TABLE. All are external parquet tables over WAREHOUSE/<name>. Spark infers
# the schema (and sales' partition column) from the files; bucketed tables need
# an explicit column list. The in-memory catalog does not discover sales'
# partitions by itself: a setup statement recovers them.
TABLES = {
    "nation": ("", ""),
    "customer": ("", ""),
    "orders": ("", ""),
    "lineitem": ("", ""),
    "supplier": ("", ""),
    "part": ("", ""),
    "returns": ("", ""),
    "date_dim": ("", ""),
    "sales": ("", ""),
    "orders_b": (ORDERS_COLS, "CLUSTERED BY (o_orderkey) SORTED BY (o_orderkey) INTO 4 BUCKETS"),
    "lineitem_b": (LINEITEM_COLS, "CLUSTERED BY (l_orderkey) SORTED BY (l_orderkey) INTO 4 BUCKETS"),
    "order_parts": ("", ""),
}

# Temp views over path reads (`spark.read.parquet(path)`) of the same
# directories as the catalog tables of the same name.
PATH_VIEWS = {
    "orders_p": "orders",
    "lineitem_p": "lineitem",
}

# Cached DataFrames: view name -> SQL text of the DataFrame that is cached
# (`spark.sql(text).cache()`, then `createOrReplaceTempView(name)`). Each is
# used by exactly one query, which materialises it.
CACHED = {
    "big_orders": "SELECT o_orderkey, o_custkey, o_totalprice, o_orderdate FROM orders "
                  "WHERE o_totalprice > 100000",
    "cust_nation": "SELECT c.c_custkey, c.c_mktsegment, n.n_name, n.n_regionkey "
                   "FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey",
}


def create_table_sql(t):
    cols, clause = TABLES[t]
    return " ".join(x for x in ["CREATE TABLE IF NOT EXISTS", t, f"({cols})" if cols else "",
                                "USING parquet", clause,
                                f"LOCATION '{os.path.join(WAREHOUSE, t)}'"] if x)


# Setup statements after the CREATE TABLEs: sales' partitions, the target of the INSERT query.
TARGETS = [
    ("setup:recover-partitions", "ALTER TABLE sales RECOVER PARTITIONS"),
    ("setup:create-insert-target",
     "CREATE TABLE cust_revenue (c_custkey BIGINT, c_mktsegment STRING, revenue DOUBLE) USING parquet"),
]

# The workload, in run order. `{warehouse}` is replaced by WAREHOUSE.
QUERIES = [
    # --- baseline: catalog tables
    ("catalog_join", """
SELECT o.o_orderpriority, count(*) AS n_lines, sum(l.l_extendedprice) AS price
FROM orders o JOIN lineitem l ON o.o_orderkey = l.l_orderkey
WHERE l.l_shipmode IN ('AIR', 'MAIL')
GROUP BY o.o_orderpriority ORDER BY o.o_orderpriority"""),
    # --- path-based reads of the catalog tables' directories
    ("path_read_join", """
SELECT c.c_mktsegment, count(*) AS n_orders, sum(o.o_totalprice) AS total
FROM orders_p o JOIN customer c ON o.o_custkey = c.c_custkey
GROUP BY c.c_mktsegment ORDER BY c.c_mktsegment"""),
    ("path_read_both", """
SELECT o.o_orderstatus, count(*) AS n_lines
FROM lineitem_p l JOIN orders_p o ON l.l_orderkey = o.o_orderkey
WHERE o.o_orderdate >= date '1995-01-01'
GROUP BY o.o_orderstatus ORDER BY o.o_orderstatus"""),
    ("path_sql_join", """
SELECT c.c_name, count(*) AS n_orders
FROM parquet.`{warehouse}/customer` c JOIN orders o ON c.c_custkey = o.o_custkey
WHERE c.c_acctbal > 5000
GROUP BY c.c_name ORDER BY n_orders DESC, c.c_name LIMIT 10"""),
    # --- null-safe equality
    ("null_safe_join", """
SELECT c.c_mktsegment, count(*) AS pairs
FROM customer c JOIN supplier s ON c.c_nationkey <=> s.s_nationkey
GROUP BY c.c_mktsegment ORDER BY c.c_mktsegment"""),
    ("null_safe_widening", """
SELECT s.s_name, count(*) AS n_lines
FROM lineitem l JOIN supplier s ON l.l_suppkey <=> s.s_suppkey AND l.l_linenumber = 1
GROUP BY s.s_name ORDER BY s.s_name"""),
    # --- casts in join keys
    ("cast_widening_coercion", """
SELECT s.s_name, sum(l.l_quantity) AS qty
FROM lineitem l JOIN supplier s ON l.l_suppkey = s.s_suppkey
GROUP BY s.s_name ORDER BY s.s_name"""),
    ("cast_noop", """
SELECT c.c_mktsegment, count(*) AS n_orders
FROM customer c JOIN orders o ON CAST(c.c_custkey AS BIGINT) = o.o_custkey
GROUP BY c.c_mktsegment ORDER BY c.c_mktsegment"""),
    ("cast_narrow_bigint_int", """
SELECT s.s_name, count(*) AS n_lines
FROM lineitem l JOIN supplier s ON CAST(l.l_suppkey AS INT) = s.s_suppkey
GROUP BY s.s_name ORDER BY s.s_name"""),
    ("cast_narrow_nested", """
SELECT p.p_brand, count(*) AS n_lines
FROM lineitem l JOIN part p ON CAST(l.l_partkey AS INT) = p.p_partkey
GROUP BY p.p_brand ORDER BY p.p_brand"""),
    ("cast_double_int", """
SELECT p.p_type, count(*) AS n_lines
FROM lineitem l JOIN part p ON CAST(l.l_quantity AS INT) = p.p_size
GROUP BY p.p_type ORDER BY p.p_type"""),
    ("cast_to_string", """
SELECT r.r_reason, count(*) AS n_lines
FROM lineitem l JOIN returns r ON CAST(l.l_orderkey AS STRING) = r.r_orderkey
  AND l.l_linenumber = r.r_linenumber
GROUP BY r.r_reason ORDER BY r.r_reason"""),
    ("cast_from_string", """
SELECT o.o_orderpriority, count(*) AS n_returns
FROM returns r JOIN orders o ON CAST(r.r_orderkey AS BIGINT) = o.o_orderkey
GROUP BY o.o_orderpriority ORDER BY o.o_orderpriority"""),
    # --- write statements
    ("insert_select", """
INSERT INTO cust_revenue
SELECT c.c_custkey, c.c_mktsegment, sum(o.o_totalprice) AS revenue
FROM customer c JOIN orders o ON c.c_custkey = o.o_custkey
GROUP BY c.c_custkey, c.c_mktsegment"""),
    ("ctas", """
CREATE TABLE nation_revenue USING parquet AS
SELECT n.n_name, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue
FROM nation n
  JOIN customer c ON c.c_nationkey = n.n_nationkey
  JOIN orders o ON o.o_custkey = c.c_custkey
  JOIN lineitem l ON l.l_orderkey = o.o_orderkey
GROUP BY n.n_name"""),
    # --- cached DataFrames (see CACHED)
    ("cached_join", """
SELECT b.o_orderdate, count(*) AS n_lines
FROM big_orders b JOIN lineitem l ON b.o_orderkey = l.l_orderkey
GROUP BY b.o_orderdate ORDER BY n_lines DESC, b.o_orderdate LIMIT 10"""),
    ("cached_inner_join", """
SELECT cn.n_name, count(*) AS n_orders
FROM cust_nation cn JOIN orders o ON cn.c_custkey = o.o_custkey
GROUP BY cn.n_name ORDER BY cn.n_name"""),
    # --- dynamic partition pruning (sales is partitioned by sa_month)
    ("dpp_join", """
SELECT d.d_moy, sum(s.sa_amount) AS amount
FROM sales s JOIN date_dim d ON s.sa_month = d.d_month
WHERE d.d_year = 1995
GROUP BY d.d_moy ORDER BY d.d_moy"""),
    # --- bucketed tables (both bucketed by the order key into 4 buckets)
    ("bucketed_join", """
SELECT /*+ MERGE(o, l) */ o.o_orderstatus, count(*) AS n_lines
FROM orders_b o JOIN lineitem_b l ON o.o_orderkey = l.l_orderkey
GROUP BY o.o_orderstatus ORDER BY o.o_orderstatus"""),
    # --- explode (Generate): the exploded element and a passed-through column
    ("explode_join", """
SELECT p.p_brand, o.o_orderstatus, count(*) AS n
FROM (SELECT op_orderkey, pk FROM order_parts LATERAL VIEW explode(op_partkeys) t AS pk) e
  JOIN part p ON e.pk = p.p_partkey
  JOIN orders o ON e.op_orderkey = o.o_orderkey
GROUP BY p.p_brand, o.o_orderstatus ORDER BY p.p_brand, o.o_orderstatus"""),
    # --- ROLLUP (Expand) below a join on a grouping key
    ("rollup_join", """
WITH r AS (
  SELECT c_nationkey, c_mktsegment, sum(c_acctbal) AS bal
  FROM customer GROUP BY ROLLUP (c_nationkey, c_mktsegment))
SELECT n.n_name, r.c_mktsegment, r.bal
FROM r JOIN nation n ON r.c_nationkey = n.n_nationkey
ORDER BY n.n_name, r.c_mktsegment"""),
    # --- Python UDF on a join key (registered as norm_key, identity on bigint)
    ("python_udf_join", """
SELECT c.c_mktsegment, count(*) AS n_orders
FROM orders o JOIN customer c ON norm_key(o.o_custkey) = c.c_custkey
GROUP BY c.c_mktsegment ORDER BY c.c_mktsegment"""),
    # --- window partition column passed through to a join
    ("window_join", """
WITH w AS (
  SELECT l_orderkey, l_partkey, l_extendedprice,
         row_number() OVER (PARTITION BY l_orderkey ORDER BY l_extendedprice DESC) AS rn
  FROM lineitem)
SELECT o.o_orderpriority, count(*) AS n, sum(w.l_extendedprice) AS top_price
FROM w JOIN orders o ON w.l_orderkey = o.o_orderkey
WHERE w.rn = 1
GROUP BY o.o_orderpriority ORDER BY o.o_orderpriority"""),
    # --- joins inside HAVING subqueries
    ("having_in_subquery", """
SELECT c.c_nationkey, count(*) AS n_customers
FROM customer c
GROUP BY c.c_nationkey
HAVING c.c_nationkey IN (
  SELECT s.s_nationkey FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey
  WHERE n.n_regionkey <= 2)
ORDER BY c.c_nationkey"""),
    ("having_scalar_subquery", """
SELECT c.c_mktsegment, count(*) AS n_customers
FROM customer c
GROUP BY c.c_mktsegment
HAVING count(*) > (
  SELECT count(*) / 10 FROM orders o JOIN customer c2 ON o.o_custkey = c2.c_custkey
  WHERE o.o_orderstatus = 'F')
ORDER BY c.c_mktsegment"""),
]


# --------------------------------------------------------------------------
# data (deterministic; reuses make_samples.py's TPC-H-like generator)

def make_data(spark):
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    sys.path.insert(0, HERE)
    import make_samples

    make_samples.WAREHOUSE = WAREHOUSE  # nation, customer, orders, lineitem
    make_samples.make_tables(spark)

    def write(name, df, how=None):
        path = os.path.join(WAREHOUSE, name)
        if os.path.exists(os.path.join(path, "_SUCCESS")):
            return
        w = df.write.mode("overwrite").format("parquet")
        if how:
            w = how(w)
        w.save(path)

    rnd = random.Random(11)
    L, I, S, D = T.LongType(), T.IntegerType(), T.StringType(), T.DoubleType()

    def schema(cols):
        return T.StructType([T.StructField(n, t, True) for n, t in cols])

    # supplier: s_suppkey is INT (lineitem.l_suppkey is BIGINT); one supplier has no nation
    supplier = [(k, f"Supplier#{k:09d}", None if k == 7 else rnd.randrange(25),
                 round(rnd.uniform(-999, 9999), 2)) for k in range(1, 11)]
    write("supplier", spark.createDataFrame(supplier, schema(
        [("s_suppkey", I), ("s_name", S), ("s_nationkey", L), ("s_acctbal", D)])).coalesce(1))
    brands = [f"Brand#{a}{b}" for a in range(1, 4) for b in range(1, 3)]
    types = ["ECONOMY", "STANDARD", "PROMO", "LARGE"]
    part = [(k, f"part {k}", rnd.choice(brands), rnd.choice(types), rnd.randrange(1, 51),
             round(900 + k / 10, 2)) for k in range(1, 200)]
    write("part", spark.createDataFrame(part, schema(
        [("p_partkey", L), ("p_name", S), ("p_brand", S), ("p_type", S), ("p_size", I),
         ("p_retailprice", D)])).coalesce(1))

    orders = spark.read.parquet(os.path.join(WAREHOUSE, "orders"))
    lineitem = spark.read.parquet(os.path.join(WAREHOUSE, "lineitem"))
    # returns: r_orderkey is a STRING holding the order key
    rows = sorted((r.l_orderkey, r.l_linenumber) for r in lineitem.select("l_orderkey", "l_linenumber").collect())
    returns = [(str(ok), ln, rnd.choice(["DAMAGED", "LATE", "WRONG ITEM"]))
               for ok, ln in rows if rnd.random() < 0.1]
    write("returns", spark.createDataFrame(returns, schema(
        [("r_orderkey", S), ("r_linenumber", I), ("r_reason", S)])).coalesce(1))
    # date_dim: one row per month, d_month = yyyymm
    dd = [(y * 100 + m, y, m, f"{y}-{m:02d}") for y in range(1992, 1999) for m in range(1, 13)]
    write("date_dim", spark.createDataFrame(dd, schema(
        [("d_month", I), ("d_year", I), ("d_moy", I), ("d_label", S)])).coalesce(1))
    # sales: a fact table partitioned by sa_month (one directory per month)
    sales = orders.select(F.col("o_orderkey").alias("sa_orderkey"), F.col("o_custkey").alias("sa_custkey"),
                          F.col("o_totalprice").alias("sa_amount"),
                          (F.year("o_orderdate") * 100 + F.month("o_orderdate")).cast("int").alias("sa_month"))
    write("sales", sales.repartition(1, "sa_month"), lambda w: w.partitionBy("sa_month"))
    # bucketed copies of orders and lineitem (bucketBy needs saveAsTable)
    for name, df, key in [("orders_b", orders, "o_orderkey"), ("lineitem_b", lineitem, "l_orderkey")]:
        path = os.path.join(WAREHOUSE, name)
        if not os.path.exists(os.path.join(path, "_SUCCESS")):
            (df.repartition(1).write.mode("overwrite").format("parquet").bucketBy(4, key).sortBy(key)
             .option("path", path).saveAsTable(name))
    # order_parts: the part keys of each order as an array
    op = (lineitem.groupBy(F.col("l_orderkey").alias("op_orderkey"))
          .agg(F.sort_array(F.collect_list("l_partkey")).alias("op_partkeys")))
    write("order_parts", op.coalesce(1))


# --------------------------------------------------------------------------
# one application (runs inside the pyspark venv)

def execution_ids(spark):
    """SQL execution ids known to this session's SQL status store (after the
    listener bus has delivered every event posted so far: the store is fed
    asynchronously)."""
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty()
    store = spark._jsparkSession.sharedState().statusStore()
    lst = store.executionsList()
    return {lst.apply(i).executionId() for i in range(lst.size())}


def run_app(args):
    from pyspark.sql import SparkSession
    from pyspark.sql import types as T

    os.makedirs(args.logdir, exist_ok=True)
    os.makedirs(WAREHOUSE, exist_ok=True)
    shutil.rmtree(SPARK_WAREHOUSE, ignore_errors=True)
    os.environ["PYSPARK_PYTHON"] = sys.executable  # Python UDF workers use this venv
    os.chdir(WORK)  # keeps user.dir neutral in SparkListenerEnvironmentUpdate
    b = (SparkSession.builder.master("local[2]").appName(f"lakeaudit-lineage-{args.name}")
         .config("spark.driver.memory", "1g")
         .config("spark.sql.warehouse.dir", SPARK_WAREHOUSE)
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "4"))
    if args.data:
        b = b.config("spark.eventLog.enabled", "false")
    else:
        b = (b.config("spark.eventLog.enabled", "true")
             .config("spark.eventLog.dir", "file://" + args.logdir))
    for kv in args.conf:
        k, v = kv.split("=", 1)
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if args.data:
        make_data(spark)
        spark.stop()
        return

    runs = []
    seen = set()

    def track(query, action):
        """Run `action`, record the SQL executions it produced under `query`."""
        nonlocal seen
        t0 = time.time()
        rows = action()
        now = execution_ids(spark)
        new = sorted(now - seen)
        seen = now
        runs.append({"seq": len(runs) + 1, "query": query, "run": 1, "execution_ids": new,
                     "rows": rows, "seconds": round(time.time() - t0, 2)})

    def run(query, text, collect=True):
        track(query, lambda: len(spark.sql(text).collect()) if collect else (spark.sql(text), None)[1])

    # setup: catalog tables (one CREATE TABLE execution each; not collected,
    # like the TPC-H fixtures), sales' partitions, the INSERT target
    for t in TABLES:
        run(f"setup:create-table:{t}", create_table_sql(t), collect=False)
    for name, text in TARGETS:
        run(name, text, collect=False)
    # setup through the DataFrame API: path-read views and cached DataFrames
    # (createOrReplaceTempView logs a CreateViewCommand execution), the UDF
    for view, table in PATH_VIEWS.items():
        track(f"setup:path-view:{view}", lambda: spark.read.parquet(
            os.path.join(WAREHOUSE, table)).createOrReplaceTempView(view))
    for view, text in CACHED.items():
        track(f"setup:cached-view:{view}", lambda: spark.sql(text).cache().createOrReplaceTempView(view))
    spark.udf.register("norm_key", lambda k: k, T.LongType())

    for query, text in QUERIES:
        run(query, text.strip().format(warehouse=WAREHOUSE))
    conf = spark.sparkContext.getConf()
    effective = {}
    for k in EFFECTIVE:
        try:  # spark.conf.get without a default gives Spark's default for unset SQL keys
            effective[k] = spark.conf.get(k) if k.startswith("spark.sql.") else conf.get(k, None)
        except Exception:  # a key with no default that was never set
            effective[k] = None
    with open(os.path.join(args.logdir, "..", f"{args.name}.runs.json"), "w") as f:
        json.dump({"runs": runs, "effective": effective}, f, indent=1)
    spark.stop()


# --------------------------------------------------------------------------
# orchestration (runs under any python)

APPS = [
    ("spark4-default", "spark4", ["spark.eventLog.compress=true", "spark.eventLog.compression.codec=zstd"]),
    ("spark4-v2-nobroadcast", "spark4", ["spark.eventLog.compress=true", "spark.eventLog.compression.codec=zstd",
                                         "spark.sql.autoBroadcastJoinThreshold=-1",
                                         "spark.sql.sources.useV1SourceList="]),
    ("spark35-default", "spark35", ["spark.eventLog.compress=true", "spark.eventLog.compression.codec=zstd"]),
    # The V2 / no-broadcast settings with plans in extended-mode text: the
    # same statements through the extended plan parser.
    ("spark4-v2-extended", "spark4", ["spark.eventLog.compress=true", "spark.eventLog.compression.codec=zstd",
                                      "spark.sql.autoBroadcastJoinThreshold=-1",
                                      "spark.sql.sources.useV1SourceList=",
                                      "spark.sql.ui.explainMode=extended"]),
]

# Settings reported in each manifest's `effective` block (as the session saw them).
EFFECTIVE = ["spark.sql.adaptive.enabled", "spark.sql.ui.explainMode", "spark.sql.shuffle.partitions",
             "spark.sql.autoBroadcastJoinThreshold", "spark.sql.sources.useV1SourceList",
             "spark.sql.ansi.enabled", "spark.sql.optimizer.dynamicPartitionPruning.enabled",
             "spark.sql.sources.bucketing.enabled", "spark.eventLog.compress",
             "spark.eventLog.compression.codec", "spark.eventLog.rolling.enabled", "spark.master",
             "spark.sql.catalogImplementation"]


def child(python, name, logdir, conf, extra=()):
    # Run a copy of the scripts from WORK: pyspark puts the caller's file and
    # line into each SQL execution's description ("collect at <file>:<line>"),
    # so the logs name /tmp/lakeaudit-lineage/..., not this checkout.
    scripts = os.path.join(WORK, "scripts")
    os.makedirs(scripts, exist_ok=True)
    for f in ["make_lineage_workload.py", "make_samples.py"]:
        shutil.copy2(os.path.join(HERE, f), os.path.join(scripts, f))
    cmd = [python, os.path.join(scripts, "make_lineage_workload.py"), "app", "--name", name, "--logdir", logdir]
    for c in conf:
        cmd += ["--conf", c]
    cmd += list(extra)
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def log_lines(path):
    """Decompressed JSON lines of a Spark log file or rolling directory."""
    files = sorted(glob.glob(os.path.join(path, "events_*"))) if os.path.isdir(path) else [path]
    for f in files:
        if f.endswith(".zstd"):
            data = subprocess.run(["zstd", "-dc", f], check=True, capture_output=True).stdout
        else:
            data = open(f, "rb").read()
        for line in io.BytesIO(data):
            if line.strip():
                yield json.loads(line)


def describe_log(path):
    """Spark version, app id, properties and per-execution facts from a log."""
    info = {"executions": {}}
    for e in log_lines(path):
        ev = e["Event"]
        if ev == "SparkListenerLogStart":
            info["spark_version"] = e["Spark Version"]
        elif ev == "SparkListenerApplicationStart":
            info["app_id"] = e["App ID"]
        elif ev == "SparkListenerEnvironmentUpdate":
            info["props"] = dict(e["Spark Properties"])
        elif ev.endswith("SQLExecutionStart"):
            info["executions"][e["executionId"]] = {
                "root_execution_id": e.get("rootExecutionId"),
                "root_operator": e["sparkPlanInfo"]["nodeName"],
                "aqe_updates": 0,
            }
        elif ev.endswith("SQLAdaptiveExecutionUpdate"):
            info["executions"][e["executionId"]]["aqe_updates"] += 1
    return info


def write_manifest(out, name, conf, logpath, runs, effective):
    info = describe_log(logpath)
    execs = info["executions"]
    listed = sorted(i for r in runs for i in r["execution_ids"])
    if listed != sorted(execs):
        raise SystemExit(f"{name}: manifest ids {listed} != log ids {sorted(execs)}")
    manifest = {
        "meta": {
            "spark_version": info.get("spark_version"),
            "app_id": info.get("app_id"),
            "log": os.path.relpath(logpath, out),
            "confs_set": dict(c.split("=", 1) for c in conf),
            "effective": effective,
        },
        "runs": runs,
        "executions": {str(i): execs[i] for i in sorted(execs)},
    }
    os.makedirs(os.path.join(out, "executions"), exist_ok=True)
    with open(os.path.join(out, "executions", f"{name}.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


def write_sql(out):
    d = os.path.join(out, "sql")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for query, text in QUERIES:
        with open(os.path.join(d, f"{query}.sql"), "w") as f:
            f.write(text.strip().format(warehouse=WAREHOUSE) + "\n")
    with open(os.path.join(d, "setup.sql"), "w") as f:
        f.write("-- catalog tables (one SQL execution each)\n")
        for t in TABLES:
            f.write(create_table_sql(t) + ";\n")
        for _name, text in TARGETS:
            f.write(text + ";\n")
        f.write("\n-- DataFrame API; createOrReplaceTempView logs one CreateViewCommand execution each\n")
        for view, table in PATH_VIEWS.items():
            f.write(f"-- {view} = spark.read.parquet('{os.path.join(WAREHOUSE, table)}')\n")
        f.write("\n-- cached DataFrames: spark.sql(text).cache().createOrReplaceTempView(name), one execution each\n")
        for view, text in CACHED.items():
            f.write(f"-- {view} = {text}\n")
        f.write("\n-- no SQL execution: spark.udf.register('norm_key', lambda k: k, LongType())\n")


def make_all(args):
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    pythons = {"spark4": args.spark4, "spark35": args.spark35}
    only = set(args.only or [])
    os.makedirs(WORK, exist_ok=True)
    # the data set, written once (no event log); skipped when already complete
    if not all(os.path.exists(os.path.join(WAREHOUSE, t, "_SUCCESS")) for t in TABLES):
        child(args.spark4, "data", os.path.join(WORK, "logs", "data"), [], ["--data"])
    for name, py, conf in APPS:
        if only and name not in only:
            continue
        logdir = os.path.join(WORK, "logs", name)
        shutil.rmtree(logdir, ignore_errors=True)
        child(pythons[py], name, logdir, conf)
        entries = [e for e in os.listdir(logdir) if not e.startswith(".")]
        if len(entries) != 1:
            raise SystemExit(f"expected one log in {logdir}, found {entries}")
        src = os.path.join(logdir, entries[0])
        dst_dir = os.path.join(out, name)
        shutil.rmtree(dst_dir, ignore_errors=True)
        os.makedirs(dst_dir)
        dst = os.path.join(dst_dir, entries[0])
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copy2(src, dst)
        with open(os.path.join(WORK, "logs", f"{name}.runs.json")) as f:
            got = json.load(f)
        write_manifest(out, name, conf, dst, got["runs"], got["effective"])
    write_sql(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("app", help="run one Spark application (inside a pyspark venv)")
    a.add_argument("--name", required=True)
    a.add_argument("--logdir", required=True)
    a.add_argument("--conf", action="append", default=[])
    a.add_argument("--data", action="store_true", help="write the data set (no event log)")
    m = sub.add_parser("all", help="produce every application")
    m.add_argument("--spark4", required=True, help="python of a venv with pyspark==4.0.1")
    m.add_argument("--spark35", required=True, help="python of a venv with pyspark 3.5.x")
    m.add_argument("--out", default="tests/data/lineage")
    m.add_argument("--only", action="append", help="produce only these applications")
    args = ap.parse_args()
    if args.cmd == "app":
        run_app(args)
    else:
        make_all(args)


if __name__ == "__main__":
    main()
