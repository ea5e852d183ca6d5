#!/usr/bin/env python3
"""Replicate a records directory into a larger, still schema-true one.

Reads every Parquet file under SRC/records (as `spark/make_synthetic_records.py`
writes it) and writes COPIES copies of them under OUT/records/copy=K/, each
copy as --files files (the rows in the source files' order): copy K
renames every application (`<app_id>-r<K>`, and its `log` likewise) and shifts
its start and end times by K * SHIFT days, so the copies are new applications
later in time. Every other column is written as it was. For sizing the reduce
past what the Spark generator makes in reasonable time (10 million records
from a 300,000-record set: --copies 34).

    python scripts/replicate_records.py --from target/bench/r300k --copies 34 \\
        --out target/bench/r10m
"""

import argparse
import os

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="src", required=True, help="records directory (has records/)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--copies", type=int, required=True)
    ap.add_argument("--shift-days", type=int, default=1000)
    ap.add_argument("--files", type=int, default=8, help="files per copy")
    a = ap.parse_args(argv)
    src = os.path.join(a.src, "records")
    files = sorted(
        os.path.join(d, f)
        for d, _, fs in os.walk(src)
        for f in fs
        if f.endswith(".parquet") and not f.startswith((".", "_"))
    )
    day = 86_400_000
    # The hive `date=` directory is not a column of the records.
    real = pa.concat_tables(pq.read_table(f, partitioning=None) for f in files)
    per_file = -(-real.num_rows // a.files)
    n = 0
    for k in range(a.copies):
        out = os.path.join(a.out, "records", f"copy={k:03d}")
        os.makedirs(out, exist_ok=True)
        t = real
        suffix = pa.scalar(f"-r{k}")
        shift = pa.scalar(k * a.shift_days * day, pa.int64())
        for c, v in (
            ("app_id", pc.binary_join_element_wise(t["app_id"], suffix, "")),
            ("log", pc.binary_join_element_wise(t["log"], suffix, "")),
            ("start_ms", pc.add(t["start_ms"], shift)),
            ("end_ms", pc.add(t["end_ms"], shift)),
        ):
            t = t.set_column(t.schema.get_field_index(c), c, v)
        for i in range(a.files):
            part = t.slice(i * per_file, per_file)
            pq.write_table(part, os.path.join(out, f"part-{i:05d}.parquet"), compression="snappy")
            n += part.num_rows
    print(f"replicate_records: {n} records in {a.copies} copies of {len(files)} files")


if __name__ == "__main__":
    main()
