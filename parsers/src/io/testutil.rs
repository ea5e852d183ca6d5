//! Helpers for the io tests: where the real logs are, temp dirs, summaries.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use super::{discover, LineReader, LogInput, DEFAULT_MAX_LINE};

/// `samples/` of this repository (real logs written by scripts/make_samples.py).
pub(crate) fn samples() -> PathBuf {
    testdata::sample("")
}

/// A real TPC-H log of the repository's fixture set by its shared name
/// (`tpch-default`, `tpch-extended`, `tpch-smj`, `weekly`).
pub(crate) fn tpch_log(name: &str) -> PathBuf {
    testdata::spark_logs(name)
}

/// The uncompressed Spark 4 sample log (`samples/spark4-plain/<appId>`).
pub(crate) fn plain_sample() -> PathBuf {
    let dir = samples().join("spark4-plain");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_none())
        .collect();
    assert_eq!(found.len(), 1, "{dir:?}: {found:?}");
    found.pop().unwrap()
}

/// A fresh directory under the system temp dir, removed on drop.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("lakeaudit-io-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The one log input found under `path` (asserting there is exactly one
/// and no error).
pub(crate) fn one_input(path: &Path) -> LogInput {
    let d = discover(&[path.display().to_string()]);
    assert!(d.errors.is_empty(), "{path:?}: {:?}", d.errors);
    assert_eq!(d.inputs.len(), 1, "{path:?}: {:?}", d.inputs);
    d.inputs.into_iter().next().unwrap()
}

/// The one file of `dir` whose name ends with `suffix` (recursively).
pub(crate) fn find_file(dir: &Path, suffix: &str) -> PathBuf {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                found.push(p);
            }
        }
    }
    assert_eq!(found.len(), 1, "{dir:?} *{suffix}: {found:?}");
    found.pop().unwrap()
}

/// What reading a whole input gave.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) lines: u64,
    /// Lines not starting with `{"Event":`.
    pub(crate) non_event: u64,
    pub(crate) exec_start: u64,
    pub(crate) exec_end: u64,
    pub(crate) first_event: String,
    pub(crate) last_line: Vec<u8>,
    pub(crate) bytes: u64,
    pub(crate) last_truncated: bool,
    pub(crate) truncated_tail: bool,
    /// Hash of all lines in order (to compare contents across codecs).
    pub(crate) digest: u64,
    /// The reader's warnings, in order.
    pub(crate) warnings: Vec<String>,
}

fn event_name(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(line.get(..line.len().min(120)).unwrap_or(&[])).into_owned();
    s.split('"').nth(3).unwrap_or_default().to_string()
}

pub(crate) fn summarize(input: &LogInput) -> crate::Result<Summary> {
    summarize_with(input, DEFAULT_MAX_LINE)
}

/// Reads the whole input twice, decoding inline and on a helper thread
/// ([`LineReader::open_ahead`]), and checks that both give the same lines,
/// flags and error; returns that.
pub(crate) fn summarize_with(input: &LogInput, max_line: usize) -> crate::Result<Summary> {
    let inline = summarize_mode(input, max_line, false);
    let ahead = summarize_mode(input, max_line, true);
    match (&inline, &ahead) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{}: inline vs ahead", input.display),
        (Err(a), Err(b)) => assert_eq!(
            a.to_string(),
            b.to_string(),
            "{}: inline vs ahead",
            input.display
        ),
        (a, b) => panic!("{}: inline {a:?} vs ahead {b:?}", input.display),
    }
    inline
}

fn summarize_mode(input: &LogInput, max_line: usize, ahead: bool) -> crate::Result<Summary> {
    let mut r = LineReader::open_ahead(input, max_line, ahead)?;
    let mut s = Summary::default();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    while let Some((line, info)) = r.next_line_info()? {
        s.lines += 1;
        // Line numbers count the lines skipped for being over the cap too.
        assert!(info.line_no >= s.lines);
        line.hash(&mut h);
        if !line.starts_with(br#"{"Event":"#) {
            s.non_event += 1;
        }
        if s.lines == 1 {
            s.first_event = event_name(line);
        }
        if line.starts_with(
            br#"{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart""#,
        ) {
            s.exec_start += 1;
        }
        if line.starts_with(
            br#"{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd""#,
        ) {
            s.exec_end += 1;
        }
        s.last_line.clear();
        s.last_line.extend_from_slice(line);
        s.last_truncated = info.truncated;
        assert_eq!(r.last_line_truncated(), info.truncated);
    }
    s.bytes = r.decompressed_bytes();
    s.truncated_tail = r.truncated_tail();
    s.digest = h.finish();
    s.warnings = r.warnings().to_vec();
    Ok(s)
}

/// Copies `src` (file or directory, recursively) to `dst`.
pub(crate) fn copy_tree(src: &Path, dst: &Path) {
    if src.is_dir() {
        std::fs::create_dir_all(dst).unwrap();
        for e in std::fs::read_dir(src).unwrap() {
            let e = e.unwrap();
            copy_tree(&e.path(), &dst.join(e.file_name()));
        }
    } else {
        std::fs::copy(src, dst).unwrap();
    }
}
