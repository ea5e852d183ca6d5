//! Time the planners on the bench's large synthetic graph, in wall and CPU time.
//!
//! `cargo run --release -p lakeaudit-planner --example plan_large -- [greedy|improved|exact|...] [tables] [edges] [runs]`
//!
//! The criterion bench (`cargo bench -p lakeaudit-planner`) is the reference;
//! this prints the CPU time of the planning thread as well (from
//! `/proc/thread-self/schedstat` on Linux), which stays meaningful when other
//! jobs share the machine and wall times stretch.

use std::time::Instant;

use planner::{plan_with, synth, Algorithm};

/// Nanoseconds this thread has run on a CPU, when the OS tells.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let algo = match args.first().map(String::as_str).unwrap_or("improved") {
        "greedy" => Algorithm::Greedy,
        "greedy-per-byte" => Algorithm::GreedyPerByte,
        "exact" => Algorithm::Exact,
        _ => Algorithm::Improved,
    };
    let num = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (n_tables, n_edges, runs) = (num(1, 10_000), num(2, 100_000), num(3, 3));
    let mut inst = synth::large_instance(n_tables, n_edges, 7);
    if args.get(4).map(String::as_str) == Some("unconstrained") {
        inst.config.budget = Some(u64::MAX / 4);
        inst.config.storage_budget = Some(u64::MAX / 4);
    }
    for _ in 0..runs {
        let (t0, c0) = (Instant::now(), cpu_ns());
        let p = plan_with(&inst.tables, &inst.edges, &inst.config, algo);
        let wall = t0.elapsed().as_secs_f64();
        let cpu = match (c0, cpu_ns()) {
            (Some(a), Some(b)) => format!("{:.3}", (b - a) as f64 / 1e9),
            _ => "n/a".to_string(),
        };
        match p {
            Ok(p) => println!(
                "{} {}x{}: wall {wall:.3} s  cpu {cpu} s  npv {:.6e}  tables {}",
                algo.name(),
                n_tables,
                n_edges,
                p.total_npv,
                p.tables.len()
            ),
            Err(e) => println!("{}: {e}", algo.name()),
        }
    }
}
