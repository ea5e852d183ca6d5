//! Fuzz a table's data file as `whatif` reads it: the input is a Parquet
//! file, checked page by page (`tables::parquet_guard::check_data_file`)
//! and, when it passes, read by polars (`read_columns`) for every column
//! the file names. Must never abort (a lying size that polars would
//! allocate: run with `-malloc_limit_mb`) nor hang. A panic inside polars
//! on a file that passed the checks is caught as `whatif` catches it (one
//! table's error), so it is not a finding here; an abort is.
#![no_main]

use libfuzzer_sys::fuzz_target;

static HOOK: std::sync::Once = std::sync::Once::new();

fuzz_target!(|data: &[u8]| {
    // libfuzzer-sys' hook aborts on any panic, even one the reader
    // catches and names (see table_common.rs): restore the default.
    HOOK.call_once(|| {
        let _ = std::panic::take_hook();
    });
    // Every top-level column the footer names, when it decodes.
    let mut probe = std::io::Cursor::new(data);
    let names: Vec<String> =
        match tables::parquet_footer::read_checked(&mut probe, data.len() as u64) {
            Ok(meta) => meta
                .schema()
                .columns()
                .iter()
                .filter_map(|c| c.path_in_schema.first().map(|n| n.to_string()))
                .collect(),
            Err(_) => return,
        };
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let cursor = std::io::Cursor::new(data);
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let max = tables::parquet_guard::MAX_DECODED;
        tables::parquet_guard::read_columns(cursor, data.len() as u64, &names, max)
    }));
});
