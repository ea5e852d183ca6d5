//! The one plan IR every plan source is parsed into.
//!
//! A [`PlanNode`] is an operator with a [`NodeKind`] (what lineage needs to
//! know about it), the attributes it outputs, its SQL metrics and its
//! children. Subquery plans that hang off expressions (`scalar-subquery#N`,
//! `exists#N`, `IN (list#N)`, physical `Subquery`/`SubqueryBroadcast`) are kept
//! in [`PlanNode::subqueries`], apart from the data-flow children.
//!
//! Expressions are a small AST ([`Expr`]) whose `Display` prints them the way
//! Spark does (`o_orderkey#17L`, `(a#1 = b#2)`, `sum(x#3) AS s#4`), so a key
//! printed from the IR reads like the plan it came from.

use serde::Serialize;
use std::fmt;

/// A Spark expression id (`#17` in `o_orderkey#17L`).
pub type ExprId = u64;

/// A resolved attribute reference: `name#id` plus Spark's type suffix
/// (`L` for bigint, empty otherwise).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Attr {
    /// Column name as printed (backquotes removed).
    pub name: String,
    /// The exprId.
    pub id: ExprId,
    /// Type suffix Spark appends to the id (`"L"` for LongType, else empty).
    pub suffix: String,
}

impl Attr {
    /// A new attribute.
    pub fn new(name: impl Into<String>, id: ExprId, suffix: impl Into<String>) -> Self {
        Attr {
            name: name.into(),
            id,
            suffix: suffix.into(),
        }
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}{}", self.name, self.id, self.suffix)
    }
}

/// The kind of a subquery expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SubqueryKind {
    /// `scalar-subquery#N [outer refs]` (logical) or `Subquery subquery#N` (physical).
    Scalar,
    /// `exists#N [outer refs]`.
    Exists,
    /// `IN (list#N [outer refs])`, the value side is in [`Expr::InSubquery`].
    List,
    /// A lateral subquery or any other subquery expression.
    Other,
}

/// A subquery expression: its id, the outer references it is correlated on
/// (the `[...]` list), and its plan when the source carries it inline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SubqueryExpr {
    /// Which subquery expression.
    pub kind: SubqueryKind,
    /// The subquery's exprId (`#N`).
    pub id: ExprId,
    /// Outer attributes the subquery is correlated on.
    pub outer_refs: Vec<Expr>,
}

/// An expression in Spark's printed syntax.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Expr {
    /// `name#id[L]`.
    Attr(Attr),
    /// `child AS name#id`.
    Alias {
        /// Aliased expression.
        child: Box<Expr>,
        /// The new attribute.
        attr: Attr,
    },
    /// `outer(x#1L)`: a correlated reference to the outer query.
    Outer(Box<Expr>),
    /// An unresolved name from a parsed (not analyzed) plan: `'c_custkey`.
    Unresolved(String),
    /// A literal as printed (`1995-03-15`, `BUILDING`, `0.00`, `null`).
    Literal(String),
    /// `*`.
    Star,
    /// A function call, including casts (`cast(x as decimal(19,6))` is
    /// `Call { name: "cast", args: [x, Literal("decimal(19,6)")] }`).
    Call {
        /// Function name as printed.
        name: String,
        /// Arguments.
        args: Vec<Expr>,
    },
    /// A binary operator (`=`, `<=>`, `<`, `AND`, `OR`, `+`, ...), printed
    /// as `(left op right)`.
    Binary {
        /// The operator as printed.
        op: String,
        /// Left operand.
        left: Box<Expr>,
        /// Right operand.
        right: Box<Expr>,
    },
    /// A prefix operator (`NOT`, `-`).
    Unary {
        /// The operator as printed.
        op: String,
        /// Operand.
        child: Box<Expr>,
    },
    /// `value IN (a, b, c)`.
    In {
        /// Tested value.
        value: Box<Expr>,
        /// The literal list.
        list: Vec<Expr>,
    },
    /// `value IN (list#N [...])` / `(a, b) IN (list#N [...])`.
    InSubquery {
        /// The tested values.
        values: Vec<Expr>,
        /// The subquery.
        subquery: SubqueryExpr,
    },
    /// `scalar-subquery#N [...]`, `exists#N [...]`, `Subquery subquery#N`.
    Subquery(SubqueryExpr),
    /// `child ASC NULLS FIRST`.
    SortOrder {
        /// The sort key.
        child: Box<Expr>,
        /// `ASC NULLS FIRST` etc. as printed.
        direction: String,
    },
    /// Text the expression parser did not understand, kept verbatim.
    Raw(String),
}

impl Expr {
    /// The attribute if this is a plain (possibly `outer(...)`) attribute.
    pub fn as_attr(&self) -> Option<&Attr> {
        match self {
            Expr::Attr(a) => Some(a),
            Expr::Outer(e) => e.as_attr(),
            _ => None,
        }
    }

    /// The attribute an output expression defines: an `Attr` itself or an
    /// `Alias`'s new attribute.
    pub fn output_attr(&self) -> Option<&Attr> {
        match self {
            Expr::Attr(a) => Some(a),
            Expr::Alias { attr, .. } => Some(attr),
            _ => None,
        }
    }

    /// Direct child expressions.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Attr(_) | Expr::Unresolved(_) | Expr::Literal(_) | Expr::Star | Expr::Raw(_) => {
                Vec::new()
            }
            Expr::Alias { child, .. } | Expr::Outer(child) | Expr::Unary { child, .. } => {
                vec![child]
            }
            Expr::SortOrder { child, .. } => vec![child],
            Expr::Call { args, .. } => args.iter().collect(),
            Expr::Binary { left, right, .. } => vec![left, right],
            Expr::In { value, list } => std::iter::once(&**value).chain(list.iter()).collect(),
            Expr::InSubquery { values, subquery } => {
                values.iter().chain(subquery.outer_refs.iter()).collect()
            }
            Expr::Subquery(s) => s.outer_refs.iter().collect(),
        }
    }

    /// Pre-order walk; the closure steers the recursion.
    pub fn apply<'a, F: FnMut(&'a Expr) -> Recursion>(&'a self, f: &mut F) -> Recursion {
        match f(self) {
            Recursion::Continue => {}
            Recursion::Jump => return Recursion::Continue,
            Recursion::Stop => return Recursion::Stop,
        }
        for c in self.children() {
            if c.apply(f) == Recursion::Stop {
                return Recursion::Stop;
            }
        }
        Recursion::Continue
    }

    /// Every attribute referenced anywhere in the expression (including
    /// `outer(...)` references and subquery correlation lists).
    pub fn attrs(&self) -> Vec<&Attr> {
        let mut out = Vec::new();
        self.apply(&mut |e| {
            if let Expr::Attr(a) = e {
                out.push(a);
            }
            Recursion::Continue
        });
        out
    }

    /// Split a conjunction `(a AND b) AND c` into `[a, b, c]`.
    pub fn conjuncts(&self) -> Vec<&Expr> {
        match self {
            Expr::Binary { op, left, right } if op.eq_ignore_ascii_case("AND") => {
                let mut v = left.conjuncts();
                v.extend(right.conjuncts());
                v
            }
            other => vec![other],
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list(f: &mut fmt::Formatter<'_>, items: &[Expr]) -> fmt::Result {
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{e}")?;
            }
            Ok(())
        }
        fn sub(f: &mut fmt::Formatter<'_>, s: &SubqueryExpr) -> fmt::Result {
            let name = match s.kind {
                SubqueryKind::Scalar => "scalar-subquery",
                SubqueryKind::Exists => "exists",
                SubqueryKind::List => "list",
                SubqueryKind::Other => "subquery",
            };
            write!(f, "{name}#{} [", s.id)?;
            list(f, &s.outer_refs)?;
            f.write_str("]")
        }
        match self {
            Expr::Attr(a) => write!(f, "{a}"),
            Expr::Alias { child, attr } => write!(f, "{child} AS {attr}"),
            Expr::Outer(e) => write!(f, "outer({e})"),
            Expr::Unresolved(n) => write!(f, "'{n}"),
            Expr::Literal(l) => f.write_str(l),
            Expr::Star => f.write_str("*"),
            Expr::Call { name, args } if name.eq_ignore_ascii_case("cast") && args.len() == 2 => {
                write!(f, "cast({} as {})", args[0], args[1])
            }
            Expr::Call { name, args } => {
                write!(f, "{name}(")?;
                list(f, args)?;
                f.write_str(")")
            }
            Expr::Binary { op, left, right } => write!(f, "({left} {op} {right})"),
            Expr::Unary { op, child } => write!(f, "{op} {child}"),
            Expr::In { value, list: l } => {
                write!(f, "{value} IN (")?;
                for (i, e) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str(")")
            }
            Expr::InSubquery { values, subquery } => {
                if values.len() == 1 {
                    write!(f, "{} IN (", values[0])?;
                } else {
                    f.write_str("named_struct(")?;
                    list(f, values)?;
                    f.write_str(") IN (")?;
                }
                sub(f, subquery)?;
                f.write_str(")")
            }
            Expr::Subquery(s) => sub(f, s),
            Expr::SortOrder { child, direction } => write!(f, "{child} {direction}"),
            Expr::Raw(t) => f.write_str(t),
        }
    }
}

/// How a walk continues after visiting a node (DataFusion's `TreeNodeRecursion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recursion {
    /// Visit the children next.
    Continue,
    /// Skip this node's children, go on with its siblings.
    Jump,
    /// Stop the whole walk.
    Stop,
}

/// Physical join operators, plus `Join` for logical plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum JoinStrategy {
    /// `SortMergeJoin`.
    SortMergeJoin,
    /// `BroadcastHashJoin`.
    BroadcastHashJoin,
    /// `ShuffledHashJoin`.
    ShuffledHashJoin,
    /// `BroadcastNestedLoopJoin`.
    BroadcastNestedLoopJoin,
    /// `CartesianProduct`.
    CartesianProduct,
    /// A logical `Join` (extended-mode logical plans, TreeNode JSON).
    Join,
}

impl JoinStrategy {
    /// The operator name as Spark prints it.
    pub fn as_str(&self) -> &'static str {
        match self {
            JoinStrategy::SortMergeJoin => "SortMergeJoin",
            JoinStrategy::BroadcastHashJoin => "BroadcastHashJoin",
            JoinStrategy::ShuffledHashJoin => "ShuffledHashJoin",
            JoinStrategy::BroadcastNestedLoopJoin => "BroadcastNestedLoopJoin",
            JoinStrategy::CartesianProduct => "CartesianProduct",
            JoinStrategy::Join => "Join",
        }
    }

    /// Parse an operator name (`SortMergeJoin`, `Join`, ...).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "SortMergeJoin" => JoinStrategy::SortMergeJoin,
            "BroadcastHashJoin" => JoinStrategy::BroadcastHashJoin,
            "ShuffledHashJoin" => JoinStrategy::ShuffledHashJoin,
            "BroadcastNestedLoopJoin" => JoinStrategy::BroadcastNestedLoopJoin,
            "CartesianProduct" => JoinStrategy::CartesianProduct,
            "Join" => JoinStrategy::Join,
            _ => return None,
        })
    }
}

/// A join operator.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JoinInfo {
    /// The operator.
    pub strategy: JoinStrategy,
    /// `Inner`, `LeftOuter`, `RightOuter`, `FullOuter`, `LeftSemi`,
    /// `LeftAnti`, `Cross`, `ExistenceJoin(exists#1)`, ... as printed.
    pub join_type: String,
    /// Left join keys (physical equi-joins).
    pub left_keys: Vec<Expr>,
    /// Right join keys.
    pub right_keys: Vec<Expr>,
    /// The (extra) join condition, `None` when absent.
    pub condition: Option<Expr>,
    /// Null-aware anti join (`NOT IN` planned as a null-aware BHJ).
    pub null_aware: bool,
}

/// A leaf that reads a table or files.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ScanInfo {
    /// Catalog name as Spark prints it (`spark_catalog.default.orders`), or
    /// the location path for a path-based read with no table name.
    pub table: String,
    /// `parquet`, `delta`, `csv`, ... when known.
    pub format: Option<String>,
    /// Location (`InMemoryFileIndex [file:/...]`) when printed.
    pub location: Option<String>,
    /// `PushedFilters` as printed.
    pub pushed_filters: Option<String>,
    /// `PartitionFilters` as printed.
    pub partition_filters: Option<String>,
    /// `DataFilters` as printed.
    pub data_filters: Option<String>,
    /// `ReadSchema` as printed.
    pub read_schema: Option<String>,
}

/// What an operator is, as far as lineage cares. Matched exhaustively by
/// analyses: a new kind must be handled everywhere, never silently dropped.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum NodeKind {
    /// Table or file scan (`FileScan`, `Scan parquet ...`, `Relation`,
    /// `LogicalRelation`, `HiveTableRelation`, `BatchScan`, ...). Output
    /// attributes are the base columns.
    Scan(ScanInfo),
    /// `Project [list]`: aliases define new attributes.
    Project {
        /// Project list (attributes and `expr AS name#id`).
        list: Vec<Expr>,
    },
    /// `Filter condition`.
    Filter {
        /// The predicate.
        condition: Expr,
    },
    /// Any join.
    Join(JoinInfo),
    /// `Aggregate` / `HashAggregate` / `SortAggregate` / `ObjectHashAggregate`.
    Aggregate {
        /// Grouping expressions.
        grouping: Vec<Expr>,
        /// Output expressions (`Results` in formatted plans; the aggregate
        /// list in logical plans), including `... AS name#id` aliases.
        results: Vec<Expr>,
    },
    /// `Window [exprs], [partition], [order]`.
    Window {
        /// Window expressions, each `... AS name#id`.
        exprs: Vec<Expr>,
        /// Partition spec.
        partition: Vec<Expr>,
        /// Order spec.
        order: Vec<Expr>,
    },
    /// `Expand [[...], [...]], [output]`: output attributes map positionally
    /// to the expressions of every projection.
    Expand {
        /// One list per projection.
        projections: Vec<Vec<Expr>>,
    },
    /// `Generate explode(x), ...`: generator output attributes derive from
    /// the generator's input.
    Generate {
        /// The generator expression.
        generator: Expr,
    },
    /// `Union`: output attributes map positionally to every child's output.
    Union,
    /// `Sort`.
    Sort {
        /// Sort order.
        order: Vec<Expr>,
    },
    /// `GlobalLimit`, `LocalLimit`, `CollectLimit`, `TakeOrderedAndProject` (with its
    /// project list in `list`, empty when none).
    Limit {
        /// Project list of `TakeOrderedAndProject`.
        list: Vec<Expr>,
    },
    /// `Exchange`, `BroadcastExchange`, `Repartition`, `RepartitionByExpression`.
    Exchange,
    /// `SubqueryAlias name`: table aliases, CTE and view names.
    SubqueryAlias {
        /// The alias (`n1`, `revenue0`, `spark_catalog.default.orders`).
        alias: String,
    },
    /// A reference to another operator whose output it repeats under new
    /// exprIds, position by position: `ReusedExchange` / `ReusedSubquery`
    /// (formatted `Reuses operator id: N`), `CTERelationRef`.
    Reused {
        /// Operator id (formatted plans) or CTE id of the referenced node.
        target: Option<u64>,
    },
    /// Physical `Subquery` / `SubqueryBroadcast` nodes, or a logical
    /// `CTERelationDef`: a plan computed once and referenced elsewhere.
    SubqueryRoot {
        /// The subquery or CTE id.
        id: Option<u64>,
    },
    /// Pure wrappers that pass their child's output through unchanged:
    /// `WholeStageCodegen`, `InputAdapter`, `ColumnarToRow`,
    /// `AdaptiveSparkPlan`, query stages, `AQEShuffleRead`, `WithCTE`, ...
    PassThrough,
    /// A command (`Execute CreateDataSourceTableCommand`, `CreateTable`, ...).
    Command,
    /// `LocalRelation`, `Range`, `OneRowRelation`, `LocalTableScan`: leaves
    /// whose columns are not a table's.
    LocalData,
    /// Anything else: children and output are kept, lineage treats its
    /// output as derived from all its inputs.
    Other,
}

/// One SQL metric of a physical operator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Metric {
    /// Metric name (`number of output rows`).
    pub name: String,
    /// Accumulator id that carries its value in task and driver updates.
    pub accumulator_id: u64,
    /// `sum`, `size`, `timing`, `average`, ...
    pub metric_type: String,
}

/// One operator of a plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanNode {
    /// What it is.
    pub kind: NodeKind,
    /// Operator name as printed (`BroadcastHashJoin`, `Scan parquet
    /// spark_catalog.default.orders`, `Join`, `SubqueryAlias`).
    pub name: String,
    /// Operator id: `(N)` in formatted plans; `None` elsewhere.
    pub op_id: Option<u64>,
    /// Attributes this operator outputs, when the source says.
    pub output: Vec<Attr>,
    /// SQL metrics (sparkPlanInfo only).
    pub metrics: Vec<Metric>,
    /// Data-flow children, left to right.
    pub children: Vec<PlanNode>,
    /// Plans of subquery expressions evaluated by this operator.
    pub subqueries: Vec<PlanNode>,
}

impl PlanNode {
    /// A node with no output, metrics, children or subqueries yet.
    pub fn new(kind: NodeKind, name: impl Into<String>) -> Self {
        PlanNode {
            kind,
            name: name.into(),
            op_id: None,
            output: Vec::new(),
            metrics: Vec::new(),
            children: Vec::new(),
            subqueries: Vec::new(),
        }
    }

    /// Pre-order walk over this node, its children and its subquery plans.
    pub fn apply<'a, F: FnMut(&'a PlanNode) -> Recursion>(&'a self, f: &mut F) -> Recursion {
        match f(self) {
            Recursion::Continue => {}
            Recursion::Jump => return Recursion::Continue,
            Recursion::Stop => return Recursion::Stop,
        }
        for c in self.children.iter().chain(self.subqueries.iter()) {
            if c.apply(f) == Recursion::Stop {
                return Recursion::Stop;
            }
        }
        Recursion::Continue
    }

    /// Whether any node satisfies `pred`.
    pub fn exists<F: FnMut(&PlanNode) -> bool>(&self, mut pred: F) -> bool {
        let mut found = false;
        self.apply(&mut |n| {
            if pred(n) {
                found = true;
                Recursion::Stop
            } else {
                Recursion::Continue
            }
        });
        found
    }

    /// Expressions this node holds (for walks over all expressions).
    pub fn expressions(&self) -> Vec<&Expr> {
        match &self.kind {
            NodeKind::Project { list } | NodeKind::Limit { list } => list.iter().collect(),
            NodeKind::Filter { condition } => vec![condition],
            NodeKind::Join(j) => j
                .left_keys
                .iter()
                .chain(j.right_keys.iter())
                .chain(j.condition.iter())
                .collect(),
            NodeKind::Aggregate { grouping, results } => {
                grouping.iter().chain(results.iter()).collect()
            }
            NodeKind::Window {
                exprs,
                partition,
                order,
            } => exprs.iter().chain(partition).chain(order).collect(),
            NodeKind::Expand { projections } => projections.iter().flatten().collect(),
            NodeKind::Generate { generator } => vec![generator],
            NodeKind::Sort { order } => order.iter().collect(),
            NodeKind::Scan(_)
            | NodeKind::Union
            | NodeKind::Exchange
            | NodeKind::SubqueryAlias { .. }
            | NodeKind::Reused { .. }
            | NodeKind::SubqueryRoot { .. }
            | NodeKind::PassThrough
            | NodeKind::Command
            | NodeKind::LocalData
            | NodeKind::Other => Vec::new(),
        }
    }

    /// Mutable access to every expression this node holds, in the order of
    /// [`PlanNode::expressions`] (for rewrites such as literal demotion).
    pub fn expressions_mut(&mut self) -> Vec<&mut Expr> {
        match &mut self.kind {
            NodeKind::Project { list } | NodeKind::Limit { list } => list.iter_mut().collect(),
            NodeKind::Filter { condition } => vec![condition],
            NodeKind::Join(j) => j
                .left_keys
                .iter_mut()
                .chain(j.right_keys.iter_mut())
                .chain(j.condition.iter_mut())
                .collect(),
            NodeKind::Aggregate { grouping, results } => {
                grouping.iter_mut().chain(results.iter_mut()).collect()
            }
            NodeKind::Window {
                exprs,
                partition,
                order,
            } => exprs
                .iter_mut()
                .chain(partition.iter_mut())
                .chain(order.iter_mut())
                .collect(),
            NodeKind::Expand { projections } => projections.iter_mut().flatten().collect(),
            NodeKind::Generate { generator } => vec![generator],
            NodeKind::Sort { order } => order.iter_mut().collect(),
            NodeKind::Scan(_)
            | NodeKind::Union
            | NodeKind::Exchange
            | NodeKind::SubqueryAlias { .. }
            | NodeKind::Reused { .. }
            | NodeKind::SubqueryRoot { .. }
            | NodeKind::PassThrough
            | NodeKind::Command
            | NodeKind::LocalData
            | NodeKind::Other => Vec::new(),
        }
    }

    /// The predicates this node evaluates on rows: a Filter's condition and
    /// a Join's extra condition (join keys are not included).
    pub fn predicates(&self) -> Vec<&Expr> {
        match &self.kind {
            NodeKind::Filter { condition } => vec![condition],
            NodeKind::Join(j) => j.condition.iter().collect(),
            NodeKind::Scan(_)
            | NodeKind::Project { .. }
            | NodeKind::Aggregate { .. }
            | NodeKind::Window { .. }
            | NodeKind::Expand { .. }
            | NodeKind::Generate { .. }
            | NodeKind::Union
            | NodeKind::Sort { .. }
            | NodeKind::Limit { .. }
            | NodeKind::Exchange
            | NodeKind::SubqueryAlias { .. }
            | NodeKind::Reused { .. }
            | NodeKind::SubqueryRoot { .. }
            | NodeKind::PassThrough
            | NodeKind::Command
            | NodeKind::LocalData
            | NodeKind::Other => Vec::new(),
        }
    }

    /// An indented, one-line-per-node rendering for snapshots and `--explain`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, 0, "");
        out
    }

    fn render_into(&self, out: &mut String, depth: usize, tag: &str) {
        use std::fmt::Write;
        let pad = "  ".repeat(depth);
        let _ = write!(out, "{pad}{tag}{}", self.name);
        if let Some(id) = self.op_id {
            let _ = write!(out, " ({id})");
        }
        match &self.kind {
            NodeKind::Scan(s) => {
                let _ = write!(out, " table={}", s.table);
            }
            NodeKind::Join(j) => {
                let keys = |v: &[Expr]| {
                    v.iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let _ = write!(
                    out,
                    " {} {} [{}] = [{}]",
                    j.strategy.as_str(),
                    j.join_type,
                    keys(&j.left_keys),
                    keys(&j.right_keys)
                );
                if let Some(c) = &j.condition {
                    let _ = write!(out, " cond={c}");
                }
            }
            NodeKind::SubqueryAlias { alias } => {
                let _ = write!(out, " alias={alias}");
            }
            _ => {}
        }
        if !self.output.is_empty() {
            let o: Vec<String> = self.output.iter().map(|a| a.to_string()).collect();
            let _ = write!(out, " -> [{}]", o.join(", "));
        }
        out.push('\n');
        for c in &self.children {
            c.render_into(out, depth + 1, "");
        }
        for s in &self.subqueries {
            s.render_into(out, depth + 1, "subquery: ");
        }
    }
}

/// Which plan text or structure a [`PlanNode`] tree came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanSource {
    /// Formatted `physicalPlanDescription` (explain mode FORMATTED).
    Formatted,
    /// Extended-mode text (`== Physical Plan ==` / logical sections).
    Extended,
    /// `sparkPlanInfo` JSON.
    SparkPlanInfo,
    /// `TreeNode.toJSON` arrays.
    TreeJson,
}

impl PlanSource {
    /// The name used in records (`formatted`, `extended`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            PlanSource::Formatted => "formatted",
            PlanSource::Extended => "extended",
            PlanSource::SparkPlanInfo => "spark_plan_info",
            PlanSource::TreeJson => "tree_json",
        }
    }
}
