//! Fuzz a Delta Parquet checkpoint: the checkpoint of the real table
//! `tests/data/tables/warehouse/sales` (version 23, written by
//! deltalake) is replaced by the input, then the table is replayed from
//! it. Must never panic nor abort on a lying footer.
#![no_main]

#[path = "table_common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

static TABLE: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let dir = common::table(&TABLE, "tests/data/tables/warehouse/sales", "checkpoint");
    common::read_with(
        dir,
        "_delta_log/00000000000000000023.checkpoint.parquet",
        data,
    );
});
