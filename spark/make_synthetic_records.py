#!/usr/bin/env python3
"""Synthetic but schema-true records for sizing the reduce.

Takes real records (the `records/` table `lakeaudit_map.py` wrote, or a
`lakeaudit queries --format parquet` file) and replicates them until there
are COUNT: replica k is a new application (`<app_id>-s<k>`), its executions
shifted by k days (so the records span many drift windows), and its tables
moved to one of --schemas catalog schemas (`spark_catalog.db<k mod S>.`), so
the join graph has S times the real edges. Every column keeps the real
records' types and JSON layouts; nothing but ids, times and table names
changes.

    python spark/make_synthetic_records.py --from OUT/records --count 100000 \\
        --out target/bench/records-100k
    lakeaudit analyze --records target/bench/records-100k --out /tmp/reduce
"""

import argparse

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="src", required=True, help="real records (Parquet)")
    ap.add_argument("--out", required=True, help="output directory (gets records/)")
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--schemas", type=int, default=20, help="table namespaces to spread over")
    ap.add_argument("--master", default="local[2]")
    a = ap.parse_args(argv)

    spark = (
        SparkSession.builder.master(a.master)
        .appName("lakeaudit-synthetic")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    real = spark.read.parquet(a.src).drop("date")
    base = real.count()
    copies = -(-a.count // base)
    day = 86_400_000
    k = F.col("k")
    schema_of = F.concat(F.lit("spark_catalog.db"), (k % a.schemas).cast("string"), F.lit("."))

    def moved(c):
        return F.regexp_replace(F.col(c), r"spark_catalog\.default\.", schema_of)

    rows = (
        real.crossJoin(spark.range(copies).withColumnRenamed("id", "k"))
        .withColumn("app_id", F.concat("app_id", F.lit("-s"), k.cast("string")))
        .withColumn("log", F.concat("log", F.lit("-s"), k.cast("string")))
        .withColumn("start_ms", F.col("start_ms") + k * day)
        .withColumn("end_ms", F.col("end_ms") + k * day)
        .withColumn("scans", moved("scans"))
        .withColumn("relationships", moved("relationships"))
        .withColumn("tables", moved("tables"))
        .drop("k")
        .orderBy("app_id", "execution_id")
        .limit(a.count)
        .withColumn(
            "date",
            F.date_format(
                F.from_unixtime(F.col("start_ms") / 1000).cast("timestamp"), "yyyy-MM-dd"
            ),
        )
    )
    rows.repartition(8).write.mode("overwrite").partitionBy("date").parquet(
        a.out.rstrip("/") + "/records"
    )
    n = spark.read.parquet(a.out.rstrip("/") + "/records").count()
    print(f"make_synthetic_records: {n} records from {base} real ones ({copies} copies)")
    spark.stop()


if __name__ == "__main__":
    main()
