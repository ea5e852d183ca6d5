//! `report.md`, and the two ways a name from the logs enters Markdown
//! safely: as escaped text ([`text`]) or as a code span ([`code`]).
//!
//! Spark accepts almost any text as a column or application name (and any
//! path is a table name), and many Markdown viewers render raw HTML, so a
//! column named `<img src=x onerror=alert(1)>` would otherwise become an
//! image with a script handler. Both functions leave ordinary names
//! (letters, digits, `_` inside words, `.`, `(`, `,`, `-`, `/`, `:`...)
//! unchanged, so the report of a normal workload reads as it always did.

use crate::ReportData;
use planner::{human, human_budget, BudgetCurve, CurvePoint};
use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use workload::time::format_time;

/// `s` as Markdown text that renders as exactly `s`: `<`, `>` and `&`
/// become entities (no HTML can start), and the characters with Markdown
/// meaning (`\`, `` ` ``, `*`, `[`, `]`, `|`, `~`, and `_` where it could
/// start or end emphasis) get a backslash. Control characters (a newline
/// would end a list item or table row) are shown as `\n`, `\u{1b}`, ...
///
/// ```
/// use report::markdown::text;
/// assert_eq!(text("orders(o_orderkey)"), "orders(o_orderkey)");
/// assert_eq!(text("<img src=x>"), "&lt;img src=x&gt;");
/// assert_eq!(text("a|b*c*"), r"a\|b\*c\*");
/// ```
pub fn text(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '_' => {
                // Inside a word (`l_orderkey`) an underscore cannot open or
                // close emphasis: leave it, so ordinary names stay as they are.
                let word = |j: Option<usize>| {
                    j.and_then(|j| chars.get(j))
                        .is_some_and(|c| c.is_alphanumeric())
                };
                if !(word(i.checked_sub(1)) && word(Some(i + 1))) {
                    out.push('\\');
                }
                out.push('_');
            }
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// `s` as a Markdown code span: the fence is one backtick longer than the
/// longest run of backticks in `s` (CommonMark), padded with a space when
/// `s` starts or ends with a backtick (or with a space at both ends). Inside a code span nothing is markup
/// (HTML included). Control characters are shown escaped, as in [`text`].
/// Not for table cells (GFM splits cells on `|` even inside code spans).
///
/// ```
/// use report::markdown::code;
/// assert_eq!(code("spark_catalog.default.orders"), "`spark_catalog.default.orders`");
/// assert_eq!(code("a`b"), "``a`b``");
/// assert_eq!(code("`x"), "`` `x ``");
/// ```
pub fn code(s: &str) -> String {
    let body: String = s
        .chars()
        .flat_map(|c| {
            let esc: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            esc
        })
        .collect();
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // CommonMark strips one space from each end when both ends have one:
    // pad then too, so the name's own spaces survive.
    let spaced = body.starts_with(' ') && body.ends_with(' ') && body.trim() != "";
    let pad = if body.starts_with('`') || body.ends_with('`') || spaced {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// [`code`] for a table cell: GFM splits a row on every `|` not escaped,
/// even inside a code span, and renders `\|` there as `|`.
///
/// ```
/// use report::markdown::cell_code;
/// assert_eq!(cell_code("a|b"), r"`a\|b`");
/// ```
pub fn cell_code(s: &str) -> String {
    code(s).replace('|', "\\|")
}

/// `, plan operators lakeaudit does not know: X (n), Y (m)` for an input
/// whose plans hold operators the operator registry lacks; empty otherwise.
fn unknown_operators(ops: &BTreeMap<String, u64>) -> String {
    if ops.is_empty() {
        return String::new();
    }
    let list: Vec<String> = ops
        .iter()
        .map(|(op, n)| format!("{} ({n})", code(op)))
        .collect();
    format!(
        ", plan operators lakeaudit does not know: {}",
        list.join(", ")
    )
}

/// `; new edges: a, b` (escaped), or nothing for no edges.
fn edge_list(what: &str, edges: &[String]) -> String {
    if edges.is_empty() {
        return String::new();
    }
    let named: Vec<String> = edges.iter().map(|e| text(e)).collect();
    format!("; {what}: {}", named.join(", "))
}

/// The budget curve as a table, the chosen plan marked.
fn budget_curve(s: &mut String, c: &BudgetCurve) {
    let _ = writeln!(s, "## Budget curve\n");
    if c.points.is_empty() {
        let _ = writeln!(
            s,
            "No layout change pays for itself at any rewrite budget.\n"
        );
        return;
    }
    let _ = writeln!(
        s,
        "The best NPV under each rewrite budget, {} (storage budget: {}){}:\n",
        crate::curve_span(c),
        human_budget(c.storage_budget),
        if c.exact {
            ""
        } else {
            "; the default planner's plans, some components being too large to solve exactly"
        }
    );
    let _ = writeln!(
        s,
        "| rewrite budget | NPV | storage kept | tables changed | edges served | |"
    );
    let _ = writeln!(s, "|---:|---:|---:|---:|---:|---|");
    let shown = curve_rows(&c.points);
    for p in c
        .points
        .iter()
        .zip(&shown)
        .filter(|(_, &k)| k)
        .map(|(p, _)| p)
    {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            human(p.budget as f64),
            human(p.npv),
            human(p.storage_cost as f64),
            p.tables_changed,
            p.edges_served,
            if p.chosen { "**chosen**" } else { "" }
        );
    }
    let left_out = shown.iter().filter(|&&k| !k).count();
    if left_out > 0 {
        let _ = writeln!(
            s,
            "\n{left_out} more point(s), each less than {}% above the row before it, are in `report.html` and `plan.json`.",
            (CURVE_STEP * 100.0).round()
        );
    }
    let _ = writeln!(s);
}

/// The smallest NPV gain, over the last row shown, that earns a curve point
/// its own row in report.md.
const CURVE_STEP: f64 = 0.05;

/// Which curve points report.md shows: the first, the chosen plan, the last,
/// and every point whose NPV is at least `CURVE_STEP` above the last one
/// shown. Many small tables make many points a few bytes apart.
fn curve_rows(points: &[CurvePoint]) -> Vec<bool> {
    let mut last: Option<f64> = None;
    points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let keep = p.chosen
                || i + 1 == points.len()
                || last.is_none_or(|l| p.npv >= l * (1.0 + CURVE_STEP));
            if keep {
                last = Some(p.npv);
            }
            keep
        })
        .collect()
}

/// The maintenance plan: one line per step, best value first.
/// What the planned keys skip on the tables priced by measurement, and
/// which changed tables were priced by the assumed reduction.
fn measured_section(s: &mut String, d: &ReportData<'_>) {
    let m = &d.planned.measured;
    if m.is_empty() {
        return;
    }
    let views = d.table_views();
    if !views.iter().any(|v| m.iter().any(|w| w.table == v.t.table)) {
        return;
    }
    // The figures the plan's text points to ("below"), when a changed
    // table was measured on its planned key.
    if views.iter().any(|v| v.measured.is_some()) {
        let engines: BTreeSet<String> = m.iter().map(|w| w.engine.to_string()).collect();
        let engines: Vec<String> = engines.into_iter().collect();
        let _ = writeln!(
            s,
            "\nMeasured on the audited tables (their file statistics, and the files a rewrite would write simulated from their rows; engine: {}; details per scan in `skipping.csv`):\n",
            engines.join(", ")
        );
        let _ = writeln!(
            s,
            "| table | key | executions | read now | skipped now | read after | skipped after | files now → after |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
        for v in &views {
            let (Some(w), t) = (v.measured, v.t) else {
                continue;
            };
            let r = &w.reads;
            let pct = |read: u64| r.skipped_pct(read);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.1}% | {} | {:.1}% | {} → {} |",
                cell_code(&t.table),
                cell_code(&t.keys.join(", ")),
                w.executions,
                human(r.bytes_now as f64),
                pct(r.bytes_now),
                human(r.bytes_after as f64),
                pct(r.bytes_after),
                r.files_now,
                r.files_after
            );
        }
    }
    let assumed: Vec<String> = views
        .iter()
        .filter(|v| v.assumed)
        .map(|v| code(&v.t.table))
        .collect();
    if !assumed.is_empty() {
        let _ = writeln!(
            s,
            "\nAssumed, not measured (no table statistics; audit them with `--tables`): {}.",
            assumed.join(", ")
        );
    }
}

fn maintenance_section(
    s: &mut String,
    steps: &[maintenance::UpkeepStep],
    span: Option<(i64, i64)>,
) {
    let _ = writeln!(s, "## Maintenance\n");
    if steps.is_empty() {
        let _ = writeln!(s, "No audited table needs compaction or delete purging.\n");
        return;
    }
    let _ = writeln!(
        s,
        "Ranked by value: bytes the logs read from the table × (1 + its join importance) × its overhead (read amplification − 1 + deleted-row share + small-file share). A table the layout plan reclusters is compacted and purged by that rewrite; a table smaller than one target file is left alone (neither compacted nor purged: a rewrite buys next to nothing). A saving is the bytes the logged scans of {} would not have read, a week. The statements, in this order: `maintenance.sql`. Details: `table_state.csv`, `compaction.csv`, `deletes.csv`.\n",
        match span {
            Some((a, b)) => format!("{} .. {}", format_time(a), format_time(b)),
            None => "the input".into(),
        }
    );
    let _ = writeln!(
        s,
        "| # | table | step | rewrites | bytes | read ampl. | small files | deleted | scanned | saves | statements |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, st) in steps.iter().enumerate() {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.2} | {:.0}% | {:.1}% | {} | {} | {} |",
            i + 1,
            cell_code(&st.table),
            st.action.label(),
            text(&st.rewrites),
            human(st.rewrite_bytes as f64),
            st.read_amplification,
            st.small_file_share * 100.0,
            st.deleted_share * 100.0,
            human(st.scanned_bytes as f64),
            text(&crate::upkeep::saving(st, span)),
            if st.action == maintenance::Action::Recluster {
                "see `plan.sql`".to_string()
            } else if st.statements.is_empty() {
                "none".to_string()
            } else {
                st.statements
                    .iter()
                    .map(|x| cell_code(x))
                    .collect::<Vec<_>>()
                    .join("<br>")
            }
        );
    }
    let _ = writeln!(s);
}

/// "Engine calibration": per audited table and engine, the model that
/// reproduces the logged file counts.
fn calibration_section(s: &mut String, rows: &[skipping::calibrate::Calibration]) {
    let _ = writeln!(s, "## Engine calibration\n");
    let _ = writeln!(
        s,
        "Per audited table and engine: each model's files read on the current layout against the engine's own count of every scan of the current snapshot (scans of other snapshots left out). `whatif --engine auto` and the plan's prices use the model that fits (the default rule where no scan was compared). Details: `calibration.csv`.\n"
    );
    let _ = writeln!(
        s,
        "| table | engine | scans compared | other snapshots | exact: none / minmax / join-range / values | fits |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---|---|");
    for c in rows {
        let exact: Vec<String> = c.models.iter().map(|m| m.exact.to_string()).collect();
        let (model, calibrated) = c.model();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            cell_code(&c.table),
            c.runner.as_str(),
            c.scans_compared,
            c.scans_other_snapshot,
            exact.join(" / "),
            if calibrated {
                model.as_str().to_string()
            } else {
                format!("no counts: {} (default rule)", model.as_str())
            }
        );
    }
    let _ = writeln!(s);
}

/// "Did the rewrite pay?": per rewrite of an audited table inside the
/// input's range, files and bytes read per run before and after as the
/// logs measured them, and the prediction from the snapshot before.
fn verify_section(s: &mut String, rows: &[skipping::verify::VerifyRow]) {
    use crate::verified;
    let _ = writeln!(s, "## Did the rewrite pay?\n");
    let _ = writeln!(
        s,
        "Per rewrite inside the input's range: the files and bytes of the table read per run of the queries that ran both before and after it (one run of each, as the engine counted them), and what lakeaudit predicts from the snapshot before the rewrite. Details: `verify.csv`.\n"
    );
    let _ = writeln!(
        s,
        "| table | rewritten | bytes rewritten | key | scans before / after | files per run | bytes per run | predicted files per run | verdict |"
    );
    let _ = writeln!(s, "|---|---|---:|---|---:|---|---|---|---|");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} ({}) | {} | {} | {} / {} | {} | {} | {} | {} |",
            cell_code(&r.table),
            format_time(r.rewrite_ms),
            text(&r.operation),
            r.bytes_rewritten
                .map_or("unknown".into(), |b| human(b as f64)),
            match (&r.key, r.key_source) {
                (Some(k), Some(src)) => format!("{} ({})", cell_code(k), src.as_str()),
                _ => "unknown".into(),
            },
            r.scans_before,
            r.scans_after,
            verified::measured_files(r),
            verified::measured_bytes(r),
            verified::predicted_files(r),
            r.verdict.as_str(),
        );
    }
    let notes: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            r.prediction_note
                .as_ref()
                .map(|n| format!("- {}: {}", code(&r.table), text(n)))
        })
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(s, "\n{}", notes.join("\n"));
    }
    let _ = writeln!(s);
}

/// The Markdown report.
pub fn render(d: &ReportData<'_>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# lakeaudit report\n");
    let i = &d.inputs;
    let span = match i.span {
        Some((a, b)) => format!("{} .. {}", format_time(a), format_time(b)),
        None => "unknown".into(),
    };
    let _ = writeln!(
        s,
        "Input: {} application(s), {} SQL executions ({} queries, {} setup commands), {span}.\n",
        i.applications,
        i.executions,
        i.queries,
        i.executions - i.queries
    );
    let _ = writeln!(s, "## Top join edges\n");
    if let Some((a, b)) = d.edges_span {
        let _ = writeln!(
            s,
            "Over all of the input read, {} .. {}: F, D, C and JIS here are that range's.\n",
            format_time(a),
            format_time(b)
        );
    }
    if d.edges.is_empty() {
        let _ = writeln!(s, "No equi-join relationships were found.\n");
    } else {
        let _ = writeln!(s, "| edge | F | D (rows×rows) | C (ms) | JIS | SMJ | BHJ |");
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
        for r in d.edges.iter().take(10) {
            let _ = writeln!(
                s,
                "| {} | {} | {:.3e} | {:.0} | {:.3} | {} | {} |",
                text(&r.key().label()),
                r.frequency,
                r.data_volume,
                r.cost,
                r.jis,
                r.smj_count,
                r.bhj_count
            );
        }
        let _ = writeln!(
            s,
            "\n{} edges in all: `edges.csv`, `edges.parquet`.\n",
            d.edges.len()
        );
    }
    let window = text(d.window);
    let p = &d.planned.plan;
    let _ = writeln!(s, "## Layout plan\n");
    if let Some((a, b)) = d.planned.window {
        let _ = writeln!(
            s,
            "For the most recent {window} window of the input, {} .. {} (it ends at the last execution); the JIS and savings in this section are that window's.\n",
            format_time(a),
            format_time(b)
        );
    }
    let changed = d.table_views();
    if changed.is_empty() && p.left_alone.is_empty() {
        let _ = writeln!(s, "No layout change pays for itself within the budgets.\n");
    } else if changed.is_empty() {
        let _ = writeln!(s, "No table changes layout: the tables below are left alone, and no other change pays for itself within the budgets.\n");
    }
    for v in &changed {
        let t = v.t;
        let drift = t
            .key_drift()
            .map(|k| format!(" (key drift: now clustered on ({}))", text(&k.join(", "))))
            .unwrap_or_default();
        let served: Vec<String> = t
            .edges_served
            .iter()
            .map(|e| format!("{} (JIS {:.3})", text(&e.edge.label), e.edge.jis))
            .collect();
        let _ = writeln!(
            s,
            "- {}: {}{}{drift} — rewrite {}, serves {} edge(s): {}; saves {} a week",
            code(&t.table),
            text(&v.layout),
            crate::plan_text::layout_note(t, d.format(&t.table))
                .map(|n| format!(" ({})", text(&n)))
                .unwrap_or_default(),
            human(t.rewrite_bytes as f64),
            t.edges_served.len(),
            served.join(", "),
            d.money.describe(d.money.change(t, d.planned))
        );
    }
    if !changed.is_empty() {
        let prices = d.money.prices();
        let _ = writeln!(
            s,
            "\nThe plan saves {} a week{}. A change is credited half the saving of an edge it serves with another table (the saving needs both tables clustered) and all of a self join's; an edge saves the scan reduction × the bytes its executions read from its tables, and the executor time of those executions in the same share of their bytes read.{}",
            d.money.describe(d.money.plan(d.planned)),
            if prices.is_empty() {
                " (give `--cost-per-tb` and `--cost-per-hour` for a cost)".to_string()
            } else {
                format!(" ({prices})")
            },
            // Said only when the measured figures follow (a changed table
            // measured on its planned key).
            if changed.iter().any(|v| v.measured.is_some()) {
                " A measured table's key saves what its scans read now minus what they would read after (below), and the executor time in the same share of each execution's bytes read."
            } else {
                ""
            }
        );
    }
    measured_section(&mut s, d);
    let _ = writeln!(
        s,
        "\nBudget use: rewrite {} (budget: {}), storage {} (budget: {}). NPV {} ({} planner). SQL: `plan.sql`.\n",
        human(p.rewrite_cost as f64),
        human_budget(p.budget),
        human(p.storage_cost as f64),
        human_budget(p.storage_budget),
        human(p.total_npv),
        p.algorithm
    );
    if !p.left_alone.is_empty() {
        let _ = writeln!(s, "Left alone (kept in their current layout):\n");
        for l in &p.left_alone {
            let _ = writeln!(s, "- {}: {}", code(&l.table), text(&l.reason.to_string()));
        }
        let _ = writeln!(s);
    }
    let missed = &d.planned.left_out;
    if !missed.is_empty() {
        let _ = writeln!(s, "Edges left out of the plan, and why:\n");
        for m in missed.iter().take(5) {
            let need = if m.standalone_npv > 0.0 {
                format!(
                    " (needs a rewrite of {}, stand-alone NPV {})",
                    human(m.rewrite_bytes),
                    human(m.standalone_npv)
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "- {}{need}: {}",
                text(&m.label),
                text(&m.reason.to_string())
            );
        }
        if missed.len() > 5 {
            let _ = writeln!(
                s,
                "- … {} more in `report.html` and `plan.json`",
                missed.len() - 5
            );
        }
        let _ = writeln!(s);
    }
    if !p.excluded_broadcast.is_empty() {
        let _ = writeln!(
            s,
            "{} broadcast-only edge(s) were reported but not planned for (clustering does not help a broadcast join).\n",
            p.excluded_broadcast.len()
        );
    }
    // Every edge is said (issue 32.8): the join edges the tables'
    // measurements priced instead are neither served nor left out.
    if !d.planned.replaced.is_empty() {
        let _ = writeln!(
            s,
            "{} join edge(s) touching a measured table are priced by that table's measurements instead of the assumed reduction:\n",
            d.planned.replaced.len()
        );
        for r in &d.planned.replaced {
            let _ = writeln!(s, "- {}: {}", text(&r.label), text(&r.reason));
        }
        let _ = writeln!(s);
    }
    let skipped = crate::plan_text::skipped_groups(p, missed);
    if !skipped.is_empty() {
        let _ = writeln!(s, "Edges the planner could not plan for:\n");
        for (reason, edges) in &skipped {
            if let [one] = edges.as_slice() {
                let _ = writeln!(s, "- {}: {}", text(one), text(reason));
            } else {
                let _ = writeln!(s, "- {} edges: {}:", edges.len(), text(reason));
                for e in edges {
                    let _ = writeln!(s, "  - {}", text(e));
                }
            }
        }
        let _ = writeln!(s);
    }
    budget_curve(&mut s, &d.planned.curve);
    if !d.calibration.is_empty() {
        calibration_section(&mut s, d.calibration);
    }
    if !d.verify.is_empty() {
        verify_section(&mut s, d.verify);
    }
    if let Some(steps) = d.maintenance {
        maintenance_section(&mut s, steps, d.edges_span);
    }
    let norm = d
        .drift
        .first()
        .map(|r| match r.normalize {
            planner::Normalize::Window => ", min–max normalised per window",
            planner::Normalize::Joint => ", normalised jointly per pair",
            planner::Normalize::Max => ", normalised by each window's maximum",
        })
        .unwrap_or("");
    let _ = writeln!(
        s,
        "## Drift ({window} windows, threshold {}, settles at {}{norm})\n",
        d.drift_threshold, d.drift_settle
    );
    let _ = writeln!(
        s,
        "**{}**\n",
        text(&crate::drift_now(
            d.drift,
            d.drift_threshold,
            d.drift_settle
        ))
    );
    for r in d.drift {
        let gap = if r.gap_windows > 0 {
            format!(
                " (after {} empty window(s): compared with {})",
                r.gap_windows,
                format_time(r.prev_window_start_ms)
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "- {} .. {}{gap}: drift {:.3} → {}{}{}{}{}",
            format_time(r.window_start_ms),
            format_time(r.window_end_ms),
            r.drift,
            if r.held {
                format!(
                    "re-plan (still due: not settled to {} since an earlier window's re-plan)",
                    d.drift_settle
                )
            } else if r.replan {
                "re-plan".to_string()
            } else {
                "keep the plan".to_string()
            },
            // A value within a tenth of the threshold is a close call:
            // the edges that moved say whether the change matters.
            if (r.drift - d.drift_threshold).abs() <= 0.1 * d.drift_threshold {
                " (a close call: within a tenth of the threshold)"
            } else {
                ""
            },
            edge_list("new edges", &r.new_edges),
            edge_list("gone edges", &r.gone_edges),
            // What moved the value: the edges whose score changed most
            // (an edge's term is its change over the larger of its two
            // scores), so a reader can judge a value near the threshold.
            edge_list(
                "moved most (score before→after)",
                &r.moved[..r.moved.len().min(3)]
            ),
        );
    }
    let _ = writeln!(s, "\n## Inputs\n");
    for a in &d.apps.listed {
        let _ = writeln!(
            s,
            "- {} {} (Spark {}), {} lines ({} events of kinds lakeaudit does not use, skipped){}{}",
            code(&a.app_id),
            text(&a.name),
            text(a.spark_version.as_deref().unwrap_or("?")),
            a.lines,
            a.skipped_events,
            unknown_operators(&a.unknown_operators),
            if a.unfinished_executions > 0 {
                format!(", {} execution(s) never ended", a.unfinished_executions)
            } else {
                String::new()
            }
        );
    }
    if let Some(line) = d.apps.rest.line() {
        let _ = writeln!(
            s,
            "- {} (`lakeaudit queries --apps FILE` lists every application)",
            text(&line)
        );
    }
    if d.errors.is_empty() && d.warnings.is_empty() {
        let _ = writeln!(s, "\nAll inputs were read without errors.");
    } else {
        let _ = writeln!(s, "\nWarnings and errors:\n");
        for w in d.warnings.iter().chain(d.errors) {
            let _ = writeln!(s, "- {}", text(w));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names from logs and table metadata are escaped in the section: a
    /// table, a key or an operation cannot open a cell, a link or markup.
    #[test]
    fn the_rewrite_section_escapes_what_it_quotes() {
        use skipping::verify::{KeySource, Verdict, VerifyRow};
        let row = VerifyRow {
            table: "db.t|<b>x`".into(),
            format: "delta".into(),
            version: 4,
            rewrite_ms: 0,
            operation: "OPTIMIZE [x](javascript:1)".into(),
            files_removed: Some(8),
            files_added: Some(1),
            bytes_rewritten: Some(16175),
            key: Some("a|b".into()),
            key_source: Some(KeySource::Commit),
            scans_before: 2,
            scans_after: 1,
            queries_compared: 1,
            runs_before: 2,
            runs_after: 1,
            files_per_run_before: Some(8.0),
            files_per_run_after: Some(2.0),
            bytes_per_run_before: None,
            bytes_per_run_after: None,
            predicted_files_before: None,
            predicted_files_after: None,
            predicted_bytes_before: None,
            predicted_bytes_after: None,
            prediction_note: Some("<img src=x> gone".into()),
            ignored_counts: 0,
            verdict: Verdict::Paid,
        };
        let mut s = String::new();
        verify_section(&mut s, &[row]);
        let line = s.lines().find(|l| l.contains("OPTIMIZE")).unwrap();
        // Ten cells: the names' pipes are escaped.
        assert_eq!(line.matches(" | ").count(), 8, "{line}");
        // Inside a code span markup is text; outside it is escaped.
        assert!(line.contains(r"| `` db.t\|<b>x` `` |"), "{line}");
        assert!(!s.contains("<img"), "{s}");
        // The brackets escaped: no link.
        assert!(line.contains(r"OPTIMIZE \[x\](javascript:1)"), "{line}");
        assert!(line.contains("8.0 → 2.0 (-75%)"), "{line}");
    }

    #[test]
    fn the_curve_table_keeps_steps_of_five_percent_the_chosen_plan_and_the_last() {
        let pt = |npv: f64, chosen: bool| CurvePoint {
            budget: npv as u64,
            npv,
            storage_cost: 0,
            tables_changed: 1,
            edges_served: 1,
            chosen,
        };
        let points = [
            pt(100.0, false),
            pt(104.0, false), // < 5 % above 100
            pt(105.0, false), // exactly 5 % above 100
            pt(106.0, true),  // chosen
            pt(107.0, false),
            pt(108.0, false), // the last
        ];
        assert_eq!(curve_rows(&points), [true, false, true, true, false, true]);
        let mut s = String::new();
        budget_curve(
            &mut s,
            &BudgetCurve {
                storage_budget: None,
                cheapest_change: 100,
                points: points.to_vec(),
                chosen: Some(3),
                exact: true,
            },
        );
        assert!(s.contains("| 106 B | 106 B |"), "{s}");
        assert!(!s.contains("| 104 B |"), "{s}");
        assert!(
            s.contains("\n2 more point(s), each less than 5% above the row before it"),
            "{s}"
        );
    }

    #[test]
    fn unknown_operators_are_listed_per_input_only_when_there_are_some() {
        assert_eq!(unknown_operators(&BTreeMap::new()), "");
        let ops = BTreeMap::from([
            ("MapPartitions".to_string(), 3),
            ("Mystery".to_string(), 1),
            ("<b>`x".to_string(), 2),
        ]);
        assert_eq!(
            unknown_operators(&ops),
            ", plan operators lakeaudit does not know: ``<b>`x`` (2), `MapPartitions` (3), `Mystery` (1)"
        );
    }

    #[test]
    fn ordinary_names_are_unchanged() {
        for s in [
            "spark_catalog.default.lineitem(l_orderkey) = spark_catalog.default.orders(o_orderkey)",
            "lineitem(l_partkey,l_suppkey) = partsupp(ps_partkey,ps_suppkey)",
            "samples/spark4-inprogress/local-1796017880835-cut.inprogress:146: last line is truncated (log in progress); skipped",
            "file:/data/eventlog_v2_local-1/x.parquet",
            "week1",
            "4.0.1",
        ] {
            assert_eq!(text(s), s);
            assert_eq!(code(s), format!("`{s}`"));
        }
    }

    #[test]
    fn markup_becomes_text() {
        assert_eq!(
            text("<img src=x onerror=alert(1)>"),
            "&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(
            text("t</td><script>alert(1)</script>"),
            "t&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(
            text("[x](javascript:alert(1))"),
            r"\[x\](javascript:alert(1))"
        );
        assert_eq!(text("a`b|c*d*"), r"a\`b\|c\*d\*");
        // An entity in a name stays text.
        assert_eq!(text("&lt;"), "&amp;lt;");
        assert_eq!(text(r"a\b"), r"a\\b");
        assert_eq!(text("~~gone~~"), r"\~\~gone\~\~");
    }

    #[test]
    fn underscores_are_escaped_only_where_they_could_emphasise() {
        assert_eq!(text("l_orderkey"), "l_orderkey");
        assert_eq!(text("_c0"), r"\_c0");
        assert_eq!(text("x_ y"), r"x\_ y");
        assert_eq!(text("_delta_log"), r"\_delta_log");
        assert_eq!(text("__"), r"\_\_");
    }

    #[test]
    fn control_characters_cannot_break_a_line() {
        assert_eq!(text("a\nb"), r"a\nb");
        assert_eq!(code("a\r\nb"), r"`a\r\nb`");
        assert!(!text("a\u{1b}[31mb").contains('\u{1b}'));
    }

    #[test]
    fn code_spans_hold_any_backticks() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("a``b`"), "``` a``b` ```");
        assert_eq!(code("<b>"), "`<b>`");
        // The content between the fences is the name, whatever it holds.
        assert_eq!(code(" a "), "`  a  `");
        for name in ["`", "``", "a```b", "` x `"] {
            let c = code(name);
            let fence_len = c.chars().take_while(|&c| c == '`').count();
            let longest_inside = name.split(|c| c != '`').map(str::len).max().unwrap_or(0);
            assert!(fence_len > longest_inside, "{c}");
            let inner = &c[fence_len..c.len() - fence_len];
            let inner = if inner.starts_with(' ') && inner.ends_with(' ') && inner.len() > 1 {
                &inner[1..inner.len() - 1]
            } else {
                inner
            };
            assert_eq!(inner, name);
        }
    }
}
