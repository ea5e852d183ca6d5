//! Planning a synthetic 10,000-table, 100,000-edge graph (improved and greedy).
//!
//! `cargo bench -p lakeaudit-planner --bench plan`

use criterion::{criterion_group, criterion_main, Criterion};
use planner::{plan_with, synth, Algorithm};

fn bench(c: &mut Criterion) {
    let inst = synth::large_instance(10_000, 100_000, 7);
    let mut g = c.benchmark_group("plan-10k-tables-100k-edges");
    g.sample_size(10);
    for algo in [Algorithm::Greedy, Algorithm::Improved] {
        g.bench_function(algo.name(), |b| {
            b.iter(|| {
                let p = plan_with(&inst.tables, &inst.edges, &inst.config, algo);
                std::hint::black_box(p.map(|p| p.total_npv).unwrap_or(f64::NAN))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
