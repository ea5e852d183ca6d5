//! `lakeaudit analyze`'s directory: every output of one run, written from
//! its results ([`Analysis::write`]), and the run's summary line.

use crate::{Apps, InputSummary, Money, ReportData};
use maintenance::inputs::TableInputs;
use planner::profile::ScanFacts;
use planner::{DriftRow, Planned};
use skipping::workload::Whatif;
use tabular::files::OutDir;
use tabular::Format;
use workload::windows::EdgeTables;
use workload::Workload;

/// Every name `analyze` can write into its directory (with `--tables`,
/// the audit's CSVs too): in a directory without a manifest, these are
/// taken as an earlier run's.
pub const OUTPUTS: &[&str] = &[
    "queries.parquet",
    "edges.parquet",
    "edges.csv",
    "drift.csv",
    "plan.json",
    "skipping.csv",
    "skipping.parquet",
    "layout_quality.csv",
    "plan.sql",
    "maintenance.sql",
    "report.md",
    "report.html",
    "table_state.csv",
    "compaction.csv",
    "deletes.csv",
    "deletes_tables.csv",
    "table_stats.csv",
    "verify.csv",
    "calibration.csv",
];

/// Most one-line verdicts `analyze` prints ([`Analysis::verdicts`]).
pub const VERDICTS: usize = 30;

/// The results of one `analyze` run.
pub struct Analysis<'a> {
    /// The executions read, with the inputs' errors and warnings.
    pub data: &'a Workload,
    /// What the scans say of each table (sizes, formats, bytes read).
    pub scans: &'a ScanFacts,
    /// `--tables` and `--table-stats`.
    pub tables: &'a TableInputs,
    /// What the audited tables' scans read now and under candidates.
    pub whatif: &'a Whatif,
    /// The run's edge tables: whole input and per window.
    pub edge_tables: &'a EdgeTables,
    /// Drift between consecutive windows.
    pub drift: &'a [DriftRow],
    /// The drift threshold.
    pub drift_threshold: f64,
    /// The drift settle threshold (hysteresis).
    pub drift_settle: f64,
    /// The window length as given (`7d`).
    pub window: &'a str,
    /// The plan for the last window.
    pub planned: &'a Planned,
    /// Its savings in the units a team pays in.
    pub money: &'a Money,
    /// The rewrites of the audited tables inside the input's range,
    /// verified (`verify.csv` and "Did the rewrite pay?" when there is
    /// one).
    pub verify: &'a [skipping::verify::VerifyRow],
}

impl Analysis<'_> {
    /// Write every output into `out` but `queries.parquet` (written while
    /// the executions stream by: [`crate::columns::ParquetRecords`]): edges, drift, the plan
    /// as JSON and SQL, the reports, and with `--tables` the audit, the
    /// scans' skipping and the layout quality.
    pub fn write(&self, out: &mut OutDir) -> crate::Result<()> {
        let (data, tables) = (self.data, self.tables);
        let csv = |out: &mut OutDir, cols: &[tabular::Col], name: &str| {
            tabular::write_columns(cols, Format::Csv, Some(&out.file(name)))
        };
        if let Some(a) = &tables.audit {
            crate::columns::audit::write_into(a, out, Format::Csv)?;
            let cols = crate::columns::whatif(&self.whatif.rows, false);
            csv(out, &cols, "skipping.csv")?;
            tabular::write_columns(&cols, Format::Parquet, Some(&out.file("skipping.parquet")))?;
            csv(
                out,
                &crate::columns::quality(&self.whatif.quality),
                "layout_quality.csv",
            )?;
            csv(
                out,
                &crate::columns::calibration(&self.whatif.calibration),
                "calibration.csv",
            )?;
        }
        if !self.verify.is_empty() {
            csv(
                out,
                &crate::columns::verify(self.verify, false),
                "verify.csv",
            )?;
        }
        let edges = &self.edge_tables.whole().edges;
        let whole = [self.edge_tables.whole()];
        for (format, name) in [
            (Format::Parquet, "edges.parquet"),
            (Format::Csv, "edges.csv"),
        ] {
            let parts = crate::columns::edge_parts(&whole, false);
            tabular::write_parts(format, Some(&out.file(name)), parts)?;
        }
        csv(out, &crate::columns::drift(self.drift, false), "drift.csv")?;
        let formats = tables.formats(self.scans);
        let sql = planner::ddl_for(&self.planned.plan, &formats);
        let steps = self.steps();
        let rd = ReportData {
            inputs: InputSummary::of(data),
            apps: Apps::of(data.apps.iter()),
            warnings: &data.warnings,
            errors: &data.errors,
            edges,
            drift: self.drift,
            drift_threshold: self.drift_threshold,
            drift_settle: self.drift_settle,
            window: self.window,
            planned: self.planned,
            sql: &sql,
            maintenance: steps.as_deref(),
            edges_span: self.edge_tables.span(),
            money: self.money,
            formats: &formats,
            quality: &self.whatif.quality,
            verify: self.verify,
            calibration: &self.whatif.calibration,
        };
        if let Some(steps) = &steps {
            let text = crate::upkeep::sql(steps, self.edge_tables.span());
            tabular::write_to(Some(&out.file("maintenance.sql")), |w| {
                Ok(w.write_all(text.as_bytes())?)
            })?;
        }
        let mut json = serde_json::to_string_pretty(&self.planned.json())?;
        json.push('\n');
        for (name, text) in [
            ("plan.json", json),
            ("plan.sql", sql.clone()),
            ("report.md", crate::markdown::render(&rd)),
            ("report.html", crate::html(&rd)?),
        ] {
            tabular::write_to(Some(&out.file(name)), |w| Ok(w.write_all(text.as_bytes())?))?;
        }
        Ok(())
    }

    /// The maintenance plan of the audited tables (`--tables`), ranked.
    fn steps(&self) -> Option<Vec<maintenance::UpkeepStep>> {
        let tables = self.tables;
        tables.audit.as_ref().map(|a| {
            maintenance::upkeep_for_plan(a, &tables.index, &self.scans.scanned, self.planned)
        })
    }

    /// One line per table, what to do with it and what that saves a week
    /// (issue 32.10): `recluster` for the plan's changes (its saving, as
    /// the plan prices it), `compact` / `purge` / `compact + purge` /
    /// `leave` for the audited tables (the maintenance plan's step and
    /// saving), `leave` for every other table the plan weighed (why, when
    /// the planning rules leave it alone). Tables in the plan's order,
    /// then the maintenance plan's; at most [`VERDICTS`] lines, the rest
    /// counted.
    pub fn verdicts(&self) -> Vec<String> {
        let p = &self.planned.plan;
        let mut out: Vec<(String, String)> = Vec::new();
        let said = |out: &Vec<(String, String)>, t: &str| out.iter().any(|(n, _)| n == t);
        for t in p.tables.iter().filter(|t| t.changed) {
            let saving = self.money.describe(self.money.change(t, self.planned));
            out.push((
                t.table.clone(),
                format!(
                    "recluster on ({}) — saves {saving} a week",
                    t.keys.join(", ")
                ),
            ));
        }
        let span = self.edge_tables.span();
        let steps = self.steps().unwrap_or_default();
        for st in steps
            .iter()
            .filter(|st| st.action != maintenance::Action::Recluster)
        {
            if !said(&out, &st.table) {
                out.push((st.table.clone(), crate::upkeep::verdict(st, span)));
            }
        }
        for prof in &self.planned.profiles {
            if said(&out, &prof.table) {
                continue;
            }
            let why = p
                .left_alone
                .iter()
                .find(|l| l.table == prof.table)
                .map_or("no change pays for itself".to_string(), |l| {
                    l.reason.to_string()
                });
            out.push((prof.table.clone(), format!("leave — {why}")));
        }
        let more = out.len().saturating_sub(VERDICTS);
        let mut lines: Vec<String> = out
            .into_iter()
            .take(VERDICTS)
            .map(|(t, v)| format!("{}: {v}", t.replace(['\n', '\r'], " ")))
            .collect();
        if more > 0 {
            lines.push(format!("… and {more} more table(s): see report.md"));
        }
        lines
    }

    /// The run's one-line summary, naming the report written in `dir`.
    pub fn summary(&self, dir: &std::path::Path) -> String {
        let p = &self.planned.plan;
        format!(
            "{} applications, {} SQL executions ({} queries), {} join edges; plan changes {} table(s), NPV {}; wrote {} and report.html",
            self.data.apps.len(),
            self.data.census.executions,
            self.data.census.queries,
            self.edge_tables.whole().edges.len(),
            p.tables.iter().filter(|t| t.changed).count(),
            planner::human(p.total_npv),
            dir.join("report.md").display()
        )
    }
}
