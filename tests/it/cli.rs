//! The command line as a user meets it (issue 20, sections 2 and 4): flag
//! errors, exit codes, windows aligned to the data, the drift default, the
//! savings in report.md, `--explain`, terminal tables and `--help`.

use crate::common::*;
use std::process::{Command, Output};

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lakeaudit"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run lakeaudit")
}

/// Each bad value is refused before anything is read, naming its flag and
/// what it accepts, with the usage exit code (64), never a library's
/// internals.
#[test]
fn each_flag_error_names_its_flag_and_exits_64() {
    let weekly = logs("weekly");
    let warehouse = sample("warehouse");
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["tables", &warehouse, "--target-size", "128 parsecs"],
            "--target-size <BYTES>",
            "128MiB",
        ),
        (
            &["plan", &weekly, "--storage-budget", "10 gigs"],
            "--storage-budget <BYTES>",
            "500GB",
        ),
        (
            &["plan", &weekly, "--budget", "-5GB"],
            "--budget <BYTES>",
            "500GB",
        ),
        (
            &["edges", &weekly, "--window", "1mo"],
            "--window <LENGTH>",
            "30d",
        ),
        (
            &["drift", &weekly, "--window", "7x"],
            "--window <LENGTH>",
            "7d",
        ),
        (
            &["plan", &weekly, "--horizon", "0"],
            "--horizon <WINDOWS>",
            "at least 1",
        ),
        (
            &["--threads", "0", "queries", &weekly],
            "--threads <N>",
            "at least 1",
        ),
        (
            &["plan", &weekly, "--scan-reduction", "5"],
            "--scan-reduction <FRACTION>",
            "at most 1",
        ),
        (
            &["plan", &weekly, "--discount", "-0.1"],
            "--discount <RATE>",
            "at least 0",
        ),
        (
            &["edges", &weekly, "--since", "2026-02-31"],
            "--since <TIME>",
            "2026-10-05",
        ),
        (
            &["analyze", &weekly, "--cost-per-tb", "cheap", "--out", "x"],
            "--cost-per-tb <PRICE>",
            "number",
        ),
        // Issue 32.2: a target size of 0 divided by zero in the planner.
        (
            &["tables", &warehouse, "--target-size", "0"],
            "--target-size <BYTES>",
            "at least 1 byte",
        ),
        // Issue 32.9: 2^64 was capped to 2^64 - 1 while 2^64 + 1 was refused.
        (
            &["plan", &weekly, "--budget", "18446744073709551616"],
            "--budget <BYTES>",
            "500GB",
        ),
        // Issue 29: 0 rows silently dropped every candidate layout.
        (
            &[
                "whatif",
                &weekly,
                "--tables",
                &warehouse,
                "--sample-rows",
                "0",
            ],
            "--sample-rows <N>",
            "--current-only",
        ),
    ];
    for (args, flag, forms) in cases {
        let o = run(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(64), "{args:?}: {err}");
        assert!(err.contains(&format!("for '{flag}'")), "{args:?}: {err}");
        assert!(err.contains(forms), "{args:?} should name {forms:?}: {err}");
        assert!(
            !err.contains("jiff") && !err.contains("invalid digit"),
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{args:?} wrote output");
    }
    // The same size parser for every size flag: 128MB is a target size too.
    let o = run(&["tables", &warehouse, "--target-size", "128MB"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Each flag's accepted forms are accepted.
    let accepted: &[&[&str]] = &[
        &[
            "plan",
            &weekly,
            "--budget",
            "2TiB",
            "--scan-reduction",
            "0.3",
            "--horizon",
            "2",
        ],
        &[
            "plan",
            &weekly,
            "--discount",
            "0",
            "--cost-per-tb",
            "5",
            "--window",
            "1w",
        ],
        &[
            "edges",
            &weekly,
            "--since",
            "-1000",
            "--until",
            "2026-10-05T11:00:00+02:00",
        ],
        &[
            "--threads",
            "2",
            "--storage-option",
            "aws_region=eu-west-1",
            "queries",
            &weekly,
        ],
    ];
    for args in accepted {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
}

/// Every numeric flag at 0, at a negative value and at the largest value
/// either runs or is refused as a usage error: none panics (issue 32.2).
#[test]
fn numeric_flags_at_their_edges_never_panic() {
    let weekly = logs("weekly");
    let warehouse = sample("warehouse");
    let huge = "18446744073709551615";
    let flags: &[(&str, &[&str])] = &[
        ("tables", &["--target-size"]),
        (
            "plan",
            &[
                "--budget",
                "--storage-budget",
                "--scan-reduction",
                "--horizon",
                "--discount",
                "--retention-factor",
                "--cost-per-tb",
                "--cost-per-hour",
                "--min-table-size",
            ],
        ),
        ("drift", &["--threshold"]),
        ("whatif", &["--build-rows", "--sample-rows"]),
    ];
    for (cmd, names) in flags {
        for flag in *names {
            for value in ["0", "-1", huge, "1e308"] {
                let mut args = vec![*cmd, weekly.as_str()];
                if *cmd == "tables" {
                    args[1] = warehouse.as_str();
                }
                if *cmd == "whatif" {
                    args.extend(["--tables", warehouse.as_str()]);
                }
                args.extend([*flag, value]);
                let o = run(&args);
                let code = o.status.code();
                assert!(
                    matches!(code, Some(0) | Some(2) | Some(64)),
                    "{args:?}: exit {code:?}\n{}",
                    stderr(&o)
                );
                if code == Some(64) {
                    assert!(stderr(&o).contains(flag), "{args:?}: {}", stderr(&o));
                }
            }
        }
    }
}

/// An output file whose extension names no format is refused unless
/// `--format` says which (it was written as JSON lines; issue 32.9).
#[test]
fn an_unknown_output_extension_is_a_usage_error() {
    let weekly = logs("weekly");
    let dir = tempdir("cli-ext");
    let out = format!("{dir}/out.xyz");
    let o = run(&["queries", &weekly, "-o", &out]);
    assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
    assert!(stderr(&o).contains(".xyz"), "{}", stderr(&o));
    assert!(!std::path::Path::new(&out).exists());
    ok(&["queries", &weekly, "-o", &out, "--format", "csv"]);
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with("app_id,"));
}

/// `lakeaudit completions SHELL` prints a completion script that knows
/// every command and flag (issue 32.10).
#[test]
fn completions_know_every_command() {
    for shell in ["bash", "zsh", "fish"] {
        let script = ok(&["completions", shell]);
        for word in ["whatif", "analyze", "exit-code", "sample-rows", "tables"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
    assert_eq!(run(&["completions", "tcsh"]).status.code(), Some(64));
}

/// Usage errors (64) and input failures (2) are told apart; help is 0.
#[test]
fn usage_errors_and_input_failures_have_their_own_exit_codes() {
    assert_eq!(run(&["edges", "--no-such-flag"]).status.code(), Some(64));
    assert_eq!(run(&["edges"]).status.code(), Some(64), "PATH is required");
    let missing = std::env::temp_dir().join("lakeaudit-cli-no-such-log");
    let o = run(&["queries", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(run(&["--help"]).status.code(), Some(0));
    assert_eq!(run(&["--version"]).status.code(), Some(0));
}

/// A filter that selects nothing says so (and is not an error).
#[test]
fn a_filter_that_selects_nothing_is_a_warning() {
    let weekly = logs("weekly");
    let o = run(&["edges", &weekly, "--since", "2027-01-01"]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("warning: --since/--until select none of the 109 executions"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "edges",
        &weekly,
        "--since",
        "2026-10-20",
        "--until",
        "2026-10-10",
    ]);
    assert!(
        stderr(&o).contains("is not before --until"),
        "{}",
        stderr(&o)
    );
}

/// The plan's window ends at the last execution, not past the data.
#[test]
fn the_plan_window_ends_at_the_last_execution() {
    let weekly = logs("weekly");
    let last = jsonl(&ok(&["queries", &weekly]))
        .iter()
        .filter_map(|r| r["start_ms"].as_i64())
        .max()
        .unwrap();
    let plan: serde_json::Value =
        serde_json::from_str(&ok(&["plan", &weekly, "--format", "json"])).unwrap();
    assert_eq!(plan["window_end_ms"].as_i64(), Some(last + 1));
    assert_eq!(
        plan["window_start_ms"].as_i64(),
        Some(last + 1 - 7 * 86_400_000)
    );
    // The drift windows are cut the same way.
    let rows = jsonl(&ok(&["drift", &weekly]));
    assert_eq!(
        rows.last().unwrap()["window_end_ms"].as_i64(),
        Some(last + 1)
    );
}

/// The default drift normalisation tells the unchanged week 1→2 from the
/// changed ones, and a comparison across empty windows is marked.
#[test]
fn drift_default_on_the_samples() {
    let rows = jsonl(&ok(&["drift", &logs("weekly")]));
    assert_eq!(rows.len(), 3);
    let d: Vec<f64> = rows.iter().map(|r| r["drift"].as_f64().unwrap()).collect();
    assert!(rows.iter().all(|r| r["normalize"] == "max"));
    // Weeks 1 and 2 run the same mix: their drift is the smallest, and
    // less than half of week 3→4's (new edges) and week 2→3's (a shift).
    assert!(d[0] < 0.5 * d[2] && d[2] < d[1], "{d:?}");
    assert!(d[0] < 0.11, "{d:?}");
    assert!(rows.iter().all(|r| r["gap_windows"] == 0));
    // Issue 32.7: the default threshold (0.3, from the noise of unchanged
    // weeks: scripts/drift_noise.py) keeps the plan for weeks 1→2 (0.103;
    // the former 0.1 said re-plan), re-plans on the shift into week 3, and
    // the hysteresis keeps that re-plan due through week 3→4 (0.293: below
    // the threshold, above the settle threshold 0.15).
    let due: Vec<(bool, bool)> = rows
        .iter()
        .map(|r| (r["replan"] == true, r["held"] == true))
        .collect();
    assert_eq!(
        due,
        [(false, false), (true, false), (true, true)],
        "{rows:?}"
    );
    let o = run(&["drift", &logs("weekly"), "--exit-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("within the threshold 0.3, but a re-plan has been due since an earlier window drifted past it and drift has not settled to 0.15 or below"),
        "{}",
        stderr(&o)
    );
    // --settle at --threshold turns the hysteresis off; above it is a
    // usage error, before anything is read.
    let o = run(&["drift", &logs("weekly"), "--settle", "0.3", "--exit-code"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let unused = std::env::temp_dir().join(format!("lakeaudit-cli-{}-unused", std::process::id()));
    let unused = unused.to_string_lossy().into_owned();
    for args in [
        &["drift", "no-such-log", "--settle", "0.5"][..],
        &[
            "analyze",
            "no-such-log",
            "--settle",
            "0.5",
            "--out",
            &unused,
        ],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("--settle 0.5 is above --threshold 0.3"),
            "{}",
            stderr(&o)
        );
        assert!(!std::path::Path::new(&unused).exists());
    }
    // All the samples: the shop's window is a month after the weekly ones.
    let o = run(&["drift", &sample("")]);
    let rows = jsonl(&String::from_utf8_lossy(&o.stdout));
    let last = rows.last().unwrap();
    assert_eq!(last["gap_windows"], 4, "{last}");
    let err = stderr(&o);
    let verdict = err.lines().last().unwrap();
    assert!(
        verdict.starts_with("lakeaudit: Action needed now: re-plan")
            && verdict.contains("4 empty window(s)"),
        "{err}"
    );
    // --exit-code: 1 when a re-plan is due, 0 when not, as git diff does;
    // without it, 0 either way.
    assert_eq!(o.status.code(), Some(0));
    let o = run(&["drift", &sample(""), "--exit-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(jsonl(&String::from_utf8_lossy(&o.stdout)), rows);
    let o = run(&["drift", &sample(""), "--exit-code", "--threshold", "100"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// report.md says which range each section covers, the saving of each
/// change per week (bytes, executor time, and money at the given prices),
/// and prints warnings before the summary line.
#[test]
fn the_report_shows_ranges_and_savings_per_change() {
    let dir = tempdir("cli-report");
    let o = run(&[
        "analyze",
        &sample(""),
        "--tables",
        &sample("warehouse"),
        "--out",
        &dir,
        "--min-table-size",
        "0",
        "--cost-per-tb",
        "5",
        "--cost-per-hour",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    // Warnings, then the verdicts (issue 32.10), then the summary.
    let verdicts = lines
        .iter()
        .position(|l| l.starts_with("lakeaudit: verdict: "))
        .unwrap_or(lines.len() - 1);
    assert!(lines[verdicts..lines.len() - 1]
        .iter()
        .all(|l| l.starts_with("lakeaudit: verdict: ")));
    assert!(verdicts > 0 && lines[..verdicts].iter().all(|l| l.contains("warning")));
    assert!(lines.last().unwrap().contains("applications"), "{err}");
    let md = std::fs::read_to_string(std::path::Path::new(&dir).join("report.md")).unwrap();
    assert!(
        md.contains("Over all of the input read, 2026-10-05T09:00:07Z .. "),
        "{md}"
    );
    assert!(
        md.contains("For the most recent 7d window of the input, 2026-11-24T05:59:33Z .. 2026-12-01T05:59:33Z (it ends at the last execution)"),
        "{md}"
    );
    let plan = md
        .split("## Layout plan")
        .nth(1)
        .unwrap()
        .split("## Budget curve")
        .next()
        .unwrap();
    let changes: Vec<&str> = plan
        .lines()
        .filter(|l| l.starts_with("- `") && l.contains("CLUSTER BY"))
        .collect();
    assert!(!changes.is_empty());
    for c in &changes {
        assert!(
            c.contains(" a week")
                && c.contains("scanned and")
                && c.contains("of executor time, cost "),
            "{c}"
        );
    }
    assert!(plan.contains("at 5.00 per TB (10^12 bytes) scanned and 2.00 per executor hour"));
    assert!(md.contains("**Action needed now: re-plan"), "{md}");
    let html = std::fs::read_to_string(std::path::Path::new(&dir).join("report.html")).unwrap();
    assert!(html.contains("saves scanned / week") && html.contains("cost / week"));
    let sql = std::fs::read_to_string(std::path::Path::new(&dir).join("plan.sql")).unwrap();
    assert!(
        !sql.contains(" bytes,") && sql.contains("MiB"),
        "NPV in human units"
    );
}

/// `--explain` takes an edge as lakeaudit prints it (either side first,
/// short or qualified names); a miss lists the closest real edges.
#[test]
fn explain_takes_a_printed_edge_and_suggests_the_closest() {
    let weekly = logs("weekly");
    for e in [
        "lineitem(l_orderkey) = orders(o_orderkey)",
        "orders(o_orderkey) = lineitem(l_orderkey)",
        "spark_catalog.default.lineitem(l_orderkey) = spark_catalog.default.orders(o_orderkey)",
    ] {
        let out = ok(&["edges", &weekly, "--explain", e]);
        assert!(
            out.starts_with("edge lineitem(l_orderkey) = orders(o_orderkey)"),
            "{e}: {out}"
        );
    }
    let o = run(&[
        "edges",
        &weekly,
        "--explain",
        "lineitem(l_orderkey) = order(o_orderkey)",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    let first = err
        .lines()
        .skip_while(|l| !l.contains("closest"))
        .nth(1)
        .unwrap();
    assert_eq!(
        first.trim(),
        "lineitem(l_orderkey) = orders(o_orderkey)",
        "{err}"
    );
}

/// A table fits the terminal's width, with sizes and times in human units;
/// a pipe gets JSON lines by default on every command; `drift` lists new
/// and gone edges in full.
#[test]
fn terminal_tables_fit_and_pipes_get_json_lines() {
    let weekly = logs("weekly");
    let o = run_env(
        &["edges", &weekly, "--format", "table"],
        &[("COLUMNS", "80")],
    );
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.lines().count() > 2);
    for l in out.lines() {
        assert!(l.chars().count() <= 80, "{} chars: {l}", l.chars().count());
    }
    let header = out.lines().next().unwrap();
    assert!(
        header.contains("C mean") && header.contains("scanned"),
        "{header}"
    );
    assert!(out.contains(" s ") || out.contains(" ms "), "{out}");
    for cmd in ["queries", "edges", "drift"] {
        let text = ok(&[cmd, &weekly]);
        assert!(
            !jsonl(&text).is_empty(),
            "{cmd} writes JSON lines to a pipe"
        );
    }
    let tables = ok(&["tables", &sample("warehouse")]);
    assert!(!jsonl(&tables).is_empty());
    // whatif at 100 columns keeps its answer (files and bytes read) and
    // gives up the description first (issue 32.9: it kept the description
    // and dropped files_read and bytes_read).
    let o = run_env(
        &[
            "whatif",
            &sample("shop"),
            "--tables",
            &sample("warehouse"),
            "--format",
            "table",
        ],
        &[("COLUMNS", "100")],
    );
    let out = String::from_utf8(o.stdout).unwrap();
    let header = out.lines().next().unwrap();
    assert!(
        header.contains("files_read")
            && header.contains("bytes_read")
            && !header.contains("description"),
        "{out}"
    );
    assert!(out.contains("description; widen the terminal"), "{out}");
    for l in out.lines() {
        assert!(l.chars().count() <= 100, "{l}");
    }
    let drift = ok(&["drift", &weekly, "--format", "table"]);
    let rows = jsonl(&ok(&["drift", &weekly]));
    for r in &rows {
        for e in r["gone_edges"].as_array().unwrap() {
            let e = e.as_str().unwrap();
            assert!(drift.contains(&format!("gone  {e}\n")), "{e}:\n{drift}");
        }
        for e in r["new_edges"].as_array().unwrap() {
            let e = e.as_str().unwrap();
            assert!(drift.contains(&format!("new   {e}\n")), "{e}:\n{drift}");
        }
    }
}

/// Every command's help has an example and points to no file of the
/// source tree.
#[test]
fn every_help_has_an_example() {
    for cmd in [
        &[][..],
        &["queries"],
        &["edges"],
        &["plan"],
        &["drift"],
        &["analyze"],
        &["tables"],
    ] {
        let mut args = cmd.to_vec();
        args.push("--help");
        let help = ok(&args);
        assert!(help.contains("Examples:\n  lakeaudit "), "{cmd:?}:\n{help}");
        for f in [".md", ".py", "planner/", "spark/"] {
            assert!(!help.contains(f), "{cmd:?} help points to {f}:\n{help}");
        }
    }
}

/// `drift -o FILE.txt` writes the table (and the new and gone edges) into
/// the file: the atomic output is renamed into place, not dropped.
#[test]
fn drift_table_to_a_file_is_written() {
    let dir = tempdir("cli-drift-txt");
    let path = format!("{dir}/drift.txt");
    let o = run(&["drift", &logs("weekly"), "-o", &path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&path).expect("drift.txt written");
    assert!(text.contains("drift"), "{text}");
    assert!(text.lines().count() > 3, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-o /dev/stdout` and `--apps /dev/fd/N` (what the Spark map passes) are
/// pipes, not files to replace: they are written in place, and a FIFO too.
#[test]
fn outputs_to_pipes_and_devices_are_written_in_place() {
    let log = logs("weekly");
    let want = ok(&["queries", &log, "--format", "jsonl"]);
    let o = run(&["queries", &log, "--format", "jsonl", "-o", "/dev/stdout"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    let o = run(&["queries", &log, "--format", "jsonl", "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dir = tempdir("cli-fifo");
    let fifo = format!("{dir}/apps.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = run(&["queries", &log, "--format", "jsonl", "--apps", &fifo]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let apps = reader.join().unwrap();
    assert!(apps.contains("\"app_id\""), "{apps}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-o -` is standard output, as `-` is standard input: every command
/// with `-o` writes there, and no file named `-` appears.
#[test]
fn dash_output_is_standard_output() {
    let log = logs("weekly");
    let warehouse = sample("warehouse");
    let dir = tempdir("cli-dash");
    for args in [
        vec!["queries", &log, "--format", "csv"],
        vec!["edges", &log, "--format", "jsonl"],
        vec!["plan", &log, "--format", "json"],
        vec!["tables", &warehouse, "--format", "jsonl"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
            .current_dir(&dir)
            .args(&args)
            .args(["-o", "-"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(o.stdout, run(&args).stdout, "{args:?}");
        assert!(!o.stdout.is_empty(), "{args:?}");
        assert!(
            !std::path::Path::new(&dir).join("-").exists(),
            "{args:?} wrote a file named -"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reader that stops early (`lakeaudit queries logs | head`) is not a
/// failure: the command exits 0 without an error line, whether it writes
/// the spooled records (JSON lines, CSV) or columns from memory.
#[test]
fn a_closed_pipe_is_not_a_failure() {
    use std::io::Read;
    let samples = sample("");
    for format in ["jsonl", "csv", "table"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
            .args(["queries", &samples, "--format", format])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run lakeaudit");
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{format}: {err}");
        assert!(
            !err.contains("Broken pipe") && !err.contains("broken pipe"),
            "{format}: {err}"
        );
    }
}

/// `--quiet` and `--verbose` (issue 32.10): quiet prints no warning (the
/// weekly sample's directory holds a README and SQL files, a warning
/// otherwise) but still every error, with its exit code; verbose names
/// each log as it is read; both at once is a usage error.
#[test]
fn quiet_and_verbose() {
    let weekly = logs("weekly");
    let o = run(&["queries", &weekly]);
    assert!(
        stderr(&o).contains("lakeaudit: warning: skipped"),
        "{}",
        stderr(&o)
    );
    let o = run(&["queries", &weekly, "--quiet"]);
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(0), ""));
    let o = run(&["-q", "queries", &weekly, "no-such-log"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("no-such-log") && !err.contains("warning"),
        "{err}"
    );
    let o = run(&["queries", &weekly, "--verbose"]);
    let err = stderr(&o);
    let read: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("lakeaudit: read "))
        .collect();
    assert_eq!(read.len(), 4, "{err}");
    assert!(
        read.iter()
            .any(|l| l.starts_with("lakeaudit: read 4 of 4: ")),
        "{err}"
    );
    assert!(err.contains("eventlog_v2_local-1791190803209"), "{err}");
    let o = run(&["queries", &weekly, "-q", "-v"]);
    assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
}

/// `analyze` ends with one verdict line per table (issue 32.10): what to
/// do with it and what that saves a week, then the summary; `--quiet`
/// keeps them (they are the run's result, not progress).
#[test]
fn analyze_ends_with_a_verdict_per_table() {
    let dir = tempdir("cli-verdicts");
    let o = run(&[
        "analyze",
        &sample(""),
        "--tables",
        &sample("warehouse"),
        "--min-table-size",
        "0",
        "--pricing",
        "assumed",
        "--quiet",
        "--out",
        &dir,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines.last().unwrap().contains("applications"), "{err}");
    let verdict = |table: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("lakeaudit: verdict: {table}: ")))
            .unwrap_or_else(|| panic!("no verdict for {table}:\n{err}"))
            .to_string()
    };
    let v = verdict("spark_catalog.shop.lineitem");
    assert!(
        v.contains(": recluster on (l_orderkey) — saves ") && v.ends_with(" a week"),
        "{v}"
    );
    let v = verdict("spark_catalog.shop.web_events");
    assert!(v.contains(": leave — costs more than it saves"), "{v}");
    // Every table the plan weighed gets exactly one line, before the summary.
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/plan.json")).unwrap())
            .unwrap();
    let profiles = plan["table_profiles"].as_array().unwrap();
    let verdicts = lines
        .iter()
        .filter(|l| l.starts_with("lakeaudit: verdict: "))
        .count();
    assert_eq!(verdicts, profiles.len(), "{err}");
    assert!(!err.contains("warning"), "{err}");
    // Default sizes: the audited sample tables are left alone, saying why.
    let o = run(&[
        "analyze",
        &sample(""),
        "--tables",
        &sample("warehouse"),
        "--force",
        "--out",
        &dir,
    ]);
    let err = stderr(&o);
    assert!(
        err.contains("lakeaudit: verdict: spark_catalog.shop.orders: leave — the table (118.0 KiB in 48 files) is smaller than one target file (1.0 GiB)"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `lakeaudit.toml`, `[tool.lakeaudit]` in `pyproject.toml` and
/// `--config FILE` (issue 32.10): the flags a team sets once, the command
/// line's winning; an unknown key, or a run's own flag, is a usage error
/// naming the file and the key; a key another command takes is ignored.
#[test]
fn a_config_file_sets_the_teams_flags() {
    let dir = std::path::PathBuf::from(tempdir("cli-config"));
    let samples = sample("");
    let in_dir = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let budget = |o: &Output| -> serde_json::Value {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["budget"].clone()
    };
    std::fs::write(
        dir.join("lakeaudit.toml"),
        "budget = \"200KB\"\nmin-table-size = 0\npricing = \"assumed\"\nthreshold = 0.5\n[storage-option]\naws_region = \"eu-west-1\"\n",
    )
    .unwrap();
    let plan = ["plan", samples.as_str(), "--format", "json"];
    assert_eq!(budget(&in_dir(&plan)), 200_000);
    // The command line wins.
    let mut over = plan.to_vec();
    over.extend(["--budget", "300KB"]);
    assert_eq!(budget(&in_dir(&over)), 300_000);
    // queries takes none of these: it runs as without the file.
    let o = in_dir(&["queries", &logs("weekly"), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // drift takes the threshold.
    let o = in_dir(&["drift", &logs("weekly")]);
    assert!(
        stderr(&o).contains("within the threshold 0.5"),
        "{}",
        stderr(&o)
    );
    // Unknown keys and a run's own flags: exit 64, naming file and key.
    for (text, key) in [("bugdet = 1\n", "bugdet"), ("out = \"x\"\n", "out")] {
        std::fs::write(dir.join("lakeaudit.toml"), text).unwrap();
        let o = in_dir(&["queries", &logs("weekly")]);
        assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
        assert!(
            stderr(&o).starts_with(&format!("lakeaudit: lakeaudit.toml: unknown key `{key}`")),
            "{}",
            stderr(&o)
        );
    }
    // A value the flag refuses names the file, then the flag.
    std::fs::write(dir.join("lakeaudit.toml"), "budget = \"lots\"\n").unwrap();
    let o = in_dir(&plan);
    assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("with the flags of lakeaudit.toml") && stderr(&o).contains("--budget"),
        "{}",
        stderr(&o)
    );
    // pyproject.toml's [tool.lakeaudit], when there is no lakeaudit.toml;
    // --config FILE over both.
    std::fs::remove_file(dir.join("lakeaudit.toml")).unwrap();
    std::fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"x\"\n[tool.lakeaudit]\nbudget = \"250KB\"\n",
    )
    .unwrap();
    assert_eq!(budget(&in_dir(&plan)), 250_000);
    std::fs::write(dir.join("team.toml"), "budget = \"400KB\"\n").unwrap();
    let mut conf = plan.to_vec();
    conf.extend(["--config", "team.toml"]);
    assert_eq!(budget(&in_dir(&conf)), 400_000);
    // A pyproject.toml without [tool.lakeaudit] is no configuration.
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"x\"\n").unwrap();
    assert_eq!(budget(&in_dir(&plan)), serde_json::Value::Null);
    let _ = std::fs::remove_dir_all(&dir);
}
