#!/usr/bin/env python3
"""The map of lakeaudit on Spark: event logs -> per-execution records.

Spark lists and reads the logs (any filesystem the cluster's Hadoop
configuration knows: file:, hdfs:, s3a:, abfss:, ...), schedules one task per
application and retries failed tasks. Each task pipes its application's bytes
(a log file, or a rolling directory's parts in index order) into the
`lakeaudit` binary on the executor and turns its output into rows of three
Parquet tables under OUT:

  records/date=YYYY-MM-DD/  one row per SQL execution: the columns of
                            `lakeaudit queries --format parquet`
  apps/                     one row per log read (`summary` is the JSON of
                            `lakeaudit queries --apps`)
  errors/                   log, reason, level: logs that failed (their own
                            records only) or warned

The reduce runs where lakeaudit runs: `lakeaudit analyze --records OUT`.

    spark-submit --files target/release/lakeaudit spark/lakeaudit_map.py \\
        --out s3a://bucket/lakeaudit-records s3a://bucket/spark-events/

The binary is taken from --binary, else the file shipped with
`spark-submit --files .../lakeaudit`, else the one the lakeaudit wheel
installed beside the executors' Python (`pip install lakeaudit` on the
cluster: the scripts directory of the interpreter running the task), else
`lakeaudit` on the executors' PATH.
"""

import argparse
import datetime
import json
import os
import posixpath
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading

from pyspark.sql import SparkSession
from pyspark.sql.types import (
    BooleanType,
    LongType,
    StringType,
    StructField,
    StructType,
)

# The columns of `lakeaudit queries --format parquet`, in its order, plus
# the partition column.
RECORDS = StructType(
    [
        StructField("app_id", StringType()),
        StructField("execution_id", LongType()),
        StructField("root_execution_id", LongType()),
        StructField("app_name", StringType()),
        StructField("spark_version", StringType()),
        StructField("start_ms", LongType()),
        StructField("end_ms", LongType()),
        StructField("duration_ms", LongType()),
        StructField("executor_run_ms", LongType()),
        StructField("executor_cpu_ms", LongType()),
        StructField("plan_source", StringType()),
        StructField("adaptive_final", BooleanType()),
        StructField("root_node", StringType()),
        StructField("tables", StringType()),
        StructField("join_count", LongType()),
        StructField("relationship_count", LongType()),
        StructField("error", StringType()),
        StructField("incomplete", StringType()),
        StructField("description", StringType()),
        StructField("log", StringType()),
        StructField("scans", StringType()),
        StructField("joins", StringType()),
        StructField("relationships", StringType()),
        StructField("is_command", BooleanType()),
        StructField("plan_error", StringType()),
        StructField("result_of", LongType()),
        StructField("date", StringType()),
    ]
)
APPS = StructType(
    [
        StructField("log", StringType()),
        StructField("app_id", StringType()),
        StructField("app_name", StringType()),
        StructField("spark_version", StringType()),
        StructField("lines", LongType()),
        StructField("bytes", LongType()),
        StructField("summary", StringType()),
    ]
)
ERRORS = StructType(
    [
        StructField("log", StringType()),
        StructField("reason", StringType()),
        StructField("level", StringType()),
    ]
)

PART = re.compile(r"^events_(\d+)_")
# Spark names a single-file log after the application id; another file
# found in a directory is a log only if it reads as one (as in lakeaudit's
# own directory search: READMEs, `.json` and `.sql` files are skipped).
APP_ID_PREFIXES = ("app-", "local-", "application_", "spark-")


# Files of Delta and Iceberg tables that may sit beside the logs (samples/
# holds a warehouse): data and metadata files, deletion vectors. Spark never
# names an event log so; skipping them spares a lakeaudit process per file.
TABLE_FILE_SUFFIXES = (".parquet", ".avro", ".orc", ".puffin", ".metadata.json", ".metadata.json.gz")


def app_of(path):
    """The application a file belongs to: a rolling part's directory, else
    the file itself. None for files that are not logs (markers, checksums,
    anything under a hidden or `_` directory such as `_delta_log`, table
    files)."""
    name = posixpath.basename(path)
    if name.endswith(".crc") or name.startswith((".", "_")):
        return None
    dirs = posixpath.dirname(path).split("/")
    if any(d.startswith((".", "_")) for d in dirs[1:]):
        return None
    if name.endswith(TABLE_FILE_SUFFIXES) or name == "version-hint.text" or name.startswith("deletion_vector_"):
        return None
    parent = posixpath.dirname(path)
    if name.startswith("appstatus_"):
        return parent
    if PART.match(name):
        return parent
    return path


def plan_parts(app, files):
    """How to read one application: ("stdin", parts in order) for a finished
    log, or ("copy", files) when lakeaudit must see the log under its own
    names (in-progress logs, rolling directories with missing, repeated or
    compacted parts): lakeaudit's own rules for those then apply unchanged."""
    if len(files) == 1 and files[0][0] == app:
        path = files[0][0]
        return ("copy" if path.endswith(".inprogress") else "stdin"), files
    parts = []
    in_progress = False
    for path, content in files:
        name = posixpath.basename(path)
        if name.startswith("appstatus_"):
            in_progress = in_progress or name.endswith(".inprogress")
            continue
        m = PART.match(name)
        compact = ".compact" in name
        in_progress = in_progress or name.endswith(".inprogress")
        parts.append((int(m.group(1)), compact, path, content))
    parts.sort(key=lambda p: (p[0], p[1]))
    indices = [p[0] for p in parts]
    regular = indices == list(range(1, len(parts) + 1)) and not any(p[1] for p in parts)
    if in_progress or not regular or not parts:
        return "copy", files
    return "stdin", [(p[2], p[3]) for p in parts]


def find_binary(explicit):
    if explicit:
        return explicit
    try:
        from pyspark import SparkFiles

        shipped = SparkFiles.get("lakeaudit")
        if os.path.exists(shipped):
            mode = os.stat(shipped).st_mode
            if not mode & stat.S_IXUSR:
                os.chmod(shipped, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            return shipped
    except Exception:  # no SparkContext files: look beside Python, then PATH
        pass
    # The wheel (`pip install lakeaudit`) puts the binary in the scripts
    # directory of the environment whose interpreter runs this task, which
    # an executor's PATH need not include.
    for scripts in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        wheel = os.path.join(scripts or "", "lakeaudit")
        if scripts and os.path.isfile(wheel) and os.access(wheel, os.X_OK):
            return wheel
    return shutil.which("lakeaudit") or "lakeaudit"


def utc_date(ms):
    if ms is None:
        return None
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc).strftime(
        "%Y-%m-%d"
    )


def compact_json(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def record_row(r, log):
    scans = r.get("scans") or []
    joins = r.get("joins") or []
    rels = r.get("relationships") or []
    return (
        r["app_id"],
        r["execution_id"],
        r.get("root_execution_id"),
        r.get("app_name"),
        r.get("spark_version"),
        r.get("start_ms"),
        r.get("end_ms"),
        r.get("duration_ms"),
        r.get("executor_run_ms"),
        r.get("executor_cpu_ms"),
        r.get("plan_source"),
        r.get("adaptive_final"),
        r.get("root_node"),
        " ".join(sorted({s["table"] for s in scans})),
        len(joins),
        len(rels),
        r.get("error"),
        r.get("incomplete"),
        r.get("description"),
        log if log is not None else r.get("log"),
        compact_json(scans),
        compact_json(joins),
        compact_json(rels),
        r.get("is_command"),
        r.get("plan_error"),
        r.get("result_of"),
        utc_date(r.get("start_ms")),
    )


def run_app(binary, app, files):
    """Run lakeaudit on one application; yields ("record"|"app"|"error", row)."""
    how, parts = plan_parts(app, files)
    tmp = None
    try:
        if how == "stdin":
            args = ["queries", "--format", "jsonl", "--name", app, "-"]
            shown = None
        else:
            # lakeaudit reads the log under its own names; its paths are
            # mapped back to the log's location below.
            tmp = tempfile.mkdtemp(prefix="lakeaudit-map-")
            base = posixpath.basename(app)
            local = os.path.join(tmp, base)
            if parts[0][0] == app:
                with open(local, "wb") as f:
                    f.write(parts[0][1])
            else:
                os.mkdir(local)
                for path, content in parts:
                    with open(os.path.join(local, posixpath.basename(path)), "wb") as f:
                        f.write(content)
            args = ["queries", "--format", "jsonl", local]
            shown = local
        results = run_binary(binary, args, app, shown, parts if how == "stdin" else None)
        name = posixpath.basename(app)
        if parts[0][0] == app and not name.startswith(APP_ID_PREFIXES):
            results = list(results)
            not_a_log = not any(k == "record" for k, _ in results) and any(
                k == "error" and "not a Spark event log" in row[1] for k, row in results
            )
            if not_a_log:
                return
        yield from results
    except Exception as e:  # one application's failure never stops the job
        yield "error", (app, f"{app}: the map failed: {e}", "error")
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def run_binary(binary, args, app, shown, stdin_parts):
    def fix(text):
        return text.replace(shown, app) if shown else text

    read_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen(
            [binary, "--threads", "1", *args, "--apps", f"/dev/fd/{write_fd}"],
            stdin=subprocess.PIPE if stdin_parts is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(write_fd,),
        )
    except OSError as e:
        os.close(read_fd)
        os.close(write_fd)
        yield "error", (app, f"{app}: cannot run lakeaudit ({binary}): {e}", "error")
        return
    os.close(write_fd)
    out = {}

    def drain(name, stream):
        out[name] = stream.read()

    def feed():
        try:
            for _, content in stdin_parts:
                proc.stdin.write(content)
        except BrokenPipeError:
            pass
        finally:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass

    threads = [
        threading.Thread(target=drain, args=("stderr", proc.stderr)),
        threading.Thread(target=drain, args=("apps", os.fdopen(read_fd, "rb"))),
    ]
    if stdin_parts is not None:
        threads.append(threading.Thread(target=feed))
    for t in threads:
        t.start()
    for line in proc.stdout:
        yield "record", record_row(json.loads(line), app)
    code = proc.wait()
    for t in threads:
        t.join()
    for line in out.get("apps", b"").decode("utf-8", "replace").splitlines():
        s = json.loads(line)
        s["log"] = fix(s.get("log", app))
        yield "app", (
            s["log"],
            s.get("app_id"),
            s.get("app_name"),
            s.get("spark_version"),
            s.get("lines"),
            s.get("bytes"),
            compact_json(s),
        )
    problems = out.get("stderr", b"").decode("utf-8", "replace").splitlines()
    for p in problems:
        p = fix(p.removeprefix("lakeaudit: "))
        if p.startswith("warning: "):
            yield "error", (app, p.removeprefix("warning: "), "warning")
        else:
            yield "error", (app, p, "error")
    if code not in (0, 2) or (code == 2 and not problems):
        yield "error", (app, f"{app}: lakeaudit exited with code {code}", "error")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+", help="event-log files or directories (any Hadoop URI)")
    ap.add_argument("--out", required=True, help="output directory (any Hadoop URI)")
    ap.add_argument("--binary", help="path of lakeaudit on the executors")
    ap.add_argument(
        "--partitions",
        type=int,
        default=0,
        help="tasks for the map (default: one per application, at most 10000)",
    )
    ap.add_argument("--master", help="Spark master when run without spark-submit")
    a = ap.parse_args(argv)

    builder = SparkSession.builder.appName("lakeaudit-map")
    if a.master:
        builder = builder.master(a.master)
    spark = builder.getOrCreate()

    # Spark lists the files (recursively, skipping `_` and `.` names).
    files = (
        spark.read.format("binaryFile")
        .option("recursiveFileLookup", "true")
        .load(a.logs)
    )
    paths = [r.path for r in files.select("path").collect()]
    apps = sorted({app for app in map(app_of, paths) if app is not None})
    if not apps:
        raise SystemExit(f"lakeaudit_map: no event logs under {' '.join(a.logs)}")
    n = a.partitions or min(len(apps), 10000)
    binary = a.binary

    def keyed(row):
        app = app_of(row.path)
        if app is not None:
            yield app, (row.path, bytes(row.content))

    def per_app(item):
        app, files_of_app = item
        return run_app(find_binary(binary), app, sorted(files_of_app))

    out = (
        files.select("path", "content")
        .rdd.flatMap(keyed)
        .groupByKey(numPartitions=n)
        .flatMap(per_app)
    )
    out.persist()
    try:
        kinds = {
            "record": (RECORDS, "records"),
            "app": (APPS, "apps"),
            "error": (ERRORS, "errors"),
        }
        for kind, (schema, name) in kinds.items():
            rows = out.filter(lambda kv, k=kind: kv[0] == k).map(lambda kv: kv[1])
            df = spark.createDataFrame(rows, schema).coalesce(max(1, min(n, 64)))
            writer = df.write.mode("overwrite")
            if name == "records":
                writer = writer.partitionBy("date")
            writer.parquet(posixpath.join(a.out.rstrip("/"), name))
        logs = out.filter(lambda kv: kv[0] == "app").count()
        failed = (
            out.filter(lambda kv: kv[0] == "error" and kv[1][2] == "error")
            .map(lambda kv: kv[1][0])
            .distinct()
            .count()
        )
        print(f"lakeaudit_map: {logs} log(s) read, {failed} with errors; wrote {a.out}")
    finally:
        out.unpersist()
        spark.stop()


if __name__ == "__main__":
    main()
