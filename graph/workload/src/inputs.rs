//! What every command reads, as given on the command line ([`Inputs`]):
//! event logs, the records of a Spark map job (`--records`), or the
//! aggregates of a Spark aggregation job (`--aggregates`).

use crate::exec::Source;
use parsers::events::ReadOptions;
use std::path::PathBuf;

/// Shared input arguments.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct Inputs {
    /// Event logs: files, Spark rolling-log directories, directories of
    /// logs (searched recursively), or `-` for standard input.
    #[cfg_attr(
        feature = "clap",
        arg(
            required_unless_present_any = ["records", "aggregates"],
            conflicts_with_all = ["records", "aggregates"],
            value_name = "PATH"
        )
    )]
    pub paths: Vec<String>,
    /// Read per-execution records instead of logs: the output directory
    /// of lakeaudit's Spark map job, or a `queries --format parquet` file.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "DIR", conflicts_with = "aggregates")
    )]
    pub records: Option<PathBuf>,
    /// Plan from the edge and scan aggregates of lakeaudit's Spark
    /// aggregation job (its output directory) instead of logs: `plan`,
    /// `drift`, `analyze` (without `queries.parquet`) and `edges`
    /// (without `--explain`); `--window`, `--since` and `--until` must be
    /// the job's.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub aggregates: Option<PathBuf>,
    /// Name standard input's log NAME in errors and in the records' `log`
    /// field (for logs piped in, `lakeaudit queries --name app-123 -`).
    #[cfg_attr(feature = "clap", arg(long, value_name = "NAME"))]
    pub name: Option<String>,
    /// Longest accepted line of a log, in bytes.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = parsers::io::DEFAULT_MAX_LINE, hide = true))]
    pub max_line: usize,
}

impl Inputs {
    /// How logs are read.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            max_line: self.max_line,
            ..ReadOptions::default()
        }
    }

    /// Whether the inputs are logs (not records or aggregates).
    pub fn from_logs(&self) -> bool {
        self.records.is_none() && self.aggregates.is_none()
    }

    /// Where the executions come from; `options` are [`Inputs::read_options`].
    pub fn source<'a>(&'a self, options: &'a ReadOptions) -> Source<'a> {
        match (&self.records, &self.aggregates) {
            (Some(dir), _) => Source::Records(dir),
            (None, Some(dir)) => Source::Aggregates(dir),
            (None, None) => Source::Logs {
                paths: &self.paths,
                stdin_name: self.name.as_deref(),
                options,
            },
        }
    }
}
