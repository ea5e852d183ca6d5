//! Which engine model reproduces what the engine itself counted. Per
//! audited table and engine that read it (Spark, Databricks), every
//! scan with a logged file count (`files_read`: Spark's `number of files
//! read`, Iceberg's `number of result data files`, …) that read the
//! table's current snapshot is predicted by each model on the current
//! layout (`none`, `minmax`, `join-range`, `values`); the model with the
//! most exact predictions fits (ties: the smaller mean absolute error,
//! then today's rule, then the simpler model). The table's history says
//! which snapshot was current when a scan started; scans of another
//! snapshot are left out and counted, and so are counts that are
//! negative or above the table's live files.
//!
//! `--engine auto` evaluates each table under the model fitted for it and
//! the engine that ran the scan; without a fit (no count to compare), the
//! rule it had before: `values` for Databricks, else `minmax`.

use crate::Engine;
use serde::Serialize;

/// The models compared, in order of simplicity.
pub const MODELS: [Engine; 4] = [
    Engine::None,
    Engine::MinMax,
    Engine::JoinRange,
    Engine::Values,
];

/// The engine that ran a scan, as calibration groups scans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Runner {
    /// Apache Spark.
    Spark,
    /// Databricks (its runtime, or Photon, in the log).
    Databricks,
}

impl Runner {
    /// As the outputs print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Runner::Spark => "spark",
            Runner::Databricks => "databricks",
        }
    }

    /// The engine that ran execution `r`.
    pub fn of(r: &parsers::record::QueryRecord) -> Runner {
        if databricks(r) {
            Runner::Databricks
        } else {
            Runner::Spark
        }
    }

    /// The model `--engine auto` used before calibration (and uses when
    /// there is no count to calibrate with).
    pub fn default_model(self) -> Engine {
        match self {
            Runner::Spark => Engine::MinMax,
            Runner::Databricks => Engine::Values,
        }
    }
}

/// How well one model predicted one table's logged counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelFit {
    /// The model.
    pub model: Engine,
    /// Scans it predicted exactly.
    pub exact: u64,
    /// Mean absolute error in files over the scans compared.
    pub mean_abs_error: f64,
}

/// The calibration of one table under one engine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// The table (short name).
    pub table: String,
    /// Its identity in the logs.
    pub table_id: String,
    /// The engine that ran the scans.
    pub runner: Runner,
    /// Scans compared: a logged count, on the table's current snapshot.
    pub scans_compared: u64,
    /// Scans left out: they read another snapshot than the current one
    /// (the history says so by their start times).
    pub scans_other_snapshot: u64,
    /// Scans whose count was left out: negative, or above the table's
    /// live files.
    pub bad_counts: u64,
    /// Each model's fit, in [`MODELS`] order.
    pub models: Vec<ModelFit>,
    /// The model that fits; `None` when no scan was compared.
    pub fitted: Option<Engine>,
}

impl Calibration {
    /// The fitted model's share of exact predictions.
    pub fn share_exact(&self) -> Option<f64> {
        let f = self.fitted?;
        let m = self.models.iter().find(|m| m.model == f)?;
        (self.scans_compared > 0).then(|| m.exact as f64 / self.scans_compared as f64)
    }

    /// The model `--engine auto` uses for this table and engine, and
    /// whether calibration chose it (else: today's rule, no counts).
    pub fn model(&self) -> (Engine, bool) {
        match self.fitted {
            Some(e) => (e, true),
            None => (self.runner.default_model(), false),
        }
    }

    /// One line for a person: what fits and on what evidence.
    pub fn describe(&self) -> String {
        let other = if self.scans_other_snapshot > 0 {
            format!(
                "; {} scans of other snapshots left out",
                self.scans_other_snapshot
            )
        } else {
            String::new()
        };
        let bad = if self.bad_counts > 0 {
            format!("; {} bad counts left out", self.bad_counts)
        } else {
            String::new()
        };
        match self.fitted {
            Some(f) => {
                let m = self.models.iter().find(|m| m.model == f);
                let others: Vec<String> = self
                    .models
                    .iter()
                    .filter(|m| m.model != f)
                    .map(|m| format!("{} {}", m.model.as_str(), m.exact))
                    .collect();
                let tied = m.is_some_and(|m| {
                    self.models.iter().any(|o| {
                        o.model != f
                            && o.exact == m.exact
                            && o.mean_abs_error == m.mean_abs_error
                    })
                });
                let tied = if tied {
                    "; others fit as well, the default rule decides"
                } else {
                    ""
                };
                format!(
                    "{} ({}): {} reproduces the logged file counts: {} of {} scans exact, mean absolute error {:.2} files (exact: {}){tied}{other}{bad}",
                    self.table,
                    self.runner.as_str(),
                    f.as_str(),
                    m.map_or(0, |m| m.exact),
                    self.scans_compared,
                    m.map_or(0.0, |m| m.mean_abs_error),
                    others.join(", ")
                )
            }
            None => format!(
                "{} ({}): no logged file count of its current snapshot to calibrate with; {} as the default rule has it{other}{bad}",
                self.table,
                self.runner.as_str(),
                self.runner.default_model().as_str()
            ),
        }
    }
}

/// One scan to compare: the logged count and each model's prediction,
/// in [`MODELS`] order.
pub struct Compared {
    /// The engine's own count.
    pub logged: u64,
    /// Each model's files read.
    pub predicted: [u64; 4],
}

/// The snapshot a scan that started at `start_ms` read, by the table's
/// history: whether it is the current one (`None`: the history cannot
/// tell, as when it holds no time for the current version).
pub fn reads_current(t: &tables::TableState, start_ms: Option<i64>) -> Option<bool> {
    let timed: Vec<&tables::Commit> = t
        .history
        .iter()
        .filter(|c| c.timestamp_ms.is_some())
        .collect();
    let start = start_ms?;
    if !timed.iter().any(|c| c.version == t.version) {
        return None;
    }
    let then = timed
        .iter()
        .filter(|c| c.timestamp_ms.is_some_and(|ms| ms <= start))
        .max_by_key(|c| c.timestamp_ms);
    // Iceberg's history lists snapshots; the current one may be an older
    // snapshot rolled back to: compare versions, not order.
    Some(then.is_some_and(|c| c.version == t.version))
}

/// Fit the models to the scans compared.
pub fn fit(
    table: String,
    table_id: String,
    runner: Runner,
    compared: &[Compared],
    other_snapshot: u64,
    bad_counts: u64,
) -> Calibration {
    let n = compared.len() as u64;
    let models: Vec<ModelFit> = MODELS
        .iter()
        .enumerate()
        .map(|(i, &model)| {
            let exact = compared
                .iter()
                .filter(|c| c.predicted[i] == c.logged)
                .count() as u64;
            let err: u64 = compared
                .iter()
                .map(|c| c.predicted[i].abs_diff(c.logged))
                .sum();
            ModelFit {
                model,
                exact,
                mean_abs_error: if n == 0 { 0.0 } else { err as f64 / n as f64 },
            }
        })
        .collect();
    let fitted = choose(&models, n, runner.default_model());
    Calibration {
        table,
        table_id,
        runner,
        scans_compared: n,
        scans_other_snapshot: other_snapshot,
        bad_counts,
        models,
        fitted,
    }
}

/// The model that fits: the most exact predictions, then the smaller mean
/// absolute error, then `default`, then the simpler model; `None` when
/// no scan (`n`) was compared.
fn choose(models: &[ModelFit], n: u64, default: Engine) -> Option<Engine> {
    if n == 0 {
        return None;
    }
    models
        .iter()
        .min_by(|a, b| {
            b.exact
                .cmp(&a.exact)
                .then(a.mean_abs_error.total_cmp(&b.mean_abs_error))
                .then((a.model != default).cmp(&(b.model != default)))
                .then(a.model.cmp(&b.model))
        })
        .map(|m| m.model)
}

/// Two calibrations of one table under one engine, each on its own
/// snapshot (before and after a rewrite: `verify`), as one fit over the
/// scans of both. A layout that reads every file alike cannot tell `none`
/// from `minmax` (every file spans every filter); the other snapshot's
/// scans may. `scans_other_snapshot` counts the scans `a` left out that
/// `b` did not compare; `bad_counts` adds up (each side counts only the
/// scans of its own snapshot).
pub fn merge(a: &Calibration, b: &Calibration) -> Calibration {
    let n = a.scans_compared + b.scans_compared;
    let models: Vec<ModelFit> = a
        .models
        .iter()
        .zip(&b.models)
        .map(|(x, y)| ModelFit {
            model: x.model,
            exact: x.exact + y.exact,
            mean_abs_error: if n == 0 {
                0.0
            } else {
                (x.mean_abs_error * a.scans_compared as f64
                    + y.mean_abs_error * b.scans_compared as f64)
                    / n as f64
            },
        })
        .collect();
    Calibration {
        table: a.table.clone(),
        table_id: a.table_id.clone(),
        runner: a.runner,
        scans_compared: n,
        scans_other_snapshot: a.scans_other_snapshot.saturating_sub(b.scans_compared),
        bad_counts: a.bad_counts + b.bad_counts,
        fitted: choose(&models, n, a.runner.default_model()),
        models,
    }
}

/// Whether Databricks ran execution `r`: its runtime names the version,
/// or Photon ran one of its joins.
pub fn databricks(r: &parsers::record::QueryRecord) -> bool {
    r.spark_version
        .as_deref()
        .is_some_and(|v| v.starts_with("databricks-"))
        || r.joins
            .iter()
            .any(|j| j.engine == plan::registry::Runtime::Photon)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(logged: u64, predicted: [u64; 4]) -> Compared {
        Compared { logged, predicted }
    }

    #[test]
    fn the_other_snapshot_breaks_a_tie_the_first_cannot() {
        // Before a rewrite every file spans every filter: none and minmax
        // both read all 8 files; the default rule would choose minmax.
        let before = fit(
            "t".into(),
            "t".into(),
            Runner::Spark,
            &[c(8, [8, 8, 8, 8]), c(8, [8, 8, 8, 8])],
            2,
            0,
        );
        assert_eq!(before.fitted, Some(Engine::MinMax));
        // After it, the engine still read all 4 files where minmax skips.
        let after = fit(
            "t".into(),
            "t".into(),
            Runner::Spark,
            &[c(4, [4, 1, 1, 1]), c(4, [4, 2, 2, 2])],
            2,
            0,
        );
        let both = merge(&before, &after);
        assert_eq!(both.fitted, Some(Engine::None));
        assert_eq!(both.scans_compared, 4);
        assert_eq!(both.scans_other_snapshot, 0);
        let none = &both.models[0];
        assert_eq!(
            (none.model, none.exact, none.mean_abs_error),
            (Engine::None, 4, 0.0)
        );
        let minmax = &both.models[1];
        assert_eq!((minmax.exact, minmax.mean_abs_error), (2, 1.25));
    }

    #[test]
    fn the_model_with_most_exact_counts_fits() {
        // Spark reading plain Parquet: every file read, whatever the
        // statistics say.
        let k = fit(
            "t".into(),
            "t".into(),
            Runner::Spark,
            &[c(10, [10, 2, 2, 1]), c(10, [10, 10, 3, 3])],
            0,
            0,
        );
        assert_eq!(k.fitted, Some(Engine::None));
        assert_eq!(k.share_exact(), Some(1.0));
        // A tie between minmax and join-range (no join): today's rule.
        let k = fit(
            "t".into(),
            "t".into(),
            Runner::Spark,
            &[c(2, [10, 2, 2, 2])],
            1,
            0,
        );
        assert_eq!(k.fitted, Some(Engine::MinMax));
        let k = fit(
            "t".into(),
            "t".into(),
            Runner::Databricks,
            &[c(2, [10, 2, 2, 2])],
            0,
            0,
        );
        assert_eq!(k.fitted, Some(Engine::Values));
        // No count: no fit, today's rule, said so.
        let k = fit("t".into(), "t".into(), Runner::Spark, &[], 3, 1);
        assert_eq!(k.model(), (Engine::MinMax, false));
        assert!(
            k.describe().contains("no logged file count"),
            "{}",
            k.describe()
        );
    }
}
