//! Benches of the event layer on real Spark logs.
//!
//! - `classify`: the per-line dispatcher over every line of a decompressed
//!   log held in memory (the check every line of every log goes through).
//! - `task_end_typed`: the typed `SparkListenerTaskEnd` parse, the most
//!   frequent event in task-heavy logs, and `task_end_skim`: what the
//!   reader does instead (`types::skim::task_end`, reading the fields by key).
//! - `read_records`: the whole per-application reader (decompression, line
//!   splitting, dispatch, typed events, plan parsing at execution end) over
//!   the tpch-default rolling zstd log, inline and with decompression on a
//!   helper thread (`ReadOptions::decode_ahead`).
//!
//! Throughput is decompressed log bytes. Inputs are the repository's real
//! TPC-H logs (`tests/data/spark-logs`); the task-heavy log of `make bench`
//! (`target/bench/big-eventlog`, or `$LAKEAUDIT_BENCH_LOG`) is used too when
//! it exists (its first 64 MB, to keep memory and run time modest).
//!
//! ```text
//! cargo bench -p lakeaudit-parsers --bench dispatch
//! ```

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use parsers::events::types::{skim, TaskEnd};
use parsers::events::{classify, read_records, EventKind, ReadOptions};
use parsers::io::discover;

/// The tpch-default rolling directory (one zstd part).
fn tpch_default_dir() -> PathBuf {
    testdata::spark_logs("tpch-default/eventlog_v2_local-1796009792357")
}

/// Every `events_*` part of a rolling directory, decompressed in order, up to
/// `cap` bytes (cut at a line end). The zstd crate's decoder reads Spark's
/// concatenated frames.
fn decompressed_parts(dir: &Path, cap: usize) -> Vec<u8> {
    let mut parts: Vec<(u64, PathBuf)> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let idx = name
                .strip_prefix("events_")?
                .split('_')
                .next()?
                .parse()
                .ok()?;
            Some((idx, p))
        })
        .collect();
    parts.sort();
    let mut out = Vec::new();
    for (_, p) in parts {
        let raw = fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let text = if p.extension().is_some_and(|x| x == "zstd" || x == "zst") {
            zstd::stream::decode_all(raw.as_slice())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        } else {
            raw
        };
        out.extend_from_slice(&text);
        if out.len() >= cap {
            break;
        }
    }
    if out.len() > cap {
        let cut = memchr::memrchr(b'\n', &out[..cap]).map_or(cap, |i| i + 1);
        out.truncate(cut);
    }
    out
}

/// The rolling directory of the task-heavy bench log, if one was made.
fn big_log_dir() -> Option<PathBuf> {
    let root = std::env::var_os("LAKEAUDIT_BENCH_LOG")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench/big-eventlog")
        });
    if root
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("eventlog_v2_"))
    {
        return Some(root);
    }
    fs::read_dir(&root)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("eventlog_v2_"))
        })
}

/// Non-empty lines, split with memchr as the reader's `LineReader` does.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text)
        .chain(std::iter::once(text.len()))
        .filter_map(move |end| {
            let line = text.get(start..end);
            start = end + 1;
            line.filter(|l| !l.is_empty())
        })
}

/// The task-end lines of a log's text.
fn task_end_lines(text: &[u8]) -> Vec<&[u8]> {
    lines(text)
        .filter(|l| classify(l) == Some(EventKind::TaskEnd))
        .collect()
}

fn count_kinds(text: &[u8]) -> [u64; EventKind::ALL.len()] {
    let mut counts = [0u64; EventKind::ALL.len()];
    for line in lines(text) {
        if let Some(k) = classify(line) {
            counts[k as usize] += 1;
        }
    }
    counts
}

fn bench_classify(c: &mut Criterion) {
    let mut inputs = vec![(
        "tpch-default",
        decompressed_parts(&tpch_default_dir(), usize::MAX),
    )];
    if let Some(dir) = big_log_dir() {
        inputs.push(("big-eventlog-64MB", decompressed_parts(&dir, 64 << 20)));
    }
    let mut g = c.benchmark_group("classify");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, text) in &inputs {
        // Pre-split lines: this measures the dispatcher itself, not memchr
        // (it reads only a line's first bytes, so MB/s here is bytes of
        // text classified, not bytes touched).
        let all: Vec<&[u8]> = lines(text).collect();
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(*name, |b| {
            b.iter(|| {
                let mut tasks = 0u64;
                for l in &all {
                    tasks += u64::from(classify(black_box(l)) == Some(EventKind::TaskEnd));
                }
                tasks
            })
        });
        // Split + classify: what the reader does per line after decompression.
        g.bench_function(format!("{name}/split+classify"), |b| {
            b.iter(|| count_kinds(black_box(text)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("task_end_typed");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (name, text) in &inputs {
        let tasks = task_end_lines(text);
        g.throughput(Throughput::Bytes(
            tasks.iter().map(|l| l.len() as u64).sum(),
        ));
        g.bench_function(*name, |b| {
            b.iter(|| {
                let mut accs = 0usize;
                for l in &tasks {
                    if let Ok(t) = serde_json::from_slice::<TaskEnd>(black_box(l)) {
                        accs += t.info.map_or(0, |i| i.accumulables.len());
                    }
                }
                accs
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("task_end_skim");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (name, text) in &inputs {
        let tasks = task_end_lines(text);
        g.throughput(Throughput::Bytes(
            tasks.iter().map(|l| l.len() as u64).sum(),
        ));
        g.bench_function(*name, |b| {
            b.iter(|| {
                let mut sum = 0i64;
                for l in &tasks {
                    let (r, (run, cpu)) = skim::task_end(black_box(l), |_, u| {
                        sum = sum.wrapping_add(u.unwrap_or(0));
                    });
                    if r.is_ok() {
                        sum = sum.wrapping_add(run).wrapping_add(cpu);
                    }
                }
                sum
            })
        });
    }
    g.finish();
}

fn bench_read_records(c: &mut Criterion) {
    let dir = tpch_default_dir();
    let bytes = decompressed_parts(&dir, usize::MAX).len() as u64;
    let found = discover(&[dir.display().to_string()]);
    assert!(found.errors.is_empty(), "{:?}", found.errors);
    let [input] = found.inputs.as_slice() else {
        panic!("expected one input in {}", dir.display());
    };
    let mut g = c.benchmark_group("read_records");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Bytes(bytes));
    for (name, ahead) in [("tpch-default", false), ("tpch-default/decode-ahead", true)] {
        let opts = ReadOptions {
            decode_ahead: ahead,
            ..ReadOptions::default()
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                let app = read_records(black_box(input), &opts);
                assert!(app.errors.is_empty());
                app.records.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_classify, bench_read_records);
criterion_main!(benches);
