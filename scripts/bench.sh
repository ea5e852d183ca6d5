#!/usr/bin/env bash
# End-to-end benchmark of log reading (`make bench` runs it).
#
#   scripts/bench.sh [LOG]
#
# LOG defaults to target/bench/big-eventlog, a real task-heavy Spark 4.0.1
# event log made by scripts/make_bench_log.py (with pyspark) if missing.
# The plan-heavy log (BENCH_PLAN_LOG, default target/bench/plan-eventlog:
# TPC-H with AQE, plan updates about half its bytes) is made by
# scripts/make_plan_bench_log.py if missing, from TPC-H SF 1 Parquet files
# (target/bench-skipping/sf1/raw-sf1, as `make bench-skipping` writes them;
# generated here with tpchgen-cli when missing). Python: $SPARK_PYTHON, else
# python3 if it has pyspark, else the pinned venv of scripts/skipping
# (.venv/skipping, pyspark 4.0.1 and tpchgen-cli; made when missing).
#
# First the figure that does not depend on the machine's speed or load, for
# each log shape: the ratio of `lakeaudit --threads N queries LOG -o
# /dev/null` to the decompression floor `zstd -dc <LOG's files> >
# /dev/null`, N = 1 and 2, timed in the same run, interleaved, best of
# BENCH_RATIO_RUNS (7) each (zstd logs only). Then absolute figures: `lakeaudit queries LOG -o /dev/null`
# with --threads 1 and with the
# default thread count: best wall time of BENCH_RUNS (3) runs, MB/s of
# DECOMPRESSED log bytes, peak RSS (GNU time's "Maximum resident set size").
# Then the same on a directory of BENCH_COPIES (8) hard-linked copies of LOG,
# to show the parallel speed-up across applications (one application is read
# by one thread).
#
# Environment:
#   BENCH_TOOL=lakeaudit  (default) build and run the binary of the `profiling` profile (release code with line tables); if the
#                         build fails, fall back to the example below.
#   BENCH_TOOL=example    run `parsers/examples/read_bench.rs` (discover +
#                         read_records per application with rayon: the same
#                         reading path, without lineage and output).
#   BENCH_PLAN_LOG        the plan-heavy log (see above).
#   BENCH_RUNS, BENCH_RATIO_RUNS, BENCH_COPIES, CARGO_TARGET_DIR, CARGO (as usual).
#   BENCH_AUTOGROUP_NICE=-15  on a machine shared with other work: run the
#                         measurements in a session of their own whose
#                         scheduler autogroup gets this nice value (negative
#                         needs root), so that the other sessions' load
#                         disturbs the wall times less. Plain `nice` does not
#                         help there: with autogroups, the CPU is shared
#                         between sessions first.
set -euo pipefail

cd "$(dirname "$0")/.."
if [ -n "${BENCH_AUTOGROUP_NICE:-}" ] && [ -z "${BENCH_IN_SESSION:-}" ]; then
    BENCH_IN_SESSION=1 exec setsid --wait "$0" "$@"
fi
DEFAULT_LOG=target/bench/big-eventlog
LOG=${1:-$DEFAULT_LOG}
PLAN_LOG=${BENCH_PLAN_LOG:-target/bench/plan-eventlog}
TOOL=${BENCH_TOOL:-lakeaudit}
RUNS=${BENCH_RUNS:-3}
RATIO_RUNS=${BENCH_RATIO_RUNS:-7}
COPIES=${BENCH_COPIES:-8}
CARGO=${CARGO:-cargo}
TARGET=${CARGO_TARGET_DIR:-target}
CORES=$(nproc)

die() { echo "bench.sh: $*" >&2; exit 2; }
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) is needed for peak RSS"

# 1. The program to measure.
if [ "$TOOL" = lakeaudit ]; then
    if "$CARGO" build --profile profiling --bin lakeaudit; then
        BIN="$TARGET/profiling/lakeaudit"
    else
        echo "bench.sh: the release binary does not build; measuring the read_bench example instead" >&2
        TOOL=example
    fi
fi
if [ "$TOOL" = example ]; then
    "$CARGO" build --profile profiling -p lakeaudit-parsers --example read_bench
    BIN="$TARGET/profiling/examples/read_bench"
fi
[ -x "$BIN" ] || die "no program at $BIN"
export BIN TOOL

# Run the measured command: $1 = threads ("" for the default), rest = paths.
run_once() {
    local threads=$1
    shift
    local targs=()
    [ -n "$threads" ] && targs=(--threads "$threads")
    if [ "$TOOL" = lakeaudit ]; then
        "$BIN" "${targs[@]}" queries "$@" -o /dev/null
    else
        "$BIN" "${targs[@]}" "$@" >/dev/null
    fi
}
export -f run_once

# 2. The logs, made with real pyspark when missing.
SKIP_VENV=.venv/skipping
skipping_venv() { # the venv and pins of scripts/skipping/run.sh
    local req=scripts/skipping/requirements.txt
    if [ ! -x "$SKIP_VENV/bin/python" ] || ! cmp -s "$req" "$SKIP_VENV/.bench-skipping-requirements"; then
        python3 -m venv "$SKIP_VENV"
        "$SKIP_VENV/bin/pip" install -q -r "$req"
        cp "$req" "$SKIP_VENV/.bench-skipping-requirements"
    fi
}
spark_python() { # an interpreter with pyspark
    if [ -n "${SPARK_PYTHON:-}" ]; then
        echo "$SPARK_PYTHON"
    elif python3 -c 'import pyspark' 2>/dev/null; then
        echo python3
    else
        skipping_venv >&2
        echo "$SKIP_VENV/bin/python"
    fi
}
if [ ! -e "$LOG" ] || [ "$LOG" = "$DEFAULT_LOG" ]; then
    [ "$LOG" = "$DEFAULT_LOG" ] || die "$LOG does not exist"
    python3 scripts/make_bench_log.py --out "$LOG" --python "$(spark_python)"
fi
RAW=target/bench-skipping/sf1/raw-sf1
if [ ! -e "$PLAN_LOG" ]; then
    if [ ! -f "$RAW/lineitem.parquet" ]; then
        skipping_venv
        "$SKIP_VENV/bin/tpchgen-cli" parquet -s 1 --output-dir "$RAW" --no-progress -q
    fi
    python3 scripts/make_plan_bench_log.py --out "$PLAN_LOG" --raw "$RAW" --python "$(spark_python)"
fi

# 3. Decompressed bytes, computed once. Codec by extension, as Spark names
# its files; markers and checksum side files are skipped.
decompressed_bytes() {
    local total=0 n f
    while IFS= read -r -d '' f; do
        case "$(basename "$f")" in
            .* | appstatus_* | *.crc) continue ;;
        esac
        case "${f%.inprogress}" in
            *.zstd | *.zst) n=$(zstd -dcq "$f" | wc -c) ;;
            *.gz) n=$(gzip -dc "$f" | wc -c) ;;
            *.lz4 | *.snappy | *.lzf) die "no command-line decoder for $f (use a zstd or plain log)" ;;
            *) n=$(stat -c %s "$f") ;;
        esac
        total=$((total + n))
    done < <(find -L "$1" -type f -print0)
    echo "$total"
}
BYTES=$(decompressed_bytes "$LOG")
[ "$BYTES" -gt 0 ] || die "no log bytes in $LOG"

# The build is done: from here on, the session's priority (if asked for).
if [ -n "${BENCH_IN_SESSION:-}" ]; then
    echo "$BENCH_AUTOGROUP_NICE" >/proc/self/autogroup ||
        echo "bench.sh: could not set the autogroup nice value" >&2
fi

# 4. The ratio to the decompression floor. Every round times zstd, then
# --threads 1, then --threads 2, so that a change in the machine's load hits
# all three alike; the best wall time and the best CPU time (user + system)
# of each are kept. On a shared machine the wall ratio swings with the load;
# the CPU ratio much less. `zstd -dc` reads the log's files in Spark's order
# (rolling parts by index), as lakeaudit does.
log_files() {
    find -L "$1" -type f ! -name '.*' ! -name 'appstatus_*' ! -name '*.crc' -print0 |
        sort -z -V
}
timed() { # prints "wall cpu" seconds of "$@", its output discarded
    local TIMEFORMAT='%3R %3U %3S' out
    out=$({ time "$@" >/dev/null 2>&1; } 2>&1) || die "failed: $*"
    awk '{ printf "%s %.3f", $1, $2 + $3 }' <<<"$out"
}
best() { # best (wall, cpu) so far: $1 = "wall cpu" or "", $2 = "wall cpu"
    awk -v a="$1" -v b="$2" 'BEGIN {
        n = split(a, x, " "); split(b, y, " ")
        if (n == 0) { print b; exit }
        printf "%s %s", (y[1] < x[1] ? y[1] : x[1]), (y[2] < x[2] ? y[2] : x[2]) }'
}
RATIO_LINES=()
# The ratio table of one log: $1 = its label, $2 = the log.
ratio() {
    local label=$1 log=$2 bytes z="" t1="" t2="" i load
    local -a files
    mapfile -d '' files < <(log_files "$log")
    if [ "$TOOL" != lakeaudit ] || [ "${#files[@]}" -eq 0 ] || ! zstd -tq "${files[@]}" 2>/dev/null; then
        RATIO_LINES+=("Ratio to the zstd floor, $label log: skipped (needs the lakeaudit binary and a zstd log at $log)" "")
        return
    fi
    bytes=$(decompressed_bytes "$log")
    for ((i = 0; i < RATIO_RUNS; i++)); do
        z=$(best "$z" "$(timed zstd -dcq "${files[@]}")")
        t1=$(best "$t1" "$(timed run_once 1 "$log")")
        t2=$(best "$t2" "$(timed run_once 2 "$log")")
    done
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    [ -n "${BENCH_IN_SESSION:-}" ] && load="$load, own session at autogroup nice $BENCH_AUTOGROUP_NICE"
    mapfile -t -O "${#RATIO_LINES[@]}" RATIO_LINES < <(awk -v z="$z" -v a="$t1" -v b="$t2" -v n="$bytes" \
        -v r="$RATIO_RUNS" -v l="$load" -v c="$CORES" -v s="$label" 'BEGIN {
        split(z, Z, " "); split(a, A, " "); split(b, B, " ")
        printf "Ratio to the zstd floor, %s log, best of %d interleaved runs (%.1f MB decompressed, %d cores, load average %s):\n", s, r, n / 1e6, c, l
        printf "| %-44s | %7s | %6s | %7s | %6s |\n", "command", "wall s", "ratio", "cpu s", "ratio"
        printf "|%s|%s|%s|%s|%s|\n", "----------------------------------------------", "---------", "--------", "---------", "--------"
        printf "| %-44s | %7.3f | %6.2f | %7.3f | %6.2f |\n", "zstd -dc > /dev/null", Z[1], 1, Z[2], 1
        printf "| %-44s | %7.3f | %6.2f | %7.3f | %6.2f |\n", "lakeaudit --threads 1 queries -o /dev/null", A[1], A[1] / Z[1], A[2], A[2] / Z[2]
        printf "| %-44s | %7.3f | %6.2f | %7.3f | %6.2f |\n", "lakeaudit --threads 2 queries -o /dev/null", B[1], B[1] / Z[1], B[2], B[2] / Z[2]
        print "" }')
}
ratio task-heavy "$LOG"
ratio plan-heavy "$PLAN_LOG"
printf '%s\n' "${RATIO_LINES[@]}" >&2

# 5. Measure: best wall time of RUNS, highest peak RSS.
ROWS=()
measure() {
    local label=$1 threads=$2 bytes=$3
    shift 3
    local best="" rss=0 out i wall kb
    out=$(mktemp)
    for ((i = 0; i < RUNS; i++)); do
        /usr/bin/time -v -o "$out" bash -c 'run_once "$@"' _ "$threads" "$@" \
            || { cat "$out" >&2; die "$label: run failed"; }
        # "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:01.23"
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {
                 n = split($2, p, ":"); s = 0
                 for (j = 1; j <= n; j++) s = s * 60 + p[j]
                 print s }' "$out")
        kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out")
        if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$wall; fi
        [ "$kb" -gt "$rss" ] && rss=$kb
    done
    rm -f "$out"
    local used=${threads:-$CORES}
    ROWS+=("$(awk -v l="$label" -v t="$used" -v b="$bytes" -v s="$best" -v r="$rss" 'BEGIN {
        mbs = b / 1e6 / s
        printf "| %-28s | %7s | %10.1f | %8.2f | %8.0f | %12.0f | %8.0f |", l, t, b / 1e6, s, mbs, mbs / t, r / 1024 }')")
}

echo "bench.sh: $TOOL ($BIN), log $LOG: $BYTES decompressed bytes, $CORES cores, best of $RUNS" >&2
measure "one log, --threads 1" 1 "$BYTES" "$LOG"
measure "one log, default threads" "" "$BYTES" "$LOG"

# 6. Many applications: hard-linked copies (no extra disk, same bytes).
MULTI="target/bench/multi-$COPIES"
rm -rf "$MULTI"
mkdir -p "$MULTI"
for ((i = 1; i <= COPIES; i++)); do
    mkdir -p "$MULTI/copy$i"
    cp -al "$LOG" "$MULTI/copy$i/"
done
measure "$COPIES logs, --threads 1" 1 $((BYTES * COPIES)) "$MULTI"
measure "$COPIES logs, default threads" "" $((BYTES * COPIES)) "$MULTI"

echo
echo "| input                        | threads | decomp. MB | best s   | MB/s     | MB/s per thr | peak MiB |"
echo "|------------------------------|---------|------------|----------|----------|--------------|----------|"
printf '%s\n' "${ROWS[@]}"
echo
printf '%s\n' "${RATIO_LINES[@]}"
