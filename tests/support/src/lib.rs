//! The repository's real test fixtures, found from inside the clone only.
//!
//! Every test that reads a real Spark log, answer key or plan dump asks this
//! crate for its path. Paths resolve under the workspace root (this crate's
//! `CARGO_MANIFEST_DIR`, two levels up); a path that does not exist, or that
//! leads outside the clone (through `..` or a symlink), panics with a message
//! naming it, so a test can never silently depend on files a fresh clone
//! lacks. Files committed zstd-compressed (`name.zst`) are found and
//! decompressed when asked for by their plain name.
//!
//! ```
//! let truth = testdata::read_to_string("spark-logs/tpch-truth.json");
//! assert!(truth.contains("\"q01\""));
//! // Compressed in the repository, read as plain text:
//! let plans = testdata::read_to_string("spark-logs/tpch-plans.jsonl");
//! assert_eq!(plans.lines().count(), 22);
//! // The real logs `make analyze` also reads live in samples/:
//! assert!(testdata::spark_logs("tpch-smj").is_dir());
//! ```
#![deny(missing_docs)]

use std::path::{Path, PathBuf};

/// The root of the clone (the workspace directory).
pub fn repo_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.join("../..")
        .canonicalize()
        .unwrap_or_else(|e| panic!("cannot resolve the workspace root from {here:?}: {e}"))
}

/// Resolve `rel` under the clone and check that it exists inside it.
fn inside(rel: &Path) -> PathBuf {
    assert!(
        rel.is_relative(),
        "fixture paths are relative to the clone: {rel:?}"
    );
    let root = repo_root();
    let p = root.join(rel);
    let real = p.canonicalize().unwrap_or_else(|e| {
        panic!("test fixture {rel:?} is missing from the repository ({p:?}: {e})")
    });
    assert!(
        real.starts_with(&root),
        "test fixture {rel:?} resolves outside the clone ({real:?}); copy it into the repository"
    );
    real
}

/// A bundled sample: `samples/<rel>`.
pub fn sample(rel: &str) -> PathBuf {
    inside(&Path::new("samples").join(rel))
}

/// Where a `tests/data`-relative name lives in the clone. The two real logs
/// that `make analyze` reads too (`spark-logs/tpch-smj`,
/// `spark-logs/weekly`) are kept once, in `samples/`.
fn locate(rel: &str) -> PathBuf {
    match rel.strip_prefix("spark-logs/") {
        Some(s) if matches!(s.split('/').next(), Some("tpch-smj" | "weekly")) => {
            Path::new("samples").join(s)
        }
        _ => Path::new("tests/data").join(rel),
    }
}

/// A fixture under `tests/data/<rel>` (plain name; see [`read`] for
/// compressed files).
pub fn data(rel: &str) -> PathBuf {
    inside(&locate(rel))
}

/// The real TPC-H Spark logs and their answer key, by the names of the
/// shared fixture set (`tpch-default`, `tpch-extended`, `tpch-smj`,
/// `weekly`, `tpch-truth.json`, `executions/…`, `sql/…`).
pub fn spark_logs(rel: &str) -> PathBuf {
    data(&format!("spark-logs/{rel}"))
}

/// The bytes of a fixture named as for [`data`]; when only `<rel>.zst` is
/// committed, its decompressed bytes.
pub fn read(rel: &str) -> Vec<u8> {
    let plain = locate(rel);
    if repo_root().join(&plain).exists() {
        let p = inside(&plain);
        return std::fs::read(&p).unwrap_or_else(|e| panic!("read {p:?}: {e}"));
    }
    let p = inside(&locate(&format!("{rel}.zst")));
    let f = std::fs::File::open(&p).unwrap_or_else(|e| panic!("open {p:?}: {e}"));
    zstd::stream::decode_all(f).unwrap_or_else(|e| panic!("decompress {p:?}: {e}"))
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(rel: &str) -> String {
    String::from_utf8(read(rel)).unwrap_or_else(|e| panic!("fixture {rel:?} is not UTF-8: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_clone_are_refused() {
        // tests/data/../../.. is the directory the clone sits in.
        let r = std::panic::catch_unwind(|| data("../../.."));
        assert!(r.is_err(), "a path leaving the clone must panic");
        let r = std::panic::catch_unwind(|| data("no-such-fixture"));
        assert!(r.is_err(), "a missing fixture must panic");
    }

    #[test]
    fn compressed_fixtures_read_as_plain() {
        let log = read("spark-logs/tpch-extended/local-1796009833175");
        // tests/data/spark-logs/README.md: 8.3 MB and 1,404 JSON lines.
        assert_eq!(log.iter().filter(|&&b| b == b'\n').count(), 1404);
        assert!(log.starts_with(b"{\"Event\":"));
    }
}
