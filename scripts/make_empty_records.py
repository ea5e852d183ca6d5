#!/usr/bin/env python3
"""Zero-row Parquet files as other writers make them (issue 29.8).

    python scripts/make_empty_records.py QUERIES.parquet OUT_DIR

QUERIES.parquet is `lakeaudit queries samples --format parquet -o
QUERIES.parquet`. Writes OUT_DIR/empty-pyarrow.parquet: the same schema
with no rows, written by pyarrow (one row group of zero rows whose column
chunks hold a dictionary page and no data page: data_page_offset 0). Needs
pyarrow (pinned in the Makefile's tables venv).
"""
import sys

import pyarrow.parquet as pq


def main() -> None:
    src, out = sys.argv[1], sys.argv[2]
    table = pq.read_table(src)
    pq.write_table(table.slice(0, 0), f"{out}/empty-pyarrow.parquet")


if __name__ == "__main__":
    main()
