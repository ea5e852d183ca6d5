#!/usr/bin/env bash
# A working Spark 3.5 + Apache Iceberg 1.10.2 runtime from the package registry alone.
#
# PyPI's snowpark-connect-deps-iceberg 1.0.3 carries iceberg-spark-runtime-3.5 1.10.2, but without
# the shaded Jackson classes it needs (org.apache.iceberg.shaded.com.fasterxml.jackson.*): creating a
# table fails with NoClassDefFoundError ...JsonFactoryBuilder. This script relocates pyspark's own
# Jackson 2.15 jars into that package name (relocate_jackson.py rewrites the class files' constant
# pools) and adds them to the runtime jar in place (patch_runtime.py, idempotent).
#
# usage: setup.sh VENV      (creates VENV if missing; prints the jar to put on spark.jars)
set -euo pipefail
V=${1:?usage: setup.sh VENV}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$V/bin/python" ] || python3 -m venv "$V"
"$V/bin/pip" install -q pyspark==3.5.6 snowpark-connect-deps-iceberg==1.0.3
site=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
jars=$site/pyspark/jars
shaded=$V/iceberg-shaded-jackson.jar
[ -f "$shaded" ] || python3 "$here/relocate_jackson.py" "$shaded" \
  "$jars"/jackson-core-2.*.jar "$jars"/jackson-databind-2.*.jar "$jars"/jackson-annotations-2.*.jar "$jars"/jackson-datatype-jsr310-2.*.jar
for rt in "$site"/snowpark_connect_deps_iceberg/jars/iceberg-spark-runtime-3.5_2.1*-1.10.2.jar; do
  python3 "$here/patch_runtime.py" "$rt" "$shaded" >&2
done
# pyspark 3.5 is Scala 2.12
ls "$site"/snowpark_connect_deps_iceberg/jars/iceberg-spark-runtime-3.5_2.12-1.10.2.jar
