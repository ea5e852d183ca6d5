//! The executions of the input as one [`Workload`], whatever they were
//! read from: logs (spooled, [`crate::spool`]), records sorted on disk
//! ([`crate::records`]) or a Spark map's aggregates ([`crate::aggregates`]);
//! [`load`] reads a [`Source`].

use crate::apps::AppList;
use crate::error::{Error, Result};
use crate::exec::{Census, Exec, Opened, Source};
use crate::identity::Locations;
use crate::ingest::Ingested;
use crate::time::TimeRange;
use std::borrow::Cow;

/// The executions of the input, with what was read beside them: from logs
/// in memory, from records sorted on disk and read back one at a time
/// ([`crate::records::Sorted`]). Either way [`Workload::each`] gives them
/// in (app id, execution id) order, path reads renamed.
pub struct Workload {
    /// One summary per application, sorted by app id (compressed:
    /// [`AppList`]).
    pub apps: AppList,
    /// Error lines, `path[:line]: reason`, in input order.
    pub errors: Vec<String>,
    /// Warning lines.
    pub warnings: Vec<String>,
    /// Table identity by location, observed over every kept execution's
    /// scans.
    pub locations: Locations,
    /// The executions counted ([`Census`], for the range given to [`load`]).
    pub census: Census,
    execs: Execs,
}

enum Execs {
    Memory(Vec<Exec>),
    Logs(crate::spool::LogSpool),
    Sorted(crate::records::Sorted),
    Aggregated(Box<crate::aggregates::Aggregates>),
}

impl Workload {
    /// What `o` read beside its executions, with `execs` made of them.
    fn opened<T>(o: Opened<T>, execs: impl FnOnce(T) -> Execs) -> Workload {
        Workload {
            apps: o.apps,
            errors: o.errors,
            warnings: o.warnings,
            locations: o.locations,
            census: o.census,
            execs: execs(o.execs),
        }
    }
}

impl From<Opened<crate::records::Sorted>> for Workload {
    /// A workload of records sorted on disk.
    fn from(o: Opened<crate::records::Sorted>) -> Workload {
        Workload::opened(o, Execs::Sorted)
    }
}

impl From<Opened<crate::aggregates::Aggregates>> for Workload {
    /// A workload of aggregates: what was read beside them, no execution.
    fn from(o: Opened<crate::aggregates::Aggregates>) -> Workload {
        Workload::opened(o, |a| Execs::Aggregated(Box::new(a)))
    }
}

impl Workload {
    /// The aggregates the workload was read from (`--aggregates`), if so.
    pub fn aggregates(&self) -> Option<&crate::aggregates::Aggregates> {
        match &self.execs {
            Execs::Aggregated(a) => Some(a),
            _ => None,
        }
    }

    /// With `--aggregates`, the warning that `output` is left out (it is
    /// made of the executions, which the aggregates do not hold).
    pub fn left_out(&self, output: &str) -> Option<String> {
        self.aggregates().map(|a| {
            format!(
                "{output} is not written: --aggregates {} holds no per-execution records (use --records or the logs for it)",
                a.dir().display()
            )
        })
    }

    /// Whether any input failed (exit code 2).
    pub fn failed(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Call `f` with every execution in order (borrowed from memory, or
    /// read from disk and owned); a pass over records on disk reads them
    /// again, one at a time.
    pub fn each<'a, E: From<Error>>(
        &'a self,
        mut f: impl FnMut(Cow<'a, Exec>) -> Result<(), E>,
    ) -> Result<(), E> {
        match &self.execs {
            Execs::Memory(v) => v.iter().try_for_each(|e| f(Cow::Borrowed(e))),
            Execs::Logs(s) => s.each(|e| f(Cow::Owned(e))),
            Execs::Sorted(s) => s.each(|e| f(Cow::Owned(e))),
            Execs::Aggregated(a) => Err(a.needs_records().into()),
        }
    }

    /// Run `f` on the workload as executions in memory (executions on
    /// disk are read into memory first, and stay there): for the stages
    /// that look at every execution more than once (the what-if of
    /// `--tables`).
    pub fn in_memory<R>(&mut self, f: impl FnOnce(&mut Ingested<Exec>) -> R) -> Result<R> {
        if !matches!(self.execs, Execs::Memory(_)) {
            let mut v = Vec::with_capacity(self.census.executions);
            self.each(|e| {
                v.push(e.into_owned());
                Ok::<_, Error>(())
            })?;
            self.execs = Execs::Memory(v);
        }
        let Execs::Memory(records) = &mut self.execs else {
            unreachable!("read into memory above")
        };
        let mut data = Ingested {
            apps: self.apps.iter().collect(),
            records: std::mem::take(records),
            errors: std::mem::take(&mut self.errors),
            warnings: std::mem::take(&mut self.warnings),
            locations: std::mem::take(&mut self.locations),
            left_out: Vec::new(),
        };
        let out = f(&mut data);
        self.apps = AppList::from(data.apps);
        *records = data.records;
        self.errors = data.errors;
        self.warnings = data.warnings;
        self.locations = data.locations;
        Ok(out)
    }
}

/// Read every execution of `source`, holding none in memory: from logs,
/// lineage runs while each execution's plans are alive and the executions
/// are spooled to disk ([`crate::spool::LogSpool`]); records are sorted on
/// disk ([`crate::records::open`]). Either way the locations of every kept
/// execution's scans are observed once (kept in [`Workload::locations`]),
/// and a path read of a catalog table's location is reported under the
/// catalog name ([`rename_paths`]) as the executions are read back.
/// `range` (`--since`/`--until`) is what the [`Census`] counts as selected.
pub fn load(source: Source<'_>, range: &TimeRange) -> Result<Workload> {
    let (paths, stdin_name, options) = match source {
        Source::Records(dir) => return crate::records::open(dir, range).map(Workload::from),
        Source::Aggregates(dir) => return crate::aggregates::open(dir, range).map(Workload::from),
        Source::Logs {
            paths,
            stdin_name,
            options,
        } => (paths, stdin_name, options),
    };
    let (data, census, spool) = crate::spool::LogSpool::read(paths, stdin_name, options, range)?;
    Ok(Workload {
        census,
        apps: AppList::from(data.apps),
        errors: data.errors,
        warnings: data.warnings,
        locations: data.locations,
        execs: Execs::Logs(spool),
    })
}
