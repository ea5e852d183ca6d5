//! `lakeaudit`: recover join relationships from Spark event logs and plan
//! lakehouse table layouts. The binary only parses flags and wires the
//! library crates together.

mod analyze;
mod cli;
mod config;
mod edges_cmd;
mod output;
mod pipeline;
mod plan_cmd;
mod queries;
mod tables_cmd;
mod verify_cmd;
mod whatif_cmd;

use anyhow::Result;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

/// mimalloc, not the system allocator: reading logs allocates and frees
/// many small strings and plan nodes (malloc and free were about a fifth
/// of one core on a plan-heavy log).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Recover which columns Spark queries joined on, weigh the joins, and plan
/// Delta Liquid Clustering layouts.
#[derive(Parser, Debug)]
#[command(
    name = "lakeaudit",
    version,
    about,
    long_about = None,
    after_help = "Examples:\n  lakeaudit analyze /var/log/spark-events --tables /data/warehouse --out audit\n  lakeaudit edges app-logs/ --since 2026-10-01\n\nExit codes: 0 every input was read; 1 (drift --exit-code) a re-plan is due; 2 some input could not be read (the others' results are written); 64 the command line is wrong (nothing was read); 101 a bug in lakeaudit (it says where)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Worker threads (default: all cores). One log is read by one
    /// thread, plus a decompression thread and a thread for the
    /// executions' final plans when there are fewer logs than threads (so
    /// `--threads 1` uses one core); tables are audited, and their layouts
    /// simulated, one per thread.
    #[arg(long, global = true, value_name = "N", value_parser = cli::positive)]
    threads: Option<usize>,
    /// An option for the object stores logs and tables are read from (`s3://`,
    /// `s3a://`, `az://`, `abfss://`, `gs://`), as object_store's config
    /// keys name them (delta-rs' storage_options): `aws_endpoint=http://…`,
    /// `aws_allow_http=true`, `aws_region=…`, `azure_storage_account_name=…`.
    /// Repeatable; overrides the environment (`AWS_*`, `AZURE_*`, `GOOGLE_*`).
    #[arg(long = "storage-option", global = true, value_name = "KEY=VALUE", value_parser = cli::key_value)]
    storage_options: Vec<(String, String)>,
    /// How long a request to an object store may wait for its response's
    /// first byte, and a response body for its next byte, before the
    /// attempt fails and is retried (a length: 30s, 2m, 500ms; default
    /// 30s); connecting waits at most 5s (or this, if shorter). The run
    /// retries failed attempts 20 times (or for 2 minutes) in all, then
    /// gives up on a store whose last attempts failed.
    #[arg(long = "store-timeout", global = true, value_name = "DURATION", value_parser = cli::store_timeout)]
    store_timeout: Option<std::time::Duration>,
    /// Print no progress and no warnings on standard error (errors, and
    /// the run's closing lines, still are).
    #[arg(long, short = 'q', global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Print a line per log as it is read (instead of the progress bar).
    #[arg(long, short = 'v', global = true)]
    verbose: bool,
    /// The flags a team sets once (budgets, prices, policies, storage
    /// options), from a TOML file whose keys are the long flags (default:
    /// `lakeaudit.toml` in the working directory, else
    /// `[tool.lakeaudit]` in `pyproject.toml` there); the command line's
    /// flags win.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
}

/// `--quiet`: warnings are not printed.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[derive(Subcommand, Debug)]
enum Command {
    /// One record per SQL execution: timings, scanned tables with metrics,
    /// join operators and the relationships they resolve to.
    #[command(
        after_help = "Examples:\n  lakeaudit queries /var/log/spark-events --format table\n  lakeaudit queries app-logs/ --format parquet -o queries.parquet\n  zstd -dc app.zstd | lakeaudit queries --name app-123 -"
    )]
    Queries(queries::Args),
    /// The weighted join-edge table: frequency F, data volume D, cost C and
    /// the Join Importance Score per (table pair, key columns).
    #[command(
        after_help = "Examples:\n  lakeaudit edges /var/log/spark-events\n  lakeaudit edges app-logs/ --window 7d --format csv -o edges.csv\n  lakeaudit edges app-logs/ --explain 'lineitem(l_orderkey) = orders(o_orderkey)'"
    )]
    Edges(edges_cmd::Args),
    /// Choose clustering keys per table within rewrite and storage
    /// budgets, with the SQL to apply them (Delta Liquid Clustering, Iceberg
    /// sort orders).
    #[command(
        after_help = "Examples:\n  lakeaudit plan /var/log/spark-events --tables /data/warehouse\n  lakeaudit plan app-logs/ --budget 500GB --cost-per-tb 5 --cost-per-hour 0.50\n  lakeaudit plan app-logs/ --format sql -o plan.sql"
    )]
    Plan(plan_cmd::Args),
    /// Workload drift between consecutive windows, and whether to re-plan.
    #[command(
        after_help = "Examples:\n  lakeaudit drift /var/log/spark-events\n  lakeaudit drift app-logs/ --window 1w --threshold 0.2 --format jsonl"
    )]
    Drift(analyze::DriftArgs),
    /// Run everything and write queries, edges, drift, the plan, its SQL and
    /// a short report into DIR.
    #[command(
        after_help = "Examples:\n  lakeaudit analyze /var/log/spark-events --tables /data/warehouse --out audit\n  lakeaudit analyze app-logs/ --out audit --cost-per-tb 5 --cost-per-hour 0.50"
    )]
    Analyze(analyze::Args),
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
    Whatif(whatif_cmd::Args),
    /// Did a rewrite pay? Per rewrite of a Delta or Iceberg table inside
    /// the logs' time range: files and bytes read per run of the queries
    /// that ran before and after it, and the what-if's prediction.
    #[command(
        after_help = "Examples:\n  lakeaudit verify /var/log/spark-events --tables /data/warehouse\n  lakeaudit verify app-logs/ --tables from-logs /data/warehouse -o verify.csv"
    )]
    Verify(verify_cmd::Args),
    /// A completion script for a shell, on standard output.
    #[command(
        after_help = "Examples:\n  lakeaudit completions bash > ~/.local/share/bash-completion/completions/lakeaudit\n  lakeaudit completions zsh > ~/.zfunc/_lakeaudit\n  lakeaudit completions fish > ~/.config/fish/completions/lakeaudit.fish"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

fn run(cli: Cli) -> Result<ExitCode> {
    if cli.quiet {
        QUIET.store(true, std::sync::atomic::Ordering::Relaxed);
        stores::set_quiet(true);
        workload::ingest::set_verbosity(workload::ingest::Verbosity::Quiet);
    } else if cli.verbose {
        workload::ingest::set_verbosity(workload::ingest::Verbosity::Verbose);
    }
    if let Some(n) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()?;
    }
    if let Some(t) = cli.store_timeout {
        stores::set_timeouts(stores::Timeouts::from_one(t))
            .map_err(|e| tabular::Error::Usage(format!("--store-timeout: {e}")))?;
    }
    if !cli.storage_options.is_empty() {
        parsers::io::set_storage_options(cli.storage_options)
            .map_err(|e| tabular::Error::Usage(format!("--storage-option: {e}")))?;
    }
    let failed = match cli.command {
        Command::Queries(a) => queries::run(&a)?,
        Command::Edges(a) => edges_cmd::run(&a)?,
        Command::Plan(a) => plan_cmd::run(&a)?,
        Command::Drift(a) => {
            let d = analyze::drift(&a)?;
            if !d.failed && d.replan && a.exit_code {
                return Ok(ExitCode::from(cli::EXIT_REPLAN));
            }
            d.failed
        }
        Command::Analyze(a) => analyze::run(&a)?,
        Command::Tables(a) => tables_cmd::run(&a)?,
        Command::Whatif(a) => whatif_cmd::run(&a)?,
        Command::Verify(a) => verify_cmd::run(&a)?,
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "lakeaudit", &mut std::io::stdout());
            false
        }
    };
    Ok(ExitCode::from(if failed {
        cli::EXIT_INPUT
    } else {
        cli::EXIT_OK
    }))
}

/// `--quiet`: no notes on standard error.
fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Print problems with inputs the way every command does.
fn report_problems(errors: &[String], warnings: &[String]) {
    let mut err = std::io::stderr().lock();
    let warnings = if QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        &[]
    } else {
        warnings
    };
    for w in warnings {
        let _ = writeln!(err, "lakeaudit: warning: {}", stores::redact(w));
    }
    for e in errors {
        let _ = writeln!(err, "lakeaudit: {}", stores::redact(e));
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
    let args = without_credentials(std::env::args_os());
    let mut matches = cmd
        .clone()
        .try_get_matches_from(&args)
        .unwrap_or_else(|e| usage(e));
    let sub = matches.subcommand_name().map(str::to_string);
    let cli = Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| usage(e));
    // The configuration file's flags go before the command line's, which
    // win (`args_override_self`: a flag's last value is taken).
    if let Command::Completions { .. } = &cli.command {
        return cli;
    }
    let found = std::env::current_dir()
        .map_err(|e| config::ConfigError(format!("the working directory: {e}")))
        .and_then(|dir| config::find(cli.config.as_deref(), &dir));
    let bad_config = |e: config::ConfigError| -> ! {
        let _ = writeln!(std::io::stderr(), "lakeaudit: {}", e.0);
        std::process::exit(i32::from(cli::EXIT_USAGE))
    };
    let Some(conf) = found.unwrap_or_else(|e| bad_config(e)) else {
        return cli;
    };
    let (Some(sub), Some(at)) = (sub, config::subcommand_index(&args, &cmd)) else {
        return cli;
    };
    let extra = conf.args_for(&cmd, &sub).unwrap_or_else(|e| bad_config(e));
    if extra.is_empty() {
        return cli;
    }
    let mut with = args[..=at].to_vec();
    with.extend(extra);
    with.extend_from_slice(&args[at + 1..]);
    let cmd = cmd.mut_subcommand(&sub, |c| c.args_override_self(true));
    let mut matches = cmd.try_get_matches_from(&with).unwrap_or_else(|e| {
        let _ = writeln!(
            std::io::stderr(),
            "lakeaudit: with the flags of {}:",
            conf.file.display()
        );
        usage(e)
    });
    Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| usage(e))
}

/// The command line with the credentials of its object-store URLs taken
/// out (`s3://KEY:SECRET@bucket/…` is `s3://bucket/…`, a SAS query is
/// dropped), as an argument or a `--flag=URL`: they are remembered for
/// their store and used for its requests, and nothing after this sees
/// them (records, reports, table state, errors). Credentials that cannot
/// be used are a usage error naming the URL (hidden), before anything is
/// read.
fn without_credentials(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    args.map(|a| {
        let Some(text) = a.to_str() else { return a };
        let (flag, value) = match text.split_once('=') {
            Some((f, v)) if f.starts_with("--") && stores::is_remote(v) => (Some(f), v),
            _ => (None, text),
        };
        if !stores::is_remote(value) {
            return a;
        }
        match stores::accept(value) {
            Ok(clean) => match flag {
                Some(f) => format!("{f}={clean}").into(),
                None => clean.into(),
            },
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "lakeaudit: {e}");
                std::process::exit(i32::from(cli::EXIT_USAGE));
            }
        }
    })
    .collect()
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
                parsers::panic_text(payload.as_ref())
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
                    .or_else(|| c.downcast_ref::<report::Error>().and_then(|r| r.io_kind()))
                    == Some(std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(
                std::io::stderr(),
                "lakeaudit: {}",
                stores::redact(&format!("{e:#}"))
            );
            ExitCode::from(cli::exit_code(&e))
        }
    }
}
