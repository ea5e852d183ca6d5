//! The flags a team sets once, from a file (issue 32.10): `--config FILE`,
//! else `lakeaudit.toml` in the working directory, else the
//! `[tool.lakeaudit]` table of `pyproject.toml` there. Each key is a long
//! flag without its dashes (`budget = "500GB"`, `cost-per-tb = 5`,
//! `policy = "iceberg"`, `storage-option = { aws_region = "eu-west-1" }`);
//! its value is what the flag takes. The file's flags go before the
//! command line's, and the command line wins: a flag given on both takes
//! the command line's value (a repeatable flag, `storage-option`, takes
//! both, the command line's last). A key a command does not take is not
//! given to it (`budget` is `plan`'s and `analyze`'s, not `queries`'); a
//! key no command takes, or one that names a run rather than a team's
//! settings (`out`, `output`, `format`, `force`, …), is a usage error
//! naming the file and the key.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Flags that say what one run reads or writes, not how a team works:
/// never taken from a file.
const PER_RUN: &[&str] = &[
    "config",
    "out",
    "output",
    "format",
    "force",
    "records",
    "aggregates",
    "name",
    "since",
    "until",
    "explain",
    "exit-code",
    "instance",
    "quiet",
    "verbose",
    "help",
    "version",
    "apps",
    // A safety override, given each time it is meant (never from a
    // file found in the working directory).
    "allow-outside-table",
];

/// A configuration file's flags.
pub struct Config {
    /// Where they came from (as the user would name it).
    pub file: PathBuf,
    /// `(key, values)`, in the file's order: one value, or one per entry
    /// of a repeatable flag (`storage-option`'s `key=value`s); a boolean
    /// `true` is a flag without a value (`None`).
    pub flags: Vec<(String, Vec<Option<String>>)>,
}

/// A usage error in a configuration file (exit 64).
#[derive(Debug)]
pub struct ConfigError(pub String);

/// The configuration in force: `--config FILE` when given, else
/// `lakeaudit.toml`, else `pyproject.toml`'s `[tool.lakeaudit]` in `dir`.
pub fn find(explicit: Option<&Path>, dir: &Path) -> Result<Option<Config>, ConfigError> {
    if let Some(f) = explicit {
        return read(f, false).map(Some);
    }
    let own = dir.join("lakeaudit.toml");
    if own.is_file() {
        return read(Path::new("lakeaudit.toml"), false).map(Some);
    }
    let py = dir.join("pyproject.toml");
    if py.is_file() {
        return read_opt(Path::new("pyproject.toml"), true);
    }
    Ok(None)
}

/// Most bytes a configuration file may hold (it is a few flags).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

fn read(file: &Path, pyproject: bool) -> Result<Config, ConfigError> {
    read_opt(file, pyproject)?
        .ok_or_else(|| ConfigError(format!("{}: no [tool.lakeaudit] table", file.display())))
}

/// The file's flags; `None` for a `pyproject.toml` without
/// `[tool.lakeaudit]` (not a lakeaudit configuration).
fn read_opt(file: &Path, pyproject: bool) -> Result<Option<Config>, ConfigError> {
    let shown = file.display();
    let err = |m: String| ConfigError(format!("{shown}: {m}"));
    let len = std::fs::metadata(file)
        .map_err(|e| err(format!("cannot read: {e}")))?
        .len();
    if len > MAX_CONFIG_BYTES {
        return Err(err(format!(
            "{len} bytes: a configuration file holds at most {MAX_CONFIG_BYTES}"
        )));
    }
    let text = std::fs::read_to_string(file).map_err(|e| err(format!("cannot read: {e}")))?;
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| err(format!("not TOML: {}", e.message())))?;
    let table = if pyproject {
        match doc
            .get("tool")
            .and_then(|t| t.as_table())
            .and_then(|t| t.get("lakeaudit"))
        {
            None => return Ok(None),
            Some(toml::Value::Table(t)) => t.clone(),
            Some(_) => return Err(err("[tool.lakeaudit] is not a table".into())),
        }
    } else {
        doc
    };
    let mut flags = Vec::new();
    for (key, value) in table {
        let values = match value {
            toml::Value::Table(t) => t
                .into_iter()
                .map(|(k, v)| scalar(&v).map(|v| Some(format!("{k}={v}"))))
                .collect::<Option<Vec<_>>>(),
            toml::Value::Array(a) => a
                .iter()
                .map(|v| scalar(v).map(Some))
                .collect::<Option<Vec<_>>>(),
            toml::Value::Boolean(true) => Some(vec![None]),
            toml::Value::Boolean(false) => Some(vec![]),
            v => scalar(&v).map(|s| vec![Some(s)]),
        }
        .ok_or_else(|| {
            err(format!(
                "key `{key}`: a value lakeaudit cannot take as a flag's"
            ))
        })?;
        flags.push((key, values));
    }
    Ok(Some(Config {
        file: file.to_path_buf(),
        flags,
    }))
}

/// A scalar as the flag's text.
fn scalar(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        toml::Value::Datetime(d) => Some(d.to_string()),
        toml::Value::Array(_) | toml::Value::Table(_) => None,
    }
}

/// Every long flag of `cmd` and its subcommands.
fn longs(cmd: &clap::Command, out: &mut Vec<String>) {
    for a in cmd.get_arguments() {
        if let Some(l) = a.get_long() {
            out.push(l.to_string());
        }
    }
    for s in cmd.get_subcommands() {
        longs(s, out);
    }
}

impl Config {
    /// The arguments to put before the command line's for `sub`: each key
    /// `sub` takes. An unknown key, or one naming a run's input or output,
    /// is a usage error naming the file and the key.
    pub fn args_for(&self, root: &clap::Command, sub: &str) -> Result<Vec<OsString>, ConfigError> {
        let mut known = Vec::new();
        longs(root, &mut known);
        let taken: Vec<String> = root
            .get_subcommands()
            .find(|s| s.get_name() == sub)
            .map(|s| {
                s.get_arguments()
                    .chain(root.get_arguments())
                    .filter_map(|a| a.get_long().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let mut out = Vec::new();
        for (key, values) in &self.flags {
            if PER_RUN.contains(&key.as_str()) || !known.contains(key) {
                let mut settable: Vec<&String> = known
                    .iter()
                    .filter(|k| !PER_RUN.contains(&k.as_str()))
                    .collect();
                settable.sort();
                settable.dedup();
                let what = if PER_RUN.contains(&key.as_str()) {
                    "it names what one run reads or writes, so it is given on the command line"
                } else {
                    "no command takes it"
                };
                return Err(ConfigError(format!(
                    "{}: unknown key `{key}`: {what} (keys are the long flags a team sets once: {})",
                    self.file.display(),
                    settable
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            if !taken.contains(key) {
                continue;
            }
            for v in values {
                out.push(OsString::from(format!("--{key}")));
                if let Some(v) = v {
                    out.push(OsString::from(v));
                }
            }
        }
        Ok(out)
    }
}

/// The index in `args` (program name first) of the subcommand: the first
/// argument that is not a global flag or a global flag's value.
pub fn subcommand_index(args: &[OsString], root: &clap::Command) -> Option<usize> {
    let takes_value: Vec<String> = root
        .get_arguments()
        .filter(|a| a.get_action().takes_values())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    let mut i = 1;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        if a.starts_with('-') {
            if takes_value.iter().any(|t| *t == a) {
                i += 1;
            }
            i += 1;
            continue;
        }
        return Some(i);
    }
    None
}
