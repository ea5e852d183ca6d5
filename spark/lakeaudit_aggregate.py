#!/usr/bin/env python3
"""The aggregation of lakeaudit on Spark: records -> the edge and scan
aggregates `lakeaudit plan|drift|analyze --aggregates` plans from.

Reads what `lakeaudit_map.py` wrote (records/, apps/, errors/ under
RECORDS) and writes, with Spark SQL, the tables of spark/README.md
("The aggregates") under OUT:

  meta/         one row: the options the aggregates were made for
                (window length, --since/--until), the layout version
  logs/         one row per log: what the merge of applications read
                twice and the census need, and whether it was kept
  windows/      executions per window (the planned window's included)
  edges/        per window (and once for the whole selected input) and
                edge: F and the sums D, C and the edge table need
  facts/        the planned window's executions (the planner prices
                each served edge's executions by their task time)
  scan_sizes/, scan_formats/, scan_bytes/
                what the scans say of each table (ScanFacts)
  apps/, errors/
                copied from the map's output

    spark-submit spark/lakeaudit_aggregate.py --window 7d \\
        --out s3a://bucket/lakeaudit-aggregates s3a://bucket/lakeaudit-records
    lakeaudit analyze --aggregates lakeaudit-aggregates --window 7d --out audit

The window length and --since/--until place the windows and select the
executions, so the job takes them and lakeaudit checks that it is given
the same; the cost measure (--cost) and --table-stats are chosen when
planning (both cost sums and the parts of D a row fallback changes are
kept).

What is computed per execution mirrors lakeaudit's Rust code
(graph::tables::canonical_table, workload::identity::Locations,
graph::relationships::SideTables, workload::edges::edge_key and
EdgeAcc::push); `make test-spark` compares the outputs with the
single-machine run's.
"""

import argparse
import json
import posixpath
import re
import sys
from datetime import datetime, timezone

from pyspark.sql import SparkSession
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    LongType,
    StringType,
    StructField,
    StructType,
)

LAYOUT_VERSION = 1
I64_MAX = (1 << 63) - 1
I64_MIN = -(1 << 63)

# --- graph::tables ---------------------------------------------------------

SESSION_CATALOG = "spark_catalog"
DEFAULT_DATABASE = "default"
RDD_PREFIX = "rdd:"
JDBC_PREFIX = "jdbc:"


def is_path(name):
    return "://" in name or name.startswith("file:") or name.startswith("/")


def is_external(name):
    return name.startswith(RDD_PREFIX) or name.startswith(JDBC_PREFIX)


def is_table(name):
    n = name.strip()
    return n != "" and not n.startswith(RDD_PREFIX)


def split_identifier(name):
    parts, cur, quoted, i = [], [], False, 0
    while i < len(name):
        c = name[i]
        if c == "`" and quoted and i + 1 < len(name) and name[i + 1] == "`":
            cur.append("`")
            i += 1
        elif c == "`":
            quoted = not quoted
        elif c == "." and not quoted:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return [p for p in parts if p]


def ascii_lower(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def canonical_table(name):
    name = rust_trim(name)
    if is_path(name) or is_external(name):
        return name
    parts = split_identifier(name)
    if not parts:
        return ""
    if len(parts) == 1:
        return f"{SESSION_CATALOG}.{DEFAULT_DATABASE}.{ascii_lower(parts[0])}"
    if len(parts) == 2:
        return f"{SESSION_CATALOG}.{ascii_lower(parts[0])}.{ascii_lower(parts[1])}"
    if ascii_lower(parts[0]) == SESSION_CATALOG:
        return SESSION_CATALOG + "".join("." + ascii_lower(p) for p in parts[1:])
    return ".".join(parts)


def rust_trim(s):
    # str::trim: Unicode White_Space; Python's strip() also strips a few
    # separators Rust keeps (\x1c-\x1f): trim those back.
    return s.strip(" \t\n\r\x0b\x0c\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


# --- workload::identity ----------------------------------------------------


def single_path(location):
    l = rust_trim(location)
    a, b = l.find("["), l.rfind("]")
    if a >= 0 and b > a:
        l = rust_trim(l[a + 1 : b])
    partition_dir = "=" in l.rsplit("/", 1)[-1]
    if l and ", " not in l and not partition_dir and is_path(l):
        return l
    return None


def normalise(path):
    p = rust_trim(path).rstrip("/")
    if p.startswith("file:///"):
        return "file:/" + p[len("file:///") :]
    for frm, to in (("s3a://", "s3://"), ("s3n://", "s3://"), ("abfs://", "abfss://")):
        if p[: len(frm)].lower() == frm:
            return to + p[len(frm) :]
    return p


def observe(by_path, table, location):
    """Locations::observe, the part identity reads (by_path)."""
    loc = single_path(location) if location is not None else None
    if loc is None:
        return
    if is_path(table) or not is_table(table) or table.startswith(JDBC_PREFIX):
        return
    by_path.setdefault(normalise(loc), set()).add(canonical_table(table))


def identity(by_path, table):
    t = rust_trim(table)
    if is_path(t):
        names = by_path.get(normalise(t))
        if names is not None and len(names) == 1:
            return next(iter(names))
    return canonical_table(t)


# --- graph::relationships::SideTables and workload::edges --------------------


def side_tables(names):
    v = sorted(set(names))
    if len(v) == 1 and v[0] == "":
        v = []
    return v


def parse_side(text):
    return [] if text == "" else side_tables(text.split("+"))


def edge_key(rel, rename):
    """edge_key of a relationship read back from its JSON, its sides renamed
    by `rename` (rename_paths) or not (None): (left table, left columns,
    right table, right columns) or None."""
    lc, rc = rel.get("left_columns") or [], rel.get("right_columns") or []
    if rel.get("non_simple") or not lc or not rc:
        return None
    left, right = parse_side(rel.get("left_table") or ""), parse_side(rel.get("right_table") or "")
    if rename is not None:
        left = side_tables(rename(t) for t in left)
        right = side_tables(rename(t) for t in right)
    lt, rt = "+".join(left), "+".join(right)
    if not is_table(lt) or not is_table(rt):
        return None
    l = (canonical_table(lt), list(lc))
    r = (canonical_table(rt), list(rc))

    def qualified(side):
        return [f"{side[0]}.{c}" for c in side[1]]

    a, b = (l, r) if qualified(l) <= qualified(r) else (r, l)
    return a[0], a[1], b[0], b[1]


SMJ, BHJ = "SortMergeJoin", "BroadcastHashJoin"
OTHER = ("ShuffledHashJoin", "BroadcastNestedLoopJoin", "CartesianProduct", "Join")


def sat_add(acc, x):
    if x is None:
        return acc
    return max(I64_MIN, min(I64_MAX, (acc or 0) + x))


DELTA_INDEXES = ("TahoeLogFileIndex", "PreparedDeltaFileIndex", "TahoeBatchFileIndex")


def per_execution(row, by_path, in_range, window):
    """One kept record -> tagged rows: its scans, its facts, its edges."""
    rename_on = bool(by_path)
    app, eid = row["app_id"], row["execution_id"]
    statement = row["root_execution_id"] if row["root_execution_id"] is not None else eid
    start = row["start_ms"]
    scans = json.loads(row["scans"]) if row["scans"] is not None else []
    rels = json.loads(row["relationships"]) if row["relationships"] is not None else []
    tables = {}
    for k, s in enumerate(scans):
        table = s.get("table", "")
        if rename_on and single_path(table) is not None:
            table = identity(by_path, table)
        loc = s.get("location")
        delta_index = loc is not None and any(i in loc for i in DELTA_INDEXES)
        yield "scan", (
            table,
            s.get("partition_filters"),
            s.get("data_filters"),
            s.get("pushed_filters"),
            s.get("bytes_read"),
            s.get("rows"),
            s.get("files_read"),
            delta_index,
            s.get("format"),
            app,
            eid,
            k,
        )
        v = tables.setdefault(canonical_table(table), [None, None])
        v[0] = sat_add(v[0], s.get("rows"))
        v[1] = sat_add(v[1], s.get("bytes_read"))
    if not in_range(start):
        return
    w = window(start)
    yield "exec", (
        app,
        eid,
        row["root_execution_id"],
        start,
        row["duration_ms"],
        row["executor_cpu_ms"] or 0,
        row["executor_run_ms"] or 0,
        w,
        json.dumps(sorted([t, v[0], v[1]] for t, v in tables.items()), separators=(",", ":")),
    )
    keys = {}
    rename = (lambda t: identity(by_path, t)) if rename_on else None
    for rel in rels:
        k = edge_key(rel, rename)
        if k is not None:
            keys.setdefault((k[0], tuple(k[1]), k[2], tuple(k[3])), set()).add(rel.get("strategy"))
    for (lt, lc, rt, rc), strategies in keys.items():
        rows = lambda t: tables.get(t, [None, None])[0]
        bts = lambda t: tables.get(t, [None, None])[1] or 0
        scanned = bts(lt) if lt == rt else bts(lt) + bts(rt)
        yield "edge", (
            app,
            eid,
            statement,
            start,
            w,
            lt,
            list(lc),
            rt,
            list(rc),
            rows(lt),
            rows(rt),
            scanned,
            row["duration_ms"] or 0,
            row["executor_cpu_ms"] or 0,
            int(SMJ in strategies),
            int(BHJ in strategies),
            sum(1 for s in OTHER if s in strategies),
        )


SCAN = StructType(
    [
        StructField("table", StringType()),
        StructField("partition_filters", StringType()),
        StructField("data_filters", StringType()),
        StructField("pushed_filters", StringType()),
        StructField("bytes", LongType()),
        StructField("rows", LongType()),
        StructField("files", LongType()),
        StructField("delta_index", BooleanType()),
        StructField("format", StringType()),
        StructField("app_id", StringType()),
        StructField("execution_id", LongType()),
        StructField("scan_index", LongType()),
    ]
)
EXEC = StructType(
    [
        StructField("app_id", StringType()),
        StructField("execution_id", LongType()),
        StructField("root_execution_id", LongType()),
        StructField("start_ms", LongType()),
        StructField("duration_ms", LongType()),
        StructField("cpu_ms", LongType()),
        StructField("run_ms", LongType()),
        StructField("window_start_ms", LongType()),
        StructField("tables", StringType()),
    ]
)
EDGE = StructType(
    [
        StructField("app_id", StringType()),
        StructField("execution_id", LongType()),
        StructField("statement", LongType()),
        StructField("start_ms", LongType()),
        StructField("window_start_ms", LongType()),
        StructField("left_table", StringType()),
        StructField("left_columns", ArrayType(StringType())),
        StructField("right_table", StringType()),
        StructField("right_columns", ArrayType(StringType())),
        StructField("left_rows", LongType()),
        StructField("right_rows", LongType()),
        StructField("scanned", LongType()),
        StructField("duration_ms", LongType()),
        StructField("cpu_ms", LongType()),
        StructField("smj", LongType()),
        StructField("bhj", LongType()),
        StructField("other", LongType()),
    ]
)

# --- options ---------------------------------------------------------------

UNITS = {"w": 7 * 86_400_000, "d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1000, "ms": 1}


def parse_window(text):
    """A window length as lakeaudit reads the common forms: `7d`, `1w`,
    `12h`, `30m`, `1w 2d`, a bare number of days. lakeaudit checks the
    milliseconds against its own reading of --window."""
    t = text.strip()
    if re.fullmatch(r"\d+", t):
        ms = int(t) * UNITS["d"]
    else:
        parts = re.findall(r"(\d+)\s*(ms|w|d|h|m|s)", t)
        if not parts or re.sub(r"\s+", "", "".join(n + u for n, u in parts)) != re.sub(r"\s+", "", t):
            raise SystemExit(f"lakeaudit_aggregate: --window {text!r}: give a length such as 7d, 1w, 12h, 30m or 1w 2d")
        ms = sum(int(n) * UNITS[u] for n, u in parts)
    if ms <= 0:
        raise SystemExit(f"lakeaudit_aggregate: --window {text!r}: must be positive")
    return ms


def parse_time(text, flag):
    t = text.strip()
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    try:
        d = datetime.fromisoformat(t.replace("Z", "+00:00"))
    except ValueError:
        raise SystemExit(f"lakeaudit_aggregate: {flag} {text!r}: give epoch ms, 2026-10-05 or 2026-10-05T09:00:00Z")
    if d.tzinfo is None:
        d = d.replace(tzinfo=timezone.utc)
    return int(d.timestamp() * 1000)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", help="the map's output directory (records/, apps/, errors/), any Hadoop URI")
    ap.add_argument("--out", required=True, help="output directory (any Hadoop URI)")
    ap.add_argument("--window", default="7d", help="window length, as lakeaudit's --window (default 7d)")
    ap.add_argument("--since", help="as lakeaudit's --since")
    ap.add_argument("--until", help="as lakeaudit's --until")
    ap.add_argument("--partitions", type=int, default=0, help="output files per table (default: from the input)")
    ap.add_argument("--master", help="Spark master when run without spark-submit")
    a = ap.parse_args(argv)
    width = parse_window(a.window)
    since = parse_time(a.since, "--since") if a.since else None
    until = parse_time(a.until, "--until") if a.until else None

    builder = SparkSession.builder.appName("lakeaudit-aggregate")
    if a.master:
        builder = builder.master(a.master)
    spark = builder.getOrCreate()
    base = a.records.rstrip("/")
    out = a.out.rstrip("/")
    try:
        run(spark, base, out, width, since, until, a)
    finally:
        spark.stop()


def optional(spark, path, schema):
    from pyspark.errors import AnalysisException

    try:
        return spark.read.parquet(path)
    except AnalysisException as e:
        if "PATH_NOT_FOUND" not in str(e) and "Path does not exist" not in str(e):
            raise
        return spark.createDataFrame([], schema)


def run(spark, base, out, width, since, until, a):
    records = spark.read.parquet(posixpath.join(base, "records"))
    # A records directory without apps/ or errors/ (spark/make_synthetic_
    # records.py writes none) reads as no summaries and no errors.
    apps = optional(spark, posixpath.join(base, "apps"),
                    "log STRING, app_id STRING, app_name STRING, spark_version STRING, lines BIGINT, bytes BIGINT, summary STRING")
    errors = optional(spark, posixpath.join(base, "errors"), "log STRING, reason STRING, level STRING")
    records.createOrReplaceTempView("records")
    apps.createOrReplaceTempView("apps")

    def in_range_sql(col):
        if since is None and until is None:
            return "TRUE"
        conds = [f"{col} IS NOT NULL"]
        if since is not None:
            conds.append(f"{col} >= {since}")
        if until is not None:
            conds.append(f"{col} < {until}")
        return " AND ".join(conds)

    # Per log: the census and the first record (least execution id), joined
    # to the map's summaries; the merge of an application read twice keeps
    # the copy with more records, then bytes, lines, then the least log name
    # (parsers::events::merge_apps).
    logs = spark.sql(
        f"""
        WITH r AS (
          SELECT log, count(*) AS executions,
                 sum(CASE WHEN coalesce(is_command, false) THEN 0 ELSE 1 END) AS queries,
                 min(start_ms) AS span_first, max(start_ms) AS span_last,
                 sum(CASE WHEN {in_range_sql('start_ms')} THEN 1 ELSE 0 END) AS selected,
                 max(CASE WHEN {in_range_sql('start_ms')} THEN start_ms END) AS latest_selected,
                 min_by(struct(app_id, app_name, spark_version), execution_id) AS first
          FROM (SELECT coalesce(log, '') AS log, app_id, app_name, spark_version, execution_id,
                       start_ms, is_command FROM records) GROUP BY log
        ), s AS (
          SELECT log, get_json_object(summary, '$.app_id') AS app_id,
                 coalesce(cast(get_json_object(summary, '$.bytes') AS BIGINT), 0) AS bytes,
                 coalesce(cast(get_json_object(summary, '$.lines') AS BIGINT), 0) AS lines
          FROM apps
        ), j AS (
          SELECT coalesce(r.log, s.log) AS log,
                 coalesce(s.app_id, r.first.app_id, '') AS app_id,
                 r.first.app_id AS first_app_id, r.first.app_name AS first_app_name,
                 r.first.spark_version AS first_spark_version,
                 coalesce(r.executions, 0) AS executions, coalesce(r.queries, 0) AS queries,
                 r.span_first, r.span_last, coalesce(r.selected, 0) AS selected, r.latest_selected,
                 coalesce(s.bytes, 0) AS bytes, coalesce(s.lines, 0) AS lines
          FROM r FULL OUTER JOIN s ON r.log = s.log
        )
        SELECT *, row_number() OVER (PARTITION BY app_id
                    ORDER BY executions DESC, bytes DESC, lines DESC, log) = 1 AS kept
        FROM j
        """
    ).cache()
    logs.createOrReplaceTempView("logs")
    latest = spark.sql("SELECT max(latest_selected) FROM logs WHERE kept").first()[0]
    align = (latest + 1) % width if latest is not None else 0
    planned = ((latest - align) // width) * width + align if latest is not None else None

    # The table identities: every scan's (table, location) of every log read.
    pairs = spark.sql(
        """
        SELECT DISTINCT s.table, s.location FROM records
        LATERAL VIEW explode(from_json(scans, 'array<struct<table:string,location:string>>')) t AS s
        """
    ).collect()
    by_path = {}
    for p in pairs:
        observe(by_path, p["table"] or "", p["location"])
    sc = spark.sparkContext
    by_path_b = sc.broadcast(by_path)

    def in_range(t):
        if since is None and until is None:
            return True
        return t is not None and (since is None or t >= since) and (until is None or t < until)

    def window(t):
        if t is None:
            return None
        return ((t - align) // width) * width + align

    kept = spark.sql(
        "SELECT r.* FROM records r JOIN logs l ON coalesce(r.log, '') = l.log WHERE l.kept"
    )

    def tagged(rows):
        bp = by_path_b.value
        for row in rows:
            yield from per_execution(row, bp, in_range, window)

    cols = ["app_id", "execution_id", "root_execution_id", "start_ms", "duration_ms",
            "executor_cpu_ms", "executor_run_ms", "scans", "relationships"]
    facts = kept.select(*cols).rdd.mapPartitions(tagged).cache()
    for kind, schema in (("scan", SCAN), ("exec", EXEC), ("edge", EDGE)):
        rows = facts.filter(lambda kv, k=kind: kv[0] == k).map(lambda kv: kv[1])
        spark.createDataFrame(rows, schema).createOrReplaceTempView(f"{kind}_rows")

    n = a.partitions or None

    def write(df, name):
        if n:
            df = df.repartition(n)
        df.write.mode("overwrite").parquet(posixpath.join(out, name))

    first = spark.sql("SELECT min(start_ms) FROM exec_rows").first()[0]
    meta = spark.createDataFrame(
        [(LAYOUT_VERSION, width, since, until, latest, first, planned)],
        "layout_version BIGINT, window_ms BIGINT, since_ms BIGINT, until_ms BIGINT, "
        "latest_selected_ms BIGINT, first_selected_ms BIGINT, planned_window_start_ms BIGINT",
    )
    write(meta.coalesce(1), "meta")
    write(logs.coalesce(max(1, n or 1)), "logs")
    write(spark.sql(
        "SELECT window_start_ms, count(*) AS executions FROM exec_rows GROUP BY window_start_ms"
    ).coalesce(1), "windows")
    # The planned window's executions (the whole selection when no
    # execution has a start time).
    planned_cond = f"window_start_ms = {planned}" if planned is not None else "TRUE"
    write(spark.sql(
        f"SELECT app_id, execution_id, root_execution_id, start_ms, duration_ms, cpu_ms, run_ms, tables FROM exec_rows WHERE {planned_cond}"
    ), "facts")

    # Per window and once for the whole selection (window_start_ms null):
    # an edge counts once per statement (its first execution's row).
    sums = """
        count(*) AS frequency,
        cast(sum(CASE WHEN left_rows IS NOT NULL AND right_rows IS NOT NULL
                      THEN cast(left_rows AS DECIMAL(20,0)) * cast(right_rows AS DECIMAL(20,0)) END) AS DOUBLE) AS volume_known,
        cast(sum(CASE WHEN left_rows IS NULL AND right_rows IS NOT NULL THEN cast(right_rows AS DECIMAL(20,0)) END) AS DOUBLE) AS right_rows_left_missing,
        cast(sum(CASE WHEN right_rows IS NULL AND left_rows IS NOT NULL THEN cast(left_rows AS DECIMAL(20,0)) END) AS DOUBLE) AS left_rows_right_missing,
        sum(CASE WHEN left_rows IS NULL AND right_rows IS NOT NULL THEN 1 ELSE 0 END) AS left_missing,
        sum(CASE WHEN right_rows IS NULL AND left_rows IS NOT NULL THEN 1 ELSE 0 END) AS right_missing,
        sum(CASE WHEN left_rows IS NULL AND right_rows IS NULL THEN 1 ELSE 0 END) AS both_missing,
        cast(sum(cast(duration_ms AS DECIMAL(38,0))) AS DOUBLE) AS duration_sum,
        cast(sum(cast(cpu_ms AS DECIMAL(38,0))) AS DOUBLE) AS cpu_sum,
        cast(sum(cast(scanned AS DECIMAL(38,0))) AS DOUBLE) AS scanned_bytes,
        sum(smj) AS smj_count, sum(bhj) AS bhj_count, sum(other) AS other_count,
        min(start_ms) AS first_seen_ms, max(start_ms) AS last_seen_ms,
        to_json(transform(array_sort(collect_list(struct(app_id, execution_id))),
                          x -> array(x.app_id, cast(x.execution_id AS STRING)))) AS executions
    """
    key = "left_table, left_columns, right_table, right_columns"
    out_key = "left_table, to_json(left_columns) AS left_columns, right_table, to_json(right_columns) AS right_columns"
    edges = spark.sql(
        f"""
        WITH w AS (
          SELECT * FROM (SELECT *, row_number() OVER (
              PARTITION BY app_id, statement, {key}, window_start_ms ORDER BY execution_id) AS rn
            FROM edge_rows WHERE window_start_ms IS NOT NULL) WHERE rn = 1
        ), a AS (
          SELECT * FROM (SELECT *, row_number() OVER (
              PARTITION BY app_id, statement, {key} ORDER BY execution_id) AS rn
            FROM edge_rows) WHERE rn = 1
        )
        SELECT window_start_ms, {out_key}, {sums} FROM w GROUP BY window_start_ms, {key}
        UNION ALL
        SELECT CAST(NULL AS BIGINT) AS window_start_ms, {out_key}, {sums} FROM a GROUP BY {key}
        """
    )
    write(edges, "edges")

    write(spark.sql(
        """SELECT table, partition_filters, data_filters, pushed_filters,
                  max(bytes) AS bytes, max(rows) AS rows, max(files) AS files
           FROM scan_rows GROUP BY table, partition_filters, data_filters, pushed_filters"""
    ), "scan_sizes")
    write(spark.sql(
        """SELECT table, delta_index, format,
                  min(struct(app_id, execution_id, scan_index)) AS first
           FROM scan_rows GROUP BY table, delta_index, format"""
    ).selectExpr("table", "delta_index", "format", "first.app_id AS first_app_id",
                 "first.execution_id AS first_execution_id", "first.scan_index AS first_scan_index"),
        "scan_formats")
    write(spark.sql(
        "SELECT table, cast(sum(greatest(coalesce(bytes, 0), 0)) AS DECIMAL(38,0)) AS bytes FROM scan_rows GROUP BY table"
    ).selectExpr("table", "cast(bytes AS STRING) AS bytes"), "scan_bytes")
    write(apps, "apps")
    write(errors, "errors")
    facts.unpersist()
    logs.unpersist()
    print(f"lakeaudit_aggregate: wrote {out} (window {a.window}, latest start {latest})", file=sys.stderr)


if __name__ == "__main__":
    main()
