#!/usr/bin/env python3
"""Compare `lakeaudit whatif` predictions with the files DuckDB read.

    compare_whatif.py WHATIF.csv DUCKDB.jsonl [--layout NAME] [--tables lineitem,orders]

WHATIF.csv is `lakeaudit whatif ... --format csv`; rows of layout NAME
(default `current`) and of one engine (`--engine`, default `minmax`) are
compared. DUCKDB.jsonl is
run_duckdb.py's output for the table layout that NAME stands for (the same
tables for `current`; the tables deltalake really rewrote that way for a
candidate).

DuckDB's `files_scanning` is the count after its static Delta file filters
(delta-kernel-rs evaluating the query's literal predicates on the Delta
statistics), before the dynamic join filters: the figure lakeaudit's
`minmax` engine predicts. Spark and DuckDB do not always scan a table the
same number of times in a query (a reused exchange, a CTE read twice), so
scans are compared per (query, table): the distinct file counts of its
scans on each side. Queries that failed on DuckDB are left out and named.

Prints one line per (query, table) that differs, then per table and in
total: files lakeaudit predicts / files DuckDB read, summed over the
(query, table) pairs (each pair counted once, by its largest scan).
"""
import argparse
import collections
import csv
import json
import re
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("whatif")
    ap.add_argument("duckdb")
    ap.add_argument("--layout", default="current")
    ap.add_argument("--engine", default="minmax",
                    help="the whatif engine whose rows are compared (default minmax)")
    ap.add_argument("--tables", default="", help="comma-separated; default all")
    a = ap.parse_args()
    only = {t for t in a.tables.split(",") if t}

    ours = collections.defaultdict(set)
    totals = {}
    with open(a.whatif, newline="") as f:
        for r in csv.DictReader(f):
            if r["engine"] != a.engine or r["layout"] != a.layout:
                continue
            m = re.search(r"q0*(\d+)", r["description"] or "")
            if not m or (only and r["table"] not in only):
                continue
            ours[int(m.group(1)), r["table"]].add(int(r["files_read"]))
            totals[r["table"]] = int(r["files_total"])
    duck = collections.defaultdict(set)
    duck_totals = {}
    failed = {}
    with open(a.duckdb) as f:
        for line in f:
            d = json.loads(line)
            if only and d["table"] not in only:
                continue
            if d.get("status") != "ok":
                failed[d["query"]] = d.get("status")
                continue
            n = d["files_scanning"] if d["files_scanning"] is not None else d["files_total"]
            duck_totals[d["table"]] = d["files_total"]
            duck[d["query"], d["table"]].add(n)

    same = differ = 0
    by_table = collections.defaultdict(lambda: [0, 0, 0])
    for k in sorted(set(ours) & set(duck)):
        if k[0] in failed:
            continue
        o, d = sorted(ours[k]), sorted(duck[k])
        if o == d:
            same += 1
        else:
            differ += 1
            print(f"Q{k[0]} {k[1]}: lakeaudit {o}, DuckDB {d}")
        by_table[k[1]][0] += max(o)
        by_table[k[1]][1] += max(d)
        by_table[k[1]][2] += 1
    print(f"(query, table) pairs equal: {same} of {same + differ}")
    if failed:
        print("left out (failed on DuckDB): " + ", ".join(f"Q{q}" for q in sorted(failed)))
    po = pd = 0
    for t, (o, d, pairs) in sorted(by_table.items()):
        po, pd = po + o, pd + d
        dev = (o - d) / d * 100 if d else 0.0
        share = ""
        if totals.get(t) and duck_totals.get(t):
            so = o / (pairs * totals[t]) * 100
            sd = d / (pairs * duck_totals[t]) * 100
            share = f"; share of the table's files read: lakeaudit {so:.1f}% of {totals[t]}, DuckDB {sd:.1f}% of {duck_totals[t]}"
        print(f"{t}: lakeaudit {o} / DuckDB {d} files ({dev:+.1f}%){share}")
    if pd:
        print(f"total: lakeaudit {po} / DuckDB {pd} files ({(po - pd) / pd * 100:+.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
