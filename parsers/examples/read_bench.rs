//! End-to-end reading benchmark without the binary: `discover` + one
//! `read_records` per application, applications in parallel with rayon --
//! the same reading path `lakeaudit queries` takes (minus lineage and
//! output). `scripts/bench.sh` uses it when the release binary cannot be
//! built (`BENCH_TOOL=example`).
//!
//! ```text
//! cargo run --release -p lakeaudit-parsers --example read_bench -- [--threads N] [--dump] PATH...
//! ```
//!
//! Prints one line: inputs, records, decompressed MB, seconds, MB/s
//! (1 MB = 10^6 bytes). Exit code 1 if any input had errors. With
//! `--dump`, first everything read, as JSON lines in input order: per
//! application its summary, then its records, warnings and errors (to
//! compare two builds' reading byte for byte).

use std::process::ExitCode;
use std::time::Instant;

use parsers::events::{read_records, ReadOptions};
use parsers::io::discover;
use rayon::prelude::*;

fn main() -> ExitCode {
    let mut paths = Vec::new();
    let mut threads = None;
    let mut dump = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--threads" {
            threads = args.next().and_then(|n| n.parse::<usize>().ok());
        } else if a == "--dump" {
            dump = true;
        } else {
            paths.push(a);
        }
    }
    if let Some(n) = threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
        {
            eprintln!("cannot set up {n} threads: {e}");
            return ExitCode::from(2);
        }
    }
    let t = Instant::now();
    let found = discover(&paths);
    // As `lakeaudit` does: decompress ahead on a thread of its own when
    // there are fewer logs than threads.
    let opts = ReadOptions {
        decode_ahead: found.inputs.len() < rayon::current_num_threads(),
        ..ReadOptions::default()
    };
    let apps: Vec<_> = found
        .inputs
        .par_iter()
        .map(|input| read_records(input, &opts))
        .collect();
    let secs = t.elapsed().as_secs_f64();
    if dump {
        for e in &found.errors {
            println!("{}", json(&format!("input error: {e}")));
        }
        for a in &apps {
            println!("{}", json(&a.summary));
            for r in &a.records {
                println!("{}", json(r));
            }
            for w in &a.warnings {
                println!("{}", json(&format!("warning: {w}")));
            }
            for e in &a.errors {
                println!("{}", json(&format!("error: {e}")));
            }
        }
    }
    let bytes: u64 = apps.iter().map(|a| a.summary.bytes).sum();
    let records: usize = apps.iter().map(|a| a.records.len()).sum();
    let errors = found.errors.len() + apps.iter().map(|a| a.errors.len()).sum::<usize>();
    for e in found
        .errors
        .iter()
        .chain(apps.iter().flat_map(|a| a.errors.iter()))
        .take(5)
    {
        eprintln!("error: {e}");
    }
    println!(
        "inputs={} records={records} decompressed_MB={:.1} seconds={secs:.3} MB/s={:.0} errors={errors} threads={}",
        found.inputs.len(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / secs,
        rayon::current_num_threads()
    );
    if errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// One value as a JSON line.
fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| format!("unserialisable: {e}"))
}
