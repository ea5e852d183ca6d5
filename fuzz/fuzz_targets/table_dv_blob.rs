//! Fuzz deletion vectors: the input is checked as a framed DV and as
//! magic + bitmap, then replaces the DV file of the real table
//! `tests/data/tables/warehouse/orders_dv`, read with `--deep`. Must never
//! panic nor allocate what the blob's header claims.
#![no_main]

#[path = "table_common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

static TABLE: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let _ = tables::dv::check_framed(data, 0, None);
    let _ = tables::dv::check_framed(data, 1, Some(data.len().saturating_sub(9)));
    let _ = tables::dv::parse_magic_bitmap(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = tables::dv::z85_decode(text);
    }
    let dir = common::table(&TABLE, "tests/data/tables/warehouse/orders_dv", "dv");
    common::read_with(
        dir,
        "deletion_vector_017aef00-dd6f-4617-a391-539a61d19830.bin",
        data,
    );
});
