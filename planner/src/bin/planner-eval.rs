//! `planner-eval`: planner quality against the exact solver on seeded instances.
//!
//! Prints, per paper-shaped config C1..C9, the NPV of greedy (METHOD.md),
//! improved (the default planner) and exact, with ratios; then summary stats
//! of every planner (greedy, greedy per byte, local search on the whole
//! instance, improved) over 1,000 random star/snowflake instances and over
//! 200 split instances (30-60 tables in several connected components, the
//! exact optimum computed per component and combined exactly); and as its
//! last line `mean_ratio=<x> min_ratio=<y> instances=<n>` for the improved
//! planner over all 1,209 instances (C1..C9, the 1,000 and the 200). A
//! denser stress family is printed before it, apart.
//!
//! `--dump DIR` also writes every instance into DIR as a planning instance
//! (`planner/INSTANCE.md`), `<name>.json`, for `lakeaudit plan --instance`
//! or any other planner.
//!
//! ratio = planner NPV / exact NPV. When the exact NPV is 0 (no plan pays
//! within the budgets) every planner also returns the empty plan (they only
//! take moves that raise NPV from 0), and the ratio is defined as 1.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use planner::synth::{self, Instance};
use planner::{plan_with, Algorithm, PlanInstance};

const RANDOM_INSTANCES: u64 = 1000;
const DENSE_INSTANCES: u64 = 200;
const COMPONENT_INSTANCES: u64 = 200;

fn ratio(npv: f64, exact: f64) -> f64 {
    if exact.abs() <= 1e-9 {
        1.0
    } else {
        npv / exact
    }
}

struct Row {
    greedy: f64,
    per_byte: f64,
    local_search: f64,
    improved: f64,
    exact: f64,
}

fn run(inst: &Instance) -> Result<Row, planner::Error> {
    let go = |a| plan_with(&inst.tables, &inst.edges, &inst.config, a).map(|p| p.total_npv);
    Ok(Row {
        greedy: go(Algorithm::Greedy)?,
        per_byte: go(Algorithm::GreedyPerByte)?,
        local_search: go(Algorithm::LocalSearch)?,
        improved: go(Algorithm::Improved)?,
        exact: go(Algorithm::Exact)?,
    })
}

/// Ratios of every planner on one family of instances.
#[derive(Default)]
struct Family {
    greedy: Stats,
    per_byte: Stats,
    local_search: Stats,
    improved: Stats,
    zero_exact: usize,
    worst: Option<(f64, String)>,
}

impl Family {
    fn push(&mut self, inst: &Instance, r: &Row) -> f64 {
        if r.exact.abs() <= 1e-9 {
            self.zero_exact += 1;
        }
        let i = ratio(r.improved, r.exact);
        self.greedy.push(ratio(r.greedy, r.exact));
        self.per_byte.push(ratio(r.per_byte, r.exact));
        self.local_search.push(ratio(r.local_search, r.exact));
        self.improved.push(i);
        if self.worst.as_ref().is_none_or(|(w, _)| i < *w) {
            self.worst = Some((i, inst.name.clone()));
        }
        i
    }

    fn print(&self) {
        println!("{}", self.greedy.line("greedy"));
        println!("{}", self.per_byte.line("greedy-per-byte"));
        println!("{}", self.local_search.line("local-search"));
        println!("{}", self.improved.line("improved"));
        match &self.worst {
            Some((w, name)) if *w < 1.0 - 1e-9 => {
                println!("  improved worst instance: {name} ({w:.4})")
            }
            _ => println!("  improved matched exact on every instance"),
        }
    }
}

#[derive(Default)]
struct Stats {
    ratios: Vec<f64>,
}

impl Stats {
    fn push(&mut self, r: f64) {
        self.ratios.push(r);
    }
    fn mean(&self) -> f64 {
        if self.ratios.is_empty() {
            return f64::NAN;
        }
        self.ratios.iter().sum::<f64>() / self.ratios.len() as f64
    }
    fn min(&self) -> f64 {
        self.ratios.iter().copied().fold(f64::INFINITY, f64::min)
    }
    fn optimal(&self) -> usize {
        self.ratios.iter().filter(|&&r| r >= 1.0 - 1e-9).count()
    }
    fn above(&self, t: f64) -> usize {
        self.ratios.iter().filter(|&&r| r >= t).count()
    }
    fn line(&self, name: &str) -> String {
        format!(
            "  {name:<16} mean {:.4}  min {:.4}  optimal {}/{}  >=0.632 {}/{}",
            self.mean(),
            self.min(),
            self.optimal(),
            self.ratios.len(),
            self.above(1.0 - 1.0 / std::f64::consts::E),
            self.ratios.len()
        )
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dump = match args.as_slice() {
        [] => None,
        [flag, dir] if flag == "--dump" => Some(PathBuf::from(dir)),
        _ => {
            eprintln!("usage: planner-eval [--dump DIR]");
            return ExitCode::from(2);
        }
    };
    if let Some(dir) = &dump {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("planner-eval: cannot create {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    }
    match real_main(dump.as_deref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("planner-eval: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Write `inst` into `dir` as `<name>.json` (a planning instance).
fn dump_instance(dir: Option<&Path>, inst: &Instance) -> Result<(), String> {
    let Some(dir) = dir else { return Ok(()) };
    let doc = PlanInstance::from_inputs(
        Some(inst.name.clone()),
        &inst.tables,
        &inst.edges,
        &inst.config,
    )
    .map_err(|e| format!("{}: {e}", inst.name))?;
    let path = dir.join(format!("{}.json", inst.name));
    std::fs::write(&path, doc.to_json() + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn real_main(dump: Option<&Path>) -> Result<(), String> {
    let dump_n = |inst: &Instance| dump_instance(dump, inst);
    let run = |inst: &Instance| run(inst).map_err(|e| format!("{}: {e}", inst.name));
    let mut all_improved = Stats::default();
    let (mut pg, mut pb, mut pl, mut pi) = (
        Stats::default(),
        Stats::default(),
        Stats::default(),
        Stats::default(),
    );
    println!("paper-shaped configs (NPV in GB; ratio = planner / exact)");
    println!(
        "  {:<4} {:>6} {:>5} {:>7} {:>10} {:>10} {:>10} {:>8} {:>8}",
        "cfg", "tables", "edges", "budget", "greedy", "improved", "exact", "g-ratio", "i-ratio"
    );
    for inst in synth::paper_configs() {
        dump_n(&inst)?;
        let r = run(&inst)?;
        let (g, b, i) = (
            ratio(r.greedy, r.exact),
            ratio(r.per_byte, r.exact),
            ratio(r.improved, r.exact),
        );
        pg.push(g);
        pb.push(b);
        pl.push(ratio(r.local_search, r.exact));
        pi.push(i);
        all_improved.push(i);
        let budget = inst.config.budget.unwrap_or(0) as f64 / 1e9;
        println!(
            "  {:<4} {:>6} {:>5} {:>6.1}G {:>10.3} {:>10.3} {:>10.3} {:>8.3} {:>8.3}",
            inst.name,
            inst.tables.len(),
            inst.edges.len(),
            budget,
            r.greedy / 1e9,
            r.improved / 1e9,
            r.exact / 1e9,
            g,
            i
        );
    }
    println!("paper configs summary (paper's greedy: mean 0.913, worst 0.570, optimal 6/9):");
    println!("{}", pg.line("greedy"));
    println!("{}", pb.line("greedy-per-byte"));
    println!("{}", pl.line("local-search"));
    println!("{}", pi.line("improved"));

    let mut random = Family::default();
    for seed in 0..RANDOM_INSTANCES {
        let inst = synth::random_instance(seed);
        dump_n(&inst)?;
        let r = run(&inst)?;
        all_improved.push(random.push(&inst, &r));
    }
    println!(
        "{RANDOM_INSTANCES} random star/snowflake instances (4-9 tables; {} with exact NPV 0, ratio 1 by definition):",
        random.zero_exact
    );
    random.print();

    let mut parts = Family::default();
    let (mut n_parts, mut n_tables) = (Vec::new(), Vec::new());
    for seed in 0..COMPONENT_INSTANCES {
        let inst = synth::component_instance(seed);
        dump_n(&inst)?;
        let r = run(&inst)?;
        all_improved.push(parts.push(&inst, &r));
        n_parts.push(
            planner::components(&inst.tables, &inst.edges, &inst.config)
                .map_err(|e| e.to_string())?,
        );
        n_tables.push(inst.tables.len());
    }
    println!(
        "{COMPONENT_INSTANCES} split instances ({}-{} tables in {}-{} connected components; exact = per component, combined exactly):",
        n_tables.iter().min().unwrap_or(&0),
        n_tables.iter().max().unwrap_or(&0),
        n_parts.iter().min().unwrap_or(&0),
        n_parts.iter().max().unwrap_or(&0),
    );
    parts.print();

    // Extra stress family, reported apart: not part of the last line.
    let mut dense = Family::default();
    for seed in 0..DENSE_INSTANCES {
        let inst = synth::dense_instance(seed);
        dump_n(&inst)?;
        let r = run(&inst)?;
        dense.push(&inst, &r);
    }
    println!("{DENSE_INSTANCES} dense stress instances (8-11 tables, 14-22 edges, budget 15-35%; not in the last line):");
    dense.print();
    println!(
        "mean_ratio={:.4} min_ratio={:.4} instances={}",
        all_improved.mean(),
        all_improved.min(),
        all_improved.ratios.len()
    );
    Ok(())
}
