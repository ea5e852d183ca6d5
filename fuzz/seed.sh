#!/usr/bin/env bash
# Build the seed corpora under fuzz/corpus/<target>/ from the real Spark logs
# of the repository (../tests/data/spark-logs and ../samples). The corpus is gitignored; re-run
# this before fuzzing. Seeds are real log text, cut into lines, plans,
# expressions and file prefixes -- nothing is invented.
set -euo pipefail
cd "$(dirname "$0")"
LOGS=${LOGS:-../tests/data/spark-logs}
SAMPLES=${SAMPLES:-../samples}
rm -rf corpus/dispatch corpus/plan_text corpus/read_app
mkdir -p corpus/dispatch corpus/plan_text corpus/read_app

python3 - "$LOGS" "$SAMPLES" <<'PY'
import glob, gzip, hashlib, json, os, subprocess, sys

logs, samples = sys.argv[1], sys.argv[2]
MAX = 64 * 1024  # libFuzzer -max_len used by the runs

def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    if not data:
        return
    data = data[:MAX]
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join("corpus", target, name), "wb") as f:
        f.write(data)

def zstd_d(path):
    return subprocess.run(["zstd", "-dcq", path], check=True, capture_output=True).stdout

default = zstd_d(glob.glob(f"{logs}/tpch-default/eventlog_v2_*/events_1_*.zstd")[0])
extended = zstd_d(glob.glob(f"{logs}/tpch-extended/local-*.zst")[0])
weekly = [zstd_d(p) for p in sorted(glob.glob(f"{samples}/weekly/eventlog_v2_*/events_*.zstd"))[:1]]

# dispatch: every line of kinds seen rarely, a sample of frequent kinds,
# and a few runs of consecutive lines.
seen = {}
for log in [default, extended] + weekly:
    lines = log.split(b"\n")
    for i, l in enumerate(lines):
        if not l:
            continue
        try:
            ev = json.loads(l)["Event"]
        except Exception:
            continue
        n = seen.get(ev, 0)
        seen[ev] = n + 1
        if n < 8:
            put("dispatch", l)
    for i in range(0, len(lines), 200):
        put("dispatch", b"\n".join(lines[i:i + 6]))

# plan_text: formatted plans (tpch-default), extended descriptions
# (tpch-extended), sparkPlanInfo JSON, TreeNode JSON, and expressions from
# formatted detail blocks.
def plan_events(log):
    for l in log.split(b"\n"):
        if b"physicalPlanDescription" not in l[:200] and b"SparkListenerSQL" not in l[:100]:
            continue
        try:
            v = json.loads(l)
        except Exception:
            continue
        if "physicalPlanDescription" in v:
            yield v

for v in plan_events(default):
    text = v["physicalPlanDescription"]
    put("plan_text", text)
    put("plan_text", json.dumps(v.get("sparkPlanInfo")))
    for line in text.splitlines():
        line = line.strip()
        for pre in ("Condition : ", "Join condition: ", "Output ", "Results ", "Aggregate Attributes ",
                    "Left keys ", "Right keys ", "Keys ", "Functions "):
            if line.startswith(pre):
                put("plan_text", line.split(": ", 1)[-1])
for v in plan_events(extended):
    put("plan_text", v["physicalPlanDescription"])
for l in zstd_d(f"{logs}/tpch-plans.jsonl.zst").decode().splitlines():
    v = json.loads(l)
    for k in ("analyzed", "optimized"):
        s = json.dumps(v[k])
        if len(s) <= MAX:
            put("plan_text", s)

# read_app: selector byte (codec index; 0x80 = in progress) + file bytes.
# Codec indices: 0 none, 1 zstd, 2 lz4, 3 snappy, 4 lzf, 5 gzip.
head = b"\n".join(default.split(b"\n")[:40]) + b"\n"
put("read_app", b"\x00" + head)
put("read_app", b"\x01" + subprocess.run(["zstd", "-1", "-c"], input=head, check=True, capture_output=True).stdout)
put("read_app", b"\x05" + gzip.compress(head))
for sel, pattern in [(2, "spark4-lz4/*/events_*.lz4"), (2, "spark35-lz4/*.lz4"),
                     (3, "spark4-snappy/*/events_*.snappy"), (4, "spark4-lzf/*/events_*.lzf"),
                     (1, "spark4-zstd/*/events_*.zstd"), (0x81, "spark4-inprogress-zstd/*.inprogress"),
                     (0x80, "spark4-inprogress/*-cut.inprogress")]:
    for p in glob.glob(f"{samples}/{pattern}"):
        raw = open(p, "rb").read()
        for cut in (4096, 16384, MAX - 1):
            put("read_app", bytes([sel]) + raw[:cut])
PY
# Table metadata targets: real metadata files of the fixture tables
# (../tests/data/tables, ../samples/warehouse), whole.
TABLES=${TABLES:-../tests/data/tables}
WAREHOUSE=${WAREHOUSE:-../samples/warehouse}
TT="table_delta_commit table_checkpoint table_iceberg_metadata table_avro_manifest table_dv_blob table_puffin table_data_file"
for t in $TT; do rm -rf "corpus/$t"; mkdir -p "corpus/$t"; done
seed() { for f in "${@:2}"; do cp "$f" "corpus/$1/$(sha1sum "$f" | cut -c1-40)"; done; }
seed table_delta_commit $(find "$TABLES" "$WAREHOUSE" -path '*_delta_log/*.json' -size -64k | sort | head -200)
seed table_checkpoint $(find "$TABLES" "$WAREHOUSE" -name '*.checkpoint*.parquet' | sort)
seed table_iceberg_metadata $(find "$TABLES" "$WAREHOUSE" -name '*.metadata.json' -size -64k | sort)
# table_avro_manifest: selector byte + file (the target picks the file by it).
i=0
for f in $(find "$TABLES" "$WAREHOUSE" -path '*metadata/*.avro' | sort); do
    { printf "\\$(printf %03o $((i % 256)))"; cat "$f"; } > "corpus/table_avro_manifest/$(sha1sum "$f" | cut -c1-40)"
    i=$((i + 1))
done
seed table_dv_blob $(find "$TABLES" "$WAREHOUSE" -name 'deletion_vector_*.bin' | sort)
seed table_puffin $(find "$TABLES" "$WAREHOUSE" -name '*.puffin' | sort)
# table_data_file: real data files (deltalake, pyiceberg, pyarrow's empty
# table), the smaller ones of the fixtures.
seed table_data_file $(find "$TABLES" "$WAREHOUSE" ../tests/data/skipping ../tests/data/records -name '*.parquet' -not -name '*checkpoint*' -size -128k | sort | head -200)
# records_file: records Parquet files lakeaudit itself writes (`queries
# --format parquet`, the --records layout) for sample logs, and the
# zero-row file pyarrow wrote. LAKEAUDIT: the binary (default: on PATH).
LAKEAUDIT=${LAKEAUDIT:-lakeaudit}
rm -rf corpus/records_file corpus/aggregates_file base/aggregates
mkdir -p corpus/records_file corpus/aggregates_file base
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for s in spark4-plain weekly spark4-zstd spark35-lz4; do
    "$LAKEAUDIT" queries "$SAMPLES/$s" --format parquet -o "$scratch/$s.parquet" 2>/dev/null || true
done
seed records_file "$scratch"/*.parquet ../tests/data/records/empty-pyarrow.parquet
# aggregates_file: base/aggregates/ is what spark/lakeaudit_aggregate.py
# writes from the Spark map's records of the samples (PYTHON: a Python
# with pyspark; Java 17 on PATH); the seeds are a selector byte (the table,
# in the order the target lists them) and one of its Parquet files.
PYTHON=${PYTHON:-python3}
if "$PYTHON" -c 'import pyspark' 2>/dev/null; then
    "$PYTHON" ../spark/lakeaudit_map.py --master 'local[2]' --binary "$(command -v "$LAKEAUDIT")" \
        --out "$scratch/records" "$SAMPLES" 2> "$scratch/map.log"
    "$PYTHON" ../spark/lakeaudit_aggregate.py --master 'local[2]' --window 7d \
        --out base/aggregates "$scratch/records" 2> "$scratch/agg.log"
    # Spark's side files (_SUCCESS, .crc) are not read by lakeaudit.
    find base/aggregates -name '.*.crc' -delete
    i=0
    for f in $(cd base/aggregates && find . -name '*.parquet' | LC_ALL=C sort); do
        { printf "\\$(printf %03o $((i % 256)))"; cat "base/aggregates/$f"; } \
            > "corpus/aggregates_file/$(sha1sum "base/aggregates/$f" | cut -c1-40)"
        i=$((i + 1))
    done
else
    echo "aggregates_file: no pyspark in $PYTHON; base/aggregates not made" >&2
fi
for t in dispatch plan_text read_app $TT records_file aggregates_file; do
    echo "corpus/$t: $(ls corpus/$t | wc -l) seeds"
done
