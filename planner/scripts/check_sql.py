"""Parse lakeaudit's statements with Spark's own parsers.

Usage:
  python planner/scripts/check_sql.py spark   [FILE.sql ...]   (pyspark 4.0.1)
  python planner/scripts/check_sql.py iceberg [FILE.sql ...]   (pyspark 3.5.6 and
      the PyPI package snowpark-connect-deps-iceberg, which ships Iceberg
      1.10.2's iceberg-spark-runtime-3.5_2.12 jar)

Default files: the insta snapshots of planner/src/ddl.rs (one Delta plan, and
the same plan on Delta, Iceberg and Parquet tables). Statements are split at
`;` outside strings, backquoted names and comments; `-- prerequisite: X;`
lines are statements too. Only parsing is checked (`sqlParser().parsePlan`):
no table exists, nothing runs.

What each parser is asked:
- spark: Spark 4.0.1's parser must parse ALTER TABLE .. CLUSTER BY,
  CREATE OR REPLACE .. CLUSTER BY .. AS SELECT, ANALYZE TABLE, SET
  TBLPROPERTIES and CALL (Spark 4.0 parses CALL itself). Delta's OPTIMIZE /
  REORG / CONVERT TO DELTA and Iceberg's ALTER TABLE .. WRITE / ADD|DROP
  PARTITION FIELD must be rejected (so a session without the extensions is
  never taken for a check of them); the WHERE predicate of OPTIMIZE/REORG and
  the `where` argument of rewrite_data_files are parsed with Spark's
  expression parser (Delta and Iceberg hand them to Spark's parser the same
  way).
- iceberg: with IcebergSparkSessionExtensions, Iceberg's own parser must
  parse every Iceberg statement (WRITE ORDERED BY, ADD/DROP PARTITION FIELD,
  CALL); the sort_order argument of rewrite_data_files is parsed with
  Iceberg's parseSortOrder.
Delta's extension statements have no parser here (no PyPI package ships the
delta-spark jar; delta-spark's wheel is Python only): lakeaudit's Rust
checker (planner/sql/src/check.rs, from DeltaSqlBase.g4) covers them.
"""

import glob
import os
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
SNAPS = HERE.parent / "src" / "snapshots"
DEFAULT = [
    SNAPS / "planner__ddl__tests__ddl_snapshot.snap",
    SNAPS / "planner__ddl__tests__ddl_by_format.snap",
]


def split(text):
    """Statements of a script: `;` outside '..', "..", `..` and comments."""
    if text.startswith("---"):
        text = text.split("\n---\n", 1)[1]
    text = re.sub(r"(?m)^-- prerequisite: ", "", text)
    out, cur, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c in "'\"`":
            j = i + 1
            while j < n:
                if c != "`" and text[j] == "\\":
                    j += 2
                    continue
                if text[j] == c:
                    if c == "`" and text.startswith("``", j):
                        j += 2
                        continue
                    break
                j += 1
            cur.append(text[i : j + 1])
            i = j + 1
            continue
        if c == ";":
            s = "".join(cur).strip()
            if s:
                out.append(s)
            cur = []
        else:
            cur.append(c)
        i += 1
    s = "".join(cur).strip()
    if s:
        out.append(s)
    return out


def kind(sql):
    u = sql.upper()
    if re.match(r"(OPTIMIZE|REORG|CONVERT\s+TO\s+DELTA)\b", u):
        return "delta-ext"
    if re.match(r"ALTER\s+TABLE\b", u) and re.search(
        r"\s(WRITE\s+(LOCALLY\s+)?ORDERED|(ADD|DROP)\s+PARTITION\s+FIELD)\s", u + " "
    ):
        return "iceberg-ext"
    if u.startswith("CALL"):
        return "call"
    return "spark"


def predicate(sql):
    """The WHERE text of an OPTIMIZE/REORG (up to APPLY/ZORDER/the end)."""
    m = re.search(r"\bWHERE\b(.*?)(\bAPPLY\b|\bZORDER\b|$)", sql, re.S | re.I)
    return m.group(1).strip() if m else None


def session(mode):
    from pyspark.sql import SparkSession

    b = SparkSession.builder.master("local[1]").appName("lakeaudit-sql-check")
    if mode == "iceberg":
        import snowpark_connect_deps_iceberg as d

        jars = glob.glob(
            os.path.join(os.path.dirname(d.__file__), "jars", "iceberg-spark-runtime-3.5_2.12-*.jar")
        )
        if not jars:
            raise SystemExit("check_sql: no iceberg-spark-runtime-3.5_2.12 jar in snowpark-connect-deps-iceberg")
        b = b.config("spark.jars", jars[0]).config(
            "spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
        )
    return b.getOrCreate()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "spark"
    if mode not in ("spark", "iceberg"):
        raise SystemExit(__doc__)
    files = [pathlib.Path(p) for p in sys.argv[2:]] or DEFAULT
    stmts = [s for f in files for s in split(f.read_text())]
    spark = session(mode)
    spark.sparkContext.setLogLevel("ERROR")
    parser = spark._jsparkSession.sessionState().sqlParser()
    print(f"check_sql ({mode}): {parser.getClass().getName()}, Spark {spark.version}")
    fails = checked = 0

    def parses(s):
        try:
            return parser.parsePlan(s).getClass().getSimpleName(), None
        except Exception as e:  # py4j wraps ParseException
            return None, str(e).splitlines()[0]

    for s in stmts:
        k = kind(s)
        if mode == "spark":
            node, err = parses(s)
            if k in ("delta-ext", "iceberg-ext"):
                if node:
                    print(f"FAIL plain Spark parsed an extension statement: {s}")
                    fails += 1
                    continue
                p = predicate(s) if k == "delta-ext" else None
                if p:
                    try:
                        parser.parseExpression(p)
                        print(f"ok  predicate of {s[:70]}")
                        checked += 1
                    except Exception as e:
                        print(f"FAIL predicate {p}\n     {str(e).splitlines()[0]}")
                        fails += 1
                else:
                    print(f"--  {k}, not Spark's grammar (rejected as expected): {s[:80]}")
                continue
            if node:
                print(f"ok  {node:<34} {s[:90]}")
                checked += 1
            else:
                print(f"FAIL {s}\n     {err}")
                fails += 1
            # rewrite_data_files' `where` is a filter Spark's expression
            # parser reads (Iceberg's SparkExpressionConverter converts it).
            m = re.search(r"where => '((?:[^'\\]|\\.)*)'", s)
            if k == "call" and m:
                where = re.sub(r"\\(.)", r"\1", m.group(1))
                try:
                    parser.parseExpression(where)
                    print(f"ok  {'where':<34} {where[:80]}")
                    checked += 1
                except Exception as e:
                    print(f"FAIL where {where}\n     {str(e).splitlines()[0]}")
                    fails += 1
        else:
            if k not in ("iceberg-ext", "call"):
                continue
            node, err = parses(s)
            if not node:
                print(f"FAIL {s}\n     {err}")
                fails += 1
                continue
            print(f"ok  {node:<34} {s[:90]}")
            checked += 1
            m = re.search(r"sort_order => '((?:[^'\\]|\\.)*)'", s)
            if m:
                order = re.sub(r"\\(.)", r"\1", m.group(1))
                try:
                    parser.parseSortOrder(order)
                    print(f"ok  {'sort_order':<34} {order}")
                    checked += 1
                except Exception as e:
                    print(f"FAIL sort_order {order}\n     {str(e).splitlines()[0]}")
                    fails += 1
    spark.stop()
    print(f"{checked} passed, {fails} failed")
    return 1 if fails or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
