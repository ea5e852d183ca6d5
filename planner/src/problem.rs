//! Inputs compiled into an indexed instance, the objective, and plan rendering.
//!
//! A table's choices ("options") are: option 0 = keep the current layout, then
//! every distinct key set that some incident edge proposes for it. A proposed
//! key equal to the current clustering maps to option 0 (no rewrite needed).

use std::collections::{BTreeMap, HashMap};

use crate::error::{Error, Result};
use crate::model::{
    EdgeDemand, EdgeRef, Layout, LayoutPlan, LeftAlone, PlannerConfig, ServedEdge, SkippedEdge,
    TableDecision, TableProfile,
};

/// Delta's hard limit on clustering columns.
const DELTA_MAX_CLUSTER_COLUMNS: usize = 4;

/// `(1 − (1+r)^−H) / r`: present value of one unit saved per window for `H` windows.
///
/// With `r == 0` the limit `H` is returned.
pub fn annuity_factor(discount: f64, horizon: u32) -> f64 {
    if discount == 0.0 {
        return f64::from(horizon);
    }
    let h = i32::try_from(horizon).unwrap_or(i32::MAX);
    (1.0 - (1.0 + discount).powi(-h)) / discount
}

#[derive(Clone, Debug)]
pub(crate) struct PTable {
    pub name: String,
    pub bytes: u64,
    pub partitioned: bool,
    pub previous: Layout,
    /// Option 0 = current layout (its clustering keys, or empty), then proposals.
    pub options: Vec<Vec<String>>,
    /// Rewrite cost of each option in bytes (0 for option 0).
    pub rewrite: Vec<u64>,
    /// Storage cost of each option in bytes (0 for option 0).
    pub storage: Vec<u64>,
    /// The same costs as floats, for the objective.
    pub rewrite_f: Vec<f64>,
    pub storage_f: Vec<f64>,
}

impl PTable {
    /// A table whose only option so far is its current layout (`current`:
    /// its clustering keys, or empty), which costs nothing to keep.
    pub fn new(
        name: String,
        bytes: u64,
        partitioned: bool,
        previous: Layout,
        current: Vec<String>,
    ) -> Self {
        PTable {
            name,
            bytes,
            partitioned,
            previous,
            options: vec![current],
            rewrite: vec![0],
            storage: vec![0],
            rewrite_f: vec![0.0],
            storage_f: vec![0.0],
        }
    }

    /// Add an option with its costs; returns its index.
    pub fn push_option(&mut self, key: Vec<String>, rewrite: u64, storage: u64) -> usize {
        self.options.push(key);
        self.rewrite.push(rewrite);
        self.storage.push(storage);
        self.rewrite_f.push(rewrite as f64);
        self.storage_f.push(storage as f64);
        self.options.len() - 1
    }
}

#[derive(Clone, Debug)]
pub(crate) struct PEdge {
    /// Index in the caller's edge slice.
    pub input: usize,
    pub a: usize,
    pub ka: usize,
    pub b: usize,
    pub kb: usize,
    /// Discounted saving over the horizon: scan_reduction × scanned × annuity.
    pub w: f64,
    /// Deterministic tie-break rank (by table and column names).
    pub rank: usize,
}

impl PEdge {
    /// The other endpoint and the keys (this side, other side) seen from table `t`.
    pub fn seen_from(&self, t: usize) -> (usize, usize, usize) {
        if self.a == t {
            (self.b, self.ka, self.kb)
        } else {
            (self.a, self.kb, self.ka)
        }
    }
}

/// An indexed planning instance.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    pub tables: Vec<PTable>,
    pub edges: Vec<PEdge>,
    /// Edge ids incident to each table (a self join appears once).
    pub adj: Vec<Vec<usize>>,
    /// Edge ids between two distinct tables, keyed (min, max).
    pub pairs: HashMap<(usize, usize), Vec<usize>>,
    pub budget: f64,
    pub storage_budget: f64,
    pub annuity: f64,
    // Reporting only.
    pub budget_u64: Option<u64>,
    pub storage_budget_u64: Option<u64>,
    pub excluded_broadcast: Vec<EdgeRef>,
    pub skipped: Vec<SkippedEdge>,
    pub input_edges: Vec<EdgeRef>,
    pub input_scan: Vec<f64>,
    /// Tables a planning rule keeps as they are (reporting).
    pub left_alone: Vec<LeftAlone>,
}

fn check_config(c: &PlannerConfig) -> Result<()> {
    let bad = |field, value: f64, reason| Error::Config {
        field,
        value: value.to_string(),
        reason,
    };
    if !(c.scan_reduction.is_finite() && (0.0..=1.0).contains(&c.scan_reduction)) {
        return Err(bad("scan_reduction", c.scan_reduction, "must be in [0, 1]"));
    }
    if !(c.discount.is_finite() && c.discount >= 0.0) {
        return Err(bad("discount", c.discount, "must be finite and >= 0"));
    }
    if !(c.retention_factor.is_finite() && c.retention_factor >= 0.0) {
        return Err(bad(
            "retention_factor",
            c.retention_factor,
            "must be finite and >= 0",
        ));
    }
    if c.max_cluster_columns == 0 || c.max_cluster_columns > DELTA_MAX_CLUSTER_COLUMNS {
        return Err(Error::Config {
            field: "max_cluster_columns",
            value: c.max_cluster_columns.to_string(),
            reason: "must be 1..=4 (Delta allows at most 4 clustering columns)",
        });
    }
    Ok(())
}

/// [`key_of`], borrowing `cols` when they already are sorted and distinct.
fn sorted_key(cols: &[String]) -> std::borrow::Cow<'_, [String]> {
    if cols.windows(2).all(|w| w[0] < w[1]) {
        std::borrow::Cow::Borrowed(cols)
    } else {
        std::borrow::Cow::Owned(key_of(cols))
    }
}

/// Sorted, deduplicated key: Delta ignores the order of clustering columns.
fn key_of(cols: &[String]) -> Vec<String> {
    let mut k: Vec<String> = cols.to_vec();
    k.sort();
    k.dedup();
    k
}

fn edge_ref(i: usize, e: &EdgeDemand) -> EdgeRef {
    EdgeRef {
        index: i,
        label: e.label(),
        jis: e.jis,
    }
}

/// Incidence lists and the edges between each pair of distinct tables.
type EdgeIndex = (Vec<Vec<usize>>, HashMap<(usize, usize), Vec<usize>>);

fn index_edges(n_tables: usize, edges: &[PEdge]) -> EdgeIndex {
    let mut adj = vec![Vec::new(); n_tables];
    let mut pairs: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for (id, e) in edges.iter().enumerate() {
        adj[e.a].push(id);
        if e.a != e.b {
            adj[e.b].push(id);
            pairs
                .entry((e.a.min(e.b), e.a.max(e.b)))
                .or_default()
                .push(id);
        }
    }
    (adj, pairs)
}

/// Deterministic tie-break: rank edges by (left table, left key, right
/// table, right key, input index).
fn rank_edges(tables: &[PTable], pedges: &mut [PEdge]) {
    // Names and keys compared once, as ranks; the edges then sort on integers.
    let mut by_name: Vec<usize> = (0..tables.len()).collect();
    by_name.sort_by(|&x, &y| tables[x].name.cmp(&tables[y].name));
    let mut table_rank = vec![0usize; tables.len()];
    for (r, &t) in by_name.iter().enumerate() {
        table_rank[t] = r;
    }
    let option_rank: Vec<Vec<usize>> = tables
        .iter()
        .map(|t| {
            let mut o: Vec<usize> = (0..t.options.len()).collect();
            o.sort_by(|&x, &y| t.options[x].cmp(&t.options[y]));
            let mut r = vec![0usize; o.len()];
            for (i, &k) in o.iter().enumerate() {
                r[k] = i;
            }
            r
        })
        .collect();
    let keys: Vec<(usize, usize, usize, usize, usize)> = pedges
        .iter()
        .map(|e| {
            (
                table_rank[e.a],
                option_rank[e.a][e.ka],
                table_rank[e.b],
                option_rank[e.b][e.kb],
                e.input,
            )
        })
        .collect();
    let mut order: Vec<usize> = (0..pedges.len()).collect();
    order.sort_unstable_by_key(|&x| keys[x]);
    for (r, &e) in order.iter().enumerate() {
        pedges[e].rank = r;
    }
}

impl Problem {
    /// An instance from already indexed tables and edges (edges' `rank` is
    /// set here), for inputs that state options and costs themselves.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        tables: Vec<PTable>,
        mut edges: Vec<PEdge>,
        annuity: f64,
        budget: Option<u64>,
        storage_budget: Option<u64>,
        input_edges: Vec<EdgeRef>,
        input_scan: Vec<f64>,
    ) -> Problem {
        rank_edges(&tables, &mut edges);
        let (adj, pairs) = index_edges(tables.len(), &edges);
        let limit = |b: Option<u64>| b.map_or(f64::INFINITY, |b| b as f64);
        Problem {
            tables,
            edges,
            adj,
            pairs,
            budget: limit(budget),
            storage_budget: limit(storage_budget),
            annuity,
            budget_u64: budget,
            storage_budget_u64: storage_budget,
            excluded_broadcast: Vec::new(),
            skipped: Vec::new(),
            input_edges,
            input_scan,
            left_alone: Vec::new(),
        }
    }

    pub fn build(
        profiles: &[TableProfile],
        edges: &[EdgeDemand],
        config: &PlannerConfig,
    ) -> Result<Problem> {
        check_config(config)?;
        let annuity = annuity_factor(config.discount, config.horizon);
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut tables = Vec::with_capacity(profiles.len());
        for p in profiles {
            if index.insert(p.table.as_str(), tables.len()).is_some() {
                return Err(Error::DuplicateTable {
                    table: p.table.clone(),
                });
            }
            let partitioned = !p.partitioned_by.is_empty();
            // Delta forbids PARTITIONED BY with CLUSTER BY; if both are reported the
            // partitioning is what the files follow, so clustering counts as absent.
            let (previous, current) = if partitioned {
                (Layout::Partitioned(p.partitioned_by.clone()), Vec::new())
            } else if p.clustered_by.is_empty() {
                (Layout::None, Vec::new())
            } else {
                let k = key_of(&p.clustered_by);
                (Layout::Clustered(k.clone()), k)
            };
            tables.push(PTable::new(
                p.table.clone(),
                p.bytes,
                partitioned,
                previous,
                current,
            ));
        }
        // Option lookup per table; filled as edges propose keys.
        let mut option_ix: Vec<HashMap<Vec<String>, usize>> = tables
            .iter()
            .map(|t| {
                let mut m = HashMap::new();
                // A partitioned table's option 0 has no clustering key: nothing maps to it.
                if !t.partitioned && !t.options[0].is_empty() {
                    m.insert(t.options[0].clone(), 0);
                }
                m
            })
            .collect();
        let mut excluded_broadcast = Vec::new();
        let mut skipped = Vec::new();
        let mut pedges = Vec::new();
        let input_edges: Vec<EdgeRef> = edges
            .iter()
            .enumerate()
            .map(|(i, e)| edge_ref(i, e))
            .collect();
        let input_scan: Vec<f64> = edges
            .iter()
            .map(|e| e.saving(config.scan_reduction))
            .collect();
        for (i, e) in edges.iter().enumerate() {
            let skip = |reason: String| SkippedEdge {
                edge: edge_ref(i, e),
                reason,
            };
            if e.broadcast_only() && !config.include_broadcast {
                excluded_broadcast.push(edge_ref(i, e));
                continue;
            }
            if !(e.scanned_bytes.is_finite() && e.scanned_bytes >= 0.0) {
                skipped.push(skip(format!(
                    "scanned_bytes {} is not a finite non-negative number",
                    e.scanned_bytes
                )));
                continue;
            }
            if e.left_columns.is_empty() || e.left_columns.len() != e.right_columns.len() {
                skipped.push(skip(format!(
                    "key columns do not pair up ({} left, {} right)",
                    e.left_columns.len(),
                    e.right_columns.len()
                )));
                continue;
            }
            let (Some(&a), Some(&b)) = (
                index.get(e.left_table.as_str()),
                index.get(e.right_table.as_str()),
            ) else {
                skipped.push(skip("no profile for one of its tables".to_string()));
                continue;
            };
            // Keys as given when already sorted and distinct (the usual
            // case), so the option lookup needs no allocation.
            let ka_cols = sorted_key(&e.left_columns);
            let kb_cols = sorted_key(&e.right_columns);
            if ka_cols.len() > config.max_cluster_columns
                || kb_cols.len() > config.max_cluster_columns
            {
                skipped.push(skip(format!(
                    "key needs {} columns, more than max_cluster_columns = {}",
                    ka_cols.len().max(kb_cols.len()),
                    config.max_cluster_columns
                )));
                continue;
            }
            if a == b && ka_cols != kb_cols {
                // One table has one clustering key; it cannot match two different
                // column sets at once, so such a self join cannot be served.
                skipped.push(skip(
                    "self join on different columns: one layout cannot serve both sides"
                        .to_string(),
                ));
                continue;
            }
            // A table kept as it is serves only edges on its current key.
            let needs_change = |t: usize, k: &[String]| option_ix[t].get(k) != Some(&0);
            if let Some((t, why)) = [(a, &ka_cols), (b, &kb_cols)]
                .into_iter()
                .filter(|(t, k)| needs_change(*t, k.as_ref()))
                .find_map(|(t, _)| config.left_alone.get(&tables[t].name).map(|w| (t, w)))
            {
                skipped.push(skip(format!(
                    "needs {} re-laid out, which the plan leaves alone: {why}",
                    tables[t].name
                )));
                continue;
            }
            let retention = config.retention_factor;
            let mut opt = |t: usize, k: &[String]| -> usize {
                let tbl = &mut tables[t];
                let m = &mut option_ix[t];
                if let Some(&o) = m.get(k) {
                    return o;
                }
                // A full rewrite of the table; its old files are kept until VACUUM.
                let storage = (retention * tbl.bytes as f64).ceil() as u64;
                let o = tbl.push_option(k.to_vec(), tbl.bytes, storage);
                m.insert(k.to_vec(), o);
                o
            };
            let ka = opt(a, &ka_cols);
            let kb = opt(b, &kb_cols);
            let w = e.saving(config.scan_reduction) * annuity;
            pedges.push(PEdge {
                input: i,
                a,
                ka,
                b,
                kb,
                w,
                rank: 0,
            });
        }
        rank_edges(&tables, &mut pedges);
        let (adj, pairs) = index_edges(tables.len(), &pedges);
        let limit = |b: Option<u64>| b.map_or(f64::INFINITY, |b| b as f64);
        Ok(Problem {
            tables,
            edges: pedges,
            adj,
            pairs,
            budget: limit(config.budget),
            storage_budget: limit(config.storage_budget),
            annuity,
            budget_u64: config.budget,
            storage_budget_u64: config.storage_budget,
            excluded_broadcast,
            skipped,
            input_edges,
            input_scan,
            left_alone: profiles
                .iter()
                .filter_map(|p| {
                    config.left_alone.get(&p.table).map(|r| LeftAlone {
                        table: p.table.clone(),
                        reason: r.clone(),
                    })
                })
                .collect(),
        })
    }

    /// The part of the instance made of `tables` (indices, ascending) and
    /// `edges` (every edge among them), re-indexed, with the same budgets.
    /// Reporting fields are left empty: a part is solved, never rendered.
    pub fn subproblem(&self, tables: &[usize], edges: &[usize]) -> Problem {
        let mut local = vec![usize::MAX; self.tables.len()];
        for (i, &t) in tables.iter().enumerate() {
            local[t] = i;
        }
        let sub_edges: Vec<PEdge> = edges
            .iter()
            .map(|&id| {
                let e = &self.edges[id];
                PEdge {
                    a: local[e.a],
                    b: local[e.b],
                    ..e.clone()
                }
            })
            .collect();
        let (adj, pairs) = index_edges(tables.len(), &sub_edges);
        Problem {
            tables: tables.iter().map(|&t| self.tables[t].clone()).collect(),
            edges: sub_edges,
            adj,
            pairs,
            budget: self.budget,
            storage_budget: self.storage_budget,
            annuity: self.annuity,
            budget_u64: self.budget_u64,
            storage_budget_u64: self.storage_budget_u64,
            excluded_broadcast: Vec::new(),
            skipped: Vec::new(),
            input_edges: Vec::new(),
            input_scan: Vec::new(),
            left_alone: Vec::new(),
        }
    }

    /// The same instance under other budgets (bytes; `f64::INFINITY`: none).
    pub fn with_budgets(&self, budget: f64, storage_budget: f64) -> Problem {
        let mut p = self.clone();
        p.budget = budget;
        p.storage_budget = storage_budget;
        p
    }

    /// Rewrite bytes of table `t` on option `k`.
    #[inline]
    pub fn rewrite(&self, t: usize, k: usize) -> f64 {
        self.tables[t].rewrite_f[k]
    }

    /// Storage bytes of table `t` on option `k`.
    #[inline]
    pub fn storage(&self, t: usize, k: usize) -> f64 {
        self.tables[t].storage_f[k]
    }

    /// Serving edge `e` alone, from the current layouts: the bytes its
    /// tables' rewrites cost and its NPV (its discounted saving minus those
    /// rewrites and the storage they keep).
    pub fn standalone(&self, e: &PEdge) -> (f64, f64) {
        let mut sides = vec![(e.a, e.ka)];
        if e.b != e.a {
            sides.push((e.b, e.kb));
        }
        let rewrite: f64 = sides.iter().map(|&(t, k)| self.rewrite(t, k)).sum();
        let storage: f64 = sides.iter().map(|&(t, k)| self.storage(t, k)).sum();
        (rewrite, e.w - rewrite - storage)
    }

    /// Both budgets hold (with a relative tolerance against float noise).
    pub fn fits(&self, rewrite: f64, storage: f64) -> bool {
        rewrite <= self.budget * (1.0 + 1e-12) + 1e-6
            && storage <= self.storage_budget * (1.0 + 1e-12) + 1e-6
    }

    /// Improvement threshold: ignore float noise relative to the instance's scale.
    pub fn tol(&self) -> f64 {
        let total: f64 = self.edges.iter().map(|e| e.w).sum();
        1e-9 * total.max(1.0)
    }

    /// Is edge `e` served under assignment `x`?
    pub fn served(&self, x: &[usize], e: &PEdge) -> bool {
        x[e.a] == e.ka && x[e.b] == e.kb
    }

    /// Exact objective and costs of an assignment: (npv, rewrite, storage).
    pub fn evaluate(&self, x: &[usize]) -> (f64, f64, f64) {
        let benefit: f64 = self
            .edges
            .iter()
            .filter(|e| self.served(x, e))
            .map(|e| e.w)
            .sum();
        let mut rw = 0.0;
        let mut st = 0.0;
        for (t, &k) in x.iter().enumerate() {
            rw += self.rewrite(t, k);
            st += self.storage(t, k);
        }
        // `+ 0.0` turns the -0.0 of an empty float sum into 0.0 for printing.
        (benefit - rw - st + 0.0, rw, st)
    }

    /// Render an assignment as a [`Plan`].
    pub fn to_plan(&self, x: &[usize], algorithm: &str) -> LayoutPlan {
        let mut served: BTreeMap<usize, Vec<(usize, f64)>> = BTreeMap::new();
        for e in &self.edges {
            if self.served(x, e) {
                let share = if e.a == e.b { e.w } else { e.w / 2.0 };
                served.entry(e.a).or_default().push((e.input, share));
                if e.a != e.b {
                    served.entry(e.b).or_default().push((e.input, share));
                }
            }
        }
        let mut decisions = Vec::new();
        let mut rewrite_cost = 0u64;
        let mut storage_cost = 0u64;
        for (t, tbl) in self.tables.iter().enumerate() {
            let k = x[t];
            let list = served.remove(&t).unwrap_or_default();
            if k == 0 && list.is_empty() {
                continue;
            }
            let rewrite_bytes = tbl.rewrite[k];
            let storage_bytes = tbl.storage[k];
            rewrite_cost = rewrite_cost.saturating_add(rewrite_bytes);
            storage_cost = storage_cost.saturating_add(storage_bytes);
            let gain: f64 = list.iter().map(|(_, s)| s).sum();
            let npv_contribution = gain - self.rewrite(t, k) - self.storage(t, k);
            let mut edges_served: Vec<ServedEdge> = list
                .iter()
                .map(|&(i, _)| ServedEdge {
                    edge: self.input_edges[i].clone(),
                    scan_reduction: self.input_scan[i],
                })
                .collect();
            edges_served.sort_by_key(|s| s.edge.index);
            decisions.push(TableDecision {
                table: tbl.name.clone(),
                keys: tbl.options[k].clone(),
                previous: tbl.previous.clone(),
                changed: k != 0,
                replace: k != 0 && tbl.partitioned,
                rewrite_bytes,
                storage_bytes,
                edges_served,
                npv_contribution,
            });
        }
        decisions.sort_by(|p, q| {
            q.npv_contribution
                .total_cmp(&p.npv_contribution)
                .then_with(|| p.table.cmp(&q.table))
        });
        let (total_npv, _, _) = self.evaluate(x);
        LayoutPlan {
            tables: decisions,
            total_npv,
            rewrite_cost,
            storage_cost,
            budget: self.budget_u64,
            storage_budget: self.storage_budget_u64,
            annuity_factor: self.annuity,
            excluded_broadcast: self.excluded_broadcast.clone(),
            skipped: self.skipped.clone(),
            algorithm: algorithm.to_string(),
            left_alone: self.left_alone.clone(),
        }
    }
}
