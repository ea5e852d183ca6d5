//! The join graph as a picture: which tables, which edges, how each edge
//! stands with the plan, and where everything goes on the canvas.
//!
//! [`build`] takes the whole input's edge table and the plan: tables are
//! nodes (area proportional to size), edges are drawn by JIS (width), join
//! strategy (colour) and plan status (line style): served by the plan,
//! left out although it would pay on its own, or not planned for
//! (broadcast-only, skipped, not in the planned window or not paying).
//! Every table the plan changes and every edge it serves or leaves out is
//! always drawn; the rest is added by JIS up to [`MAX_TABLES`] tables and
//! [`MAX_EDGES`] edges. [`svg`] draws it (maud: every name is escaped).

use crate::layout;
use crate::ReportData;
use graph::tables::short_table;
use maud::{html, Markup};
use petgraph::graph::{NodeIndex, UnGraph};
use planner::{human, Layout};
use std::collections::{BTreeMap, BTreeSet};
use workload::edges::EdgeRow;

/// Most tables drawn.
pub const MAX_TABLES: usize = 40;
/// Most edges drawn.
pub const MAX_EDGES: usize = 120;
/// Canvas width.
pub const WIDTH: f64 = 960.0;
const ITERATIONS: usize = 300;
const R_MIN: f64 = 9.0;
const R_MAX: f64 = 46.0;

/// How the join ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strategy {
    /// Only as SortMergeJoin.
    SortMerge,
    /// Only as BroadcastHashJoin.
    Broadcast,
    /// As both, or as both and others.
    Mixed,
    /// Only as another operator (shuffled hash, nested loop, ...).
    Other,
}

impl Strategy {
    fn of(smj: u64, bhj: u64, other: u64) -> Strategy {
        match (smj > 0, bhj > 0, other > 0) {
            (true, false, false) => Strategy::SortMerge,
            (false, true, false) => Strategy::Broadcast,
            (false, false, _) => Strategy::Other,
            _ => Strategy::Mixed,
        }
    }

    /// Short name for classes and legends.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::SortMerge => "SortMergeJoin",
            Strategy::Broadcast => "BroadcastHashJoin",
            Strategy::Mixed => "mixed",
            Strategy::Other => "other",
        }
    }

    /// Stroke colour.
    pub fn colour(self) -> &'static str {
        match self {
            Strategy::SortMerge => "#c0392b",
            Strategy::Broadcast => "#2471a3",
            Strategy::Mixed => "#7d3c98",
            Strategy::Other => "#7f8c8d",
        }
    }

    /// All, in legend order.
    pub const ALL: [Strategy; 4] = [
        Strategy::SortMerge,
        Strategy::Broadcast,
        Strategy::Mixed,
        Strategy::Other,
    ];
}

/// How an edge stands with the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Both tables are clustered on its key by the plan.
    Served,
    /// Would pay on its own, but the plan does not serve it.
    LeftOut,
    /// Not planned for: broadcast-only, skipped, outside the planned
    /// window, or not paying for itself.
    NotPlanned,
}

impl Status {
    /// Class name.
    pub fn class(self) -> &'static str {
        match self {
            Status::Served => "served",
            Status::LeftOut => "left-out",
            Status::NotPlanned => "not-planned",
        }
    }

    /// Legend text.
    pub fn legend(self) -> &'static str {
        match self {
            Status::Served => "served by the plan",
            Status::LeftOut => "left out (would pay on its own)",
            Status::NotPlanned => "not planned for",
        }
    }

    /// SVG `stroke-dasharray` (`None`: solid).
    pub fn dash(self) -> Option<&'static str> {
        match self {
            Status::Served => None,
            Status::LeftOut => Some("9 5"),
            Status::NotPlanned => Some("2 4"),
        }
    }

    /// Stroke opacity.
    pub fn opacity(self) -> &'static str {
        match self {
            Status::Served => "0.95",
            Status::LeftOut => "0.85",
            Status::NotPlanned => "0.45",
        }
    }

    /// All, in legend order.
    pub const ALL: [Status; 3] = [Status::Served, Status::LeftOut, Status::NotPlanned];
}

/// A table drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Full table name.
    pub table: String,
    /// Bytes, when the planner knew them.
    pub bytes: Option<u64>,
    /// The key the plan clusters it on, when the plan changes it.
    pub planned_key: Option<Vec<String>>,
    /// That change in the words of the table's format, short
    /// ([`ReportData::planned_layout_short`]).
    pub planned_label: Option<String>,
    /// Its layout before the plan.
    pub previous: Layout,
    /// Centre on the canvas.
    pub x: f64,
    /// Centre on the canvas.
    pub y: f64,
    /// Radius (area proportional to bytes).
    pub r: f64,
}

/// An edge drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// Index of one end in [`JoinGraph::nodes`].
    pub a: usize,
    /// Index of the other end (equal to `a` for a self join).
    pub b: usize,
    /// `left(cols) = right(cols)` with short table names.
    pub label: String,
    /// `left(a, b) = right(c, d)` with full table names, as the plan and
    /// `plan.json` name edges.
    pub full_label: String,
    /// `cols = cols`.
    pub columns: String,
    /// JIS over the whole input.
    pub jis: f64,
    /// Executions containing it.
    pub frequency: u64,
    /// How it ran.
    pub strategy: Strategy,
    /// Executions by strategy: SortMergeJoin, BroadcastHashJoin, other.
    pub counts: (u64, u64, u64),
    /// How it stands with the plan.
    pub status: Status,
    /// Why (for the tooltip).
    pub reason: String,
}

/// The picture's content and layout.
#[derive(Clone, Debug, PartialEq)]
pub struct JoinGraph {
    /// Tables, sorted by name.
    pub nodes: Vec<Node>,
    /// Edges.
    pub edges: Vec<Edge>,
    /// Canvas height (width is [`WIDTH`]).
    pub height: f64,
    /// Tables left out of the picture.
    pub hidden_tables: usize,
    /// Edges left out of the picture.
    pub hidden_edges: usize,
}

type Key = (String, Vec<String>, String, Vec<String>);

fn row_key(r: &EdgeRow) -> Key {
    (
        r.left_table.clone(),
        r.left_columns.clone(),
        r.right_table.clone(),
        r.right_columns.clone(),
    )
}

/// One candidate edge before selection.
struct Candidate {
    left: String,
    right: String,
    left_columns: Vec<String>,
    right_columns: Vec<String>,
    jis: f64,
    frequency: u64,
    counts: (u64, u64, u64),
    status: Status,
    reason: String,
}

/// Choose what to draw and lay it out.
pub fn build(d: &ReportData<'_>) -> JoinGraph {
    let planned = d.planned;
    let plan = &planned.plan;
    let demand_of: BTreeMap<Key, usize> = planned
        .demands
        .iter()
        .enumerate()
        .map(|(i, e)| {
            (
                (
                    e.left_table.clone(),
                    e.left_columns.clone(),
                    e.right_table.clone(),
                    e.right_columns.clone(),
                ),
                i,
            )
        })
        .collect();
    let served: BTreeSet<usize> = plan
        .tables
        .iter()
        .flat_map(|t| t.edges_served.iter().map(|e| e.edge.index))
        .collect();
    let left_out: BTreeMap<&str, &planner::LeftOut> = planned
        .left_out
        .iter()
        .map(|l| (l.label.as_str(), l))
        .collect();
    let broadcast: BTreeSet<usize> = plan.excluded_broadcast.iter().map(|e| e.index).collect();
    let skipped: BTreeMap<usize, &str> = plan
        .skipped
        .iter()
        .map(|s| (s.edge.index, s.reason.as_str()))
        .collect();
    let status = |demand: Option<usize>| -> (Status, String) {
        let Some(i) = demand else {
            return (
                Status::NotPlanned,
                "not in the window planned for".to_string(),
            );
        };
        if served.contains(&i) {
            return (Status::Served, "served by the plan".to_string());
        }
        if let Some(l) = left_out.get(planned.demands[i].label().as_str()) {
            return (
                Status::LeftOut,
                format!(
                    "left out: needs a rewrite of {}, stand-alone NPV {}; {}",
                    human(l.rewrite_bytes),
                    human(l.standalone_npv),
                    l.reason
                ),
            );
        }
        if broadcast.contains(&i) {
            return (
                Status::NotPlanned,
                "broadcast-only: not planned for".to_string(),
            );
        }
        if let Some(r) = skipped.get(&i) {
            return (Status::NotPlanned, format!("skipped: {r}"));
        }
        (
            Status::NotPlanned,
            "does not pay for itself in the window planned for".to_string(),
        )
    };

    // Every edge of the input, then demands of the planned window that the
    // edge table lacks (none when both come from the same executions).
    let mut cands: Vec<Candidate> = Vec::new();
    let mut seen: BTreeSet<Key> = BTreeSet::new();
    for r in d.edges {
        let key = row_key(r);
        let (status, reason) = status(demand_of.get(&key).copied());
        seen.insert(key);
        cands.push(Candidate {
            left: r.left_table.clone(),
            right: r.right_table.clone(),
            left_columns: r.left_columns.clone(),
            right_columns: r.right_columns.clone(),
            jis: r.jis,
            frequency: r.frequency,
            counts: (r.smj_count, r.bhj_count, r.other_count),
            status,
            reason,
        });
    }
    for (key, &i) in &demand_of {
        if seen.contains(key) {
            continue;
        }
        let e = &planned.demands[i];
        // A measured table's own demand (its filters) is not a join.
        if e.is_table_demand() {
            continue;
        }
        let (status, reason) = status(Some(i));
        cands.push(Candidate {
            left: e.left_table.clone(),
            right: e.right_table.clone(),
            left_columns: e.left_columns.clone(),
            right_columns: e.right_columns.clone(),
            jis: e.jis,
            frequency: e.smj_count + e.bhj_count + e.other_count,
            counts: (e.smj_count, e.bhj_count, e.other_count),
            status,
            reason,
        });
    }
    // Plan edges first, then by JIS.
    cands.sort_by(|a, b| {
        let plan_first = |c: &Candidate| c.status == Status::NotPlanned;
        plan_first(a)
            .cmp(&plan_first(b))
            .then(b.jis.total_cmp(&a.jis))
            .then_with(|| (&a.left, &a.right).cmp(&(&b.left, &b.right)))
            .then_with(|| {
                (&a.left_columns, &a.right_columns).cmp(&(&b.left_columns, &b.right_columns))
            })
    });

    // Tables: the plan's, then those of the best edges.
    let mut tables: BTreeSet<String> = plan
        .tables
        .iter()
        .filter(|t| t.changed || !t.edges_served.is_empty())
        .map(|t| t.table.clone())
        .collect();
    for c in &cands {
        let new = [&c.left, &c.right]
            .iter()
            .filter(|t| !tables.contains(t.as_str()))
            .count();
        if c.status != Status::NotPlanned || tables.len() + new <= MAX_TABLES {
            tables.insert(c.left.clone());
            tables.insert(c.right.clone());
        }
    }
    let all_tables: BTreeSet<&str> = cands
        .iter()
        .flat_map(|c| [c.left.as_str(), c.right.as_str()])
        .chain(plan.tables.iter().map(|t| t.table.as_str()))
        .collect();
    let index: BTreeMap<&str, usize> = tables
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    let mut edges = Vec::new();
    let mut hidden_edges = 0;
    for c in &cands {
        let (Some(&a), Some(&b)) = (index.get(c.left.as_str()), index.get(c.right.as_str())) else {
            hidden_edges += 1;
            continue;
        };
        if c.status == Status::NotPlanned && edges.len() >= MAX_EDGES {
            hidden_edges += 1;
            continue;
        }
        edges.push(Edge {
            a,
            b,
            label: format!(
                "{}({}) = {}({})",
                short_table(&c.left),
                c.left_columns.join(","),
                short_table(&c.right),
                c.right_columns.join(",")
            ),
            full_label: format!(
                "{}({}) = {}({})",
                c.left,
                c.left_columns.join(", "),
                c.right,
                c.right_columns.join(", ")
            ),
            columns: format!(
                "{} = {}",
                c.left_columns.join(","),
                c.right_columns.join(",")
            ),
            jis: c.jis,
            frequency: c.frequency,
            strategy: Strategy::of(c.counts.0, c.counts.1, c.counts.2),
            counts: c.counts,
            status: c.status,
            reason: c.reason.clone(),
        });
    }

    // Sizes and keys.
    let bytes: BTreeMap<&str, u64> = planned
        .profiles
        .iter()
        .map(|p| (p.table.as_str(), p.bytes))
        .collect();
    let decisions: BTreeMap<&str, &planner::TableDecision> =
        plan.tables.iter().map(|t| (t.table.as_str(), t)).collect();
    let profiles: BTreeMap<&str, &planner::TableProfile> = planned
        .profiles
        .iter()
        .map(|p| (p.table.as_str(), p))
        .collect();
    let max_bytes = tables
        .iter()
        .filter_map(|t| bytes.get(t.as_str()))
        .copied()
        .max()
        .unwrap_or(0);
    let mut nodes: Vec<Node> = tables
        .iter()
        .map(|t| {
            let b = bytes.get(t.as_str()).copied();
            let r = match b {
                Some(b) if max_bytes > 0 => {
                    (R_MAX * (b as f64 / max_bytes as f64).sqrt()).max(R_MIN)
                }
                _ => R_MIN,
            };
            let decision = decisions.get(t.as_str());
            let previous = match (decision, profiles.get(t.as_str())) {
                (Some(d), _) => d.previous.clone(),
                (None, Some(p)) if !p.partitioned_by.is_empty() => {
                    Layout::Partitioned(p.partitioned_by.clone())
                }
                (None, Some(p)) if !p.clustered_by.is_empty() => {
                    Layout::Clustered(p.clustered_by.clone())
                }
                _ => Layout::None,
            };
            Node {
                table: t.clone(),
                bytes: b,
                planned_key: decision.filter(|d| d.changed).map(|d| d.keys.clone()),
                planned_label: decision
                    .filter(|d| d.changed)
                    .map(|t| d.planned_layout_short(t)),
                previous,
                x: 0.0,
                y: 0.0,
                r,
            }
        })
        .collect();

    // Layout: petgraph graph of the drawn tables and edges.
    let mut g: UnGraph<(), ()> = UnGraph::with_capacity(nodes.len(), edges.len());
    for _ in &nodes {
        g.add_node(());
    }
    for e in &edges {
        if e.a != e.b {
            g.update_edge(NodeIndex::new(e.a), NodeIndex::new(e.b), ());
        }
    }
    let max_height = match nodes.len() {
        0..=6 => 420.0,
        7..=16 => 600.0,
        _ => 760.0,
    };
    let raw = layout::stress(&g, ITERATIONS);
    let radii: Vec<f64> = nodes.iter().map(|n| n.r).collect();
    // Room for two label lines under the lowest node and loops above.
    let mut pos = layout::fit(&raw, &radii, WIDTH, max_height - 30.0, 56.0);
    layout::separate(&mut pos, &radii, 40.0, (WIDTH, max_height - 30.0), 200);
    // Keep each table's labels inside the canvas: pull a node in from the
    // side by half its widest label, then part any circles that now touch.
    let half: Vec<f64> = nodes.iter().map(label_half_width).collect();
    for _ in 0..3 {
        for (p, h) in pos.iter_mut().zip(&half) {
            p.0 = p.0.clamp(h + 6.0, (WIDTH - h - 6.0).max(h + 6.0));
        }
        layout::separate(&mut pos, &radii, 40.0, (WIDTH, max_height - 30.0), 200);
    }
    for (p, h) in pos.iter_mut().zip(&half) {
        p.0 = p.0.clamp(h + 6.0, (WIDTH - h - 6.0).max(h + 6.0));
    }
    // No table's labels on another table or its labels: part the tables'
    // footprints (circle and labels under it).
    let prints: Vec<Rect> = nodes.iter().map(footprint).collect();
    separate_footprints(&mut pos, &prints, 10.0, (WIDTH, max_height - 30.0), 400);
    // A wide layout needs less height: shrink the canvas to what is used.
    let top = nodes
        .iter()
        .zip(&pos)
        .map(|(n, p)| p.1 - n.r)
        .fold(f64::MAX, f64::min);
    let bottom = nodes
        .iter()
        .zip(&pos)
        .map(|(n, p)| p.1 + n.r)
        .fold(f64::MIN, f64::max);
    let (shift, height) = if nodes.is_empty() {
        (0.0, 120.0)
    } else {
        let pad = 56.0;
        (
            pad - top,
            (bottom - top + 2.0 * pad + 24.0).clamp(160.0, max_height),
        )
    };
    for (n, p) in nodes.iter_mut().zip(pos) {
        n.x = p.0;
        n.y = p.1 + shift;
    }
    JoinGraph {
        hidden_tables: all_tables.len() - nodes.len(),
        nodes,
        edges,
        height,
        hidden_edges,
    }
}

/// At most `max` characters of `s`, with `…` in the middle when cut.
fn ellipsize(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head = max / 3;
    let tail = max - head - 1;
    let h: String = s.chars().take(head).collect();
    let t: String = s.chars().skip(n - tail).collect();
    format!("{h}…{t}")
}

fn f(x: f64) -> String {
    format!("{x:.1}")
}

/// Stroke width: 1.5 px plus up to 8 px in proportion to JIS (relative to
/// the largest drawn).
fn width(jis: f64, max_jis: f64) -> f64 {
    let rel = if max_jis > 0.0 { jis / max_jis } else { 0.0 };
    1.5 + 8.0 * rel.clamp(0.0, 1.0)
}

/// An axis-aligned box: x0, y0, x1, y1.
type Rect = (f64, f64, f64, f64);

fn overlaps(a: &Rect, b: &Rect) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// The table name drawn under a node.
fn name_label(n: &Node) -> String {
    ellipsize(&short_table(&n.table), 36)
}

/// The planned change drawn under a changed table's name.
fn key_label(label: &str) -> String {
    ellipsize(label, 48)
}

/// Half the width of a node with its labels (text estimated as in
/// [`text_box`], bold a little wider).
fn label_half_width(n: &Node) -> f64 {
    let name = 0.66 * 13.0 * name_label(n).chars().count() as f64 / 2.0;
    let key = n.planned_label.as_ref().map_or(0.0, |k| {
        0.62 * 12.0 * key_label(k).chars().count() as f64 / 2.0
    });
    n.r.max(name).max(key)
}

/// A table's footprint relative to its centre: its circle and the labels
/// under it (name, and the planned change of a changed table).
fn footprint(n: &Node) -> Rect {
    let half = label_half_width(n);
    let depth = if n.planned_label.is_some() {
        29.0 + 12.0 * 0.3
    } else {
        14.0 + 13.0 * 0.3
    };
    (-half, -n.r, half, n.r + depth)
}

/// Push apart tables whose footprints (with `gap` between them) overlap,
/// each pair along the axis it overlaps least on, `rounds` times at most,
/// keeping every footprint inside the canvas.
fn separate_footprints(
    pos: &mut [(f64, f64)],
    prints: &[Rect],
    gap: f64,
    (w, h): (f64, f64),
    rounds: usize,
) {
    let at = |p: (f64, f64), f: &Rect| (p.0 + f.0, p.1 + f.1, p.0 + f.2, p.1 + f.3);
    for _ in 0..rounds {
        let mut moved = false;
        for i in 0..pos.len() {
            for j in i + 1..pos.len() {
                let (a, b) = (at(pos[i], &prints[i]), at(pos[j], &prints[j]));
                let over_x = a.2.min(b.2) - a.0.max(b.0) + gap;
                let over_y = a.3.min(b.3) - a.1.max(b.1) + gap;
                if over_x <= 0.0 || over_y <= 0.0 {
                    continue;
                }
                moved = true;
                if over_x < over_y {
                    let dir = if pos[j].0 >= pos[i].0 { 1.0 } else { -1.0 };
                    pos[i].0 -= dir * over_x / 2.0;
                    pos[j].0 += dir * over_x / 2.0;
                } else {
                    let dir = if pos[j].1 >= pos[i].1 { 1.0 } else { -1.0 };
                    pos[i].1 -= dir * over_y / 2.0;
                    pos[j].1 += dir * over_y / 2.0;
                }
            }
        }
        for (p, f) in pos.iter_mut().zip(prints) {
            p.0 = p.0.clamp(6.0 - f.0, (w - f.2 - 6.0).max(6.0 - f.0));
            p.1 = p.1.clamp(6.0 - f.1, (h - f.3 - 6.0).max(6.0 - f.1));
        }
        if !moved {
            break;
        }
    }
}

/// Rough text box (the browser measures the real one): 0.6 em per character.
fn text_box(x: f64, baseline: f64, text: &str, size: f64) -> Rect {
    let w = 0.6 * size * text.chars().count() as f64;
    (
        x - w / 2.0,
        baseline - size,
        x + w / 2.0,
        baseline + size * 0.3,
    )
}

/// Where a self join's loop points from its table (a unit vector): of 16
/// directions that are not downwards (the table's labels are below it),
/// the one farthest in angle from every neighbour; straight up when the
/// table has none.
fn loop_direction(neighbours: &[(f64, f64)]) -> (f64, f64) {
    if neighbours.is_empty() {
        return (0.0, -1.0);
    }
    let mut best = ((0.0, -1.0), f64::MIN);
    for k in 0..16 {
        let a = std::f64::consts::TAU * k as f64 / 16.0;
        let (ux, uy) = (a.cos(), a.sin());
        if uy > 0.35 {
            continue;
        }
        // Smallest angle to a neighbour, as 1 - cos (monotone in the angle).
        let clearance = neighbours
            .iter()
            .map(|&(x, y)| 1.0 - (ux * x + uy * y))
            .fold(f64::MAX, f64::min);
        // Prefer upwards among equals (ties broken by the fixed order).
        if clearance > best.1 + 1e-9 {
            best = ((ux, uy), clearance);
        }
    }
    best.0
}

/// A point sampler along an edge's curve: t in [0, 1] -> point.
type Curve = Box<dyn Fn(f64) -> (f64, f64)>;

/// How each edge is drawn: its SVG path and where its label goes.
struct Geometry {
    path: String,
    label: Option<(f64, f64)>,
}

/// Paths for every edge (parallel edges bend apart; a self join is a loop
/// on the side of its table away from its neighbours), and label positions
/// for the edges the plan serves or leaves out, placed along each curve
/// where they cover no table, table label or earlier edge label.
fn geometry(g: &JoinGraph) -> Vec<Geometry> {
    let mut groups: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    for (i, e) in g.edges.iter().enumerate() {
        groups
            .entry((e.a.min(e.b), e.a.max(e.b)))
            .or_default()
            .push(i);
    }
    // Directions from each table to its neighbours; a self join's loop goes
    // where they are not.
    let mut towards: Vec<Vec<(f64, f64)>> = vec![Vec::new(); g.nodes.len()];
    for e in g.edges.iter().filter(|e| e.a != e.b) {
        for (from, to) in [(e.a, e.b), (e.b, e.a)] {
            let (dx, dy) = (
                g.nodes[to].x - g.nodes[from].x,
                g.nodes[to].y - g.nodes[from].y,
            );
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            towards[from].push((dx / len, dy / len));
        }
    }
    // Curves as point samplers: t in [0, 1] -> point.
    let mut curves: Vec<Curve> = Vec::with_capacity(g.edges.len());
    let mut paths = vec![String::new(); g.edges.len()];
    let mut order = Vec::with_capacity(g.edges.len());
    for (&(a, b), members) in &groups {
        let (na, nb) = (&g.nodes[a], &g.nodes[b]);
        let count = members.len() as f64;
        for (k, &i) in members.iter().enumerate() {
            order.push(i);
            if a == b {
                let s = 1.0 + 0.45 * k as f64;
                let (x, y, r) = (na.x, na.y, na.r);
                let (ux, uy) = loop_direction(&towards[a]);
                let (vx, vy) = (-uy, ux);
                let at = |along: f64, across: f64| {
                    (x + ux * along + vx * across, y + uy * along + vy * across)
                };
                let p0 = at(r * 0.85, -r * 0.5);
                let c1 = at(r * 2.2 * s + 28.0 * s, -(r * 1.4 * s + 14.0 * s));
                let c2 = at(r * 2.2 * s + 28.0 * s, r * 1.4 * s + 14.0 * s);
                let p3 = at(r * 0.85, r * 0.5);
                paths[i] = format!(
                    "M{} {} C{} {} {} {} {} {}",
                    f(p0.0),
                    f(p0.1),
                    f(c1.0),
                    f(c1.1),
                    f(c2.0),
                    f(c2.1),
                    f(p3.0),
                    f(p3.1)
                );
                curves.push(Box::new(move |t: f64| {
                    let m = 1.0 - t;
                    let w = [m * m * m, 3.0 * m * m * t, 3.0 * m * t * t, t * t * t];
                    (
                        w[0] * p0.0 + w[1] * c1.0 + w[2] * c2.0 + w[3] * p3.0,
                        w[0] * p0.1 + w[1] * c1.1 + w[2] * c2.1 + w[3] * p3.1,
                    )
                }));
                continue;
            }
            // From the first-named table to the second, so that the bend's
            // side does not depend on the edge's direction.
            let (p, q) = if na.table <= nb.table {
                (na, nb)
            } else {
                (nb, na)
            };
            let (dx, dy) = (q.x - p.x, q.y - p.y);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            let (nx, ny) = (-dy / len, dx / len);
            let off = (k as f64 - (count - 1.0) / 2.0) * 68.0;
            let (mx, my) = ((p.x + q.x) / 2.0, (p.y + q.y) / 2.0);
            let c = (mx + nx * off, my + ny * off);
            let (p0, p2) = ((p.x, p.y), (q.x, q.y));
            paths[i] = format!(
                "M{} {} Q{} {} {} {}",
                f(p0.0),
                f(p0.1),
                f(c.0),
                f(c.1),
                f(p2.0),
                f(p2.1)
            );
            curves.push(Box::new(move |t: f64| {
                let m = 1.0 - t;
                (
                    m * m * p0.0 + 2.0 * m * t * c.0 + t * t * p2.0,
                    m * m * p0.1 + 2.0 * m * t * c.1 + t * t * p2.1,
                )
            }));
        }
    }
    // `curves` is in `order`; index it by edge.
    let mut curve_of: Vec<usize> = vec![0; g.edges.len()];
    for (slot, &i) in order.iter().enumerate() {
        curve_of[i] = slot;
    }
    // Obstacles: tables and their labels.
    let mut taken: Vec<Rect> = Vec::new();
    for n in &g.nodes {
        taken.push((n.x - n.r, n.y - n.r, n.x + n.r, n.y + n.r));
        taken.push(text_box(n.x, n.y + n.r + 14.0, &name_label(n), 13.0));
        if let Some(k) = &n.planned_label {
            taken.push(text_box(n.x, n.y + n.r + 29.0, &key_label(k), 12.0));
        }
    }
    let mut labels: Vec<Option<(f64, f64)>> = vec![None; g.edges.len()];
    let mut labelled: Vec<usize> = (0..g.edges.len())
        .filter(|&i| g.edges[i].status != Status::NotPlanned)
        .collect();
    labelled.sort_by_key(|&i| (g.edges[i].status, i));
    // Along the curve from its middle outwards, then nudged off it, farther
    // each round: the first spot where the label's box (with 2 px to
    // spare) covers nothing drawn before. A label with no free spot is not
    // drawn (the edge's tooltip still names it): an overlapping label
    // cannot be read either.
    const TS: [f64; 13] = [
        0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82, 0.12, 0.88, 0.06, 0.94,
    ];
    const SHIFTS: [f64; 10] = [
        4.0, -8.0, 16.0, -20.0, 28.0, -32.0, 40.0, -44.0, 52.0, -56.0,
    ];
    for i in labelled {
        let text = ellipsize(&g.edges[i].columns, 48);
        let curve = &curves[curve_of[i]];
        // Centred on the point, or beside it (the label starting or ending
        // there): a loop's label sits beside its far end.
        let half = text_box(0.0, 0.0, &text, 11.0).2 + 6.0;
        let spot = SHIFTS.iter().find_map(|&shift| {
            TS.iter().find_map(|&t| {
                [0.0, half, -half].iter().find_map(|&dx| {
                    let (x, y) = curve(t);
                    let (x, y) = (x + dx, y + shift);
                    let b = text_box(x, y, &text, 11.0);
                    let padded = (b.0 - 2.0, b.1 - 2.0, b.2 + 2.0, b.3 + 2.0);
                    let inside = b.0 >= 0.0 && b.2 <= WIDTH && b.1 >= 0.0 && b.3 <= g.height;
                    (inside && !taken.iter().any(|o| overlaps(o, &padded))).then_some(((x, y), b))
                })
            })
        });
        if let Some((at, b)) = spot {
            taken.push(b);
            labels[i] = Some(at);
        }
    }
    paths
        .into_iter()
        .zip(labels)
        .map(|(path, label)| Geometry { path, label })
        .collect()
}

/// Edges the plan serves or leaves out whose label found no free spot in
/// the picture (their tooltip names them).
pub fn unlabelled(g: &JoinGraph) -> usize {
    geometry(g)
        .iter()
        .zip(&g.edges)
        .filter(|(geo, e)| e.status != Status::NotPlanned && geo.label.is_none())
        .count()
}

/// The SVG picture.
pub fn svg(g: &JoinGraph) -> Markup {
    let geometry = geometry(g);
    let height = f(g.height);
    let max_jis = g.edges.iter().map(|e| e.jis).fold(0.0f64, f64::max);
    html! {
        svg class="joingraph" role="img" aria-labelledby="joingraph-title"
            width=(f(WIDTH)) height=(height) viewBox={ "0 0 " (f(WIDTH)) " " (height) } {
            title id="joingraph-title" {
                "Join graph: " (g.nodes.len()) " tables, " (g.edges.len()) " edges"
            }
            rect width=(f(WIDTH)) height=(height) fill="#ffffff" {}
            g class="edges" {
                @for (e, geo) in g.edges.iter().zip(&geometry) {
                    g class={ "edge " (e.status.class()) } data-edge=(e.full_label)
                        data-status=(e.status.class()) data-strategy=(e.strategy.name()) {
                        title {
                            (e.label) "\n" (e.reason) "\nJIS " (format!("{:.3}", e.jis))
                            ", " (e.frequency) " execution(s): SMJ " (e.counts.0)
                            ", BHJ " (e.counts.1) ", other " (e.counts.2)
                        }
                        path d=(geo.path) fill="none" stroke=(e.strategy.colour())
                            stroke-width=(f(width(e.jis, max_jis))) stroke-opacity=(e.status.opacity())
                            stroke-dasharray=[e.status.dash()] stroke-linecap="round" {}
                    }
                }
            }
            g class="nodes" {
                @for n in &g.nodes {
                    g class={ "node" @if n.planned_key.is_some() { " changed" } }
                        data-table=(n.table) {
                        title {
                            (n.table) "\n"
                            @match n.bytes {
                                Some(b) => { "size " (human(b as f64)) }
                                None => { "size unknown" }
                            }
                            @if let Some(k) = &n.planned_label {
                                "\nplan: " (k)
                            }
                            "\nnow: " (layout_text(&n.previous))
                        }
                        circle cx=(f(n.x)) cy=(f(n.y)) r=(f(n.r))
                            fill=(if n.planned_key.is_some() { "#fdebd0" } else { "#eaecee" })
                            stroke=(if n.planned_key.is_some() { "#ca6f1e" } else { "#566573" })
                            stroke-width=(if n.planned_key.is_some() { "3" } else { "1.5" })
                            stroke-dasharray=[n.bytes.is_none().then_some("3 3")] {}
                        text class="table-name" x=(f(n.x)) y=(f(n.y + n.r + 14.0))
                            text-anchor="middle" font-size="13" font-weight="600"
                            fill="#1b2631" {
                            (name_label(n))
                        }
                        @if let Some(k) = &n.planned_label {
                            text class="cluster-key" x=(f(n.x)) y=(f(n.y + n.r + 29.0))
                                text-anchor="middle" font-size="12" fill="#ca6f1e" {
                                (key_label(k))
                            }
                        }
                    }
                }
            }
            g class="edge-labels" {
                @for (e, geo) in g.edges.iter().zip(&geometry) {
                    @if let Some((x, y)) = geo.label {
                        text data-edge=(e.full_label) x=(f(x)) y=(f(y)) text-anchor="middle" font-size="11"
                            fill="#1b2631" stroke="#ffffff" stroke-width="3" paint-order="stroke" {
                            (ellipsize(&e.columns, 48))
                        }
                    }
                }
            }
        }
    }
}

/// `clustered by (a, b)`, `partitioned by (d)`, `no layout`.
pub fn layout_text(l: &Layout) -> String {
    match l {
        Layout::None => "no clustering or partitioning".into(),
        Layout::Partitioned(c) => format!("partitioned by ({})", c.join(", ")),
        Layout::Clustered(c) => format!("clustered by ({})", c.join(", ")),
    }
}

/// The legend: strategy colours, plan line styles, node meaning.
pub fn legend() -> Markup {
    let swatch = |colour: &str, dash: Option<&str>, opacity: &str| {
        html! {
            svg width="44" height="12" viewBox="0 0 44 12" aria-hidden="true" {
                line x1="2" y1="6" x2="42" y2="6" stroke=(colour) stroke-width="4"
                    stroke-dasharray=[dash] stroke-opacity=(opacity) stroke-linecap="round" {}
            }
        }
    };
    html! {
        ul class="legend" {
            @for s in Strategy::ALL {
                li { (swatch(s.colour(), None, "0.95")) " " (s.name()) }
            }
            @for s in Status::ALL {
                li { (swatch("#34495e", s.dash(), s.opacity())) " " (s.legend()) }
            }
            li {
                svg width="44" height="16" viewBox="0 0 44 16" aria-hidden="true" {
                    circle cx="22" cy="8" r="7" fill="#fdebd0" stroke="#ca6f1e" stroke-width="3" {}
                }
                " table the plan changes (its new key below it)"
            }
            li {
                svg width="44" height="16" viewBox="0 0 44 16" aria-hidden="true" {
                    circle cx="22" cy="8" r="7" fill="#eaecee" stroke="#566573" stroke-width="1.5" {}
                }
                " other table; area ∝ size (dashed: size unknown); line width ∝ JIS"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategy_from_counts() {
        assert_eq!(Strategy::of(3, 0, 0), Strategy::SortMerge);
        assert_eq!(Strategy::of(0, 2, 0), Strategy::Broadcast);
        assert_eq!(Strategy::of(1, 2, 0), Strategy::Mixed);
        assert_eq!(Strategy::of(0, 0, 4), Strategy::Other);
        assert_eq!(Strategy::of(0, 1, 1), Strategy::Mixed);
    }

    #[test]
    fn loops_point_away_from_neighbours_and_never_down() {
        assert_eq!(loop_direction(&[]), (0.0, -1.0));
        // Neighbours up and right: the loop goes left (or up-left), not down.
        let (x, y) = loop_direction(&[(0.0, -1.0), (1.0, 0.0)]);
        assert!(x < -0.3 && y <= 0.35, "{x} {y}");
        // Neighbours all around but below-left: still not downwards.
        let (_, y) = loop_direction(&[(0.0, -1.0), (1.0, 0.0), (-1.0, 0.0)]);
        assert!(y <= 0.35);
    }

    /// However crowded the picture, no edge label's box covers another
    /// label, a table or a table's labels: a label with no free spot is
    /// left out (its edge keeps its tooltip).
    #[test]
    fn edge_labels_never_overlap() {
        let node = |table: &str, x: f64, y: f64| Node {
            table: table.into(),
            bytes: Some(1 << 20),
            planned_key: Some(vec!["k".into()]),
            planned_label: Some("CLUSTER BY (k)".into()),
            previous: Layout::None,
            x,
            y,
            r: 20.0,
        };
        let edge = |a: usize, b: usize, k: usize| Edge {
            a,
            b,
            label: format!("t{a}(c{k}) = t{b}(c{k})"),
            full_label: format!("db.t{a}(c{k}) = db.t{b}(c{k})"),
            columns: format!("column_number_{k} = column_number_{k}"),
            jis: 1.0,
            frequency: 1,
            strategy: Strategy::SortMerge,
            counts: (1, 0, 0),
            status: if k.is_multiple_of(2) {
                Status::Served
            } else {
                Status::LeftOut
            },
            reason: String::new(),
        };
        let g = JoinGraph {
            nodes: vec![
                node("db.t0", 380.0, 150.0),
                node("db.t1", 560.0, 150.0),
                node("db.t2", 470.0, 260.0),
            ],
            edges: (0..24)
                .map(|k| match k % 3 {
                    0 => edge(0, 1, k),
                    1 => edge(1, 2, k),
                    _ => edge(0, 2, k),
                })
                .chain([edge(0, 0, 30), edge(1, 1, 32)])
                .collect(),
            height: 330.0,
            hidden_tables: 0,
            hidden_edges: 0,
        };
        let geo = geometry(&g);
        let mut boxes: Vec<Rect> = Vec::new();
        for n in &g.nodes {
            boxes.push((n.x - n.r, n.y - n.r, n.x + n.r, n.y + n.r));
            boxes.push(text_box(n.x, n.y + n.r + 14.0, &name_label(n), 13.0));
            if let Some(k) = &n.planned_label {
                boxes.push(text_box(n.x, n.y + n.r + 29.0, &key_label(k), 12.0));
            }
        }
        let mut drawn = 0;
        for (e, geo) in g.edges.iter().zip(&geo) {
            let Some((x, y)) = geo.label else { continue };
            let b = text_box(x, y, &ellipsize(&e.columns, 48), 11.0);
            assert!(
                b.0 >= 0.0 && b.2 <= WIDTH && b.1 >= 0.0 && b.3 <= g.height,
                "{} outside the picture: {b:?}",
                e.label
            );
            for o in &boxes {
                assert!(!overlaps(o, &b), "{} at {b:?} covers {o:?}", e.label);
            }
            boxes.push(b);
            drawn += 1;
        }
        // Crowded, but not empty: the first labels find room.
        assert!(drawn >= 6 && drawn < g.edges.len(), "{drawn} labels drawn");
    }

    #[test]
    fn ellipsis_keeps_both_ends() {
        assert_eq!(ellipsize("orders", 10), "orders");
        let long = "file:/tmp/lakeaudit-xss/data/t</td><script>alert(1)</script>";
        let e = ellipsize(long, 20);
        assert_eq!(e.chars().count(), 20);
        assert!(e.starts_with("file:/") && e.ends_with("</script>"));
    }
}
