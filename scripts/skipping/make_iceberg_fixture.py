#!/usr/bin/env python3
"""The Iceberg part of the file-skipping fixture: TPC-H `orders` as an
Iceberg table in o_orderdate order, and the files pyiceberg plans for a set
of predicates.

pyiceberg (SqlCatalog on SQLite, in --scratch, wiped first) creates
`tpch.orders` (format v2, every column optional, `write.target-file-size-bytes`
= --target-file-size) and writes the rows of --orders (tpchgen-cli's
orders.parquet, string_view read as string, field metadata dropped) sorted
by o_orderdate (stable: ties keep tpchgen-cli's o_orderkey order) in ONE
append. pyiceberg cuts an Arrow table into files of about that many
in-memory bytes, in row order, so the files hold consecutive date ranges.
Checked after writing: at least --min-files data files, every file has
lower/upper bounds, value and null counts for every column, and the files'
[min, max] of o_orderdate do not overlap (a shared boundary day is fine).

The table directory (metadata/ and data/) is then copied to --out. Its
metadata names the files by their absolute location in --scratch, as
pyiceberg writes them; a reader maps the table's declared `location` onto
--out.

For each predicate of PREDICATES, `table.scan(row_filter=...).plan_files()`
(pyiceberg prunes an unpartitioned table's files on the manifest entries'
lower/upper bounds and null counts) gives the planned files. --expected
gets a JSON list, one object per predicate:

  predicate_spark   the predicate as Spark prints a V1 pushed filter
  pyiceberg_filter  the pyiceberg expression passed as row_filter (Python)
  files_total       data files in the snapshot
  files_planned     files plan_files() kept
  planned_files     their paths relative to the table directory, in
                    o_orderdate order
  files_with_rows   files holding at least one matching row (each data file
                    read with pyarrow and filtered)
  rows_matching     matching rows in the table

and the script fails if a file pyiceberg pruned holds a matching row.

Usage:
    make_iceberg_fixture.py --orders RAW/orders.parquet --scratch DIR
        --out TABLE_DIR --expected FILE.json [--target-file-size 131072]
        [--min-files 4]
"""

import argparse
import json
import os
import shutil
import sys
from decimal import Decimal  # noqa: F401  (used by the predicate texts)

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# (Spark V1 pushed filter text, pyiceberg expression source)
PREDICATES = [
    ("GreaterThanOrEqual(o_orderdate,1995-01-01)", 'GreaterThanOrEqual("o_orderdate", "1995-01-01")'),
    ("LessThan(o_orderdate,1993-01-01)", 'LessThan("o_orderdate", "1993-01-01")'),
    ("EqualTo(o_orderdate,1996-06-15)", 'EqualTo("o_orderdate", "1996-06-15")'),
    ("And(GreaterThanOrEqual(o_orderdate,1995-01-01),LessThan(o_orderdate,1996-01-01))",
     'And(GreaterThanOrEqual("o_orderdate", "1995-01-01"), LessThan("o_orderdate", "1996-01-01"))'),
    ("Or(LessThan(o_orderdate,1992-04-01),GreaterThanOrEqual(o_orderdate,1998-04-01))",
     'Or(LessThan("o_orderdate", "1992-04-01"), GreaterThanOrEqual("o_orderdate", "1998-04-01"))'),
    ("EqualTo(o_orderkey,15008)", 'EqualTo("o_orderkey", 15008)'),
    ("EqualTo(o_orderkey,1)", 'EqualTo("o_orderkey", 1)'),
    ("LessThan(o_orderkey,1)", 'LessThan("o_orderkey", 1)'),
    ("GreaterThan(o_totalprice,400000.00)", 'GreaterThan("o_totalprice", Decimal("400000.00"))'),
    ("EqualTo(o_orderstatus,F)", 'EqualTo("o_orderstatus", "F")'),
    ("EqualTo(o_orderstatus,P)", 'EqualTo("o_orderstatus", "P")'),
    ("In(o_orderpriority, [1-URGENT,2-HIGH])", 'In("o_orderpriority", {"1-URGENT", "2-HIGH"})'),
    ("GreaterThan(o_shippriority,0)", 'GreaterThan("o_shippriority", 0)'),
    ("IsNull(o_comment)", 'IsNull("o_comment")'),
]


def read_orders(path):
    """tpchgen-cli's orders: plain strings, nullable fields, no field ids."""
    fields = [pa.field(f.name, pa.string() if f.type == pa.string_view() else f.type, True)
              for f in pq.read_schema(path)]
    schema = pa.schema(fields)
    t = pq.read_table(path, schema=schema)
    return t.take(pc.sort_indices(t, sort_keys=[("o_orderdate", "ascending")]))  # stable


def rel(path, location):
    path = path.removeprefix("file://")
    location = location.removeprefix("file://").rstrip("/") + "/"
    if not path.startswith(location):
        sys.exit(f"{path} is not under the table location {location}")
    return path[len(location):]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--orders", required=True)
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--expected", required=True)
    ap.add_argument("--target-file-size", type=int, default=131072)
    ap.add_argument("--min-files", type=int, default=4)
    args = ap.parse_args()

    import pyiceberg
    import pyiceberg.expressions as ex
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.expressions.visitors import bind
    from pyiceberg.io.pyarrow import expression_to_pyarrow
    from pyiceberg.utils.datetime import days_to_date

    scratch = os.path.abspath(args.scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(os.path.join(scratch, "warehouse"))
    cat = SqlCatalog("fixture", uri=f"sqlite:///{scratch}/catalog.db",
                     warehouse="file://" + os.path.join(scratch, "warehouse"))
    cat.create_namespace("tpch")
    orders = read_orders(args.orders)
    tbl = cat.create_table("tpch.orders", schema=orders.schema, properties={
        "format-version": "2",
        "write.target-file-size-bytes": str(args.target_file_size),
    })
    tbl.append(orders)
    tbl = cat.load_table("tpch.orders")
    location = tbl.location()
    schema = tbl.schema()
    ids = [f.field_id for f in schema.fields]
    date_id = schema.find_field("o_orderdate").field_id

    files = [t.file for t in tbl.scan().plan_files()]
    if len(files) < args.min_files:
        sys.exit(f"{len(files)} data files, want at least {args.min_files}: lower --target-file-size")
    for f in files:
        missing = [i for i in ids if i not in f.lower_bounds or i not in f.upper_bounds
                   or i not in f.null_value_counts or i not in f.value_counts]
        if missing:
            sys.exit(f"{f.file_path}: no bounds or counts for field ids {missing}")
    from pyiceberg.conversions import from_bytes

    dtype = schema.find_field(date_id).field_type
    rng = {f.file_path: (from_bytes(dtype, f.lower_bounds[date_id]), from_bytes(dtype, f.upper_bounds[date_id]))
           for f in files}
    files.sort(key=lambda f: rng[f.file_path])
    for a, b in zip(files, files[1:]):
        if rng[a.file_path][1] > rng[b.file_path][0]:
            sys.exit(f"o_orderdate ranges overlap: {a.file_path} {rng[a.file_path]} and "
                     f"{b.file_path} {rng[b.file_path]}")
    order = {f.file_path: i for i, f in enumerate(files)}

    def col(f, name):
        fld = schema.find_field(name)
        lo, hi = (from_bytes(fld.field_type, b[fld.field_id]) for b in (f.lower_bounds, f.upper_bounds))
        if name == "o_orderdate":
            lo, hi = days_to_date(lo), days_to_date(hi)
        return lo, hi

    print(f"iceberg orders: {orders.num_rows} rows, {len(files)} files, "
          f"{sum(f.file_size_in_bytes for f in files)} bytes (pyiceberg {pyiceberg.__version__})")
    for f in files:
        d, p, s = col(f, "o_orderdate"), col(f, "o_totalprice"), col(f, "o_orderstatus")
        print(f"  {rel(f.file_path, location)}: {f.record_count} rows, {f.file_size_in_bytes} bytes, "
              f"o_orderdate {d[0]}..{d[1]}, o_totalprice {p[0]}..{p[1]}, o_orderstatus {s[0]}..{s[1]}")

    # matching rows per file, read back with pyarrow
    data = {f.file_path: pq.read_table(f.file_path.removeprefix("file://")) for f in files}
    names = vars(ex) | {"Decimal": Decimal}
    expected = []
    for spark, src in PREDICATES:
        expr = eval(src, {"__builtins__": {}}, names)  # noqa: S307 (our own constant texts)
        planned = sorted((t.file for t in tbl.scan(row_filter=expr).plan_files()),
                         key=lambda f: order[f.file_path])
        arrow_expr = expression_to_pyarrow(bind(schema, expr, case_sensitive=True))
        hits = {p: t.filter(arrow_expr).num_rows for p, t in data.items()}
        kept = {f.file_path for f in planned}
        lost = [p for p, n in hits.items() if n and p not in kept]
        if lost:
            sys.exit(f"{spark}: pyiceberg pruned files with matching rows: {lost}")
        expected.append({
            "predicate_spark": spark,
            "pyiceberg_filter": src,
            "files_total": len(files),
            "files_planned": len(planned),
            "planned_files": [rel(f.file_path, location) for f in planned],
            "files_with_rows": sum(1 for n in hits.values() if n),
            "rows_matching": sum(hits.values()),
        })
        print(f"  {spark}: {len(planned)}/{len(files)} files planned, "
              f"{expected[-1]['files_with_rows']} with rows, {expected[-1]['rows_matching']} rows")

    out = args.out
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    shutil.copytree(location.removeprefix("file://"), out)
    with open(args.expected, "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print(f"table -> {out} (metadata locations under {location}), expected -> {args.expected}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
