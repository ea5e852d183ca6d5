"""Delta deletion vectors written next to real data files, following the
Delta protocol (PROTOCOL.md, "Deletion Vectors" and "Deletion Vector
Format"), for the scripts that build table fixtures. deltalake (delta-rs)
reads such tables with the DVs applied but cannot write DVs itself.

- A DV is the 64-bit portable Roaring layout (RoaringFormatSpec) behind the
  magic number 1681511377 (little-endian).
- In a DV file (storage type `u`) the file starts with a version byte 1;
  each DV is its size (4 bytes, big-endian), the DV, then the CRC-32 of the
  DV (4 bytes, big-endian). The descriptor's `offset` points at the size.
- An inline DV (storage type `i`) is the DV itself, Z85-encoded (padded to
  4 bytes; `sizeInBytes` is the unpadded size).
- The commit that adds DVs removes each file and adds it again with its
  `deletionVector` descriptor, and upgrades the protocol to reader 3 /
  writer 7 with the `deletionVectors` feature.

Needs pyroaring.
"""

import json
import os
import struct
import uuid
import zlib

from pyroaring import BitMap

Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
MAGIC = struct.pack("<I", 1681511377)


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


def portable64(positions, runs=False) -> bytes:
    """RoaringFormatSpec 64-bit portable layout: bucket count, then per
    bucket the high 32 bits and a 32-bit portable Roaring bitmap (with run
    containers where they are smaller when runs is set)."""
    buckets = {}
    for p in positions:
        buckets.setdefault(p >> 32, []).append(p & 0xFFFFFFFF)
    out = struct.pack("<Q", len(buckets))
    for key in sorted(buckets):
        bm = BitMap(buckets[key])
        if runs:
            bm.run_optimize()
        out += struct.pack("<I", key) + bm.serialize()
    return out


def dv_body(positions) -> bytes:
    return MAGIC + portable64(positions)


def framed(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def log_lines(path, version):
    with open(os.path.join(path, "_delta_log", f"{version:020}.json")) as f:
        return [json.loads(line) for line in f if line.strip()]


def commit(path, version, actions):
    with open(os.path.join(path, "_delta_log", f"{version:020}.json"), "x") as f:
        for a in actions:
            f.write(json.dumps(a, separators=(",", ":")) + "\n")


def file_dvs(path, deletes):
    """Write one DV file (storage type `u`) at the table root holding a DV
    per data file; `deletes` maps a data file path to its deleted row
    positions. Returns the descriptors, by data file path."""
    u = uuid.uuid4()
    out = b"\x01"
    descriptors = {}
    for data_file, positions in deletes.items():
        body = dv_body(positions)
        descriptors[data_file] = {
            "storageType": "u",
            "pathOrInlineDv": z85(u.bytes),
            "offset": len(out),
            "sizeInBytes": len(body),
            "cardinality": len(set(positions)),
        }
        out += framed(body)
    with open(os.path.join(path, f"deletion_vector_{u}.bin"), "wb") as f:
        f.write(out)
    return descriptors


def inline_dv(positions):
    """An inline DV descriptor (storage type `i`)."""
    body = dv_body(positions)
    return {
        "storageType": "i",
        "pathOrInlineDv": z85(body + b"\x00" * (-len(body) % 4)),
        "sizeInBytes": len(body),
        "cardinality": len(set(positions)),
    }


def live_adds(path, version):
    """The add actions live at `version`, replayed from the JSON commits
    (the tables these scripts write have no DVs before this commit)."""
    live = {}
    for v in range(version + 1):
        for a in log_lines(path, v):
            if "add" in a:
                live[a["add"]["path"]] = a["add"]
            elif "remove" in a:
                live.pop(a["remove"]["path"], None)
    return live


def commit_dvs(path, version, descriptors, timestamp, predicate):
    """Commit `version`: every data file in `descriptors` is removed and
    added again with its DV; the protocol gains `deletionVectors`."""
    adds = live_adds(path, version - 1)
    meta = None
    for v in range(version):
        for a in log_lines(path, v):
            if "metaData" in a:
                meta = dict(a["metaData"])
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
    deleted = 0
    for data_file in sorted(descriptors):
        add = adds[data_file]
        dv = descriptors[data_file]
        deleted += dv["cardinality"]
        actions.append(
            {
                "remove": {
                    "path": add["path"],
                    "deletionTimestamp": timestamp,
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
    actions.append(
        {
            "commitInfo": {
                "operation": "DELETE",
                "operationParameters": {"predicate": json.dumps([predicate])},
                "operationMetrics": {"numDeletedRows": str(deleted), "numDeletionVectorsAdded": str(len(descriptors))},
                "timestamp": timestamp,
            }
        }
    )
    commit(path, version, actions)
