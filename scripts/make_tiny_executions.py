#!/usr/bin/env python3
"""Write a Spark event log of N tiny SQL executions, made from a real log.

The log's own events before its first SQL execution (log start,
application start, environment, ...) are kept; then its first execution's
`SparkListenerSQLExecutionStart` / `SparkListenerSQLExecutionEnd` pair is
repeated N times with new execution ids (and times one millisecond apart);
then the log's application end. Nothing else is changed, so every execution
is a real Spark 4 setup command as Spark wrote it. Used to measure
`lakeaudit queries` memory per execution (issue 16, case 17):

    python3 scripts/make_tiny_executions.py samples/spark4-plain/local-1796017603630 \
        1000000 | zstd -1 -q -o /tmp/tiny-1m.zstd
"""

import json
import sys


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, n = sys.argv[1], int(sys.argv[2])
    head, start, end, tail = [], None, None, []
    with open(src, encoding="utf-8") as f:
        for line in f:
            event = json.loads(line)["Event"]
            if event.endswith("SQLExecutionStart") and start is None:
                start = json.loads(line)
            elif event.endswith("SQLExecutionEnd") and end is None and start is not None:
                end = json.loads(line)
            elif event == "SparkListenerApplicationEnd":
                tail.append(line)
            elif start is None:
                head.append(line)
    if start is None or end is None:
        sys.exit(f"{src}: no SQL execution start and end")
    out = sys.stdout
    out.writelines(head)
    t0 = start["time"]
    for i in range(n):
        start["executionId"] = i
        start["rootExecutionId"] = i
        start["time"] = t0 + i
        end["executionId"] = i
        end["time"] = t0 + i + 1
        out.write(json.dumps(start, separators=(",", ":")) + "\n")
        out.write(json.dumps(end, separators=(",", ":")) + "\n")
    out.writelines(tail)


if __name__ == "__main__":
    main()
