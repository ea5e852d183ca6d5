"""Write the table fixtures with real writers and record what the reference
readers report for them.

    python scripts/make_table_fixtures.py OUT_DIR
    (with the interpreter of a venv holding: deltalake pyarrow
     "pyiceberg[sql-sqlite,pyarrow]")

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
OUT_DIR/reference.json: per table, files, bytes, rows (physical), live rows,
deleted rows, delete files and DV cardinalities as delta-rs / pyiceberg
report them. The tests compare `lakeaudit tables` with these numbers.
"""

import json
import os
import shutil
import struct
import sys
import tempfile
import uuid
import zlib

import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import DeltaTable, QueryBuilder, write_deltalake
from pyroaring import BitMap

OUT = os.path.abspath(sys.argv[1])
WH = os.path.join(OUT, "warehouse")
REF = {}

Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


def z85(data: bytes) -> str:
    assert len(data) % 4 == 0
    out = []
    for i in range(0, len(data), 4):
        v = struct.unpack(">I", data[i : i + 4])[0]
        chunk = []
        for _ in range(5):
            chunk.append(Z85[v % 85])
            v //= 85
        out.append("".join(reversed(chunk)))
    return "".join(out)


def portable64(positions) -> bytes:
    """RoaringFormatSpec 64-bit portable layout: bucket count, then per
    bucket the high 32 bits and a 32-bit portable Roaring bitmap."""
    buckets = {}
    for p in positions:
        buckets.setdefault(p >> 32, []).append(p & 0xFFFFFFFF)
    out = struct.pack("<Q", len(buckets))
    for key in sorted(buckets):
        out += struct.pack("<I", key) + BitMap(buckets[key]).serialize()
    return out


MAGIC = struct.pack("<I", 1681511377)


def dv_body(positions) -> bytes:
    return MAGIC + portable64(positions)


def framed(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def log_lines(path, version):
    with open(os.path.join(path, "_delta_log", f"{version:020}.json")) as f:
        return [json.loads(l) for l in f if l.strip()]


def commit(path, version, actions):
    with open(os.path.join(path, "_delta_log", f"{version:020}.json"), "x") as f:
        for a in actions:
            f.write(json.dumps(a, separators=(",", ":")) + "\n")


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


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(WH)
    make_sales()
    make_orders_dv()
    make_customers()
    with tempfile.TemporaryDirectory() as tmp:
        make_iceberg(tmp)
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(REF, f, indent=2, sort_keys=True)
        f.write("\n")
    print(json.dumps(REF, indent=2, sort_keys=True))


main()
