//! Fuzz the `--aggregates` reader (`workload::aggregates::open`, then the
//! edge tables it gives the planner): a scratch copy of an aggregates
//! directory that `spark/lakeaudit_aggregate.py` wrote (`seed.sh` makes it
//! under `base/aggregates/` from the records of the sample logs) has one
//! of its tables' Parquet files replaced by the input. The first byte
//! picks the table (modulo the tables found), the rest is the file. Any
//! `Err` is fine; a panic, an abort or a hang is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The scratch copy and its Parquet files (one per table, relative).
static BASE: OnceLock<(PathBuf, Vec<PathBuf>, Vec<Vec<u8>>)> = OnceLock::new();

fn copy_dir(from: &Path, to: &Path, files: &mut Vec<PathBuf>, rel: &Path) {
    fs::create_dir_all(to).expect("scratch dir");
    let mut entries: Vec<_> = fs::read_dir(from).expect("base dir").flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let (src, dst, r) = (e.path(), to.join(e.file_name()), rel.join(e.file_name()));
        if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            copy_dir(&src, &dst, files, &r);
        } else {
            fs::copy(&src, &dst).expect("copy base file");
            if r.extension().is_some_and(|x| x == "parquet") {
                files.push(r);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let (dir, files, originals) = BASE.get_or_init(|| {
        // See table_common.rs: only panics no reader catches are crashes.
        let _ = std::panic::take_hook();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("base").join("aggregates");
        assert!(src.is_dir(), "run fuzz/seed.sh first: no {}", src.display());
        let dst = std::env::temp_dir()
            .join(format!("lakeaudit-fuzz-aggregates-{}", std::process::id()))
            .join("agg");
        let _ = fs::remove_dir_all(&dst);
        let mut files = Vec::new();
        copy_dir(&src, &dst, &mut files, Path::new(""));
        assert!(!files.is_empty(), "no Parquet file under {}", src.display());
        let originals = files.iter().map(|f| fs::read(dst.join(f)).expect("read")).collect();
        (dst, files, originals)
    });
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let i = pick as usize % files.len();
    let target = dir.join(&files[i]);
    if fs::write(&target, bytes).is_err() {
        return;
    }
    let range = workload::time::TimeRange::default();
    if let Ok(w) = workload::aggregates::open(dir, &range).map(workload::Workload::from) {
        if let Some(a) = w.aggregates() {
            let fallback = workload::edges::RowFallback::new();
            for cost in [
                workload::edges::CostMeasure::Duration,
                workload::edges::CostMeasure::Cpu,
            ] {
                let _ = std::hint::black_box(a.edge_tables(None, cost, &fallback));
            }
        }
    }
    // Put the table back for the next input.
    let _ = fs::write(&target, &originals[i]);
});
