//! Fuzz an Iceberg `*.metadata.json`: the current metadata file of the real
//! v3 table `tests/data/tables/thresholds/ice.db/dvs` (pyiceberg) is
//! replaced by the input, then the table is read. Must never panic.
#![no_main]

#[path = "table_common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

static TABLE: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let dir = common::table(&TABLE, "tests/data/tables/thresholds/ice.db/dvs", "ice-meta");
    common::read_with(
        dir,
        "metadata/00006-d7844bcc-8858-4dd1-9cc6-c8babeed2d36.metadata.json",
        data,
    );
});
