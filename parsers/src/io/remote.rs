//! Event logs on object stores (`s3://`, `s3a://`, `az://`, `abfss://`,
//! `gs://`): the same discovery rules as local paths, applied to a listing.
//!
//! A URL naming one object is a log file named by the user; a URL naming a
//! prefix is a directory: `eventlog_v2_<appId>` (or a prefix holding both
//! `appstatus_` and `events_` objects) is one rolling log, anything else is
//! searched (the listing, every page of it, is turned into a tree of
//! "directories" at its `/`s, and walked as a local directory is). A part's
//! path is its URL; [`super::LineReader`] streams it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::discover::{
    found_file, loc, named_file, rolling_parts, Opener, APPSTATUS_PREFIX, EVENTS_PREFIX, MAX_DEPTH,
    ROLLING_DIR_PREFIX,
};
use super::Discovery;
use crate::Error;

/// Finds the logs behind one object-store URL (without the credentials it
/// may carry: they are used for its requests, never shown or kept).
pub(super) fn discover_url(url: &str, d: &mut Discovery) {
    let url = match stores::accept(url) {
        Ok(u) => u,
        Err(e) => {
            d.errors.push(Error::Input {
                at: loc(&e.url),
                reason: e.why(),
            });
            return;
        }
    };
    let url = url.as_str();
    match stores::locate(url) {
        Err(e) => d.errors.push(Error::Input {
            at: loc(&e.url),
            reason: e.why(),
        }),
        Ok(stores::Found::Object { .. }) => {
            let name = last_segment(url);
            match named_file(name, Path::new(url), url, &object(url)) {
                Ok(input) => d.inputs.push(input),
                Err(e) => d.errors.push(e),
            }
        }
        Ok(stores::Found::Prefix(list)) => {
            let base = url.trim_end_matches('/');
            let mut root = Dir::default();
            for o in list {
                root.insert(&o.rel, o.url);
            }
            if last_segment(base).starts_with(ROLLING_DIR_PREFIX) || root.holds_rolling_parts() {
                match rolling_parts(root.files(), base) {
                    Ok(input) => d.inputs.push(input),
                    Err(e) => d.errors.push(e),
                }
            } else {
                let before = d.inputs.len();
                walk(&root, base, 0, d);
                if d.inputs.len() == before {
                    d.errors.push(Error::Input {
                        at: loc(base),
                        reason: "no Spark event logs found under this prefix".into(),
                    });
                }
            }
        }
    }
}

fn last_segment(url: &str) -> &str {
    url.trim_end_matches('/').rsplit('/').next().unwrap_or(url)
}

/// Streams the object at `url` (for sniffing a file's first bytes).
fn object(url: &str) -> impl Fn() -> std::io::Result<Box<dyn std::io::Read + Send>> + '_ {
    move || {
        stores::open(url)
            .map(|r| Box::new(r) as Box<dyn std::io::Read + Send>)
            .map_err(|e| std::io::Error::other(e.why()))
    }
}

/// A "directory" of a listing: the objects right under it and the
/// sub-prefixes. Hidden names (`.`-prefixed, as the `.crc` side files) are
/// left out, as a local directory's are.
#[derive(Default)]
struct Dir {
    files: BTreeMap<String, String>,
    dirs: BTreeMap<String, Dir>,
}

enum Entry<'a> {
    File(&'a str),
    Dir(&'a Dir),
}

impl Dir {
    fn insert(&mut self, rel: &str, url: String) {
        let mut dir = self;
        let mut segs = rel.split('/').filter(|s| !s.is_empty()).peekable();
        while let Some(seg) = segs.next() {
            if seg.starts_with('.') {
                return;
            }
            if segs.peek().is_none() {
                dir.files.insert(seg.to_string(), url);
                return;
            }
            dir = dir.dirs.entry(seg.to_string()).or_default();
        }
    }

    /// Files and sub-directories in name order, as a local listing.
    fn entries(&self) -> Vec<(&str, Entry<'_>)> {
        let mut out: Vec<(&str, Entry<'_>)> = self
            .files
            .iter()
            .map(|(n, u)| (n.as_str(), Entry::File(u.as_str())))
            .chain(self.dirs.iter().map(|(n, d)| (n.as_str(), Entry::Dir(d))))
            .collect();
        out.sort_by(|a, b| a.0.cmp(b.0));
        out
    }

    /// The objects right under this prefix, (name, URL as a path).
    fn files(&self) -> Vec<(String, PathBuf)> {
        self.files
            .iter()
            .map(|(n, u)| (n.clone(), PathBuf::from(u)))
            .collect()
    }

    fn holds_rolling_parts(&self) -> bool {
        let names = || self.files.keys().chain(self.dirs.keys());
        names().any(|n| n.starts_with(APPSTATUS_PREFIX))
            && names().any(|n| n.starts_with(EVENTS_PREFIX))
    }
}

fn walk(dir: &Dir, display: &str, depth: usize, d: &mut Discovery) {
    if depth > MAX_DEPTH {
        d.errors.push(Error::Input {
            at: loc(display),
            reason: format!("prefixes nested deeper than {MAX_DEPTH} levels"),
        });
        return;
    }
    for (name, entry) in dir.entries() {
        if name.ends_with(".crc") || name.starts_with(APPSTATUS_PREFIX) {
            continue;
        }
        match entry {
            Entry::Dir(sub) => {
                let shown = format!("{display}/{name}");
                if name.starts_with(ROLLING_DIR_PREFIX) || sub.holds_rolling_parts() {
                    let files = sub.files();
                    if super::discover::without_parts(&files) {
                        d.skipped.push(super::Skipped {
                            path: shown,
                            why: super::SkipReason::EmptyRollingDirectory,
                        });
                        continue;
                    }
                    match rolling_parts(files, &shown) {
                        Ok(input) => d.inputs.push(input),
                        Err(e) => d.errors.push(e),
                    }
                } else {
                    walk(sub, &shown, depth + 1, d);
                }
            }
            Entry::File(url) => {
                let open: Opener = &object(url);
                match found_file(Path::new(url), name, url, open) {
                    Ok(Ok(input)) => d.inputs.push(input),
                    Ok(Err(why)) => d.skipped.push(super::Skipped {
                        path: url.to_string(),
                        why,
                    }),
                    Err(e) => d.errors.push(e),
                }
            }
        }
    }
}
