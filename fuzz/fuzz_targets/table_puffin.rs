//! Fuzz Puffin files: the input replaces the Puffin file holding the two
//! deletion vectors of the real v3 table
//! `tests/data/tables/thresholds/ice.db/dvs`, read with `--deep` (footer,
//! then each blob the manifests name). Must never panic.
#![no_main]

#[path = "table_common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

static TABLE: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let dir = common::table(&TABLE, "tests/data/tables/thresholds/ice.db/dvs", "puffin");
    common::read_with(
        dir,
        "data/36037367-34ff-439f-ad01-ad93c12cd535-deletes.puffin",
        data,
    );
});
