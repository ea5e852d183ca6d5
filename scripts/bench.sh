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
# First the figures that do not depend on the machine's speed or load, for
# each log shape in three encodings (Spark's own zstd, the log decompressed
# to one plain file, and that file compressed with `zstd -3`): the ratio of
# `lakeaudit --threads N queries --format jsonl LOG -o /dev/null` (N = 1, 2) to the
# decompression floor `zstd -dc` of the same text, wall and CPU, medians of
# BENCH_RATIO_RUNS (7) paired rounds, with MB/s per core and peak RSS (also
# written to target/bench/ratios.md). Then absolute figures on the task-heavy
# log as Spark wrote it: `lakeaudit queries --format jsonl LOG -o /dev/null`
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
#   BENCH_BIN=PATH        measure this lakeaudit binary (a release build
#                         already made) instead of building the profiling one.
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
if [ "$TOOL" = lakeaudit ] && [ -n "${BENCH_BIN:-}" ]; then
    BIN=$BENCH_BIN
elif [ "$TOOL" = lakeaudit ]; then
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
        "$BIN" "${targs[@]}" queries --format jsonl "$@" -o /dev/null
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
# make_plan_bench_log.py writes the log under OUT/log, beside its tables.
[ -d "$PLAN_LOG/log" ] && PLAN_LOG=$PLAN_LOG/log

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

# 4. The ratio to the decompression floor, for each log shape in three
# encodings: as Spark wrote it (zstd, a frame per flush), the decompressed
# log as one plain file, and that file compressed by the zstd CLI (`zstd -3`:
# one frame, full-size blocks, as logs are archived). The plain and CLI
# copies are made once under target/bench/encodings/ (remade when the log
# is newer). Every round times `zstd -dc` of the floor's files, then
# --threads 1, then --threads 2, so that a change in the machine's load hits
# all three alike; the table gives the medians over the rounds of each
# figure and of the per-round ratios (paired runs). The floor of the plain
# copy is `zstd -dc` of the CLI copy (the same text). MB/s per core = MB of
# decompressed log per CPU second (user + system); peak RSS from GNU time.
log_files() {
    find -L "$1" -type f ! -name '.*' ! -name 'appstatus_*' ! -name '*.crc' -print0 |
        sort -z -V
}
timed() { # prints "wall cpu peak_kib" of "$@", its output discarded
    local TIMEFORMAT='%3R %3U %3S' out rss
    rss=$(mktemp)
    out=$({ time /usr/bin/time -f '%M' -o "$rss" "$@" >/dev/null 2>&1; } 2>&1) ||
        { rm -f "$rss"; die "failed: $*"; }
    awk -v r="$(cat "$rss")" '{ printf "%s %.3f %s", $1, $2 + $3, r }' <<<"$out"
    rm -f "$rss"
}
# The plain and CLI-zstd copies of a Spark log: $1 = label, $2 = the log;
# prints the two paths (plain file, CLI zstd file).
encodings() {
    local label=$1 log=$2 dir app plain cli first
    local -a files
    mapfile -d '' files < <(log_files "$log")
    [ "${#files[@]}" -gt 0 ] || die "no log files in $log"
    first=$(basename "${files[0]}")
    # events_1_<app>.zstd in a rolling directory, <app>.zstd otherwise
    app=${first#events_*_}
    app=${app%.inprogress}
    app=${app%.*}
    dir=target/bench/encodings/$label
    plain=$dir/plain/$app
    cli=$dir/cli-zstd/$app.zstd
    if [ ! -s "$plain" ] || [ ! -s "$cli" ] || [ -n "$(find -L "$log" -newer "$cli" -print -quit)" ]; then
        mkdir -p "$dir/plain" "$dir/cli-zstd"
        zstd -dcq "${files[@]}" >"$plain"
        zstd -3 -q -f "$plain" -o "$cli"
    fi
    printf '%s\n%s\n' "$plain" "$cli"
}
RATIO_LINES=()
# $1 = shape label, $2 = encoding label, $3 = the log, $4... = the floor's zstd files.
ratio() {
    local shape=$1 enc=$2 log=$3 bytes i load rows
    shift 3
    bytes=$(decompressed_bytes "$log")
    rows=""
    for ((i = 0; i < RATIO_RUNS; i++)); do
        rows+="$(timed zstd -dcq "$@") $(timed bash -c 'run_once "$@"' _ 1 "$log") $(timed bash -c 'run_once "$@"' _ 2 "$log")"$'\n'
    done
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    [ -n "${BENCH_IN_SESSION:-}" ] && load="$load, own session at autogroup nice $BENCH_AUTOGROUP_NICE"
    RATIO_LINES+=("$(awk -v n="$bytes" -v s="$shape" -v e="$enc" -v l="$load" -v r="$RATIO_RUNS" '
        function median(a, k,   i, j, t) { # sorts a[1..k] in place
            for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
        NF == 9 { k++
            zw[k] = $1; zc[k] = $2
            w1[k] = $4; c1[k] = $5; m1[k] = $6; rw1[k] = $4 / $1; rc1[k] = $5 / $2
            w2[k] = $7; c2[k] = $8; m2[k] = $9; rw2[k] = $7 / $1; rc2[k] = $8 / $2
            if ($6 > p1) p1 = $6; if ($9 > p2) p2 = $9 }
        END {
            mb = n / 1e6
            Z = median(zw, k); ZC = median(zc, k)
            W1 = median(w1, k); C1 = median(c1, k); W2 = median(w2, k); C2 = median(c2, k)
            printf "| %-10s | %-11s | %7.1f | zstd -dc  | %6.3f | %6.3f | %5s | %5s | %7.0f | %8s |\n", s, e, mb, Z, ZC, "1", "1", mb / ZC, "-"
            printf "| %-10s | %-11s | %7.1f | 1 thread  | %6.3f | %6.3f | %5.2f | %5.2f | %7.0f | %8.1f |\n", s, e, mb, W1, C1, median(rw1, k), median(rc1, k), mb / C1, p1 / 1024
            printf "| %-10s | %-11s | %7.1f | 2 threads | %6.3f | %6.3f | %5.2f | %5.2f | %7.0f | %8.1f |", s, e, mb, W2, C2, median(rw2, k), median(rc2, k), mb / C2, p2 / 1024
        }' <<<"$rows")")
    RATIO_LOAD=$load
}
for shape in task-heavy plan-heavy; do
    if [ "$shape" = task-heavy ]; then src=$LOG; else src=$PLAN_LOG; fi
    mapfile -d '' spark_files < <(log_files "$src")
    if [ "${#spark_files[@]}" -eq 0 ] || ! zstd -tq "${spark_files[@]}" 2>/dev/null; then
        RATIO_LINES+=("| $shape | (not a zstd log: $src) |")
        continue
    fi
    mapfile -t enc < <(encodings "$shape" "$src")
    ratio "$shape" spark-zstd "$src" "${spark_files[@]}"
    ratio "$shape" cli-zstd "${enc[1]}" "${enc[1]}"
    ratio "$shape" plain "${enc[0]}" "${enc[1]}"
done
{
    echo "Ratio to the zstd floor ($TOOL): medians of $RATIO_RUNS paired rounds (zstd -dc, --threads 1, --threads 2 in turn); $CORES cores, load average at the end ${RATIO_LOAD:-?}."
    echo "MB = 10^6 bytes of decompressed log; ratios are per-round lakeaudit / zstd -dc, wall and CPU (user + system); the plain copy's floor is zstd -dc of the CLI copy."
    echo "| shape      | encoding    | MB      | command   | wall s | cpu s  | ratio wall | ratio cpu | MB/s per core | peak MiB |"
    echo "|------------|-------------|---------|-----------|--------|--------|------|------|---------|----------|"
    printf '%s\n' "${RATIO_LINES[@]}"
    echo
} | tee target/bench/ratios.md >&2

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
[ -f target/bench/ratios.md ] && cat target/bench/ratios.md
