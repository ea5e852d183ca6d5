"""Write the table fixtures with real writers and record what the reference
readers report for them.

    python scripts/make_table_fixtures.py OUT_DIR [--only NAME ...]
    (with the interpreter of a venv holding: deltalake pyarrow pyroaring
     "pyiceberg[sql-sqlite,pyarrow]")

Without --only, OUT_DIR is emptied and every table is written again (new
UUIDs, timestamps and snapshot ids: the committed files all change). With
--only NAME (repeatable), only that table's directory is replaced and only
its entry in OUT_DIR/reference.json is rewritten; the other tables and
entries stay byte for byte.

OUT_DIR/warehouse/ receives:
  sales/            Delta, partitioned by day: many small appends, a
                    checkpoint, optimize.compact() on one day, more appends.
  orders_dv/        Delta with deletion vectors: delta-rs writes the data
                    files; one commit (PROTOCOL.md, "Deletion Vectors") adds
                    a DV in a file (storage type u) and an inline DV (i).
                    delta-rs reads it back with the DVs applied.
  customers/        Delta whose delta.clustering domain metadata (Spark's
                    nested column lists) is added by one commit.
  ice.db/events/    Iceberg v2 (pyiceberg, SQLite catalog), partitioned by
                    region, with position delete files committed in a
                    DELETES manifest; pyiceberg's scan applies them.
OUT_DIR/thresholds/ receives tables that sit exactly on the thresholds of
planner/maintenance (compaction policies, delete verdicts). Files of an
exact size are found by writing candidate data with the same writer into a
scratch table until one has that size (hunt()); the table is then written
with it and the sizes checked:
  delta_target/     Delta, delta.targetFileSize 4000 (set by delta-rs),
                    partitions of two files: 2000 + 2000 (fills a bin),
                    2000 + 2001 (one byte over), 1999 + 2000 (Fabric's
                    target / 2), 3999 + 4000 (minFileSize).
  fabric_files/     Delta, 49 and 50 one-row files in two partitions
                    (Fabric fast optimize's 50-file bin).
  delta_dv_ratio/   Delta, three files each with a DV of 5 rows (of 101,
                    100 and 99 rows: Delta's maxDeletedRowsRatio 0.05), the
                    three DVs in one deletion_vector_<uuid>.bin; delta-rs's
                    scan drops exactly those positions.
  ice.db/counts/    Iceberg v2, 2, 4 and 5 files per partition
                    (min-input-files 5; 11 fragments, Amoro's trigger 12).
  ice.db/sizes/     Iceberg v2, write.target-file-size-bytes 4001 (min 3000,
                    max 7201) and self-optimizing.target-size 24000 (Amoro
                    fragments < 3000): files of 2999 + 3000, 7201 + 7202,
                    2000 + 2001 (the target) and 2000 + 2002.
  ice.db/pos_ratio/ Iceberg v2, one 100-row file per partition with a
                    file-scoped position delete file of 30, 29, 11, 10 rows
                    (delete-ratio-threshold 0.3, Amoro's 0.1).
  ice.db/dvs/       Iceberg v3 with deletion vectors (Puffin
                    deletion-vector-v1): pyiceberg writes the v2 table, the
                    upgrade and the DV snapshot follow the spec (see
                    make_ice_dvs); pyiceberg reads it back, its scan applying
                    the DVs. DVs of 30 and 29 of 100 rows.
OUT_DIR/checkpoints/ receives Delta tables whose classic checkpoint holds
typed struct columns in each add (delta.checkpoint.writeStatsAsStruct):
partitionValues_parsed with a date, stats_parsed min/max with a UTC
timestamp, a decimal(10,2) and a date (checked with pyarrow):
  typed_stats/      partitioned by a date column; nine appends, a compaction
                    of one day, a checkpoint (with its remove rows), two
                    appends after it.
  struct_stats_only/ the same with delta.checkpoint.writeStatsAsJson=false:
                    the checkpoint's adds have no stats JSON, the row counts
                    are in stats_parsed.numRecords only.
OUT_DIR/reference.json: per table, files, bytes, rows (physical), live rows,
deleted rows, delete files and DV cardinalities as delta-rs / pyiceberg
report them (thresholds tables: "warehouse": "thresholds", and the file
sizes, per-file deletes and properties the tests rely on). The tests
compare `lakeaudit tables` with these numbers.
"""

import argparse
import datetime
import decimal
import json
import os
import random
import shutil
import string
import struct
import sys
import tempfile
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import DeltaTable, QueryBuilder, write_deltalake

OUT = WH = TH = CK = None
REF = {}

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from delta_dv import MAGIC, commit, dv_body, framed, log_lines, portable64, z85  # noqa: E402


def delta_reference(path):
    dt = DeltaTable(path)
    adds = pa.table(dt.get_add_actions(flatten=True)).to_pydict()
    live = pa.table(QueryBuilder().register("t", dt).execute("SELECT COUNT(*) AS n FROM t").read_all())
    live = live.column("n")[0].as_py()
    physical = sum(adds["num_records"])
    return {
        "format": "delta",
        "version": dt.version(),
        "files": len(adds["path"]),
        "bytes": sum(adds["size_bytes"]),
        "rows_physical": physical,
        "rows_live": live,
        "rows_deleted": physical - live,
    }


def rows(day, start, n):
    return pa.table(
        {
            "id": pa.array(range(start, start + n), pa.int64()),
            "day": pa.array([day] * n, pa.string()),
            "amount": pa.array([float(i % 97) for i in range(start, start + n)], pa.float64()),
            "note": pa.array([f"order {i} " + "x" * (i % 13) for i in range(start, start + n)]),
        }
    )


def make_sales():
    path = os.path.join(WH, "sales")
    days = ["2024-01-01", "2024-01-02", "2024-01-03"]
    start = 0
    # 8 small appends per day, one commit each: 24 small files.
    for _ in range(8):
        for d in days:
            write_deltalake(path, rows(d, start, 50), partition_by=["day"], mode="append")
            start += 50
    dt = DeltaTable(path)
    dt.create_checkpoint()
    dt.optimize.compact(partition_filters=[("day", "=", "2024-01-01")])
    # Later small appends, after the checkpoint.
    for d in days[1:]:
        write_deltalake(path, rows(d, start, 50), partition_by=["day"], mode="append")
        start += 50
    REF["sales"] = delta_reference(path)


def make_orders_dv():
    path = os.path.join(WH, "orders_dv")
    write_deltalake(path, rows("2024-02-01", 0, 100), mode="append")
    write_deltalake(path, rows("2024-02-01", 100, 40), mode="append")
    v = DeltaTable(path).version()
    adds = [a["add"] for a in log_lines(path, 1 - 1) + log_lines(path, 1) if "add" in a]
    meta = next(a["metaData"] for a in log_lines(path, 0) if "metaData" in a)
    meta = dict(meta)
    meta["configuration"] = dict(meta.get("configuration") or {})
    meta["configuration"]["delta.enableDeletionVectors"] = "true"
    # DV in a file: rows 3, 4, 10..19 and 99 of the first file (13 rows).
    first = [3, 4] + list(range(10, 20)) + [99]
    body = dv_body(first)
    u = uuid.uuid4()
    dv_name = f"deletion_vector_{u}.bin"
    with open(os.path.join(path, dv_name), "wb") as f:
        f.write(b"\x01" + framed(body))
    dv_u = {
        "storageType": "u",
        "pathOrInlineDv": z85(u.bytes),
        "offset": 1,
        "sizeInBytes": len(body),
        "cardinality": len(first),
    }
    # Inline DV: rows 0, 1 and 39 of the second file.
    second = [0, 1, 39]
    inline = dv_body(second)
    inline += b"\x00" * (-len(inline) % 4)
    dv_i = {
        "storageType": "i",
        "pathOrInlineDv": z85(inline),
        "sizeInBytes": len(dv_body(second)),
        "cardinality": len(second),
    }
    actions = [
        {
            "protocol": {
                "minReaderVersion": 3,
                "minWriterVersion": 7,
                "readerFeatures": ["deletionVectors"],
                "writerFeatures": ["deletionVectors"],
            }
        },
        {"metaData": meta},
    ]
    for add, dv in zip(adds, [dv_u, dv_i]):
        actions.append(
            {
                "remove": {
                    "path": add["path"],
                    "deletionTimestamp": 1767225600000,
                    "dataChange": True,
                    "extendedFileMetadata": True,
                    "partitionValues": add["partitionValues"],
                    "size": add["size"],
                    "deletionVector": None,
                }
            }
        )
        new = dict(add)
        new["deletionVector"] = dv
        new["dataChange"] = True
        actions.append({"add": new})
    actions.append({"commitInfo": {"operation": "DELETE", "operationParameters": {}, "timestamp": 1767225600000}})
    commit(path, v + 1, actions)
    REF["orders_dv"] = delta_reference(path)
    REF["orders_dv"]["dv_cardinalities"] = sorted([len(first), len(second)])
    assert REF["orders_dv"]["rows_deleted"] == len(first) + len(second), REF["orders_dv"]


def make_customers():
    path = os.path.join(WH, "customers")
    t = pa.table(
        {
            "c_custkey": pa.array(range(200), pa.int64()),
            "c_nation": pa.array([f"n{i % 7}" for i in range(200)]),
            "c_name": pa.array([f"Customer#{i:09}" for i in range(200)]),
        }
    )
    write_deltalake(path, t)
    v = DeltaTable(path).version()
    conf = {"clusteringColumns": [["c_custkey"], ["c_nation"]], "domainName": "delta.clustering"}
    commit(
        path,
        v + 1,
        [
            {
                "protocol": {
                    "minReaderVersion": 1,
                    "minWriterVersion": 7,
                    "writerFeatures": ["domainMetadata", "clustering"],
                }
            },
            {"domainMetadata": {"domain": "delta.clustering", "configuration": json.dumps(conf), "removed": False}},
            {"commitInfo": {"operation": "CLUSTER BY", "operationParameters": {}, "timestamp": 1767225600000}},
        ],
    )
    REF["customers"] = delta_reference(path)
    REF["customers"]["clustering_columns"] = ["c_custkey", "c_nation"]


def make_iceberg(tmp):
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.manifest import (
        DataFile,
        DataFileContent,
        FileFormat,
        ManifestContent,
        ManifestEntry,
        ManifestEntryStatus,
        ManifestWriterV2,
    )
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.table.snapshots import Operation
    from pyiceberg.table.update.snapshot import _FastAppendFiles
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.typedef import Record
    from pyiceberg.types import LongType, NestedField, StringType, DoubleType

    wh = os.path.join(tmp, "iwh")
    os.makedirs(wh)
    cat = SqlCatalog("local", uri=f"sqlite:///{tmp}/cat.db", warehouse=f"file://{wh}")
    cat.create_namespace("ice")
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "region", StringType(), required=False),
        NestedField(3, "amount", DoubleType(), required=False),
    )
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="region"))
    tbl = cat.create_table("ice.events", schema=schema, partition_spec=spec, properties={"format-version": "2"})
    arrow_schema = pa.schema([("id", pa.int64()), ("region", pa.string()), ("amount", pa.float64())])
    start = 0
    for _ in range(4):
        for region in ["eu", "us", "apac"]:
            n = 30
            tbl.append(
                pa.table(
                    {
                        "id": pa.array(range(start, start + n), pa.int64()),
                        "region": pa.array([region] * n),
                        "amount": pa.array([float(i) for i in range(n)], pa.float64()),
                    },
                    schema=arrow_schema,
                )
            )
            start += n
    tbl = cat.load_table("ice.events")
    tasks = list(tbl.scan().plan_files())
    eu = sorted([t.file for t in tasks if t.file.partition[0] == "eu"], key=lambda f: f.file_path)
    us = sorted([t.file for t in tasks if t.file.partition[0] == "us"], key=lambda f: f.file_path)

    pos_schema = pa.schema(
        [
            pa.field("file_path", pa.string(), nullable=False, metadata={"PARQUET:field_id": "2147483546"}),
            pa.field("pos", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "2147483545"}),
        ]
    )

    def delete_file(name, region, pairs, file_scoped):
        p = os.path.join(tbl.location().removeprefix("file://"), "data", f"region={region}", name)
        pq.write_table(pa.table({"file_path": [a for a, _ in pairs], "pos": [b for _, b in pairs]}, schema=pos_schema), p)
        lo = min(a for a, _ in pairs).encode()
        hi = max(a for a, _ in pairs).encode()
        df = DataFile.from_args(
            content=DataFileContent.POSITION_DELETES,
            file_path="file://" + p,
            file_format=FileFormat.PARQUET,
            partition=Record(region),
            record_count=len(pairs),
            file_size_in_bytes=os.path.getsize(p),
            lower_bounds={2147483546: lo},
            upper_bounds={2147483546: hi},
        )
        df.spec_id = 0
        return df

    # File-scoped: 5 rows of the first eu file (bounds equal, as Iceberg
    # Java writes them). Partition-scoped: rows of two us files in one file.
    deletes = [
        delete_file("pos-del-eu.parquet", "eu", [(eu[0].file_path, i) for i in [0, 1, 2, 7, 29]], True),
        delete_file(
            "pos-del-us.parquet",
            "us",
            sorted([(us[0].file_path, i) for i in [5, 6]] + [(us[1].file_path, i) for i in [0, 10, 20]]),
            False,
        ),
    ]

    class DeletesWriter(ManifestWriterV2):
        def content(self):
            return ManifestContent.DELETES

        @property
        def _meta(self):
            return {**super()._meta, "content": "deletes"}

    class AddDeletes(_FastAppendFiles):
        def _manifests(self):
            with DeletesWriter(
                tbl.spec(), tbl.schema(), self.new_manifest_output(), self._snapshot_id, self._compression
            ) as w:
                for d in deletes:
                    w.add(
                        ManifestEntry.from_args(
                            status=ManifestEntryStatus.ADDED, snapshot_id=self._snapshot_id, data_file=d
                        )
                    )
            return [w.to_manifest_file()] + self._existing_manifests()

        def _summary(self, snapshot_properties={}):
            s = super()._summary(snapshot_properties)
            return s

    with tbl.transaction() as tx:
        AddDeletes(operation=Operation.DELETE, transaction=tx, io=tbl.io).commit()

    tbl = cat.load_table("ice.events")
    tasks = list(tbl.scan().plan_files())
    live = tbl.scan().to_arrow().num_rows
    physical = sum(t.file.record_count for t in tasks)
    REF["ice.events"] = {
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
    assert REF["ice.events"]["rows_deleted"] == 10, REF["ice.events"]
    shutil.copytree(tbl.location().removeprefix("file://"), os.path.join(WH, "ice.db", "events"))



# ---------------------------------------------------------------------------
# Threshold tables (OUT_DIR/thresholds/): each sits exactly on a threshold of
# a compaction policy or a delete verdict (planner/maintenance).
# ---------------------------------------------------------------------------

NOISE = string.ascii_letters + string.digits + "+/"


def noise(seed, n):
    """n characters that compress poorly, the same for the same seed."""
    r = random.Random(seed)
    return "".join(r.choice(NOISE) for _ in range(n))


def hunt(target, size_of, make):
    """The data make(salt, length) whose written file has exactly target
    bytes. size_of(data) writes data with the same writer, schema and
    partitioning somewhere that leaves no trace and returns the file's size.
    For one salt the size grows with length; a writer's size can skip a byte
    (a varint growing), so other salts (other row counts) are tried."""
    seen = {}

    def size(salt, n):
        if (salt, n) not in seen:
            seen[(salt, n)] = size_of(make(salt, n))
        return seen[(salt, n)]

    for salt in range(64):
        lo, hi = 0, 2 * target
        while lo < hi:
            mid = (lo + hi) // 2
            if size(salt, mid) >= target:
                hi = mid
            else:
                lo = mid + 1
        for n in range(max(0, lo - 4), lo + 5):
            if size(salt, n) == target:
                return make(salt, n)
    raise RuntimeError(f"no data found that writes a file of exactly {target} bytes")


def padded(part_col, part, id0, salt, n):
    """1-3 rows (by salt) with unique ids from id0 and an n-character pad."""
    k = 1 + salt % 3
    return pa.table(
        {
            "id": pa.array(range(id0, id0 + k), pa.int64()),
            part_col: pa.array([part] * k, pa.string()),
            "pad": pa.array([noise(f"{part}/{id0}/{salt}/{i}", n) for i in range(k)], pa.string()),
        }
    )


def delta_sizes(path, part_col):
    """Sizes of the live files per partition as delta-rs reports them."""
    adds = pa.table(DeltaTable(path).get_add_actions(flatten=True)).to_pydict()
    out = {}
    for p, size in zip(adds[f"partition.{part_col}"], adds["size_bytes"]):
        out.setdefault(f"{part_col}={p}", []).append(size)
    return {k: sorted(v) for k, v in sorted(out.items())}


# delta.targetFileSize of delta_target: Delta's minFileSize = maxFileSize =
# 4000, Fabric's file-level target 4000 / 2 = 2000.
DELTA_TARGET = 4000
DELTA_TARGET_FILES = {
    # Two files filling a bin exactly (2000 + 2000 = maxFileSize): one bin.
    "fit": [2000, 2000],
    # One byte more (2000 + 2001): each file alone, both bins dropped.
    "over": [2000, 2001],
    # Fabric: 1999 < 2000 is recompacted, 2000 = target / 2 is kept.
    "half": [1999, 2000],
    # minFileSize: 3999 is small, 4000 is not.
    "edge": [3999, 4000],
}


def make_delta_target():
    path = os.path.join(TH, "delta_target")
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe")

        def size_of(data):
            shutil.rmtree(probe, ignore_errors=True)
            write_deltalake(probe, data, partition_by=["p"])
            sizes = pa.table(DeltaTable(probe).get_add_actions(flatten=True)).column("size_bytes").to_pylist()
            assert len(sizes) == 1, sizes
            return sizes[0]

        id0 = 0
        for part, sizes in DELTA_TARGET_FILES.items():
            for size in sizes:
                data = hunt(size, size_of, lambda salt, n: padded("p", part, id0, salt, n))
                write_deltalake(path, data, partition_by=["p"], mode="append")
                id0 += 10
    # The target is a table property, set by delta-rs in its own commit.
    DeltaTable(path).alter.set_table_properties({"delta.targetFileSize": str(DELTA_TARGET)})
    ref = delta_reference(path)
    ref["warehouse"] = "thresholds"
    ref["target_file_size"] = int(DeltaTable(path).metadata().configuration["delta.targetFileSize"])
    ref["file_sizes"] = delta_sizes(path, "p")
    assert ref["file_sizes"] == {f"p={k}": sorted(v) for k, v in sorted(DELTA_TARGET_FILES.items())}, ref
    REF["delta_target"] = ref


def make_fabric_files():
    """49 and 50 one-row files in two partitions: one append each."""
    path = os.path.join(TH, "fabric_files")
    i = 0
    for n in (49, 50):
        for _ in range(n):
            write_deltalake(
                path,
                pa.table({"id": pa.array([i], pa.int64()), "n": pa.array([str(n)], pa.string())}),
                partition_by=["n"],
                mode="append",
            )
            i += 1
    ref = delta_reference(path)
    ref["warehouse"] = "thresholds"
    ref["files_per_partition"] = {k: len(v) for k, v in delta_sizes(path, "n").items()}
    assert ref["files_per_partition"] == {"n=49": 49, "n=50": 50}, ref
    REF["fabric_files"] = ref


# (label, rows, deleted positions): 5 of 101 = 0.0495, 5 of 100 = exactly
# 5 %, 5 of 99 = 0.0505.
DELTA_DV_FILES = [
    ("under", 101, [0, 7, 33, 64, 100]),
    ("exact", 100, [0, 7, 33, 64, 99]),
    ("over", 99, [0, 7, 33, 64, 98]),
]


def dv_commit(path, adds, dvs):
    """One commit (PROTOCOL.md, "Deletion Vectors"): reader 3 / writer 7
    with the deletionVectors feature, delta.enableDeletionVectors, and each
    add re-added with its DV after a remove of the file without one."""
    meta = next(a["metaData"] for a in log_lines(path, 0) if "metaData" in a)
    meta = dict(meta)
    meta["configuration"] = dict(meta.get("configuration") or {})
    meta["configuration"]["delta.enableDeletionVectors"] = "true"
    actions = [
        {
            "protocol": {
                "minReaderVersion": 3,
                "minWriterVersion": 7,
                "readerFeatures": ["deletionVectors"],
                "writerFeatures": ["deletionVectors"],
            }
        },
        {"metaData": meta},
    ]
    for add, dv in zip(adds, dvs):
        actions.append(
            {
                "remove": {
                    "path": add["path"],
                    "deletionTimestamp": 1767225600000,
                    "dataChange": True,
                    "extendedFileMetadata": True,
                    "partitionValues": add["partitionValues"],
                    "size": add["size"],
                    "deletionVector": None,
                }
            }
        )
        new = dict(add)
        new["deletionVector"] = dv
        new["dataChange"] = True
        actions.append({"add": new})
    actions.append({"commitInfo": {"operation": "DELETE", "operationParameters": {}, "timestamp": 1767225600000}})
    commit(path, DeltaTable(path).version() + 1, actions)


def make_delta_dv_ratio():
    """Three files, each with a DV deleting 5 rows; the three DVs share one
    deletion_vector_<uuid>.bin at offsets 1, 1 + the first, ..."""
    path = os.path.join(TH, "delta_dv_ratio")
    id0 = 0
    for label, n, _ in DELTA_DV_FILES:
        write_deltalake(
            path,
            pa.table({"id": pa.array(range(id0, id0 + n), pa.int64()), "file": pa.array([label] * n, pa.string())}),
            mode="append",
        )
        id0 += 1000
    adds = [a["add"] for v in range(len(DELTA_DV_FILES)) for a in log_lines(path, v) if "add" in a]
    u = uuid.uuid4()
    blob = b"\x01"
    dvs = []
    for _, _, positions in DELTA_DV_FILES:
        body = dv_body(positions)
        dvs.append(
            {
                "storageType": "u",
                "pathOrInlineDv": z85(u.bytes),
                "offset": len(blob),
                "sizeInBytes": len(body),
                "cardinality": len(positions),
            }
        )
        blob += framed(body)
    with open(os.path.join(path, f"deletion_vector_{u}.bin"), "wb") as f:
        f.write(blob)
    dv_commit(path, adds, dvs)
    ref = delta_reference(path)
    ref["warehouse"] = "thresholds"
    # Per file, what delta-rs's scan leaves: the ids of each file it drops.
    dt = DeltaTable(path)
    live = pa.table(
        QueryBuilder().register("t", dt).execute("SELECT file, COUNT(*) AS n FROM t GROUP BY file").read_all()
    ).to_pydict()
    live = dict(zip(live["file"], live["n"]))
    ref["per_file"] = {
        label: {"rows": n, "deleted": n - live[label], "dv_cardinality": len(pos)} for label, n, pos in DELTA_DV_FILES
    }
    # The rows it drops are the DVs' positions: each DV is read at its offset.
    ids = set(pa.table(QueryBuilder().register("t", dt).execute("SELECT id FROM t").read_all()).column("id").to_pylist())
    for k, (label, n, pos) in enumerate(DELTA_DV_FILES):
        gone = [i - 1000 * k for i in range(1000 * k, 1000 * k + n) if i not in ids]
        assert gone == pos, (label, gone)
    REF["delta_dv_ratio"] = ref


# Iceberg threshold tables: pyiceberg writes, SQLite catalog.


def ice_catalog(tmp):
    from pyiceberg.catalog.sql import SqlCatalog

    wh = os.path.join(tmp, "iwh")
    os.makedirs(wh)
    cat = SqlCatalog("local", uri=f"sqlite:///{tmp}/cat.db", warehouse=f"file://{wh}")
    cat.create_namespace("ice")
    return cat


def ice_part_table(cat, name, properties=None):
    """id long, part string, pad string; identity-partitioned by part."""
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.types import LongType, NestedField, StringType

    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "part", StringType(), required=False),
        NestedField(3, "pad", StringType(), required=False),
    )
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="part"))
    return cat.create_table(f"ice.{name}", schema=schema, partition_spec=spec, properties=ice_properties(properties))


def ice_properties(extra=None):
    """v2; pyiceberg keeps only the last two metadata files, so the
    fixtures stay small."""
    return {
        "format-version": "2",
        "write.metadata.delete-after-commit.enabled": "true",
        "write.metadata.previous-versions-max": "1",
        **(extra or {}),
    }


def ice_rows(part, id0, n, pad=""):
    return pa.table(
        {
            "id": pa.array(range(id0, id0 + n), pa.int64()),
            "part": pa.array([part] * n, pa.string()),
            "pad": pa.array([pad] * n, pa.string()),
        }
    )


def ice_append(tbl, tables):
    """One append of several partitions' rows: pyiceberg writes one file per
    partition."""
    tbl.append(pa.concat_tables(tables))


def ice_file_ids(data_file):
    return pq.read_table(data_file.file_path.removeprefix("file://"), columns=["id"]).column("id").to_pylist()


def iceberg_reference(tbl):
    """What pyiceberg reports: plan_files for files, bytes, rows and delete
    files; scan().to_arrow() for the live rows, and per data file the rows
    of it the scan drops."""
    tasks = list(tbl.scan().plan_files())
    live_ids = set(tbl.scan().to_arrow().column("id").to_pylist())
    physical = sum(t.file.record_count for t in tasks)
    per_file = []
    for t in sorted(tasks, key=lambda t: (str(t.file.partition), min(ice_file_ids(t.file)))):
        ids = ice_file_ids(t.file)
        per_file.append(
            {
                "partition": f"{tbl.spec().fields[0].name}={t.file.partition[0]}",
                "first_id": min(ids),
                "bytes": t.file.file_size_in_bytes,
                "rows": t.file.record_count,
                "deleted": sum(1 for i in ids if i not in live_ids),
                "delete_files": len(t.delete_files),
            }
        )
    return {
        "format": "iceberg",
        "warehouse": "thresholds",
        "version": tbl.current_snapshot().snapshot_id,
        "files": len(tasks),
        "bytes": sum(t.file.file_size_in_bytes for t in tasks),
        "rows_physical": physical,
        "rows_live": len(live_ids),
        "rows_deleted": physical - len(live_ids),
        "per_file": per_file,
    }


def copy_ice(tbl, name):
    dst = os.path.join(TH, "ice.db", name)
    shutil.copytree(tbl.location().removeprefix("file://"), dst)


# ice.counts: files per partition around rewrite_data_files' min-input-files
# 5; 2 + 4 + 5 = 11 fragments, one short of Amoro's minor trigger 12.
ICE_COUNTS = {"two": 2, "four": 4, "five": 5}


def make_ice_counts(tmp):
    cat = ice_catalog(tmp)
    tbl = ice_part_table(cat, "counts")
    id0 = 0
    # Append r writes one file in each partition that needs more than r.
    for r in range(max(ICE_COUNTS.values())):
        parts = []
        for part, n in ICE_COUNTS.items():
            if n > r:
                parts.append(ice_rows(part, id0, 10))
                id0 += 10
        ice_append(tbl, parts)
    tbl = cat.load_table("ice.counts")
    ref = iceberg_reference(tbl)
    files = {}
    for f in ref["per_file"]:
        files[f["partition"]] = files.get(f["partition"], 0) + 1
    ref["files_per_partition"] = files
    assert files == {f"part={k}": v for k, v in ICE_COUNTS.items()}, ref
    REF["ice.counts"] = ref
    copy_ice(tbl, "counts")


# write.target-file-size-bytes 4001: min = (long) (0.75 × 4001) = 3000, max =
# (long) (1.8 × 4001) = 7201 (both truncated, as Java's casts do: 3000.75,
# 7201.8). self-optimizing.target-size 24000: Amoro's fragments are < 3000.
# eq / gt: two small files of exactly the target and one byte more (a group
# of more than one file runs when its bytes exceed the target).
ICE_TARGET = 4001
AMORO_TARGET = 24000
ICE_SIZES = {"lo": [2999, 3000], "hi": [7201, 7202], "eq": [2000, 2001], "gt": [2000, 2002]}


def make_ice_sizes(tmp):
    from pyiceberg.io.pyarrow import _dataframe_to_data_files

    cat = ice_catalog(tmp)
    tbl = ice_part_table(cat, "sizes")
    scratch = ice_part_table(cat, "scratch")

    def size_of(data):
        files = list(_dataframe_to_data_files(table_metadata=scratch.metadata, df=data, io=scratch.io))
        assert len(files) == 1, files
        os.remove(files[0].file_path.removeprefix("file://"))
        return files[0].file_size_in_bytes

    id0 = 0
    # Append k writes the k-th file of each partition.
    for k in range(2):
        parts = []
        for part, sizes in ICE_SIZES.items():
            parts.append(hunt(sizes[k], size_of, lambda salt, n: padded("part", part, id0, salt, n)))
            id0 += 10
        ice_append(tbl, parts)
    with tbl.transaction() as tx:
        tx.set_properties(
            **{"write.target-file-size-bytes": str(ICE_TARGET), "self-optimizing.target-size": str(AMORO_TARGET)}
        )
    tbl = cat.load_table("ice.sizes")
    ref = iceberg_reference(tbl)
    sizes = {}
    for f in ref["per_file"]:
        sizes.setdefault(f["partition"], []).append(f["bytes"])
    ref["file_sizes"] = {k: sorted(v) for k, v in sorted(sizes.items())}
    assert ref["file_sizes"] == {f"part={k}": v for k, v in sorted(ICE_SIZES.items())}, ref
    ref["target_file_size"] = int(tbl.properties["write.target-file-size-bytes"])
    ref["amoro_target_size"] = int(tbl.properties["self-optimizing.target-size"])
    REF["ice.sizes"] = ref
    copy_ice(tbl, "sizes")


POS_SCHEMA = pa.schema(
    [
        pa.field("file_path", pa.string(), nullable=False, metadata={"PARQUET:field_id": "2147483546"}),
        pa.field("pos", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "2147483545"}),
    ]
)


def position_delete_file(tbl, data_file, positions, name):
    """A file-scoped position delete file (spec, "Position Delete Files"):
    sorted positions of one data file, file_path bounds equal, as Iceberg
    Java writes them; next to the data file."""
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat

    target = data_file.file_path
    p = os.path.join(os.path.dirname(target.removeprefix("file://")), name)
    pq.write_table(
        pa.table({"file_path": [target] * len(positions), "pos": sorted(positions)}, schema=POS_SCHEMA), p
    )
    df = DataFile.from_args(
        content=DataFileContent.POSITION_DELETES,
        file_path="file://" + p,
        file_format=FileFormat.PARQUET,
        partition=data_file.partition,
        record_count=len(positions),
        file_size_in_bytes=os.path.getsize(p),
        lower_bounds={2147483546: target.encode()},
        upper_bounds={2147483546: target.encode()},
    )
    df.spec_id = 0
    return df


def commit_position_deletes(tbl, deletes):
    """One DELETE snapshot adding a DELETES manifest with the delete files
    (pyiceberg writes the manifest, the manifest list and the metadata)."""
    from pyiceberg.manifest import ManifestContent, ManifestEntry, ManifestEntryStatus, ManifestWriterV2
    from pyiceberg.table.snapshots import Operation
    from pyiceberg.table.update.snapshot import _FastAppendFiles

    class DeletesWriter(ManifestWriterV2):
        def content(self):
            return ManifestContent.DELETES

        @property
        def _meta(self):
            return {**super()._meta, "content": "deletes"}

    class AddDeletes(_FastAppendFiles):
        def _manifests(self):
            with DeletesWriter(
                tbl.spec(), tbl.schema(), self.new_manifest_output(), self._snapshot_id, self._compression
            ) as w:
                for d in deletes:
                    w.add(
                        ManifestEntry.from_args(
                            status=ManifestEntryStatus.ADDED, snapshot_id=self._snapshot_id, data_file=d
                        )
                    )
            return [w.to_manifest_file()] + self._existing_manifests()

    with tbl.transaction() as tx:
        AddDeletes(operation=Operation.DELETE, transaction=tx, io=tbl.io).commit()


# ice.pos_ratio: one 100-row file per partition with a file-scoped position
# delete file: 30 % (rewrite_data_files' delete-ratio-threshold 0.3, >=),
# 29 %, 11 % and 10 % (Amoro's segment ratio 0.1, >).
ICE_POS_RATIO = {"del30": 30, "del29": 29, "del11": 11, "del10": 10}


def make_ice_pos_ratio(tmp):
    cat = ice_catalog(tmp)
    tbl = ice_part_table(cat, "pos_ratio")
    ice_append(tbl, [ice_rows(part, 100 * i, 100) for i, part in enumerate(ICE_POS_RATIO)])
    tbl = cat.load_table("ice.pos_ratio")
    deletes = []
    for t in tbl.scan().plan_files():
        k = ICE_POS_RATIO[t.file.partition[0]]
        # Every third row from 1, as many as the partition says.
        deletes.append(position_delete_file(tbl, t.file, [1 + 3 * i for i in range(k)], f"pos-del-{k}.parquet"))
    commit_position_deletes(tbl, deletes)
    tbl = cat.load_table("ice.pos_ratio")
    ref = iceberg_reference(tbl)
    ref["pos_delete_files"] = len(deletes)
    for f in ref["per_file"]:
        assert f["deleted"] == ICE_POS_RATIO[f["partition"].split("=")[1]], ref
    REF["ice.pos_ratio"] = ref
    copy_ice(tbl, "pos_ratio")


# ice.dvs: Iceberg v3 with deletion vectors, see make_ice_dvs.
PUFFIN_MAGIC = b"PFA1"
ROW_POSITION_FIELD_ID = 2147483545


def puffin_dvs(dvs):
    """A Puffin file (puffin-spec.md) holding one deletion-vector-v1 blob per
    (referenced data file, positions): the blob is the big-endian length of
    magic + vector, the magic D1 D3 39 64, the portable 64-bit Roaring
    vector (run-length encoded first, as Iceberg Java's
    BitmapPositionDeleteIndex.serialize does) and a big-endian CRC-32 of
    magic + vector. Footer: magic, JSON FileMetadata, its length (4 bytes,
    little-endian), flags 0 (not compressed), magic. Returns the bytes and
    per blob (offset, length, cardinality)."""
    out = PUFFIN_MAGIC
    blobs = []
    where = []
    for ref, positions in dvs:
        blob = framed(MAGIC + portable64(positions, runs=True))
        blobs.append(
            {
                "type": "deletion-vector-v1",
                "fields": [ROW_POSITION_FIELD_ID],
                # Not known when the file is written: -1 (puffin-spec.md).
                "snapshot-id": -1,
                "sequence-number": -1,
                "offset": len(out),
                "length": len(blob),
                "properties": {"referenced-data-file": ref, "cardinality": str(len(set(positions)))},
            }
        )
        where.append((len(out), len(blob), len(set(positions))))
        out += blob
    payload = json.dumps(
        {"blobs": blobs, "properties": {"created-by": "lakeaudit scripts/make_table_fixtures.py"}},
        separators=(",", ":"),
    ).encode()
    out += PUFFIN_MAGIC + payload + struct.pack("<i", len(payload)) + b"\x00\x00\x00\x00" + PUFFIN_MAGIC
    return out, where


def write_manifest_v3(tbl, path, snapshot_id, content, entries):
    """A v3 manifest (format-version 3 schemas, so referenced_data_file,
    content_offset, content_size_in_bytes and first_row_id are written),
    through pyiceberg's own manifest writer."""
    from pyiceberg.avro.file import AvroOutputFile
    from pyiceberg.manifest import ManifestContent, ManifestWriter

    class V3Writer(ManifestWriter):
        def content(self):
            return content

        @property
        def version(self):
            return 3

        @property
        def _meta(self):
            return {**super()._meta, "content": "deletes" if content == ManifestContent.DELETES else "data"}

        def new_writer(self):
            return AvroOutputFile(
                output_file=self._output_file,
                file_schema=self._with_partition(3),
                record_schema=self._with_partition(3),
                schema_name="manifest_entry",
                metadata=self._meta,
            )

        def prepare_entry(self, entry):
            return entry

    with V3Writer(tbl.spec(), tbl.schema(), tbl.io.new_output(path), snapshot_id, "deflate") as w:
        for e in entries:
            w.add_entry(e)
    return w.to_manifest_file()


def v3_list_entry(mf, seq, first_row_id):
    from pyiceberg.manifest import ManifestFile

    names = [
        "manifest_path",
        "manifest_length",
        "partition_spec_id",
        "content",
        "sequence_number",
        "min_sequence_number",
        "added_snapshot_id",
        "added_files_count",
        "existing_files_count",
        "deleted_files_count",
        "added_rows_count",
        "existing_rows_count",
        "deleted_rows_count",
        "partitions",
        "key_metadata",
    ]
    args = {n: getattr(mf, n) for n in names}
    # A manifest new in this snapshot inherits its sequence number.
    if args["sequence_number"] == -1:
        args["sequence_number"] = seq
    if args["min_sequence_number"] == -1:
        args["min_sequence_number"] = seq
    return ManifestFile.from_args(_table_format_version=3, first_row_id=first_row_id, **args)


def write_manifest_list_v3(tbl, path, snapshot_id, parent_id, seq, first_row_id, manifests):
    """The v3 manifest list (Iceberg Java's ManifestListWriter.V3Writer):
    data manifests without a first_row_id are assigned one, from the
    snapshot's first-row-id up by each one's added + existing rows; delete
    manifests get none. Returns the rows assigned (the snapshot's
    added-rows)."""
    from pyiceberg.avro.file import AvroOutputFile
    from pyiceberg.manifest import MANIFEST_LIST_FILE_SCHEMAS, ManifestContent

    next_id = first_row_id
    entries = []
    for mf in manifests:
        if mf.content == ManifestContent.DATA:
            entries.append(v3_list_entry(mf, seq, next_id))
            next_id += mf.added_rows_count + mf.existing_rows_count
        else:
            entries.append(v3_list_entry(mf, seq, None))
    meta = {
        "snapshot-id": str(snapshot_id),
        "parent-snapshot-id": str(parent_id),
        "sequence-number": str(seq),
        "first-row-id": str(first_row_id),
        "format-version": "3",
        "avro.codec": "deflate",
    }
    with AvroOutputFile(
        output_file=tbl.io.new_output(path),
        file_schema=MANIFEST_LIST_FILE_SCHEMAS[3],
        record_schema=MANIFEST_LIST_FILE_SCHEMAS[3],
        schema_name="manifest_file",
        metadata=meta,
    ) as w:
        w.write_block(entries)
    return next_id - first_row_id


# ice.dvs, by data file: (region, rows, positions deleted by a v2 position
# delete file, positions of its v3 DV). The DV of a file with older
# file-scoped position deletes holds those positions too (the spec: a DV
# "must contain all deletes from existing position delete files").
ICE_DVS = [
    # 30 of 100: rewrite_data_files' delete-ratio-threshold exactly. 10 rows
    # were deleted in v2 (positions 0-9); the DV adds 20-39.
    ("eu", 100, list(range(10)), list(range(10)) + list(range(20, 40))),
    # 29 of 100: just under.
    ("us", 100, None, [2 * i for i in range(29)]),
    # A v2 position delete file kept in the v3 table (5 of 100).
    ("apac", 100, [3, 50, 97, 98, 99], None),
    # No deletes, in the partition of the first.
    ("eu", 100, None, None),
]


def make_ice_dvs(tmp):
    """Iceberg v3 with deletion vectors. pyiceberg 0.12 reads v3 tables and
    DVs but writes neither (its v3 metadata, manifest and manifest list
    writers raise), so: pyiceberg writes a v2 table (two appends, then two
    DELETE snapshots with file-scoped position delete files); then, as the
    spec says, the table is upgraded (a metadata file with format-version 3
    and next-row-id 0) and one v3 DELETE snapshot adds a Puffin file with two
    DVs. That snapshot's manifests are written with pyiceberg's manifest
    writer on the v3 schemas: a DELETES manifest with the two DVs
    (referenced_data_file, content_offset, content_size_in_bytes), one
    marking the position delete file the first DV replaces DELETED (Java
    drops file-scoped deletes a DV replaces), the other v2 delete manifest
    carried over as is; the manifest list assigns first_row_id to the data
    manifests. pyiceberg reads the result back."""
    from pyiceberg.manifest import (
        DataFile,
        DataFileContent,
        FileFormat,
        ManifestContent,
        ManifestEntry,
        ManifestEntryStatus,
    )
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.table import StaticTable
    from pyiceberg.table.deletion_vector import deletion_vectors_from_puffin_file
    from pyiceberg.table.puffin import PuffinFile
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType

    cat = ice_catalog(tmp)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "region", StringType(), required=False),
        NestedField(3, "amount", DoubleType(), required=False),
    )
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="region"))
    tbl = cat.create_table("ice.dvs", schema=schema, partition_spec=spec, properties=ice_properties())
    arrow_schema = pa.schema([("id", pa.int64()), ("region", pa.string()), ("amount", pa.float64())])

    def rows(i):
        region, n, _, _ = ICE_DVS[i]
        return pa.table(
            {
                "id": pa.array(range(100 * i, 100 * i + n), pa.int64()),
                "region": pa.array([region] * n),
                "amount": pa.array([float(j) for j in range(n)], pa.float64()),
            },
            schema=arrow_schema,
        )

    # One append of the first three (one file per region), one of the
    # fourth (a second eu file).
    ice_append(tbl, [rows(0), rows(1), rows(2)])
    ice_append(tbl, [rows(3)])
    tbl = cat.load_table("ice.dvs")
    by_first_id = {min(ice_file_ids(t.file)): t.file for t in tbl.scan().plan_files()}
    files = [by_first_id[100 * i] for i in range(len(ICE_DVS))]
    # v2: one DELETE snapshot per position delete file.
    v2_deletes = {}
    for i, (_, _, pos, _) in enumerate(ICE_DVS):
        if pos:
            d = position_delete_file(tbl, files[i], pos, f"pos-del-{i}.parquet")
            commit_position_deletes(tbl, [d])
            v2_deletes[i] = d
            tbl = cat.load_table("ice.dvs")
    assert tbl.scan().to_arrow().num_rows == sum(n for _, n, _, _ in ICE_DVS) - 15

    loc = tbl.location()
    meta_dir = os.path.join(loc.removeprefix("file://"), "metadata")
    prev_path = tbl.metadata_location
    with open(prev_path.removeprefix("file://")) as f:
        md = json.load(f)
    index = int(os.path.basename(prev_path).split("-")[0])
    now = md["last-updated-ms"]

    def write_metadata(m, index):
        name = f"{index:05d}-{uuid.uuid4()}.metadata.json"
        with open(os.path.join(meta_dir, name), "x") as f:
            json.dump(m, f, indent=2)
        return f"{loc}/metadata/{name}"

    # 1. The upgrade: format-version 3, next-row-id 0 (spec, "Row Lineage
    # for Upgraded Tables"); existing snapshots are not modified.
    up = dict(md)
    up["format-version"] = 3
    up["next-row-id"] = 0
    up["last-updated-ms"] = now + 1
    up["metadata-log"] = md.get("metadata-log", []) + [{"timestamp-ms": now, "metadata-file": prev_path}]
    up_path = write_metadata(up, index + 1)

    # 2. The v3 DELETE snapshot.
    rnd = random.Random(7)
    snap_id = rnd.getrandbits(62)
    parent = md["current-snapshot-id"]
    seq = md["last-sequence-number"] + 1
    dv_entries = [(i, dv) for i, (_, _, _, dv) in enumerate(ICE_DVS) if dv]
    puffin, where = puffin_dvs([(files[i].file_path, dv) for i, dv in dv_entries])
    puffin_path = f"{loc}/data/{uuid.uuid4()}-deletes.puffin"
    with open(puffin_path.removeprefix("file://"), "wb") as f:
        f.write(puffin)
    dv_files = []
    for (i, dv), (off, length, card) in zip(dv_entries, where):
        df = DataFile.from_args(
            _table_format_version=3,
            content=DataFileContent.POSITION_DELETES,
            file_path=puffin_path,
            file_format=FileFormat.PUFFIN,
            partition=files[i].partition,
            record_count=card,
            file_size_in_bytes=len(puffin),
            referenced_data_file=files[i].file_path,
            content_offset=off,
            content_size_in_bytes=length,
        )
        df.spec_id = 0
        dv_files.append(df)
    current = tbl.current_snapshot().manifests(tbl.io)
    # The v2 delete manifest holding the position deletes the DV replaces,
    # and their data sequence number.
    replaced = v2_deletes[0].file_path
    old_manifest, old_seq = None, None
    for mf in current:
        if mf.content == ManifestContent.DELETES:
            for e in mf.fetch_manifest_entry(tbl.io):
                if e.data_file.file_path == replaced:
                    old_manifest, old_seq = mf, e.sequence_number
    assert old_manifest is not None
    dvs_manifest = write_manifest_v3(
        tbl,
        f"{loc}/metadata/{uuid.uuid4()}-m0.avro",
        snap_id,
        ManifestContent.DELETES,
        [
            ManifestEntry.from_args(
                _table_format_version=3, status=ManifestEntryStatus.ADDED, snapshot_id=snap_id, data_file=d
            )
            for d in dv_files
        ],
    )
    old = v2_deletes[0]
    removed = DataFile.from_args(
        _table_format_version=3,
        content=old.content,
        file_path=old.file_path,
        file_format=old.file_format,
        partition=old.partition,
        record_count=old.record_count,
        file_size_in_bytes=old.file_size_in_bytes,
        lower_bounds=old.lower_bounds,
        upper_bounds=old.upper_bounds,
    )
    removed.spec_id = 0
    removal_manifest = write_manifest_v3(
        tbl,
        f"{loc}/metadata/{uuid.uuid4()}-m1.avro",
        snap_id,
        ManifestContent.DELETES,
        [
            ManifestEntry.from_args(
                _table_format_version=3,
                status=ManifestEntryStatus.DELETED,
                snapshot_id=snap_id,
                sequence_number=old_seq,
                file_sequence_number=old_seq,
                data_file=removed,
            )
        ],
    )
    manifests = (
        [mf for mf in current if mf.content == ManifestContent.DATA]
        + [dvs_manifest, removal_manifest]
        + [mf for mf in current if mf.content == ManifestContent.DELETES and mf is not old_manifest]
    )
    list_path = f"{loc}/metadata/snap-{snap_id}-0-{uuid.uuid4()}.avro"
    first_row_id = up["next-row-id"]
    added_rows = write_manifest_list_v3(tbl, list_path, snap_id, parent, seq, first_row_id, manifests)
    dv_rows = sum(card for _, _, card in where)
    total_pos = dv_rows + sum(len(p) for i, (_, _, p, _) in enumerate(ICE_DVS) if p and i != 0)
    snap = {
        "snapshot-id": snap_id,
        "parent-snapshot-id": parent,
        "sequence-number": seq,
        "timestamp-ms": now + 2,
        "manifest-list": list_path,
        "summary": {
            "operation": "delete",
            "added-dvs": str(len(dv_files)),
            "added-delete-files": str(len(dv_files)),
            "added-position-deletes": str(dv_rows),
            "removed-position-delete-files": "1",
            "removed-delete-files": "1",
            "removed-position-deletes": str(old.record_count),
            "changed-partition-count": str(len({str(d.partition) for d in dv_files})),
            "total-data-files": str(len(files)),
            "total-delete-files": str(len(dv_files) + len(v2_deletes) - 1),
            "total-records": str(sum(n for _, n, _, _ in ICE_DVS)),
            "total-position-deletes": str(total_pos),
            "total-equality-deletes": "0",
        },
        "schema-id": md["current-schema-id"],
        "first-row-id": first_row_id,
        "added-rows": added_rows,
    }
    v3 = dict(up)
    v3["last-updated-ms"] = now + 2
    v3["last-sequence-number"] = seq
    v3["next-row-id"] = first_row_id + added_rows
    v3["snapshots"] = up["snapshots"] + [snap]
    v3["current-snapshot-id"] = snap_id
    v3["refs"] = {"main": {"snapshot-id": snap_id, "type": "branch"}}
    v3["snapshot-log"] = up.get("snapshot-log", []) + [{"timestamp-ms": now + 2, "snapshot-id": snap_id}]
    v3["metadata-log"] = up["metadata-log"] + [{"timestamp-ms": now + 1, "metadata-file": up_path}]
    v3_path = write_metadata(v3, index + 2)

    # pyiceberg reads the v3 table back: its scan applies the DVs (it reads
    # the Puffin file, keys each blob by its referenced-data-file) and the
    # position delete file still live.
    t = StaticTable.from_metadata(v3_path)
    assert t.format_version == 3, t.format_version
    ref = iceberg_reference(t)
    ref["format_version"] = 3
    ref["next_row_id"] = t.metadata.next_row_id
    ref["pos_delete_files"] = len(v2_deletes) - 1
    ref["deletion_vectors"] = len(dv_files)
    ref["dv_bytes"] = sum(length for _, length, _ in where)
    # Its Puffin reader decodes each blob to the positions written.
    with open(puffin_path.removeprefix("file://"), "rb") as f:
        decoded = {
            dv.referenced_data_file: dv.to_vector().to_pylist() for dv in deletion_vectors_from_puffin_file(PuffinFile(f.read()))
        }
    for i, dv in dv_entries:
        assert decoded[files[i].file_path] == sorted(dv), (i, decoded)
    ref["dv_cardinalities"] = sorted(len(v) for v in decoded.values())
    ref["dv_offsets"] = [off for off, _, _ in where]
    for f in ref["per_file"]:
        _, _, pos, dv = ICE_DVS[f["first_id"] // 100]
        assert f["deleted"] == len(dv or pos or []), ref
    REF["ice.dvs"] = ref
    copy_ice(t, "dvs")


# ---------------------------------------------------------------------------
# Checkpoint tables (OUT_DIR/checkpoints/): classic checkpoints whose `add`
# struct holds typed columns. With delta.checkpoint.writeStatsAsStruct
# delta-rs (delta-kernel's checkpoint writer) adds `stats_parsed` (min/max
# in the table's own types) and `partitionValues_parsed` to each `add`; with
# delta.checkpoint.writeStatsAsJson=false it leaves the `stats` JSON out.
# ---------------------------------------------------------------------------

CK_DAYS = ["2024-03-01", "2024-03-02", "2024-03-03"]


def typed_rows(day, start, n):
    """A date partition column, a UTC timestamp, a decimal and a date
    column: their min/max in stats_parsed keep those types."""
    d = datetime.date.fromisoformat(day)
    t0 = datetime.datetime(2024, 3, 1, tzinfo=datetime.timezone.utc)
    ids = range(start, start + n)
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "day": pa.array([d] * n, pa.date32()),
            "ts": pa.array([t0 + datetime.timedelta(minutes=7 * i) for i in ids], pa.timestamp("us", tz="UTC")),
            "amount": pa.array([decimal.Decimal(i * 37 % 10000) / 100 for i in ids], pa.decimal128(10, 2)),
            "shipped": pa.array([d + datetime.timedelta(days=i % 5) for i in ids], pa.date32()),
            "note": pa.array([f"order {i}" for i in ids], pa.string()),
        }
    )


def checkpoint_add_type(path, version):
    return pq.read_schema(os.path.join(path, "_delta_log", f"{version:020}.checkpoint.parquet")).field("add").type


def make_typed_checkpoint(name, configuration, n):
    """Three days x three one-file appends of n rows (versions 0-8),
    optimize.compact() of the first day (9: its three files removed, one
    added), a checkpoint at 9 (7 add and 3 remove rows), then one append on
    each other day (10, 11). The checkpoint's add.partitionValues_parsed.day
    is a date, its stats_parsed min/max hold a timestamp, a decimal and a
    date: checked here with pyarrow."""
    path = os.path.join(CK, name)
    start = 0
    for _ in range(3):
        for d in CK_DAYS:
            write_deltalake(
                path,
                typed_rows(d, start, n),
                partition_by=["day"],
                mode="append",
                configuration=configuration if start == 0 else None,
            )
            start += n
    dt = DeltaTable(path)
    dt.optimize.compact(partition_filters=[("day", "=", CK_DAYS[0])])
    dt = DeltaTable(path)
    dt.create_checkpoint()
    checkpoint = dt.version()
    for d in CK_DAYS[1:]:
        write_deltalake(path, typed_rows(d, start, n), partition_by=["day"], mode="append")
        start += n
    add = checkpoint_add_type(path, checkpoint)
    cp = pq.read_table(os.path.join(path, "_delta_log", f"{checkpoint:020}.checkpoint.parquet"), columns=["add", "remove"])
    assert [len(cp) - cp.column(c).null_count for c in ("add", "remove")] == [7, 3], cp
    assert add.field("partitionValues_parsed").type == pa.struct([("day", pa.date32())]), add
    stats = add.field("stats_parsed").type
    for bound in ("minValues", "maxValues"):
        b = stats.field(bound).type
        assert b.field("ts").type == pa.timestamp("us", tz="UTC"), b
        assert b.field("amount").type == pa.decimal128(10, 2), b
        assert b.field("shipped").type == pa.date32(), b
    json_stats = configuration.get("delta.checkpoint.writeStatsAsJson", "true") == "true"
    assert (add.get_field_index("stats") >= 0) == json_stats, add
    with open(os.path.join(path, "_delta_log", "_last_checkpoint")) as f:
        assert json.load(f)["version"] == checkpoint
    ref = delta_reference(path)
    ref["warehouse"] = "checkpoints"
    ref["checkpoint_version"] = checkpoint
    ref["partition_columns"] = ["day"]
    ref["file_sizes"] = delta_sizes(path, "day")
    assert {k: len(v) for k, v in ref["file_sizes"].items()} == {f"day={d}": 1 if d == CK_DAYS[0] else 4 for d in CK_DAYS}, ref
    ref["checkpoint_add_columns"] = [f.name for f in add]
    REF[name] = ref


def make_typed_stats():
    make_typed_checkpoint("typed_stats", {"delta.checkpoint.writeStatsAsStruct": "true"}, 40)


def make_struct_stats_only():
    make_typed_checkpoint(
        "struct_stats_only",
        {"delta.checkpoint.writeStatsAsStruct": "true", "delta.checkpoint.writeStatsAsJson": "false"},
        30,
    )


def in_tmp(build):
    def run():
        with tempfile.TemporaryDirectory() as tmp:
            build(tmp)

    return run


# name in reference.json: (directory under OUT_DIR, builder).
TABLES = {
    "sales": ("warehouse/sales", make_sales),
    "orders_dv": ("warehouse/orders_dv", make_orders_dv),
    "customers": ("warehouse/customers", make_customers),
    "ice.events": ("warehouse/ice.db/events", in_tmp(make_iceberg)),
    "delta_target": ("thresholds/delta_target", make_delta_target),
    "fabric_files": ("thresholds/fabric_files", make_fabric_files),
    "delta_dv_ratio": ("thresholds/delta_dv_ratio", make_delta_dv_ratio),
    "ice.counts": ("thresholds/ice.db/counts", in_tmp(make_ice_counts)),
    "ice.sizes": ("thresholds/ice.db/sizes", in_tmp(make_ice_sizes)),
    "ice.pos_ratio": ("thresholds/ice.db/pos_ratio", in_tmp(make_ice_pos_ratio)),
    "ice.dvs": ("thresholds/ice.db/dvs", in_tmp(make_ice_dvs)),
    "typed_stats": ("checkpoints/typed_stats", make_typed_stats),
    "struct_stats_only": ("checkpoints/struct_stats_only", make_struct_stats_only),
}


def main():
    global OUT, WH, TH, CK
    ap = argparse.ArgumentParser(description="Write the table fixtures and reference.json.")
    ap.add_argument("out", help="output directory (tests/data/tables)")
    ap.add_argument(
        "--only",
        action="append",
        choices=sorted(TABLES),
        help="rebuild only this table (repeatable); the others and their reference.json entries stay as they are",
    )
    args = ap.parse_args()
    OUT = os.path.abspath(args.out)
    WH = os.path.join(OUT, "warehouse")
    TH = os.path.join(OUT, "thresholds")
    CK = os.path.join(OUT, "checkpoints")
    ref_path = os.path.join(OUT, "reference.json")
    if args.only:
        with open(ref_path) as f:
            REF.update(json.load(f))
        names = sorted(set(args.only))
        for n in names:
            shutil.rmtree(os.path.join(OUT, TABLES[n][0]), ignore_errors=True)
    else:
        if os.path.exists(OUT):
            shutil.rmtree(OUT)
        names = list(TABLES)
    os.makedirs(WH, exist_ok=True)
    os.makedirs(os.path.join(TH, "ice.db"), exist_ok=True)
    os.makedirs(CK, exist_ok=True)
    for n in names:
        TABLES[n][1]()
    with open(ref_path, "w") as f:
        json.dump(REF, f, indent=2, sort_keys=True)
        f.write("\n")
    print(json.dumps({n: REF[n] for n in names}, indent=2, sort_keys=True))


main()
