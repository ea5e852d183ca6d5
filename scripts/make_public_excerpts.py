#!/usr/bin/env python3
"""Copy public real Spark event logs from other projects' test suites into
tests/data/public/, zstd-compressed.

Each log is either copied whole or cut down by KEEPING WHOLE EVENT LINES: the
excerpt drops every line whose `Event` is `SparkListenerTaskStart` or
`SparkListenerTaskEnd` (task events are most of the bytes and carry no plan),
and nothing else. No line is edited: every line of an excerpt is byte-identical
to a line of the source, in the same order. The source is read straight from a
git clone of the source repository at a pinned commit.

Usage:

    python3 scripts/make_public_excerpts.py --repo <git dir of NVIDIA/spark-rapids-tools> \
        [--out tests/data/public]

Needs the `zstd` command (used to read `.zstd` sources and to write the copies).
"""

import argparse
import gzip
import json
import os
import subprocess

# Source: github.com/NVIDIA/spark-rapids-tools (Apache License 2.0), pinned commit.
COMMIT = "6e03887121d9eaa57401d54b84f326b73642351d"
BASE = "core/src/test/resources/"
DROP = {"SparkListenerTaskStart", "SparkListenerTaskEnd"}

# (output name, source path under BASE, "whole" | "no-task-events")
LOGS = [
    ("databricks-13.3-photon-nds-q88", "spark-events-qualification/nds_q88_photon_db_13_3.zstd",
     "no-task-events"),
    ("rapids-3.1.3-nds-q66-gpu", "spark-events-profiling/nds_q66_gpu.zstd", "no-task-events"),
    ("rapids-3.0.1-rdd-join-gpu", "spark-events-profiling/rapids_join_eventlog.zstd", "no-task-events"),
    ("spark-2.2.3-csv-join", "spark-events-profiling/spark2-eventlog.zstd", "whole"),
    ("spark-3.1.1-jdbc", "spark-events-qualification/jdbc_eventlog.zstd", "no-task-events"),
    ("spark-3.1.1-rdd-scans", "spark-events-qualification/dsAndDf_eventlog.zstd", "no-task-events"),
    ("emr-3.3.0-broadcast-joins", "spark-events-qualification/multiple_attempts/attempt_1_eventlog.zstd",
     "no-task-events"),
]


def source_bytes(repo, path):
    raw = subprocess.run(["git", "--git-dir", repo, "show", f"{COMMIT}:{BASE}{path}"],
                         check=True, capture_output=True).stdout
    if path.endswith(".zstd"):
        return subprocess.run(["zstd", "-dcq"], input=raw, check=True, capture_output=True).stdout
    if path.endswith(".gz"):
        return gzip.decompress(raw)
    return raw


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, help="git dir of a NVIDIA/spark-rapids-tools clone")
    ap.add_argument("--out", default="tests/data/public")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, path, how in LOGS:
        data = source_bytes(args.repo, path)
        lines = data.splitlines(keepends=True)
        if how == "whole":
            kept = lines
        else:
            kept = [ln for ln in lines if json.loads(ln).get("Event") not in DROP]
        text = b"".join(kept)
        dst = os.path.join(args.out, name + ".zst")
        subprocess.run(["zstd", "-19", "-q", "-f", "-o", dst], input=text, check=True)
        print(f"{dst}: {len(kept)}/{len(lines)} lines, {len(text)} bytes -> {os.path.getsize(dst)} bytes")


if __name__ == "__main__":
    main()
