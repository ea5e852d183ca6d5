//! Column lineage: which base-table column(s) every attribute of a plan
//! carries.
//!
//! Spark names every value in a resolved plan by an exprId (`o_orderkey#17L`).
//! [`Lineage::build`] walks one plan tree once and records, per exprId, how
//! the operator that outputs it defines it:
//!
//! - a scan's output attribute *is* a base column;
//! - a rename keeps the origin: `c_custkey#68L AS ckey#57L` (Project,
//!   TakeOrderedAndProject, aggregate results whose child is a grouping key),
//!   including through value-preserving wrappers (see [`simple_attr`]);
//! - positional maps give an attribute several definitions: a `Union`
//!   output position maps to that position of every child, a `Reused`
//!   node (formatted `ReusedExchange`, `CTERelationRef`) to the output of the
//!   node it repeats, an `Expand` output to that position of each projection;
//! - anything else computed (`sum(x)`, `x + 0`, window functions, generator
//!   outputs, local data) is *derived*: it has no origin column, only the
//!   set of base columns that feed it.
//!
//! Operators that pass attributes through unchanged (Filter, Sort, Exchange,
//! SubqueryAlias, joins, wrappers, query stages) keep exprIds, so they need no
//! definition. Resolution is lazy and order-free: a `Reused` node may point
//! at an operator printed anywhere in the tree.
//!
//! One subtlety: Spark's `Union` outputs the *first child's* exprIds. Above
//! the union such an id means "any branch"; inside the first branch it means
//! that branch only. Union definitions are therefore scoped to their union
//! node ([`NodeId`]), and [`Lineage::resolve_in`] takes the set of unions a
//! caller can see (a join sees only the unions in its own subtree).
//!
//! Every node's output is the plan crate's ([`plan::derive_outputs`]): the
//! lineage reads it, it does not derive it again.

use crate::tables::canonical_table;
use plan::predicate::{ColumnType, IntWidth};
use plan::{Attr, Expr, ExprId, NodeId, NodeKind, Plan, PlanNode, Recursion, TreeNode};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;

/// A base-table column: canonical table name (see
/// [`canonical_table`]) and column name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ColumnRef {
    /// Canonical table name (`spark_catalog.default.orders`) or a path.
    pub table: String,
    /// Column name as the scan prints it.
    pub column: String,
}

impl fmt::Display for ColumnRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.table, self.column)
    }
}

/// What one attribute resolves to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// The base columns whose values the attribute carries unchanged (more
    /// than one through a `Union`). Empty when derived or unknown.
    pub columns: BTreeSet<ColumnRef>,
    /// Whether (some branch of) the attribute is computed, not a column.
    pub derived: bool,
    /// Every base column that feeds the attribute (for derived attributes:
    /// the inputs of the computation).
    pub sources: BTreeSet<ColumnRef>,
    /// The defining expression of a derived attribute, as printed.
    pub expr: Option<String>,
}

impl Origin {
    /// Whether the attribute is a plain base column (or, through a union,
    /// one of several base columns) and nothing computed.
    pub fn is_column(&self) -> bool {
        !self.derived && !self.columns.is_empty()
    }
}

/// How an operator defines one exprId.
#[derive(Clone, Debug)]
enum DefKind {
    /// A scan's output column.
    Column(ColumnRef),
    /// Carries another attribute's value unchanged.
    Same(ExprId),
    /// Computed from the inputs.
    Derived { expr: String, inputs: Vec<ExprId> },
    /// A value with no table column behind it (local data, commands).
    Opaque(String),
}

/// Where a definition holds.
#[derive(Clone, Copy, Debug)]
enum DefScope {
    /// Everywhere.
    All,
    /// Above (and seen from) this union node of the first plan.
    Union(NodeId),
    /// A union of another plan given to [`Lineage::build_all`]: seen only
    /// by resolutions that see every union.
    OtherPlanUnion,
}

#[derive(Clone, Debug)]
struct Def {
    kind: DefKind,
    /// Where the definition holds.
    scope: DefScope,
    /// A guess (an aggregate output the source printed without its
    /// alias): ignored when the id has any other definition, e.g. from a
    /// second plan of the same query given to [`Lineage::build_all`].
    weak: bool,
}

/// Union nodes of the (first) plan a caller can see.
pub type Scope = HashSet<NodeId>;

/// Column lineage of one plan tree. Build with [`Lineage::build`].
///
/// Union scopes and `Reused` nodes are identified by their [`NodeId`] in
/// the first plan the lineage was built from: query it with nodes of that
/// plan.
#[derive(Clone, Debug, Default)]
pub struct Lineage {
    defs: HashMap<ExprId, Vec<Def>>,
    names: BTreeMap<ExprId, String>,
    /// Per `Reused` node of the first plan: ids output by aggregates inside
    /// the node it repeats (a CTE body, a reused exchange).
    reused_aggregates: HashMap<NodeId, HashSet<ExprId>>,
    /// Data types of scan outputs, from the scans' `ReadSchema`.
    types: HashMap<ExprId, ColumnType>,
}

/// The attribute an expression carries unchanged, if it is "simple".
///
/// Simple means: an attribute, possibly inside value-preserving wrappers
/// that Spark inserts on its own — `cast`/`try_cast`/`upcast` (type
/// coercion of join keys), `knownfloatingpointnormalized` and
/// `normalizenanandzero` (float key normalisation), and `Alias` children.
/// Arithmetic, `coalesce`, `substring`, ... are NOT simple: `x + 0` is an
/// expression even if it equals `x`, and reporting it as the column would
/// hide that the key is computed. `outer(x)` is not unwrapped here (callers
/// decide what a correlated reference means).
pub fn simple_attr(e: &Expr) -> Option<&Attr> {
    let mut e = e;
    loop {
        e = match e {
            Expr::Attr(a) => return Some(a),
            Expr::Call { name, args } => {
                let n = name.to_ascii_lowercase();
                match n.as_str() {
                    "cast" | "try_cast" | "ansi_cast" | "upcast" => args.first()?,
                    "knownfloatingpointnormalized" | "normalizenanandzero" if args.len() == 1 => {
                        args.first()?
                    }
                    _ => return None,
                }
            }
            Expr::Alias { child, .. } => child,
            Expr::Outer(_)
            | Expr::Unresolved(_)
            | Expr::Literal(_)
            | Expr::Star
            | Expr::Binary { .. }
            | Expr::Unary { .. }
            | Expr::In { .. }
            | Expr::InSubquery { .. }
            | Expr::Subquery(_)
            | Expr::SortOrder { .. }
            | Expr::Raw(_) => return None,
        };
    }
}

/// Ids output by the aggregates of a subtree (data flow only; grouping
/// keys included, since sparkPlanInfo prints no aggregate output list), plus,
/// with a lineage, those inside the nodes that its `Reused` nodes repeat.
pub fn aggregate_ids(n: &PlanNode, lineage: Option<&Lineage>) -> HashSet<ExprId> {
    let mut ids = HashSet::new();
    n.apply_data_flow(|m| {
        ids.extend(node_aggregate_ids(m, lineage));
        Recursion::Continue
    });
    ids
}

/// The part of [`aggregate_ids`] one node contributes.
pub fn node_aggregate_ids(n: &PlanNode, lineage: Option<&Lineage>) -> Vec<ExprId> {
    match &n.kind {
        NodeKind::Aggregate { grouping, .. } => n
            .output
            .iter()
            .map(|a| a.id)
            .chain(grouping.iter().filter_map(simple_attr).map(|a| a.id))
            .collect(),
        NodeKind::Reused { .. } => lineage
            .and_then(|l| l.reused_aggregates(n))
            .map(|r| r.iter().copied().collect())
            .unwrap_or_default(),
        NodeKind::Scan(_)
        | NodeKind::Project { .. }
        | NodeKind::Filter { .. }
        | NodeKind::Join(_)
        | NodeKind::Window { .. }
        | NodeKind::Expand { .. }
        | NodeKind::Generate { .. }
        | NodeKind::Union
        | NodeKind::Sort { .. }
        | NodeKind::Limit { .. }
        | NodeKind::Exchange
        | NodeKind::SubqueryAlias { .. }
        | NodeKind::SubqueryRoot { .. }
        | NodeKind::PassThrough
        | NodeKind::Command
        | NodeKind::LocalData
        | NodeKind::Other
        | NodeKind::Unknown => Vec::new(),
    }
}

/// Lookup tables for positional references.
struct Targets<'a> {
    by_op_id: HashMap<u64, &'a PlanNode>,
    by_root_id: HashMap<u64, Vec<&'a PlanNode>>,
}

impl<'a> Targets<'a> {
    fn collect(plan: &'a PlanNode) -> Self {
        let mut by_op_id = HashMap::new();
        let mut by_root_id = HashMap::new();
        plan.apply(|n| {
            if let Some(id) = n.op_id {
                // The formatted AQE text prints shared leaves in both the
                // final and the initial plan with the same id: keep the first.
                by_op_id.entry(id).or_insert(n);
            }
            if let NodeKind::SubqueryRoot { id: Some(id) } = n.kind {
                by_root_id.entry(id).or_insert_with(Vec::new).push(n);
            }
            Recursion::Continue
        });
        Targets {
            by_op_id,
            by_root_id,
        }
    }

    /// The node a `Reused` node repeats.
    fn target(&self, node: &'a PlanNode, target: Option<u64>) -> Option<&'a PlanNode> {
        // sparkPlanInfo nests the reused operator as the child.
        if let Some(c) = node.children.first() {
            return Some(c);
        }
        let t = target?;
        // A CTE id and a subquery exprId can be the same number: a
        // `CTERelationRef` prefers a `CTERelationDef`.
        let cte = node.name.contains("CTE");
        let root = || {
            let c = self.by_root_id.get(&t)?;
            c.iter()
                .find(|n| n.name.contains("CTE") == cte)
                .or_else(|| c.first())
                .copied()
        };
        // Formatted plans number operators; logical CTE refs name a CTE id.
        let found = if node.op_id.is_some() {
            self.by_op_id.get(&t).copied().or_else(root)
        } else {
            root().or_else(|| self.by_op_id.get(&t).copied())
        };
        found.filter(|n| n.id != node.id)
    }
}

impl Lineage {
    /// Walk a plan (children and subquery plans) and record how every
    /// attribute is defined.
    pub fn build(plan: &Plan) -> Lineage {
        Self::build_all(&[plan])
    }

    /// One lineage from several plans of the SAME query, which share
    /// exprIds: e.g. the optimized logical plan and the physical plan of an
    /// extended-mode description, or the formatted text and the
    /// sparkPlanInfo of one event. A plan that lacks a definition (the
    /// physical `HashAggregate` prints no result aliases) borrows it from
    /// another. Do not mix plans of different queries: exprIds would clash.
    pub fn build_all(plans: &[&Plan]) -> Lineage {
        let mut l = Lineage::default();
        for plan in plans {
            plan.apply(|n| {
                if let (NodeKind::Scan(s), false) = (&n.kind, n.output.is_empty()) {
                    let fields: HashMap<&str, &ColumnType> =
                        s.read_schema.iter().map(|(c, t)| (c.as_str(), t)).collect();
                    for a in &n.output {
                        if let Some(&t) = fields.get(a.name.as_str()) {
                            l.types.insert(a.id, t.clone());
                        }
                    }
                }
                Recursion::Continue
            });
        }
        for (k, plan) in plans.iter().enumerate() {
            let targets = Targets::collect(plan);
            plan.apply(|n| {
                l.visit(n, &targets, k == 0);
                Recursion::Continue
            });
        }
        l
    }

    fn define(&mut self, id: ExprId, kind: DefKind, scope: DefScope) {
        if let DefKind::Same(j) = kind {
            if j == id {
                return;
            }
        }
        self.defs.entry(id).or_default().push(Def {
            kind,
            scope,
            weak: false,
        });
    }

    fn name(&mut self, a: &Attr) {
        self.names.entry(a.id).or_insert_with(|| a.name.clone());
    }

    /// Whether an expression is an attribute under casts of which one is
    /// lossy or reorders (narrowing, floating -> integer, -> string, string
    /// ->; see [`ColumnType::widens_to`]): then it is not the column.
    /// The source type is the scan's (`ReadSchema`) or the `L` suffix's;
    /// when neither says, only a cast to text is known to be lossy.
    pub fn lossy_cast(&self, e: &Expr) -> bool {
        let Some((attr, targets)) = cast_chain(e) else {
            return false;
        };
        let from = self
            .types
            .get(&attr.id)
            .cloned()
            .or_else(|| (attr.suffix == "L").then_some(ColumnType::Integer(IntWidth::Long)));
        !ColumnType::casts_keep_order(from, targets)
    }

    /// Define an output expression: an alias of a simple attribute keeps
    /// the origin (a lossy cast of one does not), any other alias is
    /// derived.
    fn define_output(&mut self, e: &Expr) {
        if let Expr::Alias { child, attr } = e {
            self.name(attr);
            match simple_attr(child) {
                Some(a) if !self.lossy_cast(child) => {
                    self.define(attr.id, DefKind::Same(a.id), DefScope::All)
                }
                _ => self.define_derived(attr.id, child),
            }
        }
    }

    fn define_derived(&mut self, id: ExprId, child: &Expr) {
        let inputs = child.attrs().iter().map(|a| a.id).collect();
        self.define(
            id,
            DefKind::Derived {
                expr: child.to_string(),
                inputs,
            },
            DefScope::All,
        );
    }

    /// Record the definitions one operator makes (resolution is lazy, so
    /// the order operators are visited in does not matter).
    fn visit(&mut self, node: &PlanNode, targets: &Targets<'_>, first_plan: bool) {
        let out = &node.output;
        for a in out {
            self.name(a);
        }
        let child_ids: HashSet<ExprId> = node
            .children
            .iter()
            .flat_map(|c| c.output.iter())
            .map(|a| a.id)
            .collect();
        match &node.kind {
            NodeKind::Scan(s) => {
                let table = canonical_table(&s.table);
                for a in &node.output {
                    let c = ColumnRef {
                        table: table.clone(),
                        column: a.name.clone(),
                    };
                    self.define(a.id, DefKind::Column(c), DefScope::All);
                }
            }
            NodeKind::Project { list } | NodeKind::Limit { list } => {
                for e in list {
                    self.define_output(e);
                }
            }
            NodeKind::Window { exprs, .. } => {
                for e in exprs {
                    self.define_output(e);
                }
            }
            NodeKind::Aggregate { grouping, results } => {
                self.visit_aggregate(node, grouping, results, out, &child_ids)
            }
            NodeKind::Expand { projections } => {
                for (i, o) in out.iter().enumerate() {
                    let mut derived_from: Option<Vec<ExprId>> = None;
                    let mut same = Vec::new();
                    let mut literal_only = false;
                    for p in projections {
                        let Some(e) = p.get(i) else { continue };
                        match simple_attr(e) {
                            Some(a) => same.push(a.id),
                            // Grouping sets null out a column, and
                            // the grouping id is a literal: no column.
                            None if matches!(e, Expr::Literal(_)) => literal_only = true,
                            None => derived_from
                                .get_or_insert_with(Vec::new)
                                .extend(e.attrs().iter().map(|a| a.id)),
                        }
                    }
                    match derived_from {
                        Some(mut inputs) => {
                            inputs.extend(same);
                            self.define(
                                o.id,
                                DefKind::Derived {
                                    expr: format!("expand({})", o.name),
                                    inputs,
                                },
                                DefScope::All,
                            );
                        }
                        None if same.is_empty() && literal_only => self.define(
                            o.id,
                            DefKind::Opaque(format!("expand({})", o.name)),
                            DefScope::All,
                        ),
                        None => {
                            for s in same {
                                self.define(o.id, DefKind::Same(s), DefScope::All);
                            }
                        }
                    }
                }
            }
            NodeKind::Generate { generator, .. } => {
                for a in out.iter().filter(|a| !child_ids.contains(&a.id)) {
                    self.define_derived(a.id, generator);
                }
            }
            NodeKind::Union => {
                let scope = if first_plan {
                    DefScope::Union(node.id)
                } else {
                    DefScope::OtherPlanUnion
                };
                for child in &node.children {
                    for (o, c) in out.iter().zip(child.output.iter()) {
                        self.define(o.id, DefKind::Same(c.id), scope);
                    }
                }
            }
            NodeKind::Reused { target } => {
                if let Some(t) = targets.target(node, *target) {
                    if first_plan {
                        self.reused_aggregates
                            .insert(node.id, aggregate_ids(t, None));
                    }
                    for (o, c) in out.iter().zip(t.output.iter()) {
                        self.define(o.id, DefKind::Same(c.id), DefScope::All);
                    }
                }
            }
            NodeKind::LocalData | NodeKind::Command => {
                for a in out {
                    self.define(a.id, DefKind::Opaque(node.name.clone()), DefScope::All);
                }
            }
            NodeKind::Other | NodeKind::Unknown => {
                // An operator we do not model: anything it outputs that its
                // children did not is derived from all of its inputs.
                let inputs: Vec<ExprId> = child_ids.iter().copied().collect();
                for a in out.iter().filter(|a| !child_ids.contains(&a.id)) {
                    self.define(
                        a.id,
                        DefKind::Derived {
                            expr: node.name.clone(),
                            inputs: inputs.clone(),
                        },
                        DefScope::All,
                    );
                }
            }
            // Pass-through operators keep exprIds: nothing to define.
            NodeKind::Filter { .. }
            | NodeKind::Join(_)
            | NodeKind::Sort { .. }
            | NodeKind::Exchange
            | NodeKind::SubqueryAlias { .. }
            | NodeKind::SubqueryRoot { .. }
            | NodeKind::PassThrough => {}
        }
    }

    fn visit_aggregate(
        &mut self,
        node: &PlanNode,
        grouping: &[Expr],
        results: &[Expr],
        out: &[Attr],
        child_ids: &HashSet<ExprId>,
    ) {
        let keys: HashSet<ExprId> = grouping
            .iter()
            .filter_map(simple_attr)
            .map(|a| a.id)
            .collect();
        // What the aggregate consumes besides its keys: the inputs of
        // aggregate buffers (`min#175`) and of aggregate-attribute references
        // (`min(ps_supplycost#158)#152` in formatted final aggregates).
        let mut agg_inputs: Vec<ExprId> = child_ids
            .iter()
            .copied()
            .filter(|i| !keys.contains(i))
            .collect();
        agg_inputs.sort_unstable();
        let mut defined = HashSet::new();
        for e in results {
            if let Expr::Alias { child, attr } = e {
                self.name(attr);
                defined.insert(attr.id);
                // Only a grouping key passes its value through an
                // aggregate; `sum(x)#201 AS revenue#181` is derived.
                match simple_attr(child) {
                    Some(a) if keys.contains(&a.id) => {
                        self.define(attr.id, DefKind::Same(a.id), DefScope::All)
                    }
                    _ => {
                        let mut inputs: Vec<ExprId> = child.attrs().iter().map(|a| a.id).collect();
                        if inputs.iter().any(|i| !child_ids.contains(i)) {
                            inputs.extend(agg_inputs.iter().copied());
                        }
                        self.define(
                            attr.id,
                            DefKind::Derived {
                                expr: child.to_string(),
                                inputs,
                            },
                            DefScope::All,
                        );
                    }
                }
            }
        }
        // Outputs with no alias: aggregate buffers (formatted partial
        // aggregates: `Results [2]: [ps_partkey#155L, min#175]`), or the
        // results of a final aggregate whose text prints no result aliases
        // (extended physical `output=[supplier_no#447L, total_revenue#448]`,
        // where `supplier_no` is in fact a renamed key). Either way a
        // guess: derived from the non-key inputs, and flagged so that a
        // join key resolving to it alone is reported with unknown sides
        // (see `is_guess`).
        for a in out {
            if !keys.contains(&a.id) && !defined.contains(&a.id) && !child_ids.contains(&a.id) {
                let kind = DefKind::Derived {
                    expr: format!("{}({})", node.name, a.name),
                    inputs: agg_inputs.clone(),
                };
                self.defs.entry(a.id).or_default().push(Def {
                    kind,
                    scope: DefScope::All,
                    weak: true,
                });
            }
        }
    }

    /// The base columns an attribute carries (several through a union);
    /// empty for derived and unknown attributes.
    pub fn origins(&self, id: ExprId) -> BTreeSet<ColumnRef> {
        let o = self.resolve(id);
        if o.is_column() {
            o.columns
        } else {
            BTreeSet::new()
        }
    }

    /// Full resolution of an attribute, seeing every union.
    pub fn resolve(&self, id: ExprId) -> Origin {
        self.resolve_rec(id, None)
    }

    /// Resolution as seen from a point in the tree that sees only the
    /// unions in `scope` (see the module docs).
    pub fn resolve_in(&self, id: ExprId, scope: &Scope) -> Origin {
        self.resolve_rec(id, Some(scope))
    }

    fn visible<'s>(
        &'s self,
        id: ExprId,
        scope: Option<&'s Scope>,
    ) -> impl Iterator<Item = &'s Def> {
        let defs = self.defs.get(&id).map(Vec::as_slice).unwrap_or_default();
        // A guess yields to any real definition.
        let strong = defs.iter().any(|d| !d.weak);
        defs.iter().filter(move |d| {
            (!strong || !d.weak)
                && match (d.scope, scope) {
                    (DefScope::All, _) | (_, None) => true,
                    (DefScope::Union(u), Some(s)) => s.contains(&u),
                    (DefScope::OtherPlanUnion, Some(_)) => false,
                }
        })
    }

    fn resolve_rec(&self, id: ExprId, scope: Option<&Scope>) -> Origin {
        let mut o = Origin::default();
        // Pass 1, along unchanged-value links only: the columns the value
        // is, and whether some branch computes it. Explicit stacks and
        // visited sets: alias chains can be thousands long, and a cycle
        // (which a well-formed plan never has) must end.
        let mut seen = HashSet::new();
        let mut stack = vec![id];
        let mut inputs = Vec::new();
        while let Some(i) = stack.pop() {
            if !seen.insert(i) {
                continue;
            }
            for d in self.visible(i, scope) {
                match &d.kind {
                    DefKind::Column(c) => {
                        o.columns.insert(c.clone());
                    }
                    DefKind::Same(j) => stack.push(*j),
                    DefKind::Derived { expr, inputs: ins } => {
                        o.derived = true;
                        o.expr.get_or_insert_with(|| expr.clone());
                        inputs.extend(ins.iter().copied());
                    }
                    DefKind::Opaque(what) => {
                        o.derived = true;
                        o.expr.get_or_insert_with(|| what.clone());
                    }
                }
            }
        }
        // Pass 2, along every link: all base columns that feed it.
        o.sources = o.columns.clone();
        let mut stack = inputs;
        while let Some(i) = stack.pop() {
            if !seen.insert(i) {
                continue;
            }
            for d in self.visible(i, scope) {
                match &d.kind {
                    DefKind::Column(c) => {
                        o.sources.insert(c.clone());
                    }
                    DefKind::Same(j) => stack.push(*j),
                    DefKind::Derived { inputs: ins, .. } => stack.extend(ins.iter().copied()),
                    DefKind::Opaque(_) => {}
                }
            }
        }
        if o.derived {
            o.columns.clear();
        }
        o
    }

    /// Whether the attribute's only definitions are guesses (aggregate
    /// outputs printed without their alias): its sources are the
    /// aggregate's inputs at large, not what it is computed from.
    pub fn is_guess(&self, id: ExprId) -> bool {
        self.defs
            .get(&id)
            .is_some_and(|d| !d.is_empty() && d.iter().all(|d| d.weak))
    }

    /// Ids output by aggregates inside the node a `Reused` node (of the
    /// first plan) repeats.
    pub fn reused_aggregates(&self, reused: &PlanNode) -> Option<&HashSet<ExprId>> {
        self.reused_aggregates.get(&reused.id)
    }

    /// Whether `id`, or an attribute it renames (following unchanged-value
    /// links only), is in `set`.
    pub fn renames_any(&self, id: ExprId, scope: &Scope, set: &HashSet<ExprId>) -> bool {
        let mut seen = HashSet::new();
        let mut stack = vec![id];
        while let Some(i) = stack.pop() {
            if !seen.insert(i) {
                continue;
            }
            if set.contains(&i) {
                return true;
            }
            for d in self.visible(i, Some(scope)) {
                if let DefKind::Same(j) = d.kind {
                    stack.push(j);
                }
            }
        }
        false
    }

    /// The name an exprId was printed with, if the plan showed it.
    pub fn name_of(&self, id: ExprId) -> Option<&str> {
        self.names.get(&id).map(String::as_str)
    }

    /// One line per attribute, by exprId: `name#id -> table.column` for
    /// columns, `name#id = derived <expr> <- [sources]` for computed values,
    /// `name#id ?` for attributes with no definition in this plan.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut ids: BTreeSet<ExprId> = self.names.keys().copied().collect();
        ids.extend(self.defs.keys().copied());
        let mut out = String::new();
        for id in ids {
            let name = self.name_of(id).unwrap_or("?");
            let o = self.resolve(id);
            let join = |s: &BTreeSet<ColumnRef>| {
                s.iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let _ = if o.is_column() {
                writeln!(out, "{name}#{id} -> {}", join(&o.columns))
            } else if o.derived {
                let guess = if self.is_guess(id) { "guessed " } else { "" };
                writeln!(
                    out,
                    "{name}#{id} = {guess}derived {} <- [{}]",
                    o.expr.as_deref().unwrap_or(""),
                    join(&o.sources)
                )
            } else {
                writeln!(out, "{name}#{id} ?")
            };
        }
        out
    }
}

/// The attribute under a chain of casts (and value-preserving wrappers),
/// with the cast target types from the innermost cast outwards; `None`
/// when the expression is not such a chain.
pub(crate) fn cast_chain(e: &Expr) -> Option<(&Attr, Vec<ColumnType>)> {
    let mut targets = Vec::new();
    let mut e = e;
    loop {
        e = match e {
            Expr::Attr(a) => {
                targets.reverse();
                return Some((a, targets));
            }
            Expr::Call { name, args } => {
                let n = name.to_ascii_lowercase();
                match n.as_str() {
                    "cast" | "try_cast" | "ansi_cast" | "upcast" => {
                        if let Some(t) = args.get(1) {
                            targets.push(ColumnType::parse(&t.to_string()));
                        }
                        args.first()?
                    }
                    "knownfloatingpointnormalized" | "normalizenanandzero" if args.len() == 1 => {
                        args.first()?
                    }
                    _ => return None,
                }
            }
            Expr::Alias { child, .. } => child,
            _ => return None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plan::{JoinInfo, JoinStrategy, JoinType, ScanInfo};

    fn a(name: &str, id: ExprId) -> Attr {
        Attr::new(name, id, "L")
    }
    fn e(name: &str, id: ExprId) -> Expr {
        Expr::Attr(a(name, id))
    }
    fn alias(child: Expr, name: &str, id: ExprId) -> Expr {
        Expr::Alias {
            child: Box::new(child),
            attr: a(name, id),
        }
    }
    fn scan(table: &str, cols: &[(&str, ExprId)]) -> PlanNode {
        let mut n = PlanNode::new(
            NodeKind::Scan(ScanInfo {
                table: table.into(),
                ..ScanInfo::default()
            }),
            format!("Scan parquet {table}"),
        );
        n.output = cols.iter().map(|(c, i)| a(c, *i)).collect();
        n
    }
    fn with(mut n: PlanNode, children: Vec<PlanNode>) -> PlanNode {
        n.children = children;
        n
    }
    fn project(list: Vec<Expr>, child: PlanNode) -> PlanNode {
        with(
            PlanNode::new(NodeKind::Project { list }, "Project"),
            vec![child],
        )
    }
    fn col(t: &str, c: &str) -> ColumnRef {
        ColumnRef {
            table: t.into(),
            column: c.into(),
        }
    }

    #[test]
    fn aliases_of_aliases_keep_the_origin_and_casts_are_simple() {
        // Project [k1#2L AS k2#3L] <- Project [c_custkey#1L AS k1#2L] <- scan
        let s = scan("customer", &[("c_custkey", 1)]);
        let p1 = project(vec![alias(e("c_custkey", 1), "k1", 2)], s);
        let cast = Expr::Call {
            name: "cast".into(),
            args: vec![e("k1", 2), Expr::Literal("bigint".into())],
        };
        let plus = Expr::Binary {
            op: plan::BinaryOp::Plus,
            left: Box::new(e("k1", 2)),
            right: Box::new(Expr::Literal("0".into())),
        };
        let p2 = project(
            vec![
                alias(e("k1", 2), "k2", 3),
                alias(cast, "k3", 4),
                alias(plus, "k4", 5),
            ],
            p1,
        );
        let l = Lineage::build(&Plan::new(p2));
        let want: BTreeSet<_> = [col("spark_catalog.default.customer", "c_custkey")].into();
        assert_eq!(l.origins(3), want);
        assert_eq!(l.origins(4), want);
        // `x + 0` is an expression, not the column.
        assert!(l.origins(5).is_empty());
        assert_eq!(l.resolve(5).sources, want);
        insta::assert_snapshot!(l.render(), @r"
        c_custkey#1 -> spark_catalog.default.customer.c_custkey
        k1#2 -> spark_catalog.default.customer.c_custkey
        k2#3 -> spark_catalog.default.customer.c_custkey
        k3#4 -> spark_catalog.default.customer.c_custkey
        k4#5 = derived (k1#2L + 0) <- [spark_catalog.default.customer.c_custkey]
        ");
        // A lossy cast under an alias is an expression over the column:
        // `cast(k1#2L as int)` narrows, `cast(k1#2L as string)` reorders.
        let s = scan("customer", &[("c_custkey", 1)]);
        let p1 = project(vec![alias(e("c_custkey", 1), "k1", 2)], s);
        let cast_to = |t: &str| Expr::Call {
            name: "cast".into(),
            args: vec![e("k1", 2), Expr::Literal(t.into())],
        };
        let p2 = project(
            vec![
                alias(cast_to("int"), "n", 6),
                alias(cast_to("string"), "s", 7),
                alias(cast_to("decimal(20,0)"), "d", 8),
            ],
            p1,
        );
        let l = Lineage::build(&Plan::new(p2));
        assert!(l.origins(6).is_empty());
        assert!(l.origins(7).is_empty());
        assert_eq!(l.origins(8), want);
        assert_eq!(l.resolve(6).sources, want);
    }

    #[test]
    fn reused_exchange_maps_positionally_to_its_target() {
        // Formatted: (64) ReusedExchange [Reuses operator id: 38] with
        // Output [1]: [r_regionkey#145L]; (38) BroadcastExchange over
        // a region scan outputting r_regionkey#171L.
        let mut target = with(
            PlanNode::new(NodeKind::Exchange, "BroadcastExchange"),
            vec![scan(
                "spark_catalog.default.region",
                &[("r_regionkey", 171)],
            )],
        );
        target.op_id = Some(38);
        let mut reused = PlanNode::new(NodeKind::Reused { target: Some(38) }, "ReusedExchange");
        reused.op_id = Some(64);
        reused.output = vec![a("r_regionkey", 145)];
        let join = with(
            PlanNode::new(
                NodeKind::Join(JoinInfo {
                    strategy: JoinStrategy::BroadcastHashJoin,
                    join_type: JoinType::Inner,
                    left_keys: vec![e("r_regionkey", 171)],
                    right_keys: vec![e("r_regionkey", 145)],
                    condition: None,
                    null_aware: false,
                }),
                "BroadcastHashJoin",
            ),
            vec![target, reused],
        );
        let l = Lineage::build(&Plan::new(join));
        let want: BTreeSet<_> = [col("spark_catalog.default.region", "r_regionkey")].into();
        assert_eq!(l.origins(145), want);
    }

    #[test]
    fn union_outputs_have_every_branch_but_only_above_the_union() {
        // Union outputs the first child's ids: t1.a#1 and t2.b#2.
        let u = with(
            PlanNode::new(NodeKind::Union, "Union"),
            vec![scan("t1", &[("a", 1)]), scan("t2", &[("b", 2)])],
        );
        let l = Lineage::build(&Plan::new(u));
        assert_eq!(
            l.origins(1),
            [
                col("spark_catalog.default.t1", "a"),
                col("spark_catalog.default.t2", "b")
            ]
            .into()
        );
        // Seen from inside the first branch (no union in scope): t1 only.
        assert_eq!(
            l.resolve_in(1, &Scope::new()).columns,
            [col("spark_catalog.default.t1", "a")].into()
        );
    }

    #[test]
    fn aggregate_keys_pass_results_are_derived() {
        // Aggregate [k#1], [k#1 AS g#3, sum(v#2) AS s#4]
        let agg = with(
            PlanNode::new(
                NodeKind::Aggregate {
                    grouping: vec![e("k", 1)],
                    results: vec![
                        alias(e("k", 1), "g", 3),
                        alias(
                            Expr::Call {
                                name: "sum".into(),
                                args: vec![e("v", 2)],
                            },
                            "s",
                            4,
                        ),
                    ],
                },
                "Aggregate",
            ),
            vec![scan("t", &[("k", 1), ("v", 2)])],
        );
        let l = Lineage::build(&Plan::new(agg));
        assert_eq!(l.origins(3), [col("spark_catalog.default.t", "k")].into());
        assert!(l.origins(4).is_empty());
        let o = l.resolve(4);
        assert!(o.derived);
        assert_eq!(o.sources, [col("spark_catalog.default.t", "v")].into());
    }

    #[test]
    fn expand_local_data_and_unknown_nodes() {
        // Expand [[k#1, null, 0], [k#1, v#2, 1]] -> [k#5, v#6, gid#7]
        let mut ex = with(
            PlanNode::new(
                NodeKind::Expand {
                    projections: vec![
                        vec![
                            e("k", 1),
                            Expr::Literal("null".into()),
                            Expr::Literal("0".into()),
                        ],
                        vec![e("k", 1), e("v", 2), Expr::Literal("1".into())],
                    ],
                },
                "Expand",
            ),
            vec![scan("t", &[("k", 1), ("v", 2)])],
        );
        ex.output = vec![a("k", 5), a("v", 6), a("spark_grouping_id", 7)];
        let mut local = PlanNode::new(NodeKind::LocalData, "LocalRelation");
        local.output = vec![a("x", 8)];
        let mut other = with(PlanNode::new(NodeKind::Other, "MapPartitions"), vec![local]);
        other.output = vec![a("y", 9)];
        let root = with(PlanNode::new(NodeKind::Union, "Union"), vec![ex, other]);
        let l = Lineage::build(&Plan::new(root));
        assert_eq!(l.origins(6), [col("spark_catalog.default.t", "v")].into());
        // Literal-only positions have no origin; local data is opaque.
        assert!(l.origins(7).is_empty());
        assert!(l.origins(8).is_empty() && l.resolve(8).derived);
        assert!(l.origins(9).is_empty() && l.resolve(9).derived);
        // Union position 0: k#5 from t.k and y#9 (derived): not a column.
        assert!(l.origins(5).is_empty());
        assert_eq!(
            l.resolve(5).sources,
            [col("spark_catalog.default.t", "k")].into()
        );
    }

    #[test]
    fn cycles_and_missing_targets_do_not_panic() {
        // A Reused node pointing at nothing, and a self-referencing alias.
        let mut r = PlanNode::new(NodeKind::Reused { target: Some(99) }, "ReusedExchange");
        r.output = vec![a("x", 1)];
        let p = project(vec![alias(e("x", 1), "x", 1), alias(e("y", 3), "z", 3)], r);
        let l = Lineage::build(&Plan::new(p));
        assert!(l.origins(1).is_empty());
        assert!(l.origins(3).is_empty());
        assert_eq!(l.render(), "x#1 ?\nz#3 ?\n");
    }
}
