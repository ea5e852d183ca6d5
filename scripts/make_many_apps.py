#!/usr/bin/env python3
"""Write a directory of N Spark applications, copies of one real log.

Each copy is the log as Spark wrote it with one change: the application
id of its `SparkListenerApplicationStart` event (and the file name) is
`<id>-<i>`, so every copy is a distinct application. Copies are gzip
files of three members (the lines before the application start, the
changed line, the rest), the first and last compressed once and shared,
so ten thousand copies of a 1 MB log take seconds. Used to measure what
`lakeaudit analyze` holds on an archive of many applications (issue 18):

    python3 scripts/make_many_apps.py samples/spark4-plain/local-1796017603630 \
        10000 /tmp/many-apps
"""

import gzip
import json
import os
import sys


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    head, start, rest = [], None, []
    with open(src, "rb") as f:
        for line in f:
            if start is None and b'"SparkListenerApplicationStart"' in line:
                start = json.loads(line)
            elif start is None:
                head.append(line)
            else:
                rest.append(line)
    if start is None or "App ID" not in start:
        sys.exit(f"{src}: no application start with an App ID")
    os.makedirs(out, exist_ok=True)
    head_gz = gzip.compress(b"".join(head), compresslevel=6, mtime=0)
    rest_gz = gzip.compress(b"".join(rest), compresslevel=6, mtime=0)
    app_id = start["App ID"]
    width = len(str(n - 1))
    for i in range(n):
        start["App ID"] = f"{app_id}-{i:0{width}d}"
        line = (json.dumps(start, separators=(",", ":")) + "\n").encode()
        path = os.path.join(out, start["App ID"] + ".gz")
        with open(path, "wb") as f:
            f.write(head_gz)
            f.write(gzip.compress(line, mtime=0))
            f.write(rest_gz)


if __name__ == "__main__":
    main()
