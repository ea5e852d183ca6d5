//! Quick, by-hand throughput check of discovery + decompression + line
//! splitting (not a test, no timing assertions). Run in release:
//!
//! ```text
//! cargo run --release -p lakeaudit-parsers --example io_throughput -- PATH... [--repeat N]
//! ```
//!
//! Prints, per input, the decompressed bytes, lines and MB/s (1 MB = 10^6
//! bytes) of reading every line once; `--repeat N` reads each input N times
//! (best run reported) so the page cache is warm.

use std::time::Instant;

use parsers::io::{discover, LineReader, DEFAULT_MAX_LINE};

fn main() -> Result<(), parsers::Error> {
    let mut paths = Vec::new();
    let mut repeat = 3usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--repeat" {
            repeat = args.next().and_then(|n| n.parse().ok()).unwrap_or(3);
        } else {
            paths.push(a);
        }
    }
    let found = discover(&paths);
    for e in &found.errors {
        eprintln!("warning: {e}");
    }
    for input in &found.inputs {
        let mut best = f64::INFINITY;
        let (mut bytes, mut lines, mut events) = (0u64, 0u64, 0u64);
        for _ in 0..repeat.max(1) {
            let t = Instant::now();
            let mut r = LineReader::open(input, DEFAULT_MAX_LINE)?;
            (lines, events) = (0, 0);
            while let Some(line) = r.next_line()? {
                lines += 1;
                // the cheapest check the event layer makes on every line
                events += u64::from(line.starts_with(br#"{"Event":"#));
            }
            bytes = r.decompressed_bytes();
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{}: {} parts, {:.1} MB, {lines} lines ({events} events), best {:.1} ms, {:.0} MB/s",
            input.display,
            input.parts.len(),
            bytes as f64 / 1e6,
            best * 1e3,
            bytes as f64 / 1e6 / best
        );
    }
    Ok(())
}
