#!/usr/bin/env python3
"""Compare `lakeaudit whatif --rewriter ...` with a real rewrite measured by DuckDB.

    rewriter_check.py WHATIF.csv --layout TABLE=COLS=DUCKDB.jsonl=LAYOUT_DIR [...]

WHATIF.csv is `lakeaudit whatif ... --engine minmax --format csv` run on the
tables before the rewrite, with the layouts simulated. Each --layout names a
table, the columns of the simulated layout (as whatif prints them, joined by
`,`), the DuckDB records (`run_duckdb.py`, or iceberg_rewriters.py's records of Iceberg's own counts)
of the same workload on the table rewritten that way by the real rewriter,
and that table's directory, whose Delta log gives the real file count (`-`:
the records' `files_total`, the rewritten snapshot's files).

Per (query, table) pair both sides count the files of the pair's largest scan
(Spark and DuckDB do not always scan a table the same number of times).
Prints one markdown row per layout: predicted and real share of files skipped
(1 - files read / files in the table, summed over the pairs), predicted and
real file count, and the difference in points.
"""
import argparse
import collections
import csv
import json
import os
import re
import sys


def delta_files(table_dir):
    """Live files of a Delta table, replaying its JSON commits (no checkpoint here)."""
    log = os.path.join(table_dir, "_delta_log")
    live = set()
    for name in sorted(f for f in os.listdir(log) if re.fullmatch(r"\d{20}\.json", f)):
        with open(os.path.join(log, name)) as fh:
            for line in fh:
                a = json.loads(line)
                if "add" in a:
                    live.add(a["add"]["path"])
                elif "remove" in a:
                    live.discard(a["remove"]["path"])
    return len(live)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("whatif")
    ap.add_argument("--layout", action="append", required=True,
                    help="TABLE=COLS=DUCKDB.jsonl=TABLE_DIR")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.whatif, newline="")))
    print("| table | layout | rewriter | target | predicted skipped | real skipped | points | predicted files | real files | file error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for spec in a.layout:
        table, cols, duck_path, table_dir = spec.split("=", 3)
        ours = collections.defaultdict(list)
        total = None
        rewriter = target = ""
        for r in rows:
            if r["table"].split(".")[-1] != table or r["layout"] != cols or r["engine"] != "minmax":
                continue
            m = re.search(r"q0*(\d+)", r["description"] or "")
            if not m:
                continue
            ours[int(m.group(1))].append(int(r["files_read"]))
            total = int(r["files_total"])
            rewriter, target = r.get("rewriter", ""), r.get("target_size", "")
        duck = collections.defaultdict(list)
        duck_total = None
        for line in open(duck_path):
            d = json.loads(line)
            if d["table"] != table or d.get("status") != "ok":
                continue
            n = d["files_scanning"] if d["files_scanning"] is not None else d["files_total"]
            duck[d["query"]].append(n)
            duck_total = d["files_total"]
        pairs = sorted(set(ours) & set(duck))
        if not pairs or total is None:
            sys.exit(f"{table} {cols}: no (query, table) pair on both sides")
        p_read = sum(max(ours[q]) for q in pairs)
        r_read = sum(max(duck[q]) for q in pairs)
        p_skip = 100.0 * (1 - p_read / (total * len(pairs)))
        r_skip = 100.0 * (1 - r_read / (duck_total * len(pairs)))
        real_files = duck_total if table_dir == "-" else delta_files(table_dir)
        ferr = 100.0 * (total - real_files) / real_files
        worst = max(worst, abs(p_skip - r_skip))
        print(f"| {table} | {cols} | {rewriter} | {target} | {p_skip:.1f}% | {r_skip:.1f}% | "
              f"{p_skip - r_skip:+.1f} | {total} | {real_files} | {ferr:+.1f}% |")
        for q in pairs:
            if max(ours[q]) != max(duck[q]):
                print(f"    q{q:02d} {table}: predicted {max(ours[q])}/{total}, real {max(duck[q])}/{duck_total}",
                      file=sys.stderr)
    print(f"\nlargest difference: {worst:.1f} points")


if __name__ == "__main__":
    sys.exit(main())
