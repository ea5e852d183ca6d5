//! The engines a measured key is priced under: the file-skipping models
//! (what an engine does with a table's file statistics) and the rewriters
//! whose rewrite is simulated. `skipping` models each; the planner, its
//! statements and the reports name them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What an engine does with a table's file statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// Partition pruning only.
    None,
    /// Partition values and per-file min/max statistics against the
    /// scan's literal predicates.
    #[serde(rename = "minmax")]
    MinMax,
    /// As `MinMax`, and the range of each join's build keys against each
    /// file's range.
    JoinRange,
    /// As `MinMax`, and each join's build keys themselves against each
    /// file's range.
    Values,
}

impl Engine {
    /// The name the outputs and `--engine` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::None => "none",
            Engine::MinMax => "minmax",
            Engine::JoinRange => "join-range",
            Engine::Values => "values",
        }
    }
}

/// The models one measured key's reads assume: one, or several where the
/// table's executions ran on different engines. Printed (and serialized)
/// as their names in name order joined by `+` (`minmax+values`).
///
/// ```
/// use planner::engine::{Engine, EngineSet};
/// let e: EngineSet = [Engine::Values, Engine::MinMax].into_iter().collect();
/// assert_eq!(e.to_string(), "minmax+values");
/// assert_eq!(EngineSet::from(Engine::JoinRange).to_string(), "join-range");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineSet(pub BTreeSet<Engine>);

impl From<Engine> for EngineSet {
    fn from(e: Engine) -> Self {
        EngineSet(BTreeSet::from([e]))
    }
}

impl FromIterator<Engine> for EngineSet {
    fn from_iter<I: IntoIterator<Item = Engine>>(it: I) -> Self {
        EngineSet(it.into_iter().collect())
    }
}

impl std::fmt::Display for EngineSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: BTreeSet<&str> = self.0.iter().map(|e| e.as_str()).collect();
        for (i, n) in names.into_iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(n)?;
        }
        Ok(())
    }
}

impl Serialize for EngineSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A rewriting engine (its model: `skipping::rewriter::Model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rewriter {
    /// Delta Lake on Apache Spark: liquid clustering (`CLUSTER BY`, then
    /// `OPTIMIZE`).
    SparkDelta,
    /// Databricks: liquid clustering with its autotuned file size.
    Databricks,
    /// delta-rs (the `deltalake` Python package): `optimize.z_order`.
    DeltaRs,
    /// Apache Iceberg's Spark procedure `rewrite_data_files` (sort, or
    /// `zorder(…)` for 2 to 4 columns).
    IcebergSpark,
}

impl Rewriter {
    /// Every rewriter.
    pub const ALL: [Rewriter; 4] = [
        Rewriter::SparkDelta,
        Rewriter::Databricks,
        Rewriter::DeltaRs,
        Rewriter::IcebergSpark,
    ];

    /// The name outputs and `--rewriter` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Rewriter::SparkDelta => "spark-delta",
            Rewriter::Databricks => "databricks",
            Rewriter::DeltaRs => "delta-rs",
            Rewriter::IcebergSpark => "iceberg-spark",
        }
    }
}

impl std::fmt::Display for Rewriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
