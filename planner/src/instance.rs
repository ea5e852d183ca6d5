//! Planning instances from outside: a documented JSON form (see
//! `planner/INSTANCE.md`) that states tables, their candidate keys with
//! rewrite and storage costs, and the edges with the key each side needs and
//! the bytes saved per window. Anyone can run the planners on instances the
//! project did not generate, and `planner-eval --dump DIR` writes its own in
//! this form.
//!
//! ```
//! use planner::instance::{plan_instance, PlanInstance};
//! use planner::Algorithm;
//!
//! let text = r#"{
//!   "version": 1, "horizon": 4, "discount": 0.05,
//!   "tables": [
//!     {"name": "orders", "bytes": 1000,
//!      "candidates": [{"key": ["o_orderkey"], "rewrite": 1000, "storage": 1000}]},
//!     {"name": "lineitem", "bytes": 4000,
//!      "candidates": [{"key": ["l_orderkey"], "rewrite": 4000, "storage": 4000}]}
//!   ],
//!   "edges": [{"left": "lineitem", "left_key": ["l_orderkey"],
//!              "right": "orders", "right_key": ["o_orderkey"], "benefit": 3000}]
//! }"#;
//! let inst = PlanInstance::from_json(text).unwrap();
//! let out = plan_instance(&inst, Algorithm::Exact).unwrap();
//! assert_eq!(out.chosen_keys["orders"], vec!["o_orderkey".to_string()]);
//! // 3000 × 3.546 saved − (5000 rewrite + 5000 storage).
//! assert!((out.plan.total_npv - (3000.0 * 3.5459505 - 10_000.0)).abs() < 1.0);
//! ```

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::curve::{plan_and_curve_of, BudgetCurve};
use crate::error::{Error, Result};
use crate::model::{
    Algorithm, EdgeDemand, EdgeRef, Layout, LayoutPlan, PlannerConfig, TableProfile,
};
use crate::problem::{annuity_factor, PEdge, PTable, Problem};
use crate::workload::{left_out_of, LeftOut};

/// The format version this crate reads and writes.
pub const INSTANCE_VERSION: u32 = 1;

/// A planning instance (see `planner/INSTANCE.md` for the format).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanInstance {
    /// Format version: [`INSTANCE_VERSION`].
    pub version: u32,
    /// A name for reports (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Planning horizon H in windows.
    pub horizon: u32,
    /// Discount rate r per window.
    pub discount: f64,
    /// Rewrite budget in bytes; absent or `null`: no limit.
    #[serde(default)]
    pub budget: Option<u64>,
    /// Storage budget in bytes; absent or `null`: no limit.
    #[serde(default)]
    pub storage_budget: Option<u64>,
    /// The tables.
    pub tables: Vec<InstanceTable>,
    /// The join edges.
    pub edges: Vec<InstanceEdge>,
}

/// A table of a [`PlanInstance`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceTable {
    /// Table name, unique in the instance.
    pub name: String,
    /// Bytes of live data.
    pub bytes: u64,
    /// Current Liquid Clustering columns (empty: not clustered). Keeping
    /// them costs nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub current_key: Vec<String>,
    /// Current partition columns (empty: not partitioned). A partitioned
    /// table cannot also have a `current_key`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partitioned_by: Vec<String>,
    /// Keys the table may be clustered on instead, with what each costs.
    #[serde(default)]
    pub candidates: Vec<CandidateKey>,
}

/// A key a table may move to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidateKey {
    /// Clustering columns (order does not matter; 1 to 4 columns).
    pub key: Vec<String>,
    /// Bytes rewritten to move to it.
    pub rewrite: u64,
    /// Bytes of storage kept until VACUUM after the move.
    pub storage: u64,
}

/// A join edge of a [`PlanInstance`]: served when both tables are on the
/// keys it needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceEdge {
    /// Left table.
    pub left: String,
    /// Key the left table must be clustered on (its current key or a candidate).
    pub left_key: Vec<String>,
    /// Right table (equal to `left` for a self join, then with the same key).
    pub right: String,
    /// Key the right table must be clustered on.
    pub right_key: Vec<String>,
    /// Bytes saved per window while the edge is served.
    pub benefit: f64,
    /// Priority shown in reports (optional; not part of the NPV).
    #[serde(default)]
    pub jis: f64,
}

/// A plan for a [`PlanInstance`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstancePlan {
    /// The plan (tables that change or serve an edge, NPV, costs, budgets).
    #[serde(flatten)]
    pub plan: LayoutPlan,
    /// The key every table of the instance ends up on (its current key when
    /// it does not change; empty for none).
    pub chosen_keys: BTreeMap<String, Vec<String>>,
    /// NPV against rewrite budget, the plan's point marked.
    pub budget_curve: BudgetCurve,
    /// Edges that would pay on their own but are not served.
    pub left_out: Vec<LeftOut>,
    /// The tables as profiles (sizes and layouts), for reports.
    #[serde(skip)]
    pub tables: Vec<TableProfile>,
}

fn bad(at: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::Instance {
        line: None,
        at: at.into(),
        reason: reason.into(),
    }
}

/// Sorted, deduplicated key.
fn norm(cols: &[String]) -> Vec<String> {
    let mut k = cols.to_vec();
    k.sort();
    k.dedup();
    k
}

fn check_key(at: &str, cols: &[String]) -> Result<Vec<String>> {
    let k = norm(cols);
    if k.is_empty() || k.iter().any(String::is_empty) {
        return Err(bad(at, "a key needs at least one non-empty column"));
    }
    if k.len() > 4 {
        return Err(bad(
            at,
            format!("{} columns; Delta clusters on at most 4", k.len()),
        ));
    }
    Ok(k)
}

impl PlanInstance {
    /// Read an instance from its JSON text (errors name the line).
    pub fn from_json(text: &str) -> Result<PlanInstance> {
        let inst: PlanInstance = serde_json::from_str(text).map_err(|e| Error::Instance {
            line: Some(e.line()),
            at: "instance".to_string(),
            reason: e.to_string(),
        })?;
        if inst.version != INSTANCE_VERSION {
            return Err(bad(
                "version",
                format!(
                    "{} is not supported (this build reads {INSTANCE_VERSION})",
                    inst.version
                ),
            ));
        }
        Ok(inst)
    }

    /// The instance as pretty JSON.
    pub fn to_json(&self) -> String {
        // Plain data with string keys: serialising cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The instance the planner sees for these inputs: each table's
    /// candidate keys with the planner's costs, each planned edge with its
    /// saving per window (`scan_reduction × scanned_bytes`). Edges the
    /// planner sets aside (broadcast-only, unplannable) are left out.
    pub fn from_inputs(
        name: Option<String>,
        profiles: &[TableProfile],
        edges: &[EdgeDemand],
        config: &PlannerConfig,
    ) -> Result<PlanInstance> {
        let p = Problem::build(profiles, edges, config)?;
        let tables = p
            .tables
            .iter()
            .map(|t| InstanceTable {
                name: t.name.clone(),
                bytes: t.bytes,
                current_key: match &t.previous {
                    Layout::Clustered(k) => k.clone(),
                    _ => Vec::new(),
                },
                partitioned_by: match &t.previous {
                    Layout::Partitioned(k) => k.clone(),
                    _ => Vec::new(),
                },
                candidates: (1..t.options.len())
                    .map(|k| CandidateKey {
                        key: t.options[k].clone(),
                        rewrite: t.rewrite[k],
                        storage: t.storage[k],
                    })
                    .collect(),
            })
            .collect();
        let mut pedges: Vec<&PEdge> = p.edges.iter().collect();
        pedges.sort_by_key(|e| e.input);
        let edges = pedges
            .iter()
            .map(|e| InstanceEdge {
                left: p.tables[e.a].name.clone(),
                left_key: p.tables[e.a].options[e.ka].clone(),
                right: p.tables[e.b].name.clone(),
                right_key: p.tables[e.b].options[e.kb].clone(),
                benefit: p.input_scan[e.input],
                jis: p.input_edges[e.input].jis,
            })
            .collect();
        Ok(PlanInstance {
            version: INSTANCE_VERSION,
            name,
            horizon: config.horizon,
            discount: config.discount,
            budget: config.budget,
            storage_budget: config.storage_budget,
            tables,
            edges,
        })
    }

    /// The indexed problem, after checking every table, key and edge.
    pub(crate) fn problem(&self) -> Result<Problem> {
        if !(self.discount.is_finite() && self.discount >= 0.0) {
            return Err(bad("discount", "must be finite and >= 0"));
        }
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut tables = Vec::with_capacity(self.tables.len());
        let mut option_ix: Vec<HashMap<Vec<String>, usize>> = Vec::new();
        for (i, t) in self.tables.iter().enumerate() {
            let at = format!("tables[{i}]");
            if t.name.is_empty() {
                return Err(bad(at, "empty name"));
            }
            if index.insert(t.name.as_str(), i).is_some() {
                return Err(bad(at, format!("table {:?} is listed twice", t.name)));
            }
            let mut ix = HashMap::new();
            let (previous, current) =
                match (t.partitioned_by.is_empty(), t.current_key.is_empty()) {
                    (true, true) => (Layout::None, Vec::new()),
                    (false, true) => (Layout::Partitioned(t.partitioned_by.clone()), Vec::new()),
                    (true, false) => {
                        let k = check_key(&format!("{at}.current_key"), &t.current_key)?;
                        ix.insert(k.clone(), 0);
                        (Layout::Clustered(k.clone()), k)
                    }
                    (false, false) => return Err(bad(
                        at,
                        "partitioned_by and current_key together: Delta allows one or the other",
                    )),
                };
            let mut pt = PTable::new(
                t.name.clone(),
                t.bytes,
                !t.partitioned_by.is_empty(),
                previous,
                current,
            );
            for (j, c) in t.candidates.iter().enumerate() {
                let at = format!("{at}.candidates[{j}]");
                let k = check_key(&at, &c.key)?;
                if ix.contains_key(&k) {
                    return Err(bad(
                        at,
                        format!(
                            "key ({}) is listed twice or is the current key",
                            k.join(", ")
                        ),
                    ));
                }
                let o = pt.push_option(k.clone(), c.rewrite, c.storage);
                ix.insert(k, o);
            }
            tables.push(pt);
            option_ix.push(ix);
        }
        let annuity = annuity_factor(self.discount, self.horizon);
        let mut pedges = Vec::with_capacity(self.edges.len());
        let mut input_edges = Vec::with_capacity(self.edges.len());
        let mut input_scan = Vec::with_capacity(self.edges.len());
        for (i, e) in self.edges.iter().enumerate() {
            let at = format!("edges[{i}]");
            if !(e.benefit.is_finite() && e.benefit >= 0.0) {
                return Err(bad(at, "benefit must be a finite number >= 0"));
            }
            let side = |name: &str, key: &[String], which: &str| -> Result<(usize, usize)> {
                let Some(&t) = index.get(name) else {
                    return Err(bad(
                        format!("{at}.{which}"),
                        format!("table {name:?} is not in tables"),
                    ));
                };
                let k = check_key(&format!("{at}.{which}_key"), key)?;
                match option_ix[t].get(&k) {
                    Some(&o) => Ok((t, o)),
                    None => Err(bad(
                        format!("{at}.{which}_key"),
                        format!(
                            "({}) is neither the current key nor a candidate of {name:?}",
                            k.join(", ")
                        ),
                    )),
                }
            };
            let (a, ka) = side(&e.left, &e.left_key, "left")?;
            let (b, kb) = side(&e.right, &e.right_key, "right")?;
            if a == b && ka != kb {
                return Err(bad(
                    at,
                    "self join on different keys: one layout cannot serve both sides",
                ));
            }
            pedges.push(PEdge {
                input: i,
                a,
                ka,
                b,
                kb,
                w: e.benefit * annuity,
                rank: 0,
            });
            input_edges.push(EdgeRef {
                index: i,
                label: format!(
                    "{}({}) = {}({})",
                    e.left,
                    e.left_key.join(", "),
                    e.right,
                    e.right_key.join(", ")
                ),
                jis: e.jis,
            });
            input_scan.push(e.benefit);
        }
        Ok(Problem::assemble(
            tables,
            pedges,
            annuity,
            self.budget,
            self.storage_budget,
            input_edges,
            input_scan,
        ))
    }

    /// The tables as profiles (source `"instance"`).
    pub fn profiles(&self) -> Vec<TableProfile> {
        self.tables
            .iter()
            .map(|t| TableProfile {
                table: t.name.clone(),
                bytes: t.bytes,
                rows: None,
                files: None,
                partitioned_by: t.partitioned_by.clone(),
                clustered_by: t.current_key.clone(),
                source: "instance".to_string(),
            })
            .collect()
    }
}

/// Plan `inst` with `algorithm` ([`Algorithm::Exact`] fails on a component
/// above the exact solver's size limits).
pub fn plan_instance(inst: &PlanInstance, algorithm: Algorithm) -> Result<InstancePlan> {
    let p = inst.problem()?;
    let (plan, budget_curve) = plan_and_curve_of(&p, algorithm)?;
    let mut chosen_keys: BTreeMap<String, Vec<String>> = p
        .tables
        .iter()
        .map(|t| (t.name.clone(), t.options[0].clone()))
        .collect();
    for d in &plan.tables {
        chosen_keys.insert(d.table.clone(), d.keys.clone());
    }
    let left_out = left_out_of(&p, &plan);
    Ok(InstancePlan {
        plan,
        chosen_keys,
        budget_curve,
        left_out,
        tables: inst.profiles(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * (1.0 + a.abs().max(b.abs()))
    }

    /// An instance written from planner inputs and read back plans to the
    /// same NPV with every planner, and the same keys.
    #[test]
    fn round_trip_through_json_plans_the_same() {
        for seed in 0..40u64 {
            let inst = synth::random_instance(seed);
            let Ok(doc) = PlanInstance::from_inputs(
                Some(inst.name.clone()),
                &inst.tables,
                &inst.edges,
                &inst.config,
            ) else {
                panic!("seed {seed} converts")
            };
            let Ok(back) = PlanInstance::from_json(&doc.to_json()) else {
                panic!("seed {seed} reads back")
            };
            for a in [Algorithm::Exact, Algorithm::Improved, Algorithm::Greedy] {
                let Ok(want) = crate::plan_with(&inst.tables, &inst.edges, &inst.config, a) else {
                    panic!("plans")
                };
                let Ok(got) = plan_instance(&back, a) else {
                    panic!("seed {seed} {a:?} plans the instance")
                };
                assert!(
                    close(got.plan.total_npv, want.total_npv),
                    "seed {seed} {a:?}: {} vs {}",
                    got.plan.total_npv,
                    want.total_npv
                );
                assert_eq!(
                    got.plan.rewrite_cost, want.rewrite_cost,
                    "seed {seed} {a:?}"
                );
                for d in &want.tables {
                    assert_eq!(got.chosen_keys[&d.table], d.keys, "seed {seed}");
                }
            }
        }
    }

    #[test]
    fn bad_instances_name_the_place() {
        let base = r#"{"version": 1, "horizon": 4, "discount": 0.05,
            "tables": [{"name": "a", "bytes": 10, "candidates": [{"key": ["k"], "rewrite": 10, "storage": 10}]},
                       {"name": "b", "bytes": 10, "current_key": ["k"]}],
            "edges": [{"left": "a", "left_key": ["k"], "right": "b", "right_key": ["k"], "benefit": 5}]}"#;
        assert!(PlanInstance::from_json(base).is_ok_and(|i| i.problem().is_ok()));
        let err = |text: &str| match PlanInstance::from_json(text).and_then(|i| i.problem()) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted: {text}"),
        };
        let e = err(&base.replace(r#""right": "b""#, r#""right": "c""#));
        assert!(e.contains("edges[0].right") && e.contains("\"c\""), "{e}");
        let e = err(&base.replace(r#""left_key": ["k"]"#, r#""left_key": ["z"]"#));
        assert!(
            e.contains("edges[0].left_key") && e.contains("candidate"),
            "{e}"
        );
        let e = err(&base.replace(r#""benefit": 5"#, r#""benefit": -5"#));
        assert!(e.contains("edges[0]: benefit"), "{e}");
        let e = err(&base.replace(r#""version": 1"#, r#""version": 2"#));
        assert!(e.contains("version"), "{e}");
        let e = err(&base.replace(r#""name": "b""#, r#""name": "a""#));
        assert!(e.contains("tables[1]") && e.contains("twice"), "{e}");
        let e = err(&base.replace("\"horizon\": 4,", "\"horizon\": 4,\n \"horizn\": 4,"));
        assert!(e.starts_with("line 2:") && e.contains("horizn"), "{e}");
        let e = err(&base.replace(r#""key": ["k"]"#, r#""key": ["b"]"#).replace(
            r#""current_key": ["k"]"#,
            r#""current_key": ["k"], "partitioned_by": ["d"]"#,
        ));
        assert!(
            e.contains("tables[1]") && e.contains("partitioned_by"),
            "{e}"
        );
    }
}
