//! Finding tables under the paths a user gives.
//!
//! A path is a Delta table (a directory with `_delta_log/`), an Iceberg table
//! (a directory with `metadata/*.metadata.json`), an Iceberg metadata file,
//! or a directory searched for tables (a warehouse). Table directories are
//! not searched further. A directory that holds Parquet files but no table
//! metadata (a table whose log was lost, a plain Parquet table) is reported,
//! not skipped silently.
//!
//! A path may also be an object-store URL (`s3://`, `s3a://`, `az://`,
//! `abfs[s]://`, `gs://`): one listing of its prefix (every page) is turned
//! into a tree of "directories" at its `/`s and searched by the same rules,
//! or, naming one `*.metadata.json` object, it is that Iceberg table's
//! metadata. A `file://` URL is the local path it names.

use crate::error::Error;
use crate::model::Format;
use std::fs;
use std::path::{Path, PathBuf};

/// A table found on disk.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    /// The table directory (Delta: holds `_delta_log/`; Iceberg: holds
    /// `metadata/`).
    pub dir: PathBuf,
    /// The format.
    pub format: Format,
    /// An Iceberg metadata file the user named explicitly.
    pub metadata: Option<PathBuf>,
    /// The table's name: its directories below the searched path joined
    /// with `.` (`tpch.db/orders` gives `tpch.orders`), or the directory name
    /// for a table given directly.
    pub name: String,
}

fn table_name(root: &Path, dir: &Path) -> String {
    let rel = dir
        .strip_prefix(root)
        .ok()
        .filter(|r| !r.as_os_str().is_empty());
    let parts: Vec<String> = match rel {
        Some(r) => r
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect(),
        None => vec![dir
            .canonicalize()
            .ok()
            .as_deref()
            .unwrap_or(dir)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "table".into())],
    };
    parts
        .iter()
        .map(|p| p.strip_suffix(".db").unwrap_or(p))
        .collect::<Vec<_>>()
        .join(".")
}

/// Whether a file name is an Iceberg metadata file.
pub(crate) fn is_metadata_json(name: &str) -> bool {
    name.ends_with(".metadata.json") || name.ends_with(".metadata.json.gz")
}

fn is_data_file(name: &str) -> bool {
    name.ends_with(".parquet") || name.ends_with(".orc") || name.ends_with(".avro")
}

fn has_metadata_json(dir: &Path) -> bool {
    fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .any(|e| is_metadata_json(&e.file_name().to_string_lossy()))
        })
        .unwrap_or(false)
}

/// What a directory is.
fn classify(root: &Path, dir: &Path) -> Option<Found> {
    let format = if dir.join("_delta_log").is_dir() {
        Format::Delta
    } else if dir.join("metadata").is_dir() && has_metadata_json(&dir.join("metadata")) {
        Format::Iceberg
    } else {
        return None;
    };
    Some(Found {
        dir: dir.to_path_buf(),
        format,
        metadata: None,
        name: table_name(root, dir),
    })
}

struct Walk {
    root: PathBuf,
    found: Vec<Found>,
    errors: Vec<Error>,
    /// Directories searched, resolved: a symlinked directory is followed
    /// only to a directory not searched yet (no loops, no table twice).
    visited: std::collections::HashSet<PathBuf>,
}

/// Search `dir`; returns the number of data files under it that belong to
/// no table (so the caller can report the topmost such directory).
fn walk(dir: &Path, w: &mut Walk) -> usize {
    if let Ok(real) = fs::canonicalize(dir) {
        if !w.visited.insert(real) {
            return 0;
        }
    }
    if let Some(f) = classify(&w.root, dir) {
        w.found.push(f);
        return 0;
    }
    let entries = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            w.errors.push(Error::io(dir, e));
            return 0;
        }
    };
    let mut names: Vec<(String, bool)> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        // A symlink to a directory is followed (a table linked into a
        // warehouse); `walk` skips a directory it has searched already, so
        // a link back up the tree ends there.
        let is_dir = match e.file_type() {
            Ok(t) if t.is_symlink() => fs::metadata(e.path()).is_ok_and(|m| m.is_dir()),
            Ok(t) => t.is_dir(),
            Err(_) => false,
        };
        names.push((name, is_dir));
    }
    names.sort();
    let mut loose = names.iter().filter(|(n, d)| !d && is_data_file(n)).count();
    let mut orphans: Vec<(PathBuf, usize)> = Vec::new();
    let before = w.found.len();
    for (name, is_dir) in &names {
        if !is_dir || name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        let child = dir.join(name);
        let n = walk(&child, w);
        if n > 0 {
            orphans.push((child, n));
        }
    }
    let has_tables = w.found.len() > before;
    if has_tables {
        // Tables sit beside these directories: each is its own broken table.
        for (child, n) in orphans {
            w.errors.push(no_metadata(&child, n));
        }
        if loose > 0 {
            w.errors.push(no_metadata(dir, loose));
        }
        return 0;
    }
    loose += orphans.iter().map(|(_, n)| n).sum::<usize>();
    loose
}

fn no_metadata(dir: &Path, files: usize) -> Error {
    no_metadata_in(dir, files, dir.join("metadata").is_dir())
}

fn no_metadata_in(dir: &Path, files: usize, has_metadata_dir: bool) -> Error {
    let reason = if has_metadata_dir {
        format!(
            "metadata/ holds no *.metadata.json; {files} data file(s) below belong to no readable table"
        )
    } else {
        format!(
            "{files} data file(s) but no _delta_log/ or metadata/*.metadata.json: not a Delta or Iceberg table"
        )
    };
    Error::NoTable {
        path: dir.to_path_buf(),
        reason,
    }
}

/// Find the tables under each path. Results are sorted by directory and
/// de-duplicated; problems come back as errors beside them.
pub fn discover(paths: &[PathBuf]) -> (Vec<Found>, Vec<Error>) {
    let mut w = Walk {
        root: PathBuf::new(),
        found: Vec::new(),
        errors: Vec::new(),
        visited: Default::default(),
    };
    for p in paths {
        // `file:///x` is the local path `/x`.
        let local = p.to_str().and_then(stores::file_url_path);
        let p = local.as_ref().unwrap_or(p);
        if let Some(url) = crate::source::remote_url(p) {
            discover_url(url, &mut w);
            continue;
        }
        let meta = match fs::metadata(p) {
            Ok(m) => m,
            Err(e) => {
                w.errors.push(Error::io(p, e));
                continue;
            }
        };
        if meta.is_file() {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let table_dir = p.parent().and_then(Path::parent);
            match table_dir {
                Some(dir) if is_metadata_json(&name) => {
                    let dir = if dir.as_os_str().is_empty() {
                        PathBuf::from(".")
                    } else {
                        dir.to_path_buf()
                    };
                    w.found.push(Found {
                        name: table_name(&dir, &dir),
                        dir,
                        format: Format::Iceberg,
                        metadata: Some(p.clone()),
                    })
                }
                _ => w.errors.push(Error::NoTable {
                    path: p.clone(),
                    reason: "not a table directory, a warehouse directory or an Iceberg *.metadata.json file".into(),
                }),
            }
            continue;
        }
        w.root = p.clone();
        let before = (w.found.len(), w.errors.len());
        let loose = walk(p, &mut w);
        if loose > 0 {
            w.errors.push(no_metadata(p, loose));
        } else if w.found.len() == before.0 && w.errors.len() == before.1 {
            let reason = if p.join("_delta_log").exists() || p.join("metadata").exists() {
                "table metadata directory is unreadable".to_string()
            } else {
                "no Delta or Iceberg tables found".to_string()
            };
            w.errors.push(Error::NoTable {
                path: p.clone(),
                reason,
            });
        }
    }
    w.found.sort();
    w.found.dedup_by(|a, b| a.dir == b.dir);
    (w.found, w.errors)
}

/// A "directory" of a listing: the object names right under it and the
/// sub-prefixes.
#[derive(Default)]
struct Tree {
    files: Vec<String>,
    dirs: std::collections::BTreeMap<String, Tree>,
}

impl Tree {
    fn insert(&mut self, rel: &str) {
        let mut t = self;
        let mut segs = rel.split('/').filter(|s| !s.is_empty()).peekable();
        while let Some(seg) = segs.next() {
            if segs.peek().is_none() {
                t.files.push(seg.to_string());
                return;
            }
            t = t.dirs.entry(seg.to_string()).or_default();
        }
    }

    /// What this prefix is, as [`classify`] says of a directory.
    fn format(&self) -> Option<Format> {
        if self.dirs.contains_key("_delta_log") {
            Some(Format::Delta)
        } else if self
            .dirs
            .get("metadata")
            .is_some_and(|m| m.files.iter().any(|n| is_metadata_json(n)))
        {
            Some(Format::Iceberg)
        } else {
            None
        }
    }
}

/// Search the listing `t` of the prefix `dir` as [`walk`] searches a
/// directory; returns the number of data files under it that belong to no
/// table.
fn walk_tree(t: &Tree, dir: &Path, w: &mut Walk) -> usize {
    if let Some(format) = t.format() {
        w.found.push(Found {
            dir: dir.to_path_buf(),
            format,
            metadata: None,
            name: table_name(&w.root, dir),
        });
        return 0;
    }
    let mut loose = t.files.iter().filter(|n| is_data_file(n)).count();
    let mut orphans: Vec<(PathBuf, usize, bool)> = Vec::new();
    let before = w.found.len();
    for (name, sub) in &t.dirs {
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        let child = dir.join(name);
        let n = walk_tree(sub, &child, w);
        if n > 0 {
            orphans.push((child, n, sub.dirs.contains_key("metadata")));
        }
    }
    if w.found.len() > before {
        for (child, n, meta) in orphans {
            w.errors.push(no_metadata_in(&child, n, meta));
        }
        if loose > 0 {
            w.errors
                .push(no_metadata_in(dir, loose, t.dirs.contains_key("metadata")));
        }
        return 0;
    }
    loose += orphans.iter().map(|(_, n, _)| n).sum::<usize>();
    loose
}

/// Find the tables behind one object-store URL (without the credentials
/// it may carry: they are used for its requests, never shown).
fn discover_url(url: &str, w: &mut Walk) {
    let url = match stores::accept(url) {
        Ok(u) => u,
        Err(e) => {
            let shown = PathBuf::from(&e.url);
            w.errors
                .push(crate::source::remote_err(&shown, e, u64::MAX));
            return;
        }
    };
    let url = url.as_str();
    let base = url.trim_end_matches('/');
    let shown = Path::new(base);
    let list = match stores::locate(url) {
        Err(e) => {
            w.errors.push(crate::source::remote_err(shown, e, u64::MAX));
            return;
        }
        Ok(stores::Found::Object { .. }) => {
            let name = base.rsplit('/').next().unwrap_or(base);
            // `<table>/metadata/<name>.metadata.json`: the table is two
            // levels up (within the bucket).
            let dir = base
                .rsplit_once('/')
                .and_then(|(meta, _)| meta.rsplit_once('/'))
                .map(|(dir, _)| dir)
                .filter(|d| d.contains("://") && !d.ends_with(':') && !d.ends_with("//"));
            match dir {
                Some(dir) if is_metadata_json(name) => {
                    let dir = PathBuf::from(dir);
                    w.found.push(Found {
                        name: table_name(&dir, &dir),
                        dir,
                        format: Format::Iceberg,
                        metadata: Some(PathBuf::from(base)),
                    })
                }
                _ => w.errors.push(Error::NoTable {
                    path: shown.to_path_buf(),
                    reason: "not a table prefix, a warehouse prefix or an Iceberg *.metadata.json object".into(),
                }),
            }
            return;
        }
        Ok(stores::Found::Prefix(list)) => list,
    };
    let mut root = Tree::default();
    for o in &list {
        root.insert(&o.rel);
    }
    w.root = shown.to_path_buf();
    let before = (w.found.len(), w.errors.len());
    let loose = walk_tree(&root, shown, w);
    if loose > 0 {
        w.errors.push(no_metadata_in(
            shown,
            loose,
            root.dirs.contains_key("metadata"),
        ));
    } else if w.found.len() == before.0 && w.errors.len() == before.1 {
        let reason = if root.dirs.contains_key("_delta_log") || root.dirs.contains_key("metadata") {
            "table metadata prefix holds no table metadata"
        } else {
            "no Delta or Iceberg tables found"
        };
        w.errors.push(Error::NoTable {
            path: shown.to_path_buf(),
            reason: reason.into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, b"x").unwrap();
    }

    #[test]
    fn warehouse_search_finds_tables_and_reports_orphans() {
        let root = std::env::temp_dir().join(format!("lakeaudit-discover-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        touch(&root.join("wh/tpch.db/orders/_delta_log/00000000000000000000.json"));
        touch(&root.join("wh/tpch.db/orders/d=1/part-0.parquet"));
        touch(&root.join("wh/tpch/lineitem/metadata/00001-a.metadata.json"));
        touch(&root.join("wh/tpch/lineitem/data/x.parquet"));
        touch(&root.join("wh/broken/p=1/part-0.parquet"));
        touch(&root.join("wh/broken/p=2/part-0.parquet"));
        let (found, errors) = discover(&[root.join("wh")]);
        let got: Vec<_> = found
            .iter()
            .map(|f| (f.dir.clone(), f.format, f.name.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                // Paths sort by component: `tpch` before `tpch.db`.
                (
                    root.join("wh/tpch/lineitem"),
                    Format::Iceberg,
                    "tpch.lineitem"
                ),
                (root.join("wh/tpch.db/orders"), Format::Delta, "tpch.orders"),
            ]
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].path(), root.join("wh/broken"));
        assert!(
            errors[0].to_string().contains("2 data file(s)"),
            "{}",
            errors[0]
        );

        let (found, errors) = discover(&[root.join("wh/broken")]);
        assert!(found.is_empty());
        assert_eq!(errors[0].path(), root.join("wh/broken"));

        let meta = root.join("wh/tpch/lineitem/metadata/00001-a.metadata.json");
        let (found, _) = discover(std::slice::from_ref(&meta));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].dir, root.join("wh/tpch/lineitem"));
        assert_eq!(found[0].metadata.as_ref(), Some(&meta));
        assert_eq!(found[0].name, "lineitem");
        fs::create_dir_all(root.join("empty")).unwrap();
        let (found, errors) = discover(&[root.join("empty"), root.join("missing")]);
        assert!(found.is_empty());
        assert_eq!(errors.len(), 2);
        let _ = fs::remove_dir_all(&root);
    }
}
