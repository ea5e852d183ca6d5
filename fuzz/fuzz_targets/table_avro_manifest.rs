//! Fuzz Iceberg Avro files: the first byte picks one of the manifest lists
//! and manifests (sorted by name) of the real table
//! `tests/data/tables/thresholds/ice.db/dvs`; the rest replaces it, then
//! the table is read. Must never panic, nor inflate a compressed block
//! without bound.
#![no_main]

#[path = "table_common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

static TABLE: OnceLock<PathBuf> = OnceLock::new();

static FILES: OnceLock<Vec<String>> = OnceLock::new();

/// The table's Avro files (manifest lists and manifests), by name.
fn files(dir: &std::path::Path) -> &'static [String] {
    FILES.get_or_init(|| {
        let mut v: Vec<String> = std::fs::read_dir(dir.join("metadata"))
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".avro"))
                    .map(|n| format!("metadata/{n}"))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let dir = common::table(&TABLE, "tests/data/tables/thresholds/ice.db/dvs", "avro");
    let all = files(dir);
    let Some(file) = all.get(usize::from(sel) % all.len().max(1)) else {
        return;
    };
    let original = std::fs::read(dir.join(file)).unwrap_or_default();
    common::read_with(dir, file, body);
    // Put the file back: the next input may pick another one.
    let _ = std::fs::write(dir.join(file), original);
});
