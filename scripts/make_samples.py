#!/usr/bin/env python3
"""Produce the small real Spark event logs under samples/ with real pyspark.

Every log here is written by Apache Spark itself; this script only chooses the
settings, runs a few join queries on a tiny TPC-H-like data set, and copies the
files Spark wrote. The only derived files are the gzip copy of an uncompressed
log and the cut copy of an in-progress log (both documented in samples/README.md).

Usage (pyspark lives in venvs outside the repo):

    python3 -m venv .venv/spark4  && .venv/spark4/bin/pip install pyspark==4.0.1
    python3 -m venv .venv/spark35 && .venv/spark35/bin/pip install 'pyspark==3.5.*'
    python3 scripts/make_samples.py all --spark4 .venv/spark4/bin/python \
        --spark35 .venv/spark35/bin/python --out samples

`all` runs one child process per application (`app` sub-command), because
event-log settings are fixed when a SparkSession starts.
"""

import argparse
import datetime
import gzip
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

WORK = os.path.join(tempfile.gettempdir(), "lakeaudit-samples")
WAREHOUSE = os.path.join(WORK, "warehouse")

QUERIES = {
    # inner join + aggregate
    "inner_join": """
        SELECT c.c_name, count(*) AS n_orders, sum(o.o_totalprice) AS total
        FROM customer c JOIN orders o ON c.c_custkey = o.o_custkey
        GROUP BY c.c_name ORDER BY total DESC LIMIT 10""",
    # IN subquery (becomes a semi join)
    "in_subquery": """
        SELECT o_orderkey, o_totalprice FROM orders
        WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem WHERE l_quantity > 45)""",
    # NOT EXISTS (becomes an anti join)
    "not_exists": """
        SELECT c_custkey, c_name FROM customer c
        WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.o_custkey = c.c_custkey)""",
    # self join
    "self_join": """
        SELECT l1.l_orderkey, count(*) AS pairs
        FROM lineitem l1 JOIN lineitem l2
          ON l1.l_orderkey = l2.l_orderkey AND l1.l_suppkey <> l2.l_suppkey
        GROUP BY l1.l_orderkey""",
    # four-way join, TPC-H Q5-like
    "four_way": """
        SELECT n.n_name, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue
        FROM nation n
          JOIN customer c ON c.c_nationkey = n.n_nationkey
          JOIN orders o ON o.o_custkey = c.c_custkey
          JOIN lineitem l ON l.l_orderkey = o.o_orderkey
        WHERE o.o_orderdate >= date '1995-01-01'
        GROUP BY n.n_name ORDER BY revenue DESC""",
}


# --------------------------------------------------------------------------
# data (deterministic)

def make_tables(spark):
    from pyspark.sql import types as T

    rnd = random.Random(42)
    nations = ["ALGERIA", "ARGENTINA", "BRAZIL", "CANADA", "EGYPT", "ETHIOPIA",
               "FRANCE", "GERMANY", "INDIA", "INDONESIA", "IRAN", "IRAQ", "JAPAN",
               "JORDAN", "KENYA", "MOROCCO", "MOZAMBIQUE", "PERU", "CHINA",
               "ROMANIA", "SAUDI ARABIA", "VIETNAM", "RUSSIA", "UNITED KINGDOM",
               "UNITED STATES"]
    regions = [0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1]
    nation = [(i, n, regions[i], f"nation {i}") for i, n in enumerate(nations)]
    segs = ["AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"]
    customer = []
    for k in range(1, 151):
        nk = rnd.randrange(25)
        customer.append((k, f"Customer#{k:09d}", f"addr {k}", nk,
                         f"{10 + nk}-{rnd.randrange(100, 999)}-{rnd.randrange(1000, 9999)}",
                         round(rnd.uniform(-999, 9999), 2), rnd.choice(segs), "c"))
    orders = []
    base = datetime.date(1992, 1, 1)
    for k in range(1, 301):
        ck = rnd.randrange(1, 151)
        if ck % 3 == 0:  # TPC-H leaves a third of customers without orders
            ck += 1
        d = base + datetime.timedelta(days=rnd.randrange(0, 2400))
        orders.append((k, ck, rnd.choice("FOP"), round(rnd.uniform(1000, 400000), 2), d,
                       rnd.choice(["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"]),
                       f"Clerk#{rnd.randrange(1, 100):09d}", 0, "o"))
    lineitem = []
    for (ok, _ck, _st, _tp, od, *_rest) in orders:
        for ln in range(1, rnd.randrange(1, 5) + 1):
            q = rnd.randrange(1, 51)
            ship = od + datetime.timedelta(days=rnd.randrange(1, 120))
            lineitem.append((ok, rnd.randrange(1, 200), rnd.randrange(1, 10), ln, float(q),
                             round(q * rnd.uniform(900, 1100), 2), round(rnd.uniform(0, 0.1), 2),
                             round(rnd.uniform(0, 0.08), 2), rnd.choice("RAN"), rnd.choice("OF"),
                             ship, ship + datetime.timedelta(days=10),
                             ship + datetime.timedelta(days=20), "NONE", rnd.choice(["AIR", "MAIL", "SHIP", "TRUCK"]),
                             "l"))

    L, I, S, D, DT = T.LongType(), T.IntegerType(), T.StringType(), T.DoubleType(), T.DateType()

    def schema(cols):
        return T.StructType([T.StructField(n, t, False) for n, t in cols])

    tables = {
        "nation": (nation, schema([("n_nationkey", L), ("n_name", S), ("n_regionkey", L), ("n_comment", S)])),
        "customer": (customer, schema([("c_custkey", L), ("c_name", S), ("c_address", S), ("c_nationkey", L),
                                       ("c_phone", S), ("c_acctbal", D), ("c_mktsegment", S), ("c_comment", S)])),
        "orders": (orders, schema([("o_orderkey", L), ("o_custkey", L), ("o_orderstatus", S), ("o_totalprice", D),
                                   ("o_orderdate", DT), ("o_orderpriority", S), ("o_clerk", S),
                                   ("o_shippriority", I), ("o_comment", S)])),
        "lineitem": (lineitem, schema([("l_orderkey", L), ("l_partkey", L), ("l_suppkey", L), ("l_linenumber", I),
                                       ("l_quantity", D), ("l_extendedprice", D), ("l_discount", D), ("l_tax", D),
                                       ("l_returnflag", S), ("l_linestatus", S), ("l_shipdate", DT),
                                       ("l_commitdate", DT), ("l_receiptdate", DT), ("l_shipinstruct", S),
                                       ("l_shipmode", S), ("l_comment", S)])),
    }
    for name, (rows, sch) in tables.items():
        path = os.path.join(WAREHOUSE, name)
        if not os.path.exists(os.path.join(path, "_SUCCESS")):
            spark.createDataFrame(rows, sch).coalesce(1).write.mode("overwrite").parquet(path)
    return list(tables)


# --------------------------------------------------------------------------
# one application (runs inside the pyspark venv)

def start_session(args):
    from pyspark.sql import SparkSession

    os.makedirs(args.logdir, exist_ok=True)
    os.makedirs(WAREHOUSE, exist_ok=True)
    os.chdir(WORK)  # keeps user.dir neutral in SparkListenerEnvironmentUpdate
    b = (SparkSession.builder.master("local[2]").appName(f"lakeaudit-sample-{args.name}")
         .config("spark.eventLog.enabled", "true")
         .config("spark.eventLog.dir", "file://" + args.logdir)
         .config("spark.sql.warehouse.dir", os.path.join(WORK, "spark-warehouse"))
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", str(args.shuffle_partitions)))
    for kv in args.conf:
        k, v = kv.split("=", 1)
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    for t in make_tables(spark):
        spark.sql(f"CREATE TABLE IF NOT EXISTS {t} USING parquet LOCATION '{os.path.join(WAREHOUSE, t)}'")
    return spark


def count_parts(logdir):
    n = 0
    for _root, _dirs, files in os.walk(logdir):
        n += sum(1 for f in files if f.startswith("events_"))
    return n


# One execution with `tasks` map tasks (a single-stage scan of range() plus
# the final aggregate): its SparkListenerTaskEnd events alone take more than
# two 10 MiB rolling parts, so the execution starts in one part and ends in a
# later one with at least one whole part in between.
LONG_QUERY = "SELECT count(*) AS n, sum(id) AS s FROM range(0, {rows}, 1, {tasks})"


def run_app(args):
    """Run the queries `--rounds` times, forever (until killed), or until Spark
    has rolled the log to `--min-parts` parts; then stop cleanly. With
    `--long-query-tasks N`, the long single-stage query runs once after the
    first round."""
    spark = start_session(args)
    rounds = 0
    while args.forever or args.min_parts or rounds < args.rounds:
        for _name, sql in QUERIES.items():
            spark.sql(sql).collect()
        rounds += 1
        if rounds == 1 and args.long_query_tasks:
            n = args.long_query_tasks
            spark.sql(LONG_QUERY.format(rows=n * 10, tasks=n)).collect()
        if args.forever:
            print(f"round {rounds} done", flush=True)
        elif args.min_parts:
            # with the long query, at least one round runs after it
            enough = count_parts(args.logdir) >= args.min_parts
            if (enough and not (args.long_query_tasks and rounds < 2)) or rounds >= 500:
                break
    print(f"{rounds} rounds, {count_parts(args.logdir)} parts", flush=True)
    spark.stop()


# --------------------------------------------------------------------------
# orchestration (runs under any python)

def child(python, name, logdir, conf, extra=()):
    cmd = [python, os.path.abspath(__file__), "app", "--name", name, "--logdir", logdir]
    for c in conf:
        cmd += ["--conf", c]
    cmd += list(extra)
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def only_entry(logdir):
    entries = [e for e in os.listdir(logdir) if not e.startswith(".")]
    if len(entries) != 1:
        raise SystemExit(f"expected one log in {logdir}, found {entries}")
    return os.path.join(logdir, entries[0])


def copy_log(src, out):
    dst = os.path.join(out, os.path.basename(src))
    if os.path.isdir(src):
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst)
    else:
        shutil.copy2(src, dst)
    return dst


def fresh(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def make_all(args):
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    made = {}
    only = set(args.only or [])

    def want(n):
        return not only or n in only

    # Write the parquet tables first, in an application without an event log,
    # so that every logged application runs the same SQL executions
    # (4 CREATE TABLE + 5 queries).
    child(args.spark4, "data", fresh(os.path.join(WORK, "logs", "data")),
          ["spark.eventLog.enabled=false"], ["--rounds", "0"])

    # Spark 4.0.1, one application per codec, rolling layout (Spark 4's default)
    for codec in ["lz4", "lzf", "snappy", "zstd"]:
        name = f"spark4-{codec}"
        if not want(name):
            continue
        d = fresh(os.path.join(WORK, "logs", name))
        child(args.spark4, name, d, ["spark.eventLog.compress=true",
                                     f"spark.eventLog.compression.codec={codec}"])
        made[name] = copy_log(only_entry(d), os.path.join(out, fresh_sub(out, name)))

    # Spark 4.0.1, uncompressed single file (rolling off), plus a gzip copy
    if want("spark4-plain"):
        d = fresh(os.path.join(WORK, "logs", "spark4-plain"))
        child(args.spark4, "spark4-plain", d, ["spark.eventLog.compress=false",
                                               "spark.eventLog.rolling.enabled=false"])
        src = copy_log(only_entry(d), os.path.join(out, fresh_sub(out, "spark4-plain")))
        with open(src, "rb") as f, gzip.open(src + ".gz", "wb", compresslevel=9) as g:
            shutil.copyfileobj(f, g)
        made["spark4-plain"] = src

    # Spark 4.0.1 rolling directory with >= 2 parts (10 MiB minimum part size)
    if want("spark4-rolling"):
        d = fresh(os.path.join(WORK, "logs", "spark4-rolling"))
        child(args.spark4, "spark4-rolling", d,
              ["spark.eventLog.compress=true", "spark.eventLog.compression.codec=zstd",
               "spark.eventLog.rolling.enabled=true", "spark.eventLog.rolling.maxFileSize=10m"],
              ["--shuffle-partitions", "200", "--min-parts", "2"])
        made["spark4-rolling"] = copy_log(only_entry(d), os.path.join(out, fresh_sub(out, "spark4-rolling")))

    # Spark 4.0.1 rolling directory with >= 3 parts in which one long execution
    # spans a whole part (tests delete a middle part at test time): the long
    # query's ~6,000 tasks write about 28 MB of task events. The listener
    # queue is made large enough for them (the default 10,000 could drop
    # events); the near-identical task events keep the zstd parts small.
    if want("spark4-rolling-multi"):
        d = fresh(os.path.join(WORK, "logs", "spark4-rolling-multi"))
        child(args.spark4, "spark4-rolling-multi", d,
              ["spark.eventLog.compress=true", "spark.eventLog.compression.codec=zstd",
               "spark.eventLog.rolling.enabled=true", "spark.eventLog.rolling.maxFileSize=10m",
               "spark.scheduler.listenerbus.eventqueue.capacity=200000"],
              ["--long-query-tasks", str(args.long_query_tasks), "--min-parts", "3"])
        made["spark4-rolling-multi"] = copy_log(
            only_entry(d), os.path.join(out, fresh_sub(out, "spark4-rolling-multi")))

    # Spark 4.0.1 applications killed with SIGKILL mid-run: .inprogress
    for name, kill_after, conf in [
        ("spark4-inprogress", args.kill_after_bytes,
         ["spark.eventLog.compress=false", "spark.eventLog.rolling.enabled=false"]),
        ("spark4-inprogress-zstd", args.kill_after_bytes // 6,
         ["spark.eventLog.compress=true", "spark.eventLog.compression.codec=zstd",
          "spark.eventLog.rolling.enabled=false"]),
    ]:
        if not want(name):
            continue
        d = fresh(os.path.join(WORK, "logs", name))
        kill_mid_run(args.spark4, name, d, conf, kill_after)
        log = only_entry(d)
        dst = copy_log(log, os.path.join(out, fresh_sub(out, name)))
        made[name] = dst
        if not log.endswith(".zstd.inprogress"):
            with open(dst, "rb") as f:
                data = f.read()
            if data.endswith(b"\n"):
                # Spark's own tail ended on a line boundary: also keep a copy cut
                # mid-line (in the middle of the last JSON object) by this script.
                last = data.rstrip(b"\n").rfind(b"\n")
                cut = last + 1 + (len(data) - last - 1) // 2
                base = os.path.basename(dst)
                cut_name = base.replace(".inprogress", "") + "-cut.inprogress"
                with open(os.path.join(os.path.dirname(dst), cut_name), "wb") as f:
                    f.write(data[:cut])

    # Spark 3.5.x, single file (3.5's default layout), compress=true with lz4 named
    # explicitly: 3.5's default event-log codec is zstd, not spark.io's lz4.
    if want("spark35-lz4") and args.spark35:
        d = fresh(os.path.join(WORK, "logs", "spark35-lz4"))
        child(args.spark35, "spark35-lz4", d, ["spark.eventLog.compress=true",
                                               "spark.eventLog.compression.codec=lz4"])
        made["spark35-lz4"] = copy_log(only_entry(d), os.path.join(out, fresh_sub(out, "spark35-lz4")))

    print(json.dumps(made, indent=1))


def fresh_sub(out, name):
    return fresh(os.path.join(out, name))


def kill_mid_run(python, name, logdir, conf, kill_after):
    cmd = [python, os.path.abspath(__file__), "app", "--name", name, "--logdir", logdir, "--forever"]
    for c in conf:
        cmd += ["--conf", c]
    print("+", " ".join(cmd), "(killed with SIGKILL mid-run)", flush=True)
    # own process group: SIGKILL reaches python and the JVM it started, nothing else
    p = subprocess.Popen(cmd, start_new_session=True)
    try:
        deadline = time.time() + 900
        while time.time() < deadline:
            time.sleep(0.5)
            if p.poll() is not None:
                raise SystemExit(f"{name}: application ended before it was killed")
            files = [os.path.join(logdir, f) for f in os.listdir(logdir) if f.endswith(".inprogress")]
            if files and os.path.getsize(files[0]) >= kill_after:
                break
        # let a query be mid-flight, not at a flush boundary we chose
        time.sleep(random.Random(name).uniform(0.1, 0.9))
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("app", help="run one Spark application (inside a pyspark venv)")
    a.add_argument("--name", required=True)
    a.add_argument("--logdir", required=True)
    a.add_argument("--conf", action="append", default=[])
    a.add_argument("--rounds", type=int, default=1)
    a.add_argument("--forever", action="store_true")
    a.add_argument("--shuffle-partitions", type=int, default=4)
    a.add_argument("--min-parts", type=int, default=0,
                   help="repeat the queries until the rolling dir has this many events_ parts")
    a.add_argument("--long-query-tasks", type=int, default=0,
                   help="after the first round, run one single-stage query with this many tasks")
    m = sub.add_parser("all", help="produce every sample")
    m.add_argument("--spark4", required=True, help="python of a venv with pyspark==4.0.1")
    m.add_argument("--spark35", help="python of a venv with pyspark 3.5.x")
    m.add_argument("--out", default="samples")
    m.add_argument("--only", action="append", help="produce only these samples")
    m.add_argument("--kill-after-bytes", type=int, default=600_000)
    m.add_argument("--long-query-tasks", type=int, default=6_000,
                   help="tasks of the long execution in spark4-rolling-multi")
    args = ap.parse_args()
    if args.cmd == "app":
        run_app(args)
    else:
        make_all(args)


if __name__ == "__main__":
    main()
