#!/usr/bin/env python3
"""Cut run_duckdb.py's per-scan records down to the test fixture's lines.

Keeps the scans of the tables named by --tables (default lineitem, orders)
and every failed query's line (status "error", table null), with only the
fields that do not depend on the run (no timings, no FileSystem byte
counts, no file names):

    query, scan, table, status, files_total, files_scanning, files_read,
    file_filters, dynamic_filters, bytes_total, bytes_read, rows_scanned, error

rows_scanned (the DELTA_SCAN's rows) tells a scan DuckDB cut short apart
from one that skipped files on statistics: a probe-side scan whose hash
join build side came out empty reads no rows, and "Total Files Read" is
then 1 (at SF 0.005: Q17 and Q21, lineitem), although no filter removed a
file.

A field the record lacks is written as null (an "error" line has no file
counts; an "fs_log" line, the files an unprofiled rerun of a failed query
opened, has no files_scanning nor filters). Lines keep run_duckdb.py's
order (query, then pre-order scan index). Prints per table the sums of
files_scanning, files_total and files_read over the "ok" lines, and how
many of those scans read fewer files than "scanning" without reading a row.

Usage:
    fixture_duckdb.py IN.jsonl OUT.jsonl [--tables lineitem,orders]
"""

import argparse
import json
import sys

FIELDS = ["query", "scan", "table", "status", "files_total", "files_scanning", "files_read",
          "file_filters", "dynamic_filters", "bytes_total", "bytes_read", "rows_scanned", "error"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--tables", default="lineitem,orders")
    args = ap.parse_args()
    keep = set(args.tables.split(","))

    out, sums = [], {}
    with open(args.src) as f:
        for line in f:
            r = json.loads(line)
            if r.get("table") in keep or r.get("status") == "error":
                out.append({k: r.get(k) for k in FIELDS})
    with open(args.dst, "w") as f:
        for r in out:
            f.write(json.dumps(r) + "\n")

    for r in out:
        if r["status"] != "ok":
            continue
        s = sums.setdefault(r["table"], [0, 0, 0, 0, 0])
        scanning = r["files_scanning"] if r["files_scanning"] is not None else r["files_total"]
        s[0] += 1
        s[1] += scanning
        s[2] += r["files_total"]
        s[3] += r["files_read"]
        s[4] += r["rows_scanned"] == 0 and r["files_read"] < scanning
    errors = [r for r in out if r["status"] == "error"]
    for t in sorted(sums):
        n, scanning, total, read, short = sums[t]
        print(f"{args.dst}: {t}: {n} scans, files scanning {scanning} / total {total}, read {read}"
              f" ({short} scans read no rows)")
    for r in errors:
        fs = ", ".join(f"{x['table']} {x['files_read']}/{x['files_total']}" for x in out
                       if x["query"] == r["query"] and x["status"] == "fs_log")
        print(f"{args.dst}: Q{r['query']:02d} failed: {r['error'][:120]}"
              + (f" (unprofiled run opened {fs})" if fs else ""))
    print(f"{args.dst}: {len(out)} lines", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
