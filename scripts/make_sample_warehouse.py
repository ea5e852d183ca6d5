#!/usr/bin/env python3
"""The sample warehouse (samples/warehouse) and the real Spark log that read
it (samples/shop), so that `make analyze` on the samples sees the tables its
logs joined.

    python3 scripts/make_sample_warehouse.py TABLES_PYTHON SPARK_PYTHON OUT

TABLES_PYTHON has deltalake, pyarrow, pyroaring and
"pyiceberg[sql-sqlite,pyarrow]" (`make tables-venv`); SPARK_PYTHON has
pyspark==4.0.1 (`make spark-venv`). OUT is the samples directory: the
script replaces OUT/warehouse and OUT/shop.

Three steps, each a child process, in a work directory under the system's
temporary directory:

1. Before (real writers). A small shop written the way an ingest job writes
   it, one batch at a time, over 14 days: `shop.db/orders` (Delta,
   partitioned by day, three appends a day: 42 small files, a checkpoint
   after day 10), `shop.db/lineitem` (Delta, one append per batch),
   `shop.db/customers` (Delta, one write, then a commit that sets
   `delta.clustering` on c_nationkey, as `ALTER TABLE ... CLUSTER BY`
   records it), `shop.db/nation` (Delta, one write) and
   `shop.db/web_events` (Iceberg v2 by pyiceberg, partitioned by e_day, one
   append a day).
2. Spark 4.0.1 runs the shop's reports. No Delta or Iceberg jar can be
   fetched here, so each table is registered as an external parquet table
   at its data directory under the name the audit gives it (`shop.orders`
   for `shop.db/orders`): `CREATE TABLE shop.<t> USING parquet OPTIONS
   (pathGlobFilter '*.parquet') LOCATION '<dir>'`, partitions by `MSCK
   REPAIR TABLE`. At this point no table has removed a file or deleted a
   row, so the files Spark lists are exactly each table's snapshot. Broadcast
   joins are off so that the joins run as SortMergeJoin (the join kind the
   layout planner plans for); 4 shuffle partitions; the Spark 4 event-log
   defaults (zstd, rolling directory).
3. After (real writers and the protocols). What happened to the tables
   since the log was written: cancelled orders deleted with deletion vectors
   (built per the Delta protocol by scripts/delta_dv.py; delta-rs reads them
   back), two more days of small appends to orders and lineitem, and the
   web events of two customers who asked to be forgotten removed by a
   position delete file (one per partition, committed in a DELETES
   manifest; pyiceberg's scan applies it). OUT/shop/reference.json records
   what delta-rs and pyiceberg report for the final tables.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(tempfile.gettempdir(), "lakeaudit-shop")
WH = os.path.join(WORK, "warehouse")
SHOP = os.path.join(WH, "shop.db")
LOGS = os.path.join(WORK, "logs")
ICE_CATALOG = os.path.join(WORK, "iceberg-catalog.db")

DAYS_BEFORE = [f"2026-11-{d:02}" for d in range(1, 15)]
DAYS_AFTER = ["2026-11-15", "2026-11-16"]
BATCHES_PER_DAY = 3
ORDERS_PER_BATCH = 60
CUSTOMERS = 600
NATIONS = ["ALGERIA", "ARGENTINA", "BRAZIL", "CANADA", "EGYPT", "ETHIOPIA", "FRANCE", "GERMANY",
           "INDIA", "INDONESIA", "IRAN", "IRAQ", "JAPAN", "JORDAN", "KENYA", "MOROCCO",
           "MOZAMBIQUE", "PERU", "CHINA", "ROMANIA", "SAUDI ARABIA", "VIETNAM", "RUSSIA",
           "UNITED KINGDOM", "UNITED STATES"]
SEGMENTS = ["AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"]
PAGES = ["home", "search", "product", "cart", "checkout", "help"]
FORGOTTEN = [17, 242]  # customers whose web events are erased after the log

# The reports Spark runs, and how many times each.
QUERIES = [
    ("daily_revenue", 6, """
        SELECT o.o_orderday, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue
        FROM shop.orders o JOIN shop.lineitem l ON l.l_orderkey = o.o_orderkey
        GROUP BY o.o_orderday ORDER BY o.o_orderday"""),
    ("revenue_by_nation", 4, """
        SELECT n.n_name, sum(l.l_extendedprice) AS revenue
        FROM shop.nation n
          JOIN shop.customers c ON c.c_nationkey = n.n_nationkey
          JOIN shop.orders o ON o.o_custkey = c.c_custkey
          JOIN shop.lineitem l ON l.l_orderkey = o.o_orderkey
        GROUP BY n.n_name ORDER BY revenue DESC"""),
    ("engagement", 3, """
        SELECT c.c_segment, count(*) AS views, count(DISTINCT e.e_custkey) AS visitors
        FROM shop.web_events e JOIN shop.customers c ON e.e_custkey = c.c_custkey
        GROUP BY c.c_segment"""),
    ("conversion", 2, """
        SELECT e.e_day, count(DISTINCT o.o_orderkey) AS orders
        FROM shop.web_events e JOIN shop.orders o
          ON o.o_custkey = e.e_custkey AND o.o_orderday = e.e_day
        WHERE e.e_page = 'checkout'
        GROUP BY e.e_day"""),
]
TABLES = ["nation", "customers", "orders", "lineitem", "web_events"]
PARTITIONED = {"orders"}  # Iceberg files also hold e_day: Spark finds web_events unpartitioned


# --------------------------------------------------------------------------
# data (deterministic)

def batches(days, first_batch):
    """Orders and their lineitems per ingest batch."""
    import pyarrow as pa

    out = []
    b = first_batch
    for day in days:
        for _ in range(BATCHES_PER_DAY):
            rnd = random.Random(1000 + b)
            keys = range(b * ORDERS_PER_BATCH + 1, (b + 1) * ORDERS_PER_BATCH + 1)
            o = {"o_orderkey": [], "o_custkey": [], "o_orderday": [], "o_status": [], "o_totalprice": []}
            li = {"l_orderkey": [], "l_linenumber": [], "l_partkey": [], "l_quantity": [],
                  "l_extendedprice": [], "l_discount": []}
            for k in keys:
                o["o_orderkey"].append(k)
                o["o_custkey"].append(rnd.randrange(1, CUSTOMERS + 1))
                o["o_orderday"].append(day)
                o["o_status"].append("C" if rnd.random() < 0.08 else rnd.choice("OF"))
                total = 0.0
                for n in range(1, rnd.randrange(1, 8) + 1):
                    qty = rnd.randrange(1, 51)
                    price = round(qty * rnd.uniform(900, 1100), 2)
                    total += price
                    li["l_orderkey"].append(k)
                    li["l_linenumber"].append(n)
                    li["l_partkey"].append(rnd.randrange(1, 2001))
                    li["l_quantity"].append(qty)
                    li["l_extendedprice"].append(price)
                    li["l_discount"].append(rnd.randrange(0, 11) / 100)
                o["o_totalprice"].append(round(total, 2))
            orders = pa.table({
                "o_orderkey": pa.array(o["o_orderkey"], pa.int64()),
                "o_custkey": pa.array(o["o_custkey"], pa.int64()),
                "o_orderday": pa.array(o["o_orderday"], pa.string()),
                "o_status": pa.array(o["o_status"], pa.string()),
                "o_totalprice": pa.array(o["o_totalprice"], pa.float64()),
            })
            lineitem = pa.table({
                "l_orderkey": pa.array(li["l_orderkey"], pa.int64()),
                "l_linenumber": pa.array(li["l_linenumber"], pa.int32()),
                "l_partkey": pa.array(li["l_partkey"], pa.int64()),
                "l_quantity": pa.array(li["l_quantity"], pa.int32()),
                "l_extendedprice": pa.array(li["l_extendedprice"], pa.float64()),
                "l_discount": pa.array(li["l_discount"], pa.float64()),
            })
            out.append((orders, lineitem))
            b += 1
    return out


def web_events(day, seed):
    import pyarrow as pa

    rnd = random.Random(seed)
    n = 400
    return pa.table({
        "e_custkey": pa.array([rnd.randrange(1, CUSTOMERS + 1) for _ in range(n)], pa.int64()),
        "e_day": pa.array([day] * n, pa.string()),
        "e_page": pa.array([rnd.choice(PAGES) for _ in range(n)], pa.string()),
        "e_ms": pa.array([rnd.randrange(50, 30000) for _ in range(n)], pa.int64()),
    })


# --------------------------------------------------------------------------
# step 1: the tables as the log saw them

def iceberg_catalog():
    from pyiceberg.catalog.sql import SqlCatalog

    return SqlCatalog("shop", uri=f"sqlite:///{ICE_CATALOG}", warehouse=f"file://{WH}")


def before():
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.types import LongType, NestedField, StringType

    sys.path.insert(0, HERE)
    import delta_dv

    os.makedirs(SHOP)
    rnd = random.Random(7)
    write_deltalake(os.path.join(SHOP, "nation"), pa.table({
        "n_nationkey": pa.array(range(len(NATIONS)), pa.int64()),
        "n_name": pa.array(NATIONS, pa.string()),
    }))
    customers = os.path.join(SHOP, "customers")
    write_deltalake(customers, pa.table({
        "c_custkey": pa.array(range(1, CUSTOMERS + 1), pa.int64()),
        "c_name": pa.array([f"Customer#{i:09}" for i in range(1, CUSTOMERS + 1)], pa.string()),
        "c_nationkey": pa.array([rnd.randrange(len(NATIONS)) for _ in range(CUSTOMERS)], pa.int64()),
        "c_segment": pa.array([rnd.choice(SEGMENTS) for _ in range(CUSTOMERS)], pa.string()),
    }))
    conf = {"clusteringColumns": [["c_nationkey"]], "domainName": "delta.clustering"}
    delta_dv.commit(customers, DeltaTable(customers).version() + 1, [
        {"protocol": {"minReaderVersion": 1, "minWriterVersion": 7,
                      "writerFeatures": ["domainMetadata", "clustering"]}},
        {"domainMetadata": {"domain": "delta.clustering", "configuration": json.dumps(conf), "removed": False}},
        {"commitInfo": {"operation": "CLUSTER BY",
                        "operationParameters": {"newClusteringColumns": "c_nationkey"},
                        "timestamp": 1793491200000}},
    ])
    orders = os.path.join(SHOP, "orders")
    lineitem = os.path.join(SHOP, "lineitem")
    for i, (o, li) in enumerate(batches(DAYS_BEFORE, 0)):
        write_deltalake(orders, o, partition_by=["o_orderday"], mode="append")
        write_deltalake(lineitem, li, mode="append")
        if i == 10 * BATCHES_PER_DAY - 1:
            DeltaTable(orders).create_checkpoint()
            DeltaTable(lineitem).create_checkpoint()

    cat = iceberg_catalog()
    cat.create_namespace("shop")
    schema = Schema(
        NestedField(1, "e_custkey", LongType(), required=False),
        NestedField(2, "e_day", StringType(), required=False),
        NestedField(3, "e_page", StringType(), required=False),
        NestedField(4, "e_ms", LongType(), required=False),
    )
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="e_day"))
    tbl = cat.create_table("shop.web_events", schema=schema, partition_spec=spec,
                           location="file://" + os.path.join(SHOP, "web_events"),
                           properties={"format-version": "2"})
    for i, day in enumerate(DAYS_BEFORE):
        tbl.append(web_events(day, 5000 + i))


# --------------------------------------------------------------------------
# step 2: Spark

def spark():
    from pyspark.sql import SparkSession

    s = (SparkSession.builder.master("local[2]").appName("lakeaudit-shop")
         .config("spark.eventLog.enabled", "true")
         .config("spark.eventLog.dir", "file://" + LOGS)
         .config("spark.sql.warehouse.dir", os.path.join(WORK, "spark-warehouse"))
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "4")
         .config("spark.sql.autoBroadcastJoinThreshold", "-1")
         .getOrCreate())
    s.sql(f"CREATE DATABASE IF NOT EXISTS shop LOCATION '{SHOP}'")
    for t in TABLES:
        loc = os.path.join(SHOP, t, "data") if t == "web_events" else os.path.join(SHOP, t)
        s.sql(f"CREATE TABLE shop.{t} USING parquet OPTIONS (pathGlobFilter '*.parquet') LOCATION '{loc}'")
        if t in PARTITIONED:
            s.sql(f"MSCK REPAIR TABLE shop.{t}")
    for _, times, q in QUERIES:
        for _ in range(times):
            s.sql(q).collect()
    s.stop()


# --------------------------------------------------------------------------
# step 3: what happened since

def after():
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    from deltalake import DeltaTable, QueryBuilder, write_deltalake

    sys.path.insert(0, HERE)
    import delta_dv

    ref = {}

    # Cancelled orders of the first days go, by deletion vectors on the
    # files that hold them (one DV file for the commit).
    orders = os.path.join(SHOP, "orders")
    v = DeltaTable(orders).version()
    deletes = {}
    for path, add in sorted(delta_dv.live_adds(orders, v).items()):
        if add["partitionValues"]["o_orderday"] > "2026-11-04":
            continue
        t = pq.read_table(os.path.join(orders, path), columns=["o_status"])
        pos = [i for i, s in enumerate(t.column("o_status").to_pylist()) if s == "C"]
        if pos:
            deletes[path] = pos
    delta_dv.commit_dvs(orders, v + 1, delta_dv.file_dvs(orders, deletes), 1794009600000,
                        "o_status = 'C' AND o_orderday <= '2026-11-04'")

    lineitem = os.path.join(SHOP, "lineitem")
    first = len(DAYS_BEFORE) * BATCHES_PER_DAY
    for o, li in batches(DAYS_AFTER, first):
        write_deltalake(orders, o, partition_by=["o_orderday"], mode="append")
        write_deltalake(lineitem, li, mode="append")

    for t in ["nation", "customers", "orders", "lineitem"]:
        dt = DeltaTable(os.path.join(SHOP, t))
        adds = pa.table(dt.get_add_actions(flatten=True)).to_pydict()
        live = QueryBuilder().register("t", dt).execute("SELECT COUNT(*) AS n FROM t").read_all()
        live = pa.table(live).column("n")[0].as_py()
        physical = sum(adds["num_records"])
        ref[f"shop.{t}"] = {
            "format": "delta",
            "version": dt.version(),
            "files": len(adds["path"]),
            "bytes": sum(adds["size_bytes"]),
            "rows_physical": physical,
            "rows_live": live,
            "rows_deleted": physical - live,
        }
    ref["shop.orders"]["dv_cardinalities"] = sorted(len(p) for p in deletes.values())

    # Two customers' web events are erased: one position delete file per
    # partition that holds any, in one DELETES manifest.
    from pyiceberg.manifest import (DataFile, DataFileContent, FileFormat, ManifestContent,
                                    ManifestEntry, ManifestEntryStatus, ManifestWriterV2)
    from pyiceberg.table.snapshots import Operation
    from pyiceberg.table.update.snapshot import _FastAppendFiles
    from pyiceberg.typedef import Record

    cat = iceberg_catalog()
    tbl = cat.load_table("shop.web_events")
    pos_schema = pa.schema([
        pa.field("file_path", pa.string(), nullable=False, metadata={"PARQUET:field_id": "2147483546"}),
        pa.field("pos", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "2147483545"}),
    ])
    delete_files = []
    for task in sorted(tbl.scan().plan_files(), key=lambda t: t.file.file_path):
        f = task.file
        local = f.file_path.removeprefix("file://")
        keys = pq.read_table(local, columns=["e_custkey"]).column("e_custkey")
        mask = pc.is_in(keys, value_set=pa.array(FORGOTTEN, pa.int64()))
        pos = [i for i, m in enumerate(mask.to_pylist()) if m]
        if not pos:
            continue
        day = f.partition[0]
        p = os.path.join(os.path.dirname(local), f"erasure-{day}-deletes.parquet")
        pq.write_table(pa.table({"file_path": [f.file_path] * len(pos), "pos": pos}, schema=pos_schema), p)
        d = DataFile.from_args(
            content=DataFileContent.POSITION_DELETES,
            file_path="file://" + p,
            file_format=FileFormat.PARQUET,
            partition=Record(day),
            record_count=len(pos),
            file_size_in_bytes=os.path.getsize(p),
            lower_bounds={2147483546: f.file_path.encode()},
            upper_bounds={2147483546: f.file_path.encode()},
        )
        d.spec_id = 0
        delete_files.append(d)

    class DeletesWriter(ManifestWriterV2):
        def content(self):
            return ManifestContent.DELETES

        @property
        def _meta(self):
            return {**super()._meta, "content": "deletes"}

    class AddDeletes(_FastAppendFiles):
        def _manifests(self):
            with DeletesWriter(tbl.spec(), tbl.schema(), self.new_manifest_output(), self._snapshot_id,
                               self._compression) as w:
                for d in delete_files:
                    w.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED,
                                                  snapshot_id=self._snapshot_id, data_file=d))
            return [w.to_manifest_file()] + self._existing_manifests()

    with tbl.transaction() as tx:
        AddDeletes(operation=Operation.DELETE, transaction=tx, io=tbl.io).commit()

    tbl = cat.load_table("shop.web_events")
    tasks = list(tbl.scan().plan_files())
    physical = sum(t.file.record_count for t in tasks)
    live = tbl.scan().to_arrow().num_rows
    ref["shop.web_events"] = {
        "format": "iceberg",
        "version": tbl.current_snapshot().snapshot_id,
        "files": len(tasks),
        "bytes": sum(t.file.file_size_in_bytes for t in tasks),
        "rows_physical": physical,
        "rows_live": live,
        "rows_deleted": physical - live,
        "pos_delete_files": len({d.file_path for t in tasks for d in t.delete_files}),
        "data_files_with_deletes": sum(1 for t in tasks if t.delete_files),
    }
    with open(os.path.join(WORK, "reference.json"), "w") as f:
        json.dump(ref, f, indent=2, sort_keys=True)
        f.write("\n")
    print(json.dumps(ref, indent=2, sort_keys=True))


# --------------------------------------------------------------------------

def main():
    if len(sys.argv) == 2 and sys.argv[1] in ("--before", "--spark", "--after"):
        {"--before": before, "--spark": spark, "--after": after}[sys.argv[1]]()
        return
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    tables_python, spark_python, out = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(LOGS)
    me = os.path.abspath(__file__)
    subprocess.run([tables_python, me, "--before"], check=True, cwd=WORK)
    subprocess.run([spark_python, me, "--spark"], check=True, cwd=WORK)
    subprocess.run([tables_python, me, "--after"], check=True, cwd=WORK)

    (entry,) = os.listdir(LOGS)
    logs = os.path.join(out, "shop")
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)
    shutil.copytree(os.path.join(LOGS, entry), os.path.join(logs, entry))
    shutil.copy2(os.path.join(WORK, "reference.json"), os.path.join(logs, "reference.json"))
    dst = os.path.join(out, "warehouse")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(WH, dst)
    print(os.path.join(logs, entry))
    print(dst)


if __name__ == "__main__":
    main()
