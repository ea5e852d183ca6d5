"""Extended-mode plan text for a DataSource V2 parquet read (BatchScan/RelationV2).

Needs the data written by gen_extended_cases.py. pyspark 4.0.1, local[1].
"""
import json, glob, os, shutil
from pyspark.sql import SparkSession

out = os.path.dirname(os.path.abspath(__file__))
logdir = os.path.join(out, "eventlog_v2")
shutil.rmtree(logdir, ignore_errors=True)
os.makedirs(logdir)
spark = (SparkSession.builder.master("local[1]")
         .config("spark.eventLog.enabled", "true")
         .config("spark.eventLog.dir", logdir)
         .config("spark.eventLog.compress", "false")
         .config("spark.eventLog.rolling.enabled", "false")
         .config("spark.sql.ui.explainMode", "extended")
         .config("spark.sql.sources.useV1SourceList", "")
         .config("spark.ui.enabled", "false")
         .getOrCreate())
data = os.path.join(out, "data")
spark.read.parquet(os.path.join(data, "t")).createOrReplaceTempView("t")
spark.read.parquet(os.path.join(data, "u")).createOrReplaceTempView("u")
spark.sql("select t.id, u.k2 from t join u on t.k = u.k2 where t.id > 3").collect()
spark.stop()
(log,) = glob.glob(os.path.join(logdir, "*"))
for line in open(log):
    e = json.loads(line)
    if e["Event"].endswith("SQLExecutionStart"):
        with open(os.path.join(out, "cases", f"v2_exec{e['executionId']:02d}.txt"), "w") as f:
            f.write(e["physicalPlanDescription"])
print("ok")
