//! Planning a synthetic 10,000-table, 100,000-edge graph: greedy and the
//! default (improved) planner under the instance's budgets (25% of the
//! planned tables' bytes), and the default planner with no budget (the
//! binary's default), and that plan with its budget curve. Issue 10's
//! targets: improved < 1.5 s, greedy < 0.3 s.
//!
//! `cargo bench -p lakeaudit-planner --bench plan` (or `make planner-bench`)

use criterion::{criterion_group, criterion_main, Criterion};
use planner::{plan_with, synth, Algorithm};

fn bench(c: &mut Criterion) {
    let inst = synth::large_instance(10_000, 100_000, 7);
    let mut open = inst.config.clone();
    open.budget = None;
    open.storage_budget = None;
    let mut g = c.benchmark_group("plan-10k-tables-100k-edges");
    g.sample_size(10);
    for (name, algo, config) in [
        ("greedy", Algorithm::Greedy, &inst.config),
        ("improved", Algorithm::Improved, &inst.config),
        ("improved-no-budget", Algorithm::Improved, &open),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let p = plan_with(&inst.tables, &inst.edges, config, algo);
                std::hint::black_box(p.map(|p| p.total_npv).unwrap_or(f64::NAN))
            })
        });
    }
    // The budget curve `lakeaudit plan` prints, on the same instance.
    g.bench_function("improved-no-budget-with-curve", |b| {
        b.iter(|| {
            let p = planner::plan_and_curve(&inst.tables, &inst.edges, &open, Algorithm::Improved);
            std::hint::black_box(p.map(|(_, c)| c.points.len()).unwrap_or(0))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
