"""Check that the planner's DDL statements parse with Spark 4.0.1's own SQL parser.

Usage: python planner/scripts/check_ddl_parse.py [file.sql]
(default: the insta snapshot of planner/src/ddl.rs's test plan).

Needs pyspark 4.0.1 (pip install pyspark==4.0.1) and Java 17. Only parsing is
checked (`sessionState().sqlParser().parsePlan`): no table exists, nothing runs.

Spark's parser knows ALTER TABLE ... CLUSTER BY, CREATE OR REPLACE TABLE ...
USING delta CLUSTER BY (...) AS SELECT and ANALYZE TABLE. `OPTIMIZE t FULL`
is Delta's own statement (DeltaSqlBase.g4, Delta 3.3+): plain Spark must
reject it, which this script also checks, so a Delta-less session is never
mistaken for a check of that line.
"""

import pathlib
import re
import sys

from pyspark.sql import SparkSession

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT = HERE.parent / "src" / "snapshots" / "planner__ddl__tests__ddl_snapshot.snap"


def statements(text: str):
    # The snapshot header ends at the second '---' line; then SQL with '--' comments.
    if text.startswith("---"):
        text = text.split("\n---\n", 1)[1]
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() for s in body.split(";") if s.strip()]


def main() -> int:
    path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    stmts = statements(path.read_text())
    spark = SparkSession.builder.master("local[1]").appName("ddl-parse").getOrCreate()
    parser = spark._jsparkSession.sessionState().sqlParser()
    failures = 0
    for sql in stmts:
        is_optimize = re.match(r"(?i)^OPTIMIZE\b", sql) is not None
        try:
            plan = parser.parsePlan(sql)
            node = plan.getClass().getSimpleName()
            if is_optimize:
                print(f"UNEXPECTED (plain Spark parsed a Delta-only statement): {sql}")
                failures += 1
            else:
                print(f"ok  {node:<28} {sql[:100]}")
        except Exception as e:  # py4j wraps ParseException
            if is_optimize:
                print(f"ok  (Delta-only, rejected by plain Spark as expected) {sql}")
            else:
                print(f"FAIL {sql}\n     {str(e).splitlines()[0]}")
                failures += 1
    spark.stop()
    print(f"{len(stmts)} statements, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
