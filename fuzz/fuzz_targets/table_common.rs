//! Shared by the table metadata targets: a scratch copy of one of the
//! repository's real table fixtures, in which one file is replaced by the
//! fuzzer's bytes before the whole table is read (`--deep`, so DV files and
//! Puffin blobs are opened too). A target passes when the read never
//! panics, hangs or allocates without bound; any `Err` is fine.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("scratch dir");
    for e in fs::read_dir(from).expect("fixture dir").flatten() {
        let dst = to.join(e.file_name());
        if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            copy_dir(&e.path(), &dst);
        } else {
            fs::copy(e.path(), dst).expect("copy fixture file");
        }
    }
}

/// A scratch copy of `fixture` (relative to the repository root), made
/// once per process.
pub fn table(cell: &'static OnceLock<PathBuf>, fixture: &str, tag: &str) -> &'static Path {
    cell.get_or_init(|| {
        // libfuzzer-sys installs a panic hook that aborts, which would make
        // a panic the readers catch and name (polars' page decoders assert
        // on malformed pages) a crash. Restore the default hook: a panic
        // reaching the target's boundary still aborts there (libfuzzer-sys
        // catches it and aborts), so only uncaught panics are crashes.
        let _ = std::panic::take_hook();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(fixture);
        let dst = std::env::temp_dir()
            .join(format!("lakeaudit-fuzz-{tag}-{}", std::process::id()))
            .join(src.file_name().expect("fixture name"));
        let _ = fs::remove_dir_all(&dst);
        copy_dir(&src, &dst);
        dst
    })
}

/// Replace `file` (relative to the table) with `data`, then read the table
/// deeply, then put nothing back: the next input replaces it again.
pub fn read_with(dir: &Path, file: &str, data: &[u8]) {
    if fs::write(dir.join(file), data).is_err() {
        return;
    }
    read(dir);
}

pub fn read(dir: &Path) {
    let (found, _) = tables::discover(&[dir.to_path_buf()]);
    for f in &found {
        let _ = tables::read_table(
            f,
            &tables::ReadOptions {
                deep: true,
                ..Default::default()
            },
        );
    }
}
