//! Fuzz the `--records` reader (`workload::records::open`): the input is
//! one records Parquet file (as `queries --format parquet` and the Spark
//! map write them), read from a scratch directory, every record read back
//! through the sorted runs (`Workload::each`). Its footer and pages go
//! through `tables::parquet_guard` before polars decodes them, and a
//! panic in polars' page decoders is caught and named by the reader, so
//! any `Err` is fine: a panic reaching this target, an abort (a lying
//! size polars would allocate: run with `-malloc_limit_mb`) or a hang is a
//! finding. Seeds: `seed.sh` writes the records of the repository's sample
//! logs with lakeaudit itself, and the zero-row file pyarrow wrote.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

static DIR: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let dir = DIR.get_or_init(|| {
        // libfuzzer-sys' hook aborts on any panic, even one the reader
        // catches and names (see table_common.rs): restore the default.
        let _ = std::panic::take_hook();
        let d = std::env::temp_dir().join(format!("lakeaudit-fuzz-records-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch dir");
        d
    });
    let file = dir.join("part-0.parquet");
    if std::fs::write(&file, data).is_err() {
        return;
    }
    let read = workload::records::open(&file, &workload::time::TimeRange::default());
    if let Ok(w) = read.map(workload::Workload::from) {
        let _ = w.each(|e| {
            std::hint::black_box(&e.record.execution_id);
            Ok::<_, workload::error::Error>(())
        });
    }
});
