#!/usr/bin/env python3
"""Run the 22 TPC-H queries with DuckDB's delta extension and record, for
every DELTA_SCAN, how many of the table's files it read.

Each query runs in its own child process with a new in-memory connection
(a failing or crashing query is recorded, the next one still runs). The
connection loads the delta (and tpch) extensions from the PyPI packages'
files (`duckdb-extension-delta`, `duckdb-extension-tpch`: nothing is
downloaded), defines one view per table, `CREATE VIEW t AS SELECT * FROM
delta_scan('TABLES/t')`, turns on JSON profiling and the FileSystem log,
and runs the query.

From the JSON profile, per DELTA_SCAN node (pre-order, index `scan`):
"Total Files Read" (files_read), "Scanning Files: k/n" (files_scanning,
files_total; without a file filter n is the table's file count from the
Delta log), "Filters", "File Filters", "Dynamic Filters" and "Filename(s)"
(DuckDB lists at most a few names and then "...").

bytes_read is the sum of the Delta log's `size` of the files the scan read:
exact when the scan read every file, when Filename(s) lists all of them, or
when the query has only this one scan of the table and the FileSystem log
names the files it opened (bytes_read_source says which); otherwise null.
io_bytes_table is what the FileSystem log saw read from the table's data
files by the whole query (Parquet reads only the needed column chunks).

When the profiled run of a query fails (DuckDB 1.5.5 fails TPC-H Q12 on
date-ordered layouts with "total_files inconsistent" while computing the
profile's file counts; the same query runs fine unprofiled), the failure is
recorded (status "error", fallback "fs_log") and the query runs again
without profiling: one line per table (status "fs_log", scan null) then
gives the files that run opened per the FileSystem log, which equals "Total
Files Read" wherever the table has one scan in the query (checked on every
such scan of the SF 0.1 runs).

Query texts: `tpch_queries()` of DuckDB's tpch extension (default) or
`--queries DIR` with q01.sql ... q22.sql.

Usage:
    run_duckdb.py --tables DIR --out FILE.jsonl [--layout NAME]
        [--queries DIR] [--only 1,3,12] [--threads N] [--profiles DIR]
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
PREFIX = [("ps_", "partsupp"), ("l_", "lineitem"), ("o_", "orders"), ("c_", "customer"),
          ("p_", "part"), ("s_", "supplier"), ("n_", "nation"), ("r_", "region")]


def extension(name):
    import duckdb

    site = os.path.dirname(os.path.dirname(duckdb.__file__))
    found = glob.glob(os.path.join(site, f"duckdb_extension_{name}", "extensions", "**",
                                   f"{name}.duckdb_extension"), recursive=True)
    if not found:
        sys.exit(f"no {name}.duckdb_extension in {site} (pip install duckdb-extension-{name})")
    return found[0]


def query_texts(qdir):
    if qdir:
        out = {}
        for f in sorted(os.listdir(qdir)):
            m = re.fullmatch(r"q(\d\d)\.sql", f)
            if m:
                with open(os.path.join(qdir, f)) as fh:
                    out[int(m.group(1))] = fh.read()
        return out
    import duckdb

    con = duckdb.connect()
    con.execute(f"LOAD '{extension('tpch')}'")
    return {int(n): t for n, t in con.execute("SELECT query_nr, query FROM tpch_queries()").fetchall()}


def delta_files(table_dir):
    """{file name relative to the table: size} of the live files."""
    import pyarrow as pa
    from deltalake import DeltaTable

    adds = DeltaTable(table_dir).get_add_actions(flatten=True)
    adds = adds if isinstance(adds, pa.Table) else pa.table(adds)
    return dict(zip(adds.column("path").to_pylist(), adds.column("size_bytes").to_pylist()))


def scans_of(profile):
    out = []

    def walk(n):
        if n.get("operator_name") == "DELTA_SCAN" or n.get("operator_type") == "DELTA_SCAN":
            out.append(n)
        for c in n.get("children", []):
            walk(c)

    walk(profile)
    return out


def as_text(v):
    if v is None:
        return None
    if isinstance(v, list):
        return " AND ".join(str(x) for x in v)
    return str(v)


def table_of(info, tables_dir):
    names = info.get("Filename(s)") or ""
    first = names.split(",")[0].strip()
    if first and first != "...":
        rel = os.path.relpath(os.path.abspath(first), tables_dir)
        t = rel.split(os.sep)[0]
        if t in TABLES:
            return t
    cols = info.get("Projections") or info.get("Filters") or ""
    cols = cols if isinstance(cols, str) else " ".join(cols)
    for word in re.findall(r"[a-z_]+", cols):
        for pre, t in PREFIX:
            if word.startswith(pre):
                return t
    return None


def connect(args):
    import duckdb

    con = duckdb.connect()
    if args.threads:
        con.execute(f"SET threads = {int(args.threads)}")
    con.execute(f"LOAD '{extension('delta')}'")
    for t in TABLES:
        path = os.path.join(args.tables, t).replace("'", "''")
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM delta_scan('{path}')")
    con.execute("CALL enable_logging('FileSystem')")
    return con


def fs_log(con):
    """{data file path: {opens, bytes}} from the FileSystem log."""
    fs = {}
    for (msg,) in con.execute(
        "SELECT message FROM duckdb_logs WHERE type = 'FileSystem'"
    ).fetchall():
        m = json.loads(msg)
        path = m.get("path", "")
        if not path.endswith(".parquet"):
            continue
        e = fs.setdefault(path, {"opens": 0, "bytes": 0})
        if m.get("op") == "OPEN":
            e["opens"] += 1
        elif m.get("op") == "READ":
            e["bytes"] += int(m.get("bytes", 0))
    return fs


def run_one(args, q, sql, prof_path):
    """Child process: run query Q, write its profile and file-system log.

    When the profiled run fails (DuckDB 1.5.5's delta extension fails
    computing "Scanning Files" for some scans: "total_files inconsistent"),
    the error goes to PROF.error and the query runs again unprofiled; its
    FileSystem log alone then says which files were read."""
    import duckdb

    con = connect(args)
    con.execute("PRAGMA enable_profiling = 'json'")
    con.execute(f"PRAGMA profiling_output = '{prof_path}'")
    t0 = time.time()
    try:
        rows = con.execute(sql).fetchall()
    except duckdb.Error as e:
        with open(prof_path + ".error", "w") as f:
            f.write(f"{type(e).__module__}.{type(e).__name__}: {str(e).strip().splitlines()[0]}")
        con.close()
        con = connect(args)
        t0 = time.time()
        rows = con.execute(sql).fetchall()
    secs = time.time() - t0
    con.execute("PRAGMA disable_profiling")
    with open(prof_path + ".fs.json", "w") as f:
        json.dump({"rows": len(rows), "seconds": secs, "files": fs_log(con)}, f)


def fallback_records(args, q, prof_path, files, sizes):
    """Per table, the files the unprofiled run opened (FileSystem log)."""
    with open(prof_path + ".fs.json") as f:
        fs = json.load(f)
    opened = {}
    for path, e in fs["files"].items():
        t, _, name = os.path.relpath(path, args.tables).partition(os.sep)
        if t in TABLES:
            opened.setdefault(t, {})[name] = e
    recs = []
    for t in TABLES:
        if t not in opened:
            continue
        names = opened[t]
        recs.append({
            "layout": args.layout, "query": q, "scan": None, "table": t, "status": "fs_log",
            "files_read": len(names), "files_scanning": None, "files_total": len(files[t]),
            "bytes_read": sum(files[t].get(x, 0) for x in names), "bytes_read_source": "fs_log",
            "bytes_total": sizes[t], "files_listed": sorted(names),
            "files_opened_table": len(names), "io_bytes_table": sum(e["bytes"] for e in names.values()),
            "query_seconds": round(fs["seconds"], 3), "query_rows": fs["rows"],
            "note": "profiled run failed; files of the table opened by an unprofiled run "
                    "(all scans of the table together)",
        })
    return recs


def records_for(args, q, prof_path, files, sizes):
    with open(prof_path) as f:
        profile = json.load(f)
    with open(prof_path + ".fs.json") as f:
        fs = json.load(f)
    # files the whole query opened, per table
    opened = {t: {} for t in TABLES}
    for path, e in fs["files"].items():
        rel = os.path.relpath(path, args.tables)
        t, _, name = rel.partition(os.sep)
        if t in opened:
            opened[t][name] = e
    scans = scans_of(profile)
    per_table = {}
    for s in scans:
        per_table.setdefault(table_of(s.get("extra_info", {}), args.tables), []).append(s)
    recs = []
    for i, s in enumerate(scans):
        info = s.get("extra_info", {})
        t = table_of(info, args.tables)
        read = int(info.get("Total Files Read", 0))
        scanning, total = None, len(files.get(t, {}))
        m = re.match(r"\s*(\d+)\s*/\s*(\d+)", str(info.get("Scanning Files", "")))
        if m:
            scanning, total = int(m.group(1)), int(m.group(2))
        listed_raw = [x.strip() for x in (info.get("Filename(s)") or "").split(",") if x.strip()]
        truncated = "..." in listed_raw
        listed = [os.path.relpath(os.path.abspath(x), os.path.join(args.tables, t))
                  for x in listed_raw if x != "..."] if t else []
        tsizes = files.get(t, {})
        bytes_read, source = None, None
        if t and read == len(tsizes) and read > 0:
            bytes_read, source = sizes[t], "all_files"
        elif t and not truncated and len(listed) == read and all(x in tsizes for x in listed):
            bytes_read, source = sum(tsizes[x] for x in listed), "profile_names"
        elif t and len(per_table.get(t, [])) == 1 and len(opened[t]) == read:
            bytes_read, source = sum(tsizes.get(x, 0) for x in opened[t]), "fs_log"
        recs.append({
            "layout": args.layout,
            "query": q,
            "scan": i,
            "table": t,
            "status": "ok",
            "files_read": read,
            "files_scanning": scanning,
            "files_total": total,
            "bytes_read": bytes_read,
            "bytes_read_source": source,
            "bytes_total": sizes.get(t),
            "files_listed": listed,
            "files_listed_truncated": truncated,
            "filters": as_text(info.get("Filters")),
            "file_filters": as_text(info.get("File Filters")),
            "dynamic_filters": as_text(info.get("Dynamic Filters")),
            "rows_scanned": s.get("operator_rows_scanned"),
            "files_opened_table": len(opened[t]) if t else None,
            "io_bytes_table": sum(e["bytes"] for e in opened[t].values()) if t else None,
            "query_seconds": round(fs["seconds"], 3),
            "query_rows": fs["rows"],
        })
    return recs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", required=True, help="directory with one Delta table per TPC-H table")
    ap.add_argument("--out", required=True, help="JSON lines output")
    ap.add_argument("--layout", help="name recorded in each line (default: the tables dir's name)")
    ap.add_argument("--queries", help="directory with q01.sql..q22.sql (default: DuckDB's tpch_queries())")
    ap.add_argument("--only", help="comma-separated query numbers")
    ap.add_argument("--threads", type=int, default=0, help="DuckDB threads (default: DuckDB's)")
    ap.add_argument("--profiles", help="keep the JSON profiles here (default: next to --out)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per query")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--prof", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.tables = os.path.abspath(args.tables)
    args.layout = args.layout or os.path.basename(args.tables.rstrip(os.sep))

    texts = query_texts(args.queries)
    if args.one:
        run_one(args, args.one, texts[args.one], args.prof)
        return 0

    import duckdb

    profiles = args.profiles or os.path.splitext(args.out)[0] + "-profiles"
    os.makedirs(profiles, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    files = {t: delta_files(os.path.join(args.tables, t)) for t in TABLES}
    sizes = {t: sum(v.values()) for t, v in files.items()}
    if args.only:
        only = [int(x) for x in args.only.split(",")]
    elif args.queries:
        # Every qNN.sql of the directory (a workload other than TPC-H's 22).
        only = sorted(int(m.group(1)) for f in os.listdir(args.queries)
                      if (m := re.fullmatch(r"q(\d\d)\.sql", f)))
    else:
        only = list(range(1, 23))
    t_all = time.time()
    with open(args.out, "w") as out:
        for q in only:
            prof = os.path.join(profiles, f"q{q:02d}.json")
            for p in (prof, prof + ".fs.json", prof + ".error"):
                if os.path.exists(p):
                    os.remove(p)
            cmd = [sys.executable, os.path.abspath(__file__), "--tables", args.tables,
                   "--out", args.out, "--one", str(q), "--prof", prof,
                   "--threads", str(args.threads)]
            if args.queries:
                cmd += ["--queries", args.queries]
            t0 = time.time()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
                rc, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired:
                rc, err = -1, f"timeout after {args.timeout} s"
            if rc == 0 and os.path.exists(prof + ".error"):
                with open(prof + ".error") as f:
                    msg = f.read().strip()
                recs = [{"layout": args.layout, "query": q, "scan": None, "table": None,
                         "status": "error", "error": msg, "fallback": "fs_log"}]
                recs += fallback_records(args, q, prof, files, sizes)
                fb = ", ".join(f"{x['table']} {x['files_read']}/{x['files_total']}" for x in recs[1:])
                print(f"{args.layout} Q{q:02d}: profiled run FAILED: {msg[:160]}; "
                      f"unprofiled run opened {fb}", flush=True)
            elif rc == 0:
                recs = records_for(args, q, prof, files, sizes)
                r = sum(x["files_read"] for x in recs)
                n = sum(x["files_total"] for x in recs)
                print(f"{args.layout} Q{q:02d}: {len(recs)} scans, files {r}/{n}, "
                      f"{time.time() - t0:.1f} s", flush=True)
            else:
                # the exception's first line (DuckDB appends a stack trace)
                lines = [x for x in err.strip().splitlines() if x.strip()]
                msg = next((x for x in lines if re.match(r"^_?duckdb\.|^\w+(Error|Exception)\b", x)),
                           lines[-1] if lines else f"exit {rc}")
                recs = [{"layout": args.layout, "query": q, "scan": None, "table": None,
                         "status": "error", "error": msg.strip(), "exit_code": rc}]
                print(f"{args.layout} Q{q:02d}: FAILED: {msg.strip()[:200]}", flush=True)
            for rec in recs:
                out.write(json.dumps(rec) + "\n")
            out.flush()
    print(f"{args.layout}: {len(only)} queries in {time.time() - t_all:.1f} s "
          f"(duckdb {duckdb.__version__}) -> {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
