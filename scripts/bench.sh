#!/usr/bin/env bash
# End-to-end benchmark of log reading (`make bench` runs it).
#
#   scripts/bench.sh [LOG]
#
# LOG defaults to target/bench/big-eventlog, a real task-heavy Spark 4.0.1
# event log made by scripts/make_bench_log.py (with pyspark) if missing.
# Measures `lakeaudit queries LOG -o /dev/null` with --threads 1 and with the
# default thread count: best wall time of BENCH_RUNS (3) runs, MB/s of
# DECOMPRESSED log bytes, peak RSS (GNU time's "Maximum resident set size").
# Then the same on a directory of BENCH_COPIES (8) hard-linked copies of LOG,
# to show the parallel speed-up across applications (one application is read
# by one thread).
#
# Environment:
#   BENCH_TOOL=lakeaudit  (default) build and run the release binary; if the
#                         build fails, fall back to the example below.
#   BENCH_TOOL=example    run `parsers/examples/read_bench.rs` (discover +
#                         read_records per application with rayon: the same
#                         reading path, without lineage and output).
#   BENCH_RUNS, BENCH_COPIES, CARGO_TARGET_DIR, CARGO (as usual).
set -euo pipefail

cd "$(dirname "$0")/.."
DEFAULT_LOG=target/bench/big-eventlog
LOG=${1:-$DEFAULT_LOG}
TOOL=${BENCH_TOOL:-lakeaudit}
RUNS=${BENCH_RUNS:-3}
COPIES=${BENCH_COPIES:-8}
CARGO=${CARGO:-cargo}
TARGET=${CARGO_TARGET_DIR:-target}
CORES=$(nproc)

die() { echo "bench.sh: $*" >&2; exit 2; }
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) is needed for peak RSS"

# 1. The program to measure.
if [ "$TOOL" = lakeaudit ]; then
    if "$CARGO" build --release --bin lakeaudit; then
        BIN="$TARGET/release/lakeaudit"
    else
        echo "bench.sh: the release binary does not build; measuring the read_bench example instead" >&2
        TOOL=example
    fi
fi
if [ "$TOOL" = example ]; then
    "$CARGO" build --release -p lakeaudit-parsers --example read_bench
    BIN="$TARGET/release/examples/read_bench"
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

# 2. The log.
if [ ! -e "$LOG" ] || [ "$LOG" = "$DEFAULT_LOG" ]; then
    [ "$LOG" = "$DEFAULT_LOG" ] || die "$LOG does not exist"
    python3 scripts/make_bench_log.py --out "$LOG" --python "${SPARK_PYTHON:-python3}"
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

# 4. Measure: best wall time of RUNS, highest peak RSS.
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

# 5. Many applications: hard-linked copies (no extra disk, same bytes).
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
