//! Fuzz one Delta commit (JSON lines of actions) in the replay of a real
//! table with deletion vectors: `tests/data/tables/warehouse/orders_dv`,
//! whose last commit is replaced by the input. Must never panic.
#![no_main]

#[path = "table_common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

static TABLE: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let dir = common::table(&TABLE, "tests/data/tables/warehouse/orders_dv", "delta-commit");
    common::read_with(dir, "_delta_log/00000000000000000002.json", data);
});
