#!/usr/bin/env python3
"""Markdown summary of run_duckdb.py's JSON lines files (one per layout).

Per layout, summed over the queries that ran: files read / files in the
scanned tables (every DELTA_SCAN counts its table's files once), skipped %,
and the mean per query of the MB in the files read (Delta log sizes; the
MB Parquet actually read from them, per the FileSystem log, is smaller
because only the needed column chunks are read). A query that failed on
some layout is left out of that layout's sums; the second table repeats the
sums over the queries that succeeded on every layout given; a third table
(when run_duckdb.py fell back to an unprofiled run for a failed query) adds
those queries' files from the FileSystem log.

Optionally (--spark NAME=FILE, from run_spark.py --summary): the join
operators of Spark's final plans per query and layout, and whether they
differ between layouts.

Usage:
    summarise.py DUCK.jsonl [DUCK.jsonl ...] [--per-table] [--per-query]
        [--spark NAME=FILE ...] [--title TEXT]
"""

import argparse
import json
import sys
from collections import OrderedDict

MB = 1e6


def load(path):
    scans, errors, fallback, layout = [], {}, [], None
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            layout = layout or r.get("layout")
            if r.get("status") == "ok":
                scans.append(r)
            elif r.get("status") == "fs_log":
                fallback.append(r)
            else:
                errors[r["query"]] = r.get("error", "")
    return layout or path, scans, errors, fallback


def bytes_of(r, mean_size):
    if r.get("bytes_read") is not None:
        return r["bytes_read"], False
    return r["files_read"] * mean_size.get(r["table"], 0), True


def totals(scans, queries):
    sel = [r for r in scans if r["query"] in queries]
    read = sum(r["files_read"] for r in sel)
    total = sum(r["files_total"] for r in sel)
    mean_size = {}
    for r in scans:
        if r["files_total"] and r.get("bytes_total") is not None and r["files_scanning"] in (None, r["files_total"]):
            mean_size[r["table"]] = r["bytes_total"] / r["files_total"]
    est = 0
    b = 0
    for r in sel:
        x, e = bytes_of(r, mean_size)
        b += x
        est += e
    io = {}
    for r in sel:
        io[(r["query"], r["table"])] = r.get("io_bytes_table") or 0
    n = len(queries)
    return {
        "queries": n,
        "read": read,
        "total": total,
        "skipped": 100.0 * (total - read) / total if total else 0.0,
        "mb_per_query": b / MB / n if n else 0.0,
        "io_mb_per_query": sum(io.values()) / MB / n if n else 0.0,
        "estimated_scans": est,
    }


def table_row(name, t, failed):
    est = f" ({t['estimated_scans']} scans estimated)" if t["estimated_scans"] else ""
    return (f"| {name} | {t['queries']} | {failed or '-'} | {t['read']} / {t['total']} | "
            f"{t['skipped']:.1f}% | {t['mb_per_query']:.1f}{est} | {t['io_mb_per_query']:.1f} |")


HEADER = ("| layout | queries | failed | files read / in scans | skipped | "
          "MB in files read per query | MB read (I/O) per query |\n|---|---|---|---|---|---|---|")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--per-table", action="store_true")
    ap.add_argument("--per-query", action="store_true")
    ap.add_argument("--spark", action="append", default=[], metavar="NAME=FILE")
    ap.add_argument("--title")
    args = ap.parse_args()

    runs = OrderedDict()
    fallbacks = {}
    for path in args.files:
        layout, scans, errors, fallback = load(path)
        runs[layout] = (scans, errors)
        fallbacks[layout] = fallback
    allq = set(range(1, 23))
    common = set(allq)
    for scans, errors in runs.values():
        common -= set(errors)
        common &= {r["query"] for r in scans}
    out = []
    if args.title:
        out += [f"### {args.title}", ""]
    out += ["DuckDB delta extension, TPC-H Q1-Q22; files read / files in the scanned tables, "
            "summed over the queries that ran on the layout.", "", HEADER]
    for layout, (scans, errors) in runs.items():
        ok = {r["query"] for r in scans}
        failed = ", ".join(f"Q{q}" for q in sorted(errors))
        out.append(table_row(layout, totals(scans, ok), failed))
    if any(errors for _, errors in runs.values()) and len(runs) > 1:
        out += ["", f"Over the {len(common)} queries that ran on every layout "
                f"(without {', '.join(f'Q{q}' for q in sorted(allq - common))}):", "", HEADER]
        for layout, (scans, errors) in runs.items():
            out.append(table_row(layout, totals(scans, common), ""))
    if any(fallbacks.values()):
        out += ["", "All 22 queries, a failed query's files taken from its unprofiled run's "
                "FileSystem log (files opened per table):", "", HEADER]
        for layout, (scans, errors) in runs.items():
            rows = scans + fallbacks[layout]
            qs = {r["query"] for r in rows}
            missing = ", ".join(f"Q{q}" for q in sorted(set(errors) - {r["query"] for r in fallbacks[layout]}))
            out.append(table_row(layout + (" (+ FileSystem log)" if fallbacks[layout] else ""),
                                 totals(rows, qs), missing))
    errs = {(layout, q): e for layout, (_, errors) in runs.items() for q, e in errors.items()}
    if errs:
        out += ["", "Failures:", ""]
        for (layout, q), e in sorted(errs.items()):
            out.append(f"- {layout} Q{q}: `{e[:300]}`")
    if args.per_table:
        tables = sorted({r["table"] for scans, _ in runs.values() for r in scans if r["table"]})
        out += ["", "Per table (files read / in scans):", "",
                "| table | " + " | ".join(runs) + " |", "|---|" + "---|" * len(runs)]
        for t in tables:
            cells = []
            for scans, _ in runs.values():
                sel = [r for r in scans if r["table"] == t]
                cells.append(f"{sum(r['files_read'] for r in sel)} / {sum(r['files_total'] for r in sel)}")
            out.append(f"| {t} | " + " | ".join(cells) + " |")
    if args.per_query:
        out += ["", "Per query (files read / in scans):", "",
                "| query | " + " | ".join(runs) + " |", "|---|" + "---|" * len(runs)]
        for q in sorted(allq):
            cells = []
            for layout, (scans, errors) in runs.items():
                if q in errors:
                    fb = [r for r in fallbacks[layout] if r["query"] == q]
                    cells.append("error" + (f" (log: {sum(r['files_read'] for r in fb)} / "
                                            f"{sum(r['files_total'] for r in fb)})" if fb else ""))
                    continue
                sel = [r for r in scans if r["query"] == q]
                cells.append(f"{sum(r['files_read'] for r in sel)} / {sum(r['files_total'] for r in sel)}"
                             if sel else "-")
            out.append(f"| Q{q} | " + " | ".join(cells) + " |")
    if args.spark:
        plans = OrderedDict()
        for spec in args.spark:
            name, _, path = spec.partition("=")
            with open(path) as f:
                plans[name] = {r["query"]: r for r in map(json.loads, filter(str.strip, f))}

        def joins(r):
            if r.get("status") != "ok":
                return "error"
            j = r.get("joins") or {}
            return ", ".join(f"{k} {v}" for k, v in sorted(j.items())) or "none"

        many = len(plans) > 1
        out += ["", "Spark final plans, join operators per query:", "",
                "| query | " + " | ".join(plans) + (" | same |" if many else " |"),
                "|---|" + "---|" * (len(plans) + many)]
        differ = 0
        for q in sorted(allq):
            cells = [joins(p.get(q, {})) for p in plans.values()]
            same = len(set(cells)) == 1
            differ += not same
            out.append(f"| Q{q} | " + " | ".join(cells)
                       + ((" | yes |" if same else " | NO |") if many else " |"))
        secs = [sum(r.get("seconds", 0) for r in p.values()) for p in plans.values()]
        out += ["", (f"Join operators differ between layouts in {differ} of 22 queries; " if many else "")
                + "Spark query seconds: " + ", ".join(f"{n} {s:.0f} s" for n, s in zip(plans, secs)) + "."]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
