//! `--tables from-logs`: audit the tables the logs read, where the logs
//! say they are.
//!
//! A scan's table is where its plan prints it (`Location`) or, for a
//! catalog table printed without one (an Iceberg scan), where the
//! application's own catalog settings put it
//! ([`parsers::catalog::locate`]). Those locations come from the logs, which
//! are untrusted input, so they are confined as table metadata paths are:
//! a location is followed only inside a directory (or store prefix) the
//! user gave with `--tables` beside `from-logs`, or anywhere with
//! `--allow-outside-table`. With `from-logs`, the other `--tables` paths
//! are the places tables may be read from, not searched as a whole.
//!
//! ```
//! use workload::from_logs::{expand, FROM_LOGS};
//! use workload::identity::Locations;
//! use std::path::PathBuf;
//!
//! let mut l = Locations::default();
//! l.observe("lake.db.t", Some("file:/nowhere/wh/db/t"));
//! let given = [PathBuf::from(FROM_LOGS)];
//! let e = expand(&given, &l, false);
//! assert!(e.paths.is_empty());
//! assert!(e.warnings[0].contains("--allow-outside-table"), "{}", e.warnings[0]);
//! // Without `from-logs`, the paths are the paths given.
//! let e = expand(&[PathBuf::from("/data/wh")], &l, false);
//! assert_eq!(e.paths, [PathBuf::from("/data/wh")]);
//! ```

use crate::identity::{normalise, Locations};
use std::path::{Path, PathBuf};

/// The `--tables` value that stands for the logs' own tables.
pub const FROM_LOGS: &str = "from-logs";

/// What `--tables` reads once `from-logs` is expanded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expanded {
    /// The table paths (or URLs) to read.
    pub paths: Vec<PathBuf>,
    /// One line per table of the logs that is not read, and why.
    pub warnings: Vec<String>,
    /// Whether `from-logs` was given.
    pub from_logs: bool,
}

/// Whether `--tables` holds `from-logs`.
pub fn wants(given: &[PathBuf]) -> bool {
    given.iter().any(|p| p.as_os_str() == FROM_LOGS)
}

/// The paths `--tables` reads: `given` itself without `from-logs`; with
/// it, the tables the logs read (every location `locations` observed) that
/// lie inside the other paths given, or anywhere with `allow_outside`.
pub fn expand(given: &[PathBuf], locations: &Locations, allow_outside: bool) -> Expanded {
    if !wants(given) {
        return Expanded {
            paths: given.to_vec(),
            ..Expanded::default()
        };
    }
    let roots: Vec<&Path> = given
        .iter()
        .filter(|p| p.as_os_str() != FROM_LOGS)
        .map(PathBuf::as_path)
        .collect();
    let mut out = Expanded {
        from_logs: true,
        ..Expanded::default()
    };
    for (location, names) in locations.observed() {
        let names = names.join(", ");
        let Some(path) = readable(&location) else {
            out.warnings.push(format!(
                "--tables from-logs: {names} at {location}: not a local path or an object-store URL lakeaudit reads; not audited"
            ));
            continue;
        };
        if !inside(&path, &roots) && !allow_outside {
            let given = if roots.is_empty() {
                "no directory was given beside from-logs".to_string()
            } else {
                format!(
                    "outside {}",
                    roots
                        .iter()
                        .map(|r| r.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            out.warnings.push(format!(
                "--tables from-logs: {names}: the logs put it at {location}, {given}; not followed (name its directory with --tables, or --allow-outside-table follows the logs anywhere)"
            ));
            continue;
        }
        if is_url(&path) {
            out.paths.push(path);
            continue;
        }
        if !path.is_dir() {
            out.warnings.push(format!(
                "--tables from-logs: {names}: {} is not a directory here; not audited",
                path.display()
            ));
            continue;
        }
        if !path.join("_delta_log").is_dir() && !path.join("metadata").is_dir() {
            // A path read of plain files (Parquet, CSV): no table to audit.
            continue;
        }
        out.paths.push(path);
    }
    out
}

/// A normalised location as a path the table readers take: `file:/x` as
/// `/x`, object-store URLs as they are; `None` for other schemes.
fn readable(location: &str) -> Option<PathBuf> {
    if let Some(p) = location.strip_prefix("file:") {
        let p = p.trim_start_matches("//");
        let p = if p.starts_with('/') {
            p.to_string()
        } else {
            format!("/{p}")
        };
        return Some(PathBuf::from(p));
    }
    if location.starts_with('/') {
        return Some(PathBuf::from(location));
    }
    stores::is_remote(location).then(|| PathBuf::from(location))
}

fn is_url(p: &Path) -> bool {
    p.to_string_lossy().contains("://")
}

/// Whether `path` lies inside one of `roots` (directories resolved, `..`
/// and symlinks followed; URLs compared as normalised prefixes).
fn inside(path: &Path, roots: &[&Path]) -> bool {
    if is_url(path) {
        let p = normalise(&path.to_string_lossy());
        return roots.iter().any(|r| {
            let r = normalise(&r.to_string_lossy());
            is_url(Path::new(&r))
                && !p.split('/').any(|s| s == "..")
                && p.starts_with(&format!("{r}/"))
        });
    }
    let Ok(real) = std::fs::canonicalize(path) else {
        // Not here: inside only if its text is, with no `..` in it.
        return !path
            .components()
            .any(|c| c == std::path::Component::ParentDir)
            && roots.iter().any(|r| path.starts_with(r));
    };
    roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .any(|r| real.starts_with(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_become_paths_only_inside_the_roots() {
        let dir = std::env::temp_dir().join(format!("lakeaudit-from-logs-{}", std::process::id()));
        let wh = dir.join("wh");
        let t = wh.join("db").join("t");
        std::fs::create_dir_all(t.join("metadata")).unwrap();
        std::fs::create_dir_all(wh.join("plain")).unwrap();
        let elsewhere = dir.join("elsewhere").join("t");
        std::fs::create_dir_all(elsewhere.join("_delta_log")).unwrap();
        let mut l = Locations::default();
        l.observe("lake.db.t", Some(&format!("file:{}", t.display())));
        l.observe(
            "lake.db.plain",
            Some(&format!("file:{}", wh.join("plain").display())),
        );
        l.observe(
            "lake.db.gone",
            Some(&format!("file:{}", wh.join("gone").display())),
        );
        l.observe("other.db.t", Some(&format!("file:{}", elsewhere.display())));
        l.observe("s3.db.t", Some("s3a://bucket/wh/db/t"));
        l.observe("hdfs.db.t", Some("hdfs://nn/wh/db/t"));
        let given = [PathBuf::from(FROM_LOGS), wh.clone()];
        let e = expand(&given, &l, false);
        assert_eq!(e.paths, std::slice::from_ref(&t));
        let w = e.warnings.join("\n");
        assert!(
            w.contains("lake.db.gone") && w.contains("not a directory"),
            "{w}"
        );
        assert!(
            w.contains("spark_catalog.other.db.t") || w.contains("other.db.t"),
            "{w}"
        );
        assert!(w.contains("not followed"), "{w}");
        assert!(
            w.contains("hdfs://nn/wh/db/t") && w.contains("not a local path"),
            "{w}"
        );
        // The plain directory (a path read of files) is no table: silent.
        assert!(!w.contains("plain"), "{w}");
        // Allowed outside: the other table and the store's are read too.
        let e = expand(&given, &l, true);
        let mut got = e.paths.clone();
        got.sort();
        let mut want = vec![
            t.clone(),
            elsewhere.clone(),
            PathBuf::from("s3://bucket/wh/db/t"),
        ];
        want.sort();
        assert_eq!(got, want);
        // A store prefix given beside from-logs admits its tables.
        let e = expand(
            &[PathBuf::from(FROM_LOGS), PathBuf::from("s3://bucket/wh")],
            &l,
            false,
        );
        assert_eq!(e.paths, [PathBuf::from("s3://bucket/wh/db/t")]);
        // A symlink out of the root does not make a location inside it.
        let link = wh.join("link");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        let mut l = Locations::default();
        l.observe("lake.db.link", Some(&format!("file:{}", link.display())));
        let e = expand(&given, &l, false);
        assert!(e.paths.is_empty(), "{:?}", e.paths);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
