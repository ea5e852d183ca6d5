#!/usr/bin/env python3
"""Write the 8 TPC-H tables as Delta tables in one named layout.

The data comes from `tpchgen-cli parquet -s SF` (PyPI `tpchgen-cli`), written
once into RAW (default OUT/raw-sf<SF>) and reused by later layouts. Each table
is then written by deltalake's `write_deltalake(..., target_file_size=N)`
into OUT/<name>/<table>/ in one commit, in the order the layout asks for:

  random    rows shuffled by a fixed-seed permutation (numpy PCG64, --seed)
  date      orders by o_orderdate, lineitem by l_shipdate, the others as
            generated
  joinkey   every table by its primary join key: lineitem and orders by
            orderkey, customer by c_custkey, part by p_partkey, partsupp by
            ps_partkey (then ps_suppkey), supplier by s_suppkey, nation by
            n_nationkey, region by r_regionkey
  zorder:TABLE=COL,COL;TABLE=COL
            the named tables written as generated, then rewritten by
            `DeltaTable.optimize.z_order(cols, target_size=N)` and vacuumed
            (retention 0), so the directory holds only the live files
            (snappy, like write_deltalake's; optimize defaults to zstd); the
            other tables as generated

Sorts are stable (ties keep generation order), so the output is a function
of SF, layout, seed and target size (file names are UUIDs, contents and
boundaries are not random): each table goes to write_deltalake as one record
batch, which one writer cuts into files in order (a stream of batches is
spread over parallel writers and comes out interleaved). Sorted layouts are
checked after writing: the files' [min, max] of the sort column must not
overlap. One table is in memory at a time; at SF 1 the largest (lineitem,
6M rows) peaks at about two copies of itself in Arrow.

Usage:
    make_tables.py --sf 1 --out DIR --layout random [--name NAME]
        [--target-file-size 2097152] [--seed 42] [--raw DIR] [--force]

Writes OUT/<name>/layout.json describing what was written. An existing
OUT/<name> with a layout.json for the same parameters is kept unless --force.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]

DATE_KEYS = {"orders": ["o_orderdate"], "lineitem": ["l_shipdate"]}
JOIN_KEYS = {
    "lineitem": ["l_orderkey"],
    "orders": ["o_orderkey"],
    "customer": ["c_custkey"],
    "part": ["p_partkey"],
    "partsupp": ["ps_partkey", "ps_suppkey"],
    "supplier": ["s_suppkey"],
    "nation": ["n_nationkey"],
    "region": ["r_regionkey"],
}


def tpchgen(sf, raw):
    """tpchgen-cli parquet output in RAW (kept and reused when complete)."""
    marker = os.path.join(raw, "tpchgen.json")
    if os.path.exists(marker):
        with open(marker) as f:
            if json.load(f).get("sf") == sf and all(
                os.path.exists(os.path.join(raw, f"{t}.parquet")) for t in TABLES
            ):
                return
    os.makedirs(raw, exist_ok=True)
    exe = os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    if not os.path.exists(exe):
        exe = shutil.which("tpchgen-cli") or sys.exit("tpchgen-cli not found")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
    t0 = time.time()
    subprocess.run(
        [exe, "parquet", "-s", str(sf), "--output-dir", raw, "--overwrite", "--no-progress", "-q"],
        check=True,
    )
    print(f"tpchgen-cli SF {sf}: {time.time() - t0:.1f} s ({version})", flush=True)
    with open(marker, "w") as f:
        json.dump({"sf": sf, "generator": version}, f)


def plain_schema(schema):
    """tpchgen-cli writes string_view and Parquet field ids: make them plain
    strings without field metadata (what any Delta writer would store)."""
    fields = []
    for fld in schema:
        typ = pa.string() if fld.type == pa.string_view() else fld.type
        fields.append(pa.field(fld.name, typ, fld.nullable))
    return pa.schema(fields)


def read_raw(raw, table):
    path = os.path.join(raw, f"{table}.parquet")
    # read straight into plain strings (a cast afterwards would copy the table)
    return pq.read_table(path, schema=plain_schema(pq.read_schema(path)))


def parse_layout(spec):
    """('random'|'date'|'joinkey'|'zorder', {table: [cols]})"""
    if spec in ("random", "date", "joinkey"):
        return spec, {}
    if spec.startswith("zorder:"):
        cols = {}
        for part in spec[len("zorder:"):].split(";"):
            part = part.strip()
            if not part:
                continue
            table, _, cs = part.partition("=")
            table = table.strip()
            if table not in TABLES or not cs:
                sys.exit(f"bad zorder part {part!r}: want TABLE=COL[,COL...] with TABLE in {TABLES}")
            cols[table] = [c.strip() for c in cs.split(",") if c.strip()]
        if not cols:
            sys.exit("zorder: needs at least one TABLE=COL")
        return "zorder", cols
    sys.exit(f"unknown layout {spec!r}: random, date, joinkey or zorder:TABLE=COL,...;...")


def order(table_name, t, kind, seed):
    """The rows of T in the layout's order: a new table, built one column at
    a time so that a reordered column replaces its original (peak memory
    about one table plus one column), or T itself."""
    if kind == "random":
        import numpy as np

        # One generator per table, seeded from (seed, table index): the
        # permutation of one table does not depend on which others are written.
        rng = np.random.default_rng([seed, TABLES.index(table_name)])
        idx = pa.array(rng.permutation(t.num_rows))
    else:
        keys = (DATE_KEYS if kind == "date" else JOIN_KEYS if kind == "joinkey" else {}).get(table_name)
        if not keys:
            return t
        idx = pc.sort_indices(t, sort_keys=[(k, "ascending") for k in keys])  # stable
    schema = t.schema
    columns = [t.column(i) for i in range(t.num_columns)]
    del t
    out = []
    for i in range(len(columns)):
        col, columns[i] = columns[i], None
        out.append(pc.take(col, idx))
        del col
    return pa.Table.from_arrays(out, schema=schema)


def write_table(path, t, target):
    from deltalake import write_deltalake

    # One record batch: write_deltalake spreads a stream of several batches
    # over parallel writers, and the files then interleave them (their order
    # is lost and changes from run to run). A single batch is written by one
    # writer, in order, cut into files of about TARGET bytes. (Strings keep
    # 32-bit offsets: fine to SF 10, where l_comment is about 1.6 GB.)
    batch = t.combine_chunks().to_batches()
    write_deltalake(path, pa.RecordBatchReader.from_batches(t.schema, batch),
                    mode="error", target_file_size=target)


def check_order(path, col):
    """The files of a table written in COL order must not overlap on COL."""
    from deltalake import DeltaTable

    adds = DeltaTable(path).get_add_actions(flatten=True)
    adds = adds if isinstance(adds, pa.Table) else pa.table(adds)
    rng = sorted(zip(adds.column(f"min.{col}").to_pylist(), adds.column(f"max.{col}").to_pylist()))
    bad = sum(1 for a, b in zip(rng, rng[1:]) if a[1] > b[0])
    if bad:
        sys.exit(f"{path}: {bad} file ranges of {col} overlap although the rows were written in "
                 f"{col} order (the writer reordered them)")


def files_of(path):
    from deltalake import DeltaTable

    dt = DeltaTable(path)
    adds = dt.get_add_actions(flatten=True)
    adds = pa.table(adds) if not isinstance(adds, pa.Table) else adds
    return adds.num_rows, sum(adds.column("size_bytes").to_pylist()), dt.version()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", type=float, default=1.0)
    ap.add_argument("--out", required=True, help="directory holding the layouts")
    ap.add_argument("--layout", required=True)
    ap.add_argument("--name", help="directory name of the layout under OUT (default: the layout kind)")
    ap.add_argument("--target-file-size", type=int, default=2 * 1024 * 1024)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--raw", help="tpchgen-cli output (default OUT/raw-sf<SF>)")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()

    sf = int(args.sf) if args.sf == int(args.sf) else args.sf
    kind, zcols = parse_layout(args.layout)
    name = args.name or kind
    raw = args.raw or os.path.join(args.out, f"raw-sf{sf}")
    dest = os.path.join(args.out, name)
    params = {
        "sf": sf,
        "layout": args.layout,
        "target_file_size": args.target_file_size,
        "seed": args.seed,
        "writer": "one-batch",  # how write_table feeds deltalake (older outputs are redone)
    }
    meta_path = os.path.join(dest, "layout.json")
    if os.path.exists(meta_path) and not args.force:
        with open(meta_path) as f:
            if json.load(f).get("params") == params:
                print(f"{dest}: exists for these parameters, kept (--force rewrites)")
                return 0
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)

    tpchgen(sf, raw)
    import deltalake

    summary = {}
    t_all = time.time()
    for table in TABLES:
        t0 = time.time()
        o = order(table, read_raw(raw, table), kind, args.seed)
        rows = o.num_rows
        path = os.path.join(dest, table)
        write_table(path, o, args.target_file_size)
        del o
        keys = {"date": DATE_KEYS, "joinkey": JOIN_KEYS}.get(kind, {}).get(table)
        if keys:
            check_order(path, keys[0])
        entry = {"rows": rows}
        if table in zcols:
            from deltalake import DeltaTable

            dt = DeltaTable(path)
            from deltalake import WriterProperties

            # snappy like write_deltalake's files (optimize defaults to zstd)
            m = dt.optimize.z_order(zcols[table], target_size=args.target_file_size,
                                    writer_properties=WriterProperties(compression="SNAPPY"))
            dt = DeltaTable(path)
            dt.vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False)
            entry["z_order"] = {"columns": zcols[table], "files_added": m.get("numFilesAdded"),
                                "files_removed": m.get("numFilesRemoved")}
        n, size, version = files_of(path)
        entry.update({"files": n, "bytes": size, "version": version})
        summary[table] = entry
        print(f"{name}/{table}: {rows} rows, {n} files, {size / 1e6:.1f} MB, "
              f"{time.time() - t0:.1f} s", flush=True)

    meta = {
        "params": params,
        "deltalake": deltalake.__version__,
        "pyarrow": pa.__version__,
        "tables": summary,
        "seconds": round(time.time() - t_all, 1),
    }
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
    tot = sum(e["files"] for e in summary.values())
    print(f"{name}: {tot} files in {meta['seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
