"""A large Delta table for `make bench-tables`, written by the real writer
(deltalake): COMMITS appends of one row into each of PARTS partitions (so
COMMITS x PARTS small files), a checkpoint, then TAIL more appends after it.

    python scripts/make_bench_table.py OUT_DIR [COMMITS PARTS TAIL]

Defaults: 100 x 1000 + 10 x 1000 = 110,000 files.
"""

import os
import shutil
import sys
import time

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake

out = sys.argv[1]
commits = int(sys.argv[2]) if len(sys.argv) > 2 else 100
parts = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
tail = int(sys.argv[4]) if len(sys.argv) > 4 else 10

if os.path.exists(out):
    shutil.rmtree(out)
start = time.time()


def append(i):
    t = pa.table(
        {
            "id": pa.array(range(i * parts, (i + 1) * parts), pa.int64()),
            "part": pa.array([p for p in range(parts)], pa.int32()),
            "v": pa.array([float(p) for p in range(parts)], pa.float64()),
        }
    )
    write_deltalake(out, t, partition_by=["part"], mode="append")


for i in range(commits):
    append(i)
DeltaTable(out).create_checkpoint()
for i in range(commits, commits + tail):
    append(i)
dt = DeltaTable(out)
print(f"version {dt.version()}, {len(dt.file_uris())} files, {time.time() - start:.0f}s", flush=True)
