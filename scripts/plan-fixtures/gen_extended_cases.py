"""Produce extended-mode plan texts for operators the TPC-H fixtures lack.

Runs real Spark (pyspark 4.0.1, local[1]) with explainMode=extended and an
uncompressed event log, then prints each SQL execution's
physicalPlanDescription to cases/<name>.txt.
"""
import json, glob, os, shutil, sys
from pyspark.sql import SparkSession

out = os.path.dirname(os.path.abspath(__file__))
logdir = os.path.join(out, "eventlog")
shutil.rmtree(logdir, ignore_errors=True)
os.makedirs(logdir)
spark = (SparkSession.builder.master("local[1]")
         .config("spark.eventLog.enabled", "true")
         .config("spark.eventLog.dir", logdir)
         .config("spark.eventLog.compress", "false")
         .config("spark.eventLog.rolling.enabled", "false")
         .config("spark.sql.ui.explainMode", "extended")
         .config("spark.ui.enabled", "false")
         .getOrCreate())
data = os.path.join(out, "data")
shutil.rmtree(data, ignore_errors=True)
spark.range(100).selectExpr("id", "id % 7 as k", "array(id, id+1) as xs", "cast(id as string) as s") \
    .write.parquet(os.path.join(data, "t"))
spark.range(50).selectExpr("id as id2", "id % 5 as k2").write.parquet(os.path.join(data, "u"))
spark.read.parquet(os.path.join(data, "t")).createOrReplaceTempView("t")
spark.read.parquet(os.path.join(data, "u")).createOrReplaceTempView("u")
cases = {
    "window": "select id, k, rank() over (partition by k order by id) as r, sum(id) over () as total from t",
    "rollup": "select k, s, count(*) as c from t group by rollup(k, s)",
    "explode": "select id, x from t lateral view explode(xs) e as x",
    "union": "select id from t union all select id2 from u",
    "bnlj": "select /*+ BROADCAST(u) */ * from t join u on t.id < u.id2",
    "cartesian": "select /*+ SHUFFLE_REPLICATE_NL(u) */ * from t cross join u",
    "smj_cond": "select /*+ MERGE(u) */ * from t join u on t.k = u.k2 and t.id > u.id2",
    "range": "select id from range(10) where id > 5",
    "distinct": "select distinct k from t",
}
for name, sql in cases.items():
    spark.sparkContext.setJobDescription(name)
    spark.sql(sql).collect()
spark.stop()
dst = os.path.join(out, "cases")
os.makedirs(dst, exist_ok=True)
(log,) = glob.glob(os.path.join(logdir, "*"))
names = iter(["setup-t", "setup-u"] + list(cases))
for line in open(log):
    e = json.loads(line)
    if e["Event"].endswith("SQLExecutionStart"):
        desc = e.get("description", "")
        with open(os.path.join(dst, f"exec{e['executionId']:02d}.txt"), "w") as f:
            f.write("-- " + desc.replace("\n", " ") + "\n" + e["physicalPlanDescription"])
print("ok", log)
