//! The crates' layers, as the README's "Layout of the code" names them:
//! readers (`parsers/`) → lineage and workload (`graph/`) → planning and
//! reporting (`planner/`) → the binary (the repository's root). A crate may
//! depend on crates of its own layer or an earlier one, never a later one.
//! Read from every workspace member's `Cargo.toml` (its `[dependencies]`
//! with a `path`; dev-dependencies are the tests' own).

use std::path::{Path, PathBuf};

/// The layer of a crate by the folder it sits in (relative to the root).
fn layer(dir: &Path) -> Option<(usize, &'static str)> {
    let first = dir
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    match first.as_deref() {
        None => Some((3, "the binary")),
        Some("parsers") => Some((0, "readers (parsers/)")),
        Some("graph") => Some((1, "lineage and workload (graph/)")),
        Some("planner") => Some((2, "planning and reporting (planner/)")),
        // tests/support: the fixtures' paths, for tests only.
        Some("tests") => None,
        Some(_) => None,
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn manifest(dir: &Path) -> toml::Table {
    let path = root().join(dir).join("Cargo.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse::<toml::Table>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The workspace's members (folders relative to the root).
fn members() -> Vec<PathBuf> {
    let ws = manifest(Path::new(""));
    ws["workspace"]["members"]
        .as_array()
        .expect("workspace.members")
        .iter()
        .map(|m| {
            let m = m.as_str().expect("a member is a path");
            if m == "." {
                PathBuf::new()
            } else {
                PathBuf::from(m)
            }
        })
        .collect()
}

/// `dir`'s `[dependencies]` that are other members: their folders,
/// relative to the root.
fn path_dependencies(dir: &Path) -> Vec<(String, PathBuf)> {
    let m = manifest(dir);
    let Some(deps) = m.get("dependencies").and_then(|d| d.as_table()) else {
        return Vec::new();
    };
    let ws = manifest(Path::new(""));
    let ws_deps = ws["workspace"]
        .get("dependencies")
        .and_then(|d| d.as_table())
        .cloned()
        .unwrap_or_default();
    let mut out = Vec::new();
    for (name, spec) in deps {
        // A member's own `path` is relative to it; `foo.workspace = true`
        // takes the workspace's entry, whose path is relative to the root.
        let target = if let Some(p) = spec.get("path").and_then(|p| p.as_str()) {
            normalise(&dir.join(p))
        } else if spec.get("workspace").and_then(|w| w.as_bool()) == Some(true) {
            match ws_deps
                .get(name)
                .and_then(|d| d.get("path"))
                .and_then(|p| p.as_str())
            {
                Some(p) => normalise(Path::new(p)),
                None => continue,
            }
        } else {
            continue;
        };
        out.push((name.clone(), target));
    }
    out
}

/// `a/b/../c` → `a/c`.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn no_crate_depends_on_a_later_layer() {
    let members = members();
    assert!(members.len() >= 10, "{members:?}");
    let mut checked = 0;
    for dir in &members {
        let Some((mine, my_name)) = layer(dir) else {
            continue;
        };
        for (dep, target) in path_dependencies(dir) {
            assert!(
                members.contains(&target),
                "{}: dependency {dep} at {} is not a workspace member",
                dir.display(),
                target.display()
            );
            let Some((theirs, their_name)) = layer(&target) else {
                panic!(
                    "{}: depends on {dep} ({}), which is for tests only",
                    dir.display(),
                    target.display()
                );
            };
            assert!(
                theirs <= mine,
                "{} ({my_name}) depends on {dep} in {} ({their_name}), a later layer",
                if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                }
                .display(),
                target.display()
            );
            checked += 1;
        }
    }
    // The binary alone depends on nine crates: the check read them.
    assert!(checked >= 20, "only {checked} dependencies checked");
}

#[test]
fn a_dependency_upward_is_caught() {
    // The rule itself: planner/ → graph/ is allowed, graph/ → planner/ not.
    let (graph, _) = layer(Path::new("graph/workload")).unwrap();
    let (planner, _) = layer(Path::new("planner/skipping")).unwrap();
    let (parsers, _) = layer(Path::new("parsers/tables")).unwrap();
    let (binary, _) = layer(Path::new("")).unwrap();
    assert!(parsers < graph && graph < planner && planner < binary);
    assert_eq!(layer(Path::new("tests/support")), None);
}
