//! `lakeaudit`: recover join relationships from Spark event logs and plan
//! lakehouse table layouts. The binary only parses flags and wires the
//! library crates together.

mod analyze;
mod cli;
mod edges_cmd;
mod output;
mod pipeline;
mod plan_cmd;
mod queries;
mod tables_cmd;
mod whatif_cmd;

use anyhow::Result;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Recover which columns Spark queries joined on, weigh the joins, and plan
/// Delta Liquid Clustering layouts.
#[derive(Parser, Debug)]
#[command(
    name = "lakeaudit",
    version,
    about,
    long_about = None,
    after_help = "Examples:\n  lakeaudit analyze /var/log/spark-events --tables /data/warehouse --out audit\n  lakeaudit edges app-logs/ --since 2026-10-01\n\nExit codes: 0 every input was read; 2 some input could not be read (the others' results are written); 64 the command line is wrong (nothing was read); 101 a bug in lakeaudit (it says where)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Worker threads for reading logs (default: all cores). One log is
    /// read by one thread, plus a decompression thread when there are
    /// fewer logs than threads (so `--threads 1` uses one core).
    #[arg(long, global = true, value_name = "N", value_parser = cli::positive)]
    threads: Option<usize>,
    /// An option for the object stores logs are read from (`s3://`,
    /// `s3a://`, `az://`, `abfss://`, `gs://`), as object_store's config
    /// keys name them (delta-rs' storage_options): `aws_endpoint=http://…`,
    /// `aws_allow_http=true`, `aws_region=…`, `azure_storage_account_name=…`.
    /// Repeatable; overrides the environment (`AWS_*`, `AZURE_*`, `GOOGLE_*`).
    #[arg(long = "storage-option", global = true, value_name = "KEY=VALUE", value_parser = cli::key_value)]
    storage_options: Vec<(String, String)>,
}

/// Shared input arguments.
#[derive(clap::Args, Debug, Clone)]
struct Inputs {
    /// Event logs: files, Spark rolling-log directories, directories of
    /// logs (searched recursively), or `-` for standard input.
    #[arg(
        required_unless_present = "records",
        conflicts_with = "records",
        value_name = "PATH"
    )]
    paths: Vec<String>,
    /// Read per-execution records instead of logs: the output directory
    /// of lakeaudit's Spark map job, or a `queries --format parquet` file.
    #[arg(long, value_name = "DIR")]
    records: Option<PathBuf>,
    /// Name standard input's log NAME in errors and in the records' `log`
    /// field (for logs piped in, `lakeaudit queries --name app-123 -`).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Longest accepted line of a log, in bytes.
    #[arg(long, default_value_t = parsers::io::DEFAULT_MAX_LINE, hide = true)]
    max_line: usize,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// One record per SQL execution: timings, scanned tables with metrics,
    /// join operators and the relationships they resolve to.
    #[command(
        after_help = "Examples:\n  lakeaudit queries /var/log/spark-events --format table\n  lakeaudit queries app-logs/ --format parquet -o queries.parquet\n  zstd -dc app.zstd | lakeaudit queries --name app-123 -"
    )]
    Queries {
        #[command(flatten)]
        inputs: Inputs,
        #[command(flatten)]
        out: cli::OutputArgs,
        /// Also write one JSON line per application read (its summary: id,
        /// log, lines, bytes, event counts) to FILE.
        #[arg(long, value_name = "FILE")]
        apps: Option<PathBuf>,
    },
    /// The weighted join-edge table: frequency F, data volume D, cost C and
    /// the Join Importance Score per (table pair, key columns).
    #[command(
        after_help = "Examples:\n  lakeaudit edges /var/log/spark-events\n  lakeaudit edges app-logs/ --window 7d --format csv -o edges.csv\n  lakeaudit edges app-logs/ --explain 'lineitem(l_orderkey) = orders(o_orderkey)'"
    )]
    Edges {
        #[command(flatten)]
        inputs: Inputs,
        #[command(flatten)]
        score: edges_cmd::ScoreArgs,
        /// Split by execution start time into windows of this length
        /// (`7d`, `1w`, `12h`), the last ending at the last execution;
        /// default: one window over all input.
        #[arg(long, value_name = "LENGTH", value_parser = cli::window, allow_hyphen_values = true)]
        window: Option<String>,
        /// Show why an edge scored what it did: an edge as lakeaudit prints
        /// it (`lineitem(l_orderkey) = orders(o_orderkey)`), or
        /// `orders-lineitem`, `orders.o_orderkey=lineitem.l_orderkey`.
        #[arg(long, value_name = "EDGE")]
        explain: Option<String>,
        #[command(flatten)]
        out: cli::OutputArgs,
    },
    /// Choose Liquid Clustering keys per table within rewrite and storage
    /// budgets, with the Delta SQL to apply them.
    #[command(
        after_help = "Examples:\n  lakeaudit plan /var/log/spark-events --tables /data/warehouse\n  lakeaudit plan app-logs/ --budget 500GB --cost-per-tb 5 --cost-per-hour 0.50\n  lakeaudit plan app-logs/ --format sql -o plan.sql"
    )]
    Plan {
        #[command(flatten)]
        inputs: Inputs,
        #[command(flatten)]
        score: edges_cmd::ScoreArgs,
        #[command(flatten)]
        plan: plan_cmd::PlanArgs,
        /// Plan a planning instance written as JSON (tables, candidate keys and
        /// their costs, edges with the key each side needs, budgets)
        /// instead of logs; `--budget`/`--storage-budget` override its budgets.
        #[arg(long, value_name = "FILE.json", conflicts_with = "paths")]
        instance: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
        format: PlanFormat,
        /// Write to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Workload drift between consecutive windows, and whether to re-plan.
    #[command(
        after_help = "Examples:\n  lakeaudit drift /var/log/spark-events\n  lakeaudit drift app-logs/ --window 1w --threshold 0.2 --format jsonl"
    )]
    Drift {
        #[command(flatten)]
        inputs: Inputs,
        #[command(flatten)]
        score: edges_cmd::ScoreArgs,
        /// Window length; the last window ends at the last execution.
        #[arg(long, value_name = "LENGTH", default_value = "7d", value_parser = cli::window, allow_hyphen_values = true)]
        window: String,
        /// Re-plan when drift exceeds this.
        #[arg(long, default_value_t = 0.10, value_parser = cli::non_negative, allow_hyphen_values = true)]
        threshold: f64,
        /// How JIS is normalised for the comparison.
        #[arg(long, value_enum, default_value_t = cli::Normalize::Max)]
        normalize: cli::Normalize,
        #[command(flatten)]
        out: cli::OutputArgs,
    },
    /// Run everything and write queries, edges, drift, the plan, its SQL and
    /// a short report into DIR.
    #[command(
        after_help = "Examples:\n  lakeaudit analyze /var/log/spark-events --tables /data/warehouse --out audit\n  lakeaudit analyze app-logs/ --out audit --cost-per-tb 5 --cost-per-hour 0.50"
    )]
    Analyze {
        #[command(flatten)]
        inputs: Inputs,
        #[command(flatten)]
        score: edges_cmd::ScoreArgs,
        #[command(flatten)]
        plan: plan_cmd::PlanArgs,
        /// Drift threshold.
        #[arg(long, default_value_t = 0.10, value_parser = cli::non_negative, allow_hyphen_values = true)]
        threshold: f64,
        /// How JIS is normalised for drift.
        #[arg(long, value_enum, default_value_t = cli::Normalize::Max)]
        normalize: cli::Normalize,
        /// Output directory (created if needed). A directory holding files
        /// lakeaudit did not write is refused; files an earlier run wrote
        /// and this one does not are removed (see `.lakeaudit-outputs`).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Write into `--out DIR` even though it holds other files (they are
        /// left alone).
        #[arg(long)]
        force: bool,
    },
    /// Delta and Iceberg table state from metadata: files, sizes, rows,
    /// deletes, and the compaction each engine would run.
    #[command(
        after_help = "Examples:\n  lakeaudit tables /data/warehouse\n  lakeaudit tables /data/warehouse/sales.db/orders --target-size 128MB --out audit"
    )]
    Tables(tables_cmd::TablesArgs),
    /// The files and bytes each logged scan of a Delta or Iceberg table
    /// reads, from the table's own file statistics.
    #[command(
        after_help = "Examples:\n  lakeaudit whatif /var/log/spark-events --tables /data/warehouse\n  lakeaudit whatif app-logs/ --tables /data/warehouse --engine all --format csv -o skipping.csv"
    )]
    Whatif {
        #[command(flatten)]
        inputs: Inputs,
        #[command(flatten)]
        args: whatif_cmd::WhatifArgs,
        #[command(flatten)]
        out: cli::OutputArgs,
    },
}

/// Formats of `lakeaudit plan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    /// Readable summary.
    Text,
    /// The plan as JSON.
    Json,
    /// The Delta SQL to run, with runbook comments.
    Sql,
}

fn run(cli: Cli) -> Result<ExitCode> {
    if let Some(n) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()?;
    }
    if !cli.storage_options.is_empty() {
        parsers::io::set_storage_options(cli.storage_options)
            .map_err(|e| cli::UsageError(format!("--storage-option: {e}")))?;
    }
    let failed = match cli.command {
        Command::Queries { inputs, out, apps } => {
            queries::run(&inputs, out.format()?, out.path(), apps.as_deref())?
        }
        Command::Edges {
            inputs,
            score,
            window,
            explain,
            out,
        } => edges_cmd::run(
            &inputs,
            &score,
            window.as_deref(),
            explain.as_deref(),
            out.format()?,
            out.path(),
        )?,
        Command::Plan {
            plan,
            format,
            output,
            instance: Some(instance),
            ..
        } => plan_cmd::run_instance(&instance, &plan, format, output.as_deref())?,
        Command::Plan {
            inputs,
            score,
            plan,
            format,
            output,
            instance: None,
        } => analyze::plan(&inputs, &score, &plan, format, output.as_deref())?,
        Command::Drift {
            inputs,
            score,
            window,
            threshold,
            normalize,
            out,
        } => analyze::drift(
            &inputs,
            &score,
            &window,
            threshold,
            normalize,
            out.format()?,
            out.path(),
        )?,
        Command::Analyze {
            inputs,
            score,
            plan,
            threshold,
            normalize,
            out,
            force,
        } => analyze::run(&inputs, &score, &plan, threshold, normalize, &out, force)?,
        Command::Tables(args) => tables_cmd::run(&args)?,
        Command::Whatif { inputs, args, out } => {
            whatif_cmd::run(&inputs, &args, out.format()?, out.path())?
        }
    };
    Ok(ExitCode::from(if failed {
        cli::EXIT_INPUT
    } else {
        cli::EXIT_OK
    }))
}

/// Print problems with inputs the way every command does.
fn report_problems(errors: &[String], warnings: &[String]) {
    let mut err = std::io::stderr().lock();
    for w in warnings {
        let _ = writeln!(err, "lakeaudit: warning: {w}");
    }
    for e in errors {
        let _ = writeln!(err, "lakeaudit: {e}");
    }
}

/// The command line, with `plan`'s log paths optional under `--instance`.
/// A usage error exits with [`cli::EXIT_USAGE`] (clap's own default, 2, is
/// the code of an input failure here); `--help` and `--version` exit 0.
fn parse_cli() -> Cli {
    let cmd = Cli::command().mut_subcommand("plan", |c| {
        c.mut_arg("paths", |a| {
            a.required(false).required_unless_present("instance")
        })
    });
    let usage = |e: clap::Error| -> ! {
        let _ = e.print();
        std::process::exit(if e.use_stderr() {
            i32::from(cli::EXIT_USAGE)
        } else {
            i32::from(cli::EXIT_OK)
        })
    };
    let mut matches = cmd.try_get_matches().unwrap_or_else(|e| usage(e));
    Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| usage(e))
}

/// Where the last panic happened (`file:line:col`), for the one line that
/// reports a panic no input's boundary caught.
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// A panic inside one input's processing (a dependency that panics on
/// crafted bytes) is caught at that input's boundary and reported as that
/// input's named error; Rust's default `thread '…' panicked at …` line
/// before it would only be noise. So the hook prints nothing (unless
/// `RUST_BACKTRACE` is set: then the default message and backtrace, for
/// a developer) and only notes where it happened; a panic that no boundary
/// caught is reported by [`main`] as an internal error with that place.
fn quiet_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
            default(info);
        }
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = info.location().map(|l| l.to_string());
        }
    }));
}

/// The text of a panic's payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

fn main() -> ExitCode {
    let cli = parse_cli();
    quiet_panics();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli)));
    let outcome = match outcome {
        Ok(r) => r,
        Err(payload) => {
            let at = LAST_PANIC
                .lock()
                .ok()
                .and_then(|l| l.clone())
                .map(|l| format!(" (at {l})"))
                .unwrap_or_default();
            let _ = writeln!(
                std::io::stderr(),
                "lakeaudit: internal error: {}{at}; this is a bug in lakeaudit, please report it (RUST_BACKTRACE=1 shows where)",
                panic_text(payload.as_ref())
            );
            return ExitCode::from(cli::EXIT_INTERNAL);
        }
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            // A closed pipe (`lakeaudit queries x | head`) is not a failure.
            let broken_pipe = e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .map(|io| io.kind())
                    .or_else(|| {
                        c.downcast_ref::<serde_json::Error>()
                            .and_then(|j| j.io_error_kind())
                    })
                    .or_else(|| c.downcast_ref::<tabular::Error>().and_then(|t| t.io_kind()))
                    == Some(std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(std::io::stderr(), "lakeaudit: {e:#}");
            ExitCode::from(cli::exit_code(&e))
        }
    }
}
