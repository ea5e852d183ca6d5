//! Plan operators: [`PlanNode`], what each is ([`NodeKind`]), joins and
//! scans, and [`Plan`], a finished tree.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Deref;

use crate::expr::{attr_of_item, Attr, Expr};
use crate::predicate::ColumnType;
pub use crate::registry::JoinStrategy;
use crate::registry::{operator_word, Runtime};
use crate::tree::{Recursion, TreeNode};

/// A side of a join (or of a relationship between two sides).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The left side.
    Left,
    /// The right side.
    Right,
    /// Both sides (full outer joins).
    Both,
}

impl Side {
    /// The other side (`Both` stays `Both`).
    pub fn flip(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
            Side::Both => Side::Both,
        }
    }
}

/// A join type as Spark prints it (`JoinType.toString`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum JoinType {
    /// `Inner`.
    Inner,
    /// `Cross`.
    Cross,
    /// `LeftOuter`.
    LeftOuter,
    /// `RightOuter`.
    RightOuter,
    /// `FullOuter`.
    FullOuter,
    /// `LeftSemi`.
    LeftSemi,
    /// `LeftAnti`.
    LeftAnti,
    /// `LeftSingle` (Spark 4: a scalar subquery joined as a single-row join).
    LeftSingle,
    /// `ExistenceJoin(exists#12)`: the left rows plus a boolean attribute
    /// saying whether a right row matched.
    ExistenceJoin(Attr),
    /// Anything else, as printed (`UsingJoin(...)` of a parsed plan, or
    /// nothing when the source printed no type).
    Unparsed(String),
}

impl JoinType {
    /// Parse Spark's printed form, ignoring ASCII case.
    pub fn parse(text: &str) -> JoinType {
        let t = text.trim();
        let simple = [
            ("Inner", JoinType::Inner),
            ("Cross", JoinType::Cross),
            ("LeftOuter", JoinType::LeftOuter),
            ("RightOuter", JoinType::RightOuter),
            ("FullOuter", JoinType::FullOuter),
            ("LeftSemi", JoinType::LeftSemi),
            ("LeftAnti", JoinType::LeftAnti),
            ("LeftSingle", JoinType::LeftSingle),
        ];
        if let Some((_, j)) = simple.into_iter().find(|(n, _)| n.eq_ignore_ascii_case(t)) {
            return j;
        }
        let existence = t
            .get(..14)
            .filter(|p| p.eq_ignore_ascii_case("ExistenceJoin("))
            .and_then(|_| t[14..].strip_suffix(')'))
            .and_then(attr_of_item);
        match existence {
            Some(a) => JoinType::ExistenceJoin(a),
            None => JoinType::Unparsed(t.to_string()),
        }
    }

    /// Whether the join outputs only its left side's attributes (plus, for
    /// an existence join, its `exists` flag): semi, anti and existence
    /// joins. The one place this is decided.
    pub fn outputs_left_only(&self) -> bool {
        match self {
            JoinType::LeftSemi | JoinType::LeftAnti | JoinType::ExistenceJoin(_) => true,
            JoinType::Inner
            | JoinType::Cross
            | JoinType::LeftOuter
            | JoinType::RightOuter
            | JoinType::FullOuter
            | JoinType::LeftSingle
            | JoinType::Unparsed(_) => false,
        }
    }

    /// The side whose rows the join keeps whether or not they match: the
    /// preserved side of an outer join, the left (outer-query) side of
    /// semi, anti, existence and single joins; `None` for inner joins.
    pub fn preserved_side(&self) -> Option<Side> {
        match self {
            JoinType::LeftOuter
            | JoinType::LeftSemi
            | JoinType::LeftAnti
            | JoinType::LeftSingle
            | JoinType::ExistenceJoin(_) => Some(Side::Left),
            JoinType::RightOuter => Some(Side::Right),
            JoinType::FullOuter => Some(Side::Both),
            JoinType::Inner | JoinType::Cross | JoinType::Unparsed(_) => None,
        }
    }
}

/// Serde of a [`JoinType`] as Spark prints it (`LeftOuter`,
/// `ExistenceJoin(exists#12)`): the form records and relationships write
/// (`#[serde(with = "plan::join_type_text")]`).
pub mod join_type_text {
    use super::JoinType;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Write the printed form.
    pub fn serialize<S: Serializer>(j: &JoinType, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(j)
    }

    /// Read a printed form ([`JoinType::parse`]).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<JoinType, D::Error> {
        let t = std::borrow::Cow::<str>::deserialize(d)?;
        Ok(JoinType::parse(&t))
    }
}

impl fmt::Display for JoinType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JoinType::Inner => f.write_str("Inner"),
            JoinType::Cross => f.write_str("Cross"),
            JoinType::LeftOuter => f.write_str("LeftOuter"),
            JoinType::RightOuter => f.write_str("RightOuter"),
            JoinType::FullOuter => f.write_str("FullOuter"),
            JoinType::LeftSemi => f.write_str("LeftSemi"),
            JoinType::LeftAnti => f.write_str("LeftAnti"),
            JoinType::LeftSingle => f.write_str("LeftSingle"),
            JoinType::ExistenceJoin(a) => write!(f, "ExistenceJoin({a})"),
            JoinType::Unparsed(t) => f.write_str(t),
        }
    }
}

/// A join operator.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JoinInfo {
    /// The operator.
    pub strategy: JoinStrategy,
    /// The join type.
    pub join_type: JoinType,
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
    /// `ReadSchema`'s top-level fields, typed (see
    /// [`crate::predicate::read_schema`]); empty when not printed.
    pub read_schema: Vec<(String, ColumnType)>,
    /// The branch an Iceberg scan reads, when not the main one
    /// (`(branch=audit)` in its description).
    pub branch: Option<String>,
    /// `RuntimeFilters` of a DataSource V2 scan as printed, when not empty
    /// (dynamic pruning expressions: they name no literal).
    pub runtime_filters: Option<String>,
}

/// What an operator is, as far as lineage cares. Matched exhaustively by
/// analyses: a new kind must be handled everywhere, never silently dropped.
/// Which operator names are which kind is decided by
/// [`crate::registry::operator`].
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
    /// `Generate explode(x), ...`: the child's attributes pass through, the
    /// generator adds its own, derived from the generator's input.
    Generate {
        /// The generator expression.
        generator: Expr,
        /// The attributes the generator adds (`[x#34L]`), when printed.
        generator_output: Vec<Attr>,
    },
    /// `Union`: output attributes map positionally to every child's output.
    Union,
    /// `Sort`.
    Sort {
        /// Sort order.
        order: Vec<Expr>,
    },
    /// `GlobalLimit`, `LocalLimit`, `CollectLimit`, `Offset`,
    /// `TakeOrderedAndProject` (with its project list in `list`, empty when
    /// none).
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
    /// Pure wrappers that pass their (last) child's output through
    /// unchanged: `WholeStageCodegen`, `InputAdapter`, `ColumnarToRow`,
    /// `AdaptiveSparkPlan`, query stages, `AQEShuffleRead`, `WithCTE`, ...
    PassThrough,
    /// A command (`Execute CreateDataSourceTableCommand`, `CreateTable`, ...).
    Command,
    /// `LocalRelation`, `Range`, `OneRowRelation`, `LocalTableScan`: leaves
    /// whose columns are not a table's.
    LocalData,
    /// A known operator lineage does not model (`Sample`, `Except`,
    /// `Intersect`): children and output are kept, lineage treats its
    /// output as derived from all its inputs.
    Other,
    /// An operator the registry does not know. Treated like
    /// [`NodeKind::Other`], and counted ([`Plan::unknown_operators`]) so
    /// that a gap in the registry shows in the report.
    Unknown,
}

impl NodeKind {
    /// Whether the operator defines its output itself (project lists,
    /// aggregate results, join sides, window attributes, union positions,
    /// generator output, expand projections), as opposed to repeating its
    /// input (filters, sorts, exchanges, wrappers) or being opaque
    /// (scans, commands, unknown operators). A source that prints an
    /// operator's *input* attributes states its output exactly when this is
    /// false.
    pub fn defines_output(&self) -> bool {
        match self {
            NodeKind::Project { list } | NodeKind::Limit { list } => !list.is_empty(),
            NodeKind::Aggregate { results, .. } => !results.is_empty(),
            NodeKind::Join(_)
            | NodeKind::Window { .. }
            | NodeKind::Expand { .. }
            | NodeKind::Generate { .. }
            | NodeKind::Union => true,
            NodeKind::Scan(_)
            | NodeKind::Filter { .. }
            | NodeKind::Sort { .. }
            | NodeKind::Exchange
            | NodeKind::SubqueryAlias { .. }
            | NodeKind::Reused { .. }
            | NodeKind::SubqueryRoot { .. }
            | NodeKind::PassThrough
            | NodeKind::Command
            | NodeKind::LocalData
            | NodeKind::Other
            | NodeKind::Unknown => false,
        }
    }
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

/// A node's position in its [`Plan`]: pre-order over children, then
/// subquery plans, the root being 0. Stable for a given tree, so analyses
/// key their per-node facts by it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct NodeId(pub u32);

/// One operator of a plan.
#[derive(Debug, PartialEq, Serialize)]
pub struct PlanNode {
    /// Position in the finished [`Plan`] (0 until then).
    pub id: NodeId,
    /// What it is.
    pub kind: NodeKind,
    /// Operator name as printed (`BroadcastHashJoin`, `Scan parquet
    /// spark_catalog.default.orders`, `Join`, `SubqueryAlias`).
    pub name: String,
    /// Which engine runs it (Spark's own operators, Photon, GPU).
    pub engine: Runtime,
    /// Operator id: `(N)` in formatted plans; `None` elsewhere.
    pub op_id: Option<u64>,
    /// Attributes this operator outputs: what the source states, completed
    /// by [`crate::output::derive_outputs`].
    pub output: Vec<Attr>,
    /// SQL metrics (sparkPlanInfo only).
    pub metrics: Vec<Metric>,
    /// Data-flow children, left to right.
    pub children: Vec<PlanNode>,
    /// Plans of subquery expressions evaluated by this operator.
    pub subqueries: Vec<PlanNode>,
}

/// The expressions of a node kind, borrowed by `iter` or `iter_mut`: one
/// match for [`PlanNode::expressions`] and [`PlanNode::expressions_mut`].
macro_rules! node_expressions {
    ($kind:expr, $iter:ident) => {
        match $kind {
            NodeKind::Project { list } | NodeKind::Limit { list } => list.$iter().collect(),
            NodeKind::Filter { condition } => vec![condition],
            NodeKind::Join(j) => j
                .left_keys
                .$iter()
                .chain(j.right_keys.$iter())
                .chain(j.condition.$iter())
                .collect(),
            NodeKind::Aggregate { grouping, results } => {
                grouping.$iter().chain(results.$iter()).collect()
            }
            NodeKind::Window {
                exprs,
                partition,
                order,
            } => exprs
                .$iter()
                .chain(partition.$iter())
                .chain(order.$iter())
                .collect(),
            NodeKind::Expand { projections } => projections.$iter().flatten().collect(),
            NodeKind::Generate { generator, .. } => vec![generator],
            NodeKind::Sort { order } => order.$iter().collect(),
            NodeKind::Scan(_)
            | NodeKind::Union
            | NodeKind::Exchange
            | NodeKind::SubqueryAlias { .. }
            | NodeKind::Reused { .. }
            | NodeKind::SubqueryRoot { .. }
            | NodeKind::PassThrough
            | NodeKind::Command
            | NodeKind::LocalData
            | NodeKind::Other
            | NodeKind::Unknown => Vec::new(),
        }
    };
}

impl PlanNode {
    /// A node with no output, metrics, children or subqueries yet.
    pub fn new(kind: NodeKind, name: impl Into<String>) -> Self {
        PlanNode {
            id: NodeId::default(),
            kind,
            name: name.into(),
            engine: Runtime::Spark,
            op_id: None,
            output: Vec::new(),
            metrics: Vec::new(),
            children: Vec::new(),
            subqueries: Vec::new(),
        }
    }

    /// The operator word of the name (`Scan` of `Scan parquet t`,
    /// `WholeStageCodegen` of `WholeStageCodegen (3)`).
    pub fn operator(&self) -> &str {
        operator_word(&self.name)
    }

    /// Pre-order walk over this node and its data-flow descendants only:
    /// subquery plans (and everything under them) are not entered.
    pub fn apply_data_flow<'n, F: FnMut(&'n PlanNode) -> Recursion>(&'n self, f: F) -> Recursion {
        struct Flow<F> {
            f: F,
            /// Whether each node still to come hangs off its parent as a
            /// subquery plan, the next one last (see [`PlanNode::render`]).
            marks: Vec<bool>,
            stopped: bool,
        }
        impl<'n, F: FnMut(&'n PlanNode) -> Recursion> crate::tree::TreeNodeVisitor<'n> for Flow<F> {
            type Node = PlanNode;
            fn f_down(&mut self, n: &'n PlanNode) -> Recursion {
                if self.marks.pop() == Some(true) {
                    return Recursion::Jump;
                }
                match (self.f)(n) {
                    Recursion::Continue => {
                        self.marks.extend(n.subqueries.iter().map(|_| true));
                        self.marks.extend(n.children.iter().map(|_| false));
                        Recursion::Continue
                    }
                    Recursion::Jump => Recursion::Jump,
                    Recursion::Stop => {
                        self.stopped = true;
                        Recursion::Stop
                    }
                }
            }
        }
        let mut v = Flow {
            f,
            marks: Vec::new(),
            stopped: false,
        };
        self.visit(&mut v);
        if v.stopped {
            Recursion::Stop
        } else {
            Recursion::Continue
        }
    }

    /// Expressions this node holds (for walks over all expressions).
    pub fn expressions(&self) -> Vec<&Expr> {
        node_expressions!(&self.kind, iter)
    }

    /// Mutable access to every expression this node holds, in the order of
    /// [`PlanNode::expressions`] (for rewrites such as literal demotion).
    pub fn expressions_mut(&mut self) -> Vec<&mut Expr> {
        node_expressions!(&mut self.kind, iter_mut)
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
            | NodeKind::Other
            | NodeKind::Unknown => Vec::new(),
        }
    }

    /// An indented, one-line-per-node rendering for snapshots and `--explain`.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        struct R {
            out: String,
            depth: usize,
            /// Whether each node still to come is a subquery plan, the next
            /// one last: a node takes its own mark and leaves one for each
            /// of its children and subquery plans, which the walk visits
            /// next, in order.
            marks: Vec<bool>,
        }
        impl<'n> crate::tree::TreeNodeVisitor<'n> for R {
            type Node = PlanNode;
            fn f_down(&mut self, n: &'n PlanNode) -> Recursion {
                let tag = if self.marks.pop() == Some(true) {
                    "subquery: "
                } else {
                    ""
                };
                let _ = write!(self.out, "{}{tag}", "  ".repeat(self.depth));
                n.render_line(&mut self.out);
                self.depth += 1;
                // Visited children first, then subquery plans: the
                // children's marks go on top.
                self.marks.extend(n.subqueries.iter().map(|_| true));
                self.marks.extend(n.children.iter().map(|_| false));
                Recursion::Continue
            }
            fn f_up(&mut self, _: &'n PlanNode) -> Recursion {
                self.depth -= 1;
                Recursion::Continue
            }
        }
        let mut r = R {
            out: String::new(),
            depth: 0,
            marks: Vec::new(),
        };
        self.visit(&mut r);
        r.out
    }

    /// This node's own line of [`PlanNode::render`], newline included.
    fn render_line(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "{}", self.name);
        if let Some(id) = self.op_id {
            let _ = write!(out, " ({id})");
        }
        // Only scans, joins and aliases print more than their name.
        if let NodeKind::Scan(s) = &self.kind {
            let _ = write!(out, " table={}", s.table);
        } else if let NodeKind::Join(j) = &self.kind {
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
        } else if let NodeKind::SubqueryAlias { alias } = &self.kind {
            let _ = write!(out, " alias={alias}");
        }
        if !self.output.is_empty() {
            let o: Vec<String> = self.output.iter().map(|a| a.to_string()).collect();
            let _ = write!(out, " -> [{}]", o.join(", "));
        }
        out.push('\n');
    }
}

impl TreeNode for PlanNode {
    /// Data-flow children first, then subquery plans.
    fn apply_children<'n, F: FnMut(&'n Self) -> Recursion>(&'n self, mut f: F) -> Recursion {
        for c in self.children.iter().chain(self.subqueries.iter()) {
            if f(c) == Recursion::Stop {
                return Recursion::Stop;
            }
        }
        Recursion::Continue
    }

    fn map_children<F: FnMut(Self) -> Self>(mut self, mut f: F) -> Self {
        let children = std::mem::take(&mut self.children);
        self.children = children.into_iter().map(&mut f).collect();
        let subqueries = std::mem::take(&mut self.subqueries);
        self.subqueries = subqueries.into_iter().map(&mut f).collect();
        self
    }
}

impl Clone for PlanNode {
    /// Cloning recurses through [`crate::tree::guard`]: safe at any depth.
    fn clone(&self) -> Self {
        crate::tree::guard(|| PlanNode {
            id: self.id,
            kind: self.kind.clone(),
            name: self.name.clone(),
            engine: self.engine,
            op_id: self.op_id,
            output: self.output.clone(),
            metrics: self.metrics.clone(),
            children: self.children.clone(),
            subqueries: self.subqueries.clone(),
        })
    }
}

impl Drop for PlanNode {
    /// Dropping takes the tree apart with an explicit stack: the derived
    /// drop would recurse once per level and overflow on deep plans.
    fn drop(&mut self) {
        let mut stack: Vec<PlanNode> = Vec::new();
        stack.append(&mut self.children);
        stack.append(&mut self.subqueries);
        while let Some(mut n) = stack.pop() {
            stack.append(&mut n.children);
            stack.append(&mut n.subqueries);
            // `n` drops here with no children left.
        }
    }
}

/// Which plan text or structure a [`PlanNode`] tree came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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

    /// The source a record names ([`PlanSource::as_str`]); `None` for
    /// any other text.
    pub fn parse(text: &str) -> Option<PlanSource> {
        [
            PlanSource::Formatted,
            PlanSource::Extended,
            PlanSource::SparkPlanInfo,
            PlanSource::TreeJson,
        ]
        .into_iter()
        .find(|p| p.as_str() == text)
    }
}

/// A finished plan: a [`PlanNode`] tree after the output pass
/// ([`crate::output::derive_outputs`]), with every node numbered
/// ([`NodeId`]). Parsers return plans; analyses take them. Read the tree
/// through `Deref`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    root: PlanNode,
    len: usize,
}

impl Plan {
    /// Finish a tree without the output pass: every node keeps only the
    /// output its source stated. For readers that look at stated facts
    /// alone (the scans of a `sparkPlanInfo` tree read for their metric
    /// ids), where deriving every operator's output would be wasted work.
    pub fn stated(root: PlanNode) -> Plan {
        Plan::numbered(root)
    }

    /// Number the nodes of a tree, pre-order.
    pub(crate) fn numbered(root: PlanNode) -> Plan {
        let mut next = 0u32;
        let root = root.transform_down(|mut n| {
            n.id = NodeId(next);
            next += 1;
            n
        });
        Plan {
            root,
            len: next as usize,
        }
    }

    /// The root operator.
    pub fn root(&self) -> &PlanNode {
        &self.root
    }

    /// How many operators the plan has (subquery plans included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the plan has no operators (never: a plan has a root).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Operators the registry does not know ([`NodeKind::Unknown`]), by
    /// operator word, with how many nodes each.
    pub fn unknown_operators(&self) -> std::collections::BTreeMap<String, u64> {
        let mut out = std::collections::BTreeMap::new();
        self.root.apply(|n| {
            if n.kind == NodeKind::Unknown {
                *out.entry(n.operator().to_string()).or_insert(0) += 1;
            }
            Recursion::Continue
        });
        out
    }
}

impl Deref for Plan {
    type Target = PlanNode;

    fn deref(&self) -> &PlanNode {
        &self.root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_types_parse_print_and_answer_left_only_once() {
        for t in [
            "Inner",
            "Cross",
            "LeftOuter",
            "RightOuter",
            "FullOuter",
            "LeftSemi",
            "LeftAnti",
            "LeftSingle",
            "ExistenceJoin(exists#12)",
            "UsingJoin(Inner,List(a))",
        ] {
            assert_eq!(JoinType::parse(t).to_string(), t);
        }
        assert_eq!(JoinType::parse("leftanti"), JoinType::LeftAnti);
        assert_eq!(
            JoinType::parse("existencejoin(exists#12)"),
            JoinType::ExistenceJoin(Attr::new("exists", 12, ""))
        );
        let left_only: Vec<String> = [
            "Inner",
            "LeftOuter",
            "LeftSemi",
            "leftsemi",
            "LeftAnti",
            "ExistenceJoin(exists#3)",
            "FullOuter",
        ]
        .into_iter()
        .map(JoinType::parse)
        .filter(JoinType::outputs_left_only)
        .map(|j| j.to_string())
        .collect();
        assert_eq!(
            left_only,
            [
                "LeftSemi",
                "LeftSemi",
                "LeftAnti",
                "ExistenceJoin(exists#3)"
            ]
        );
        assert_eq!(JoinType::RightOuter.preserved_side(), Some(Side::Right));
        assert_eq!(JoinType::Inner.preserved_side(), None);
        assert_eq!(Side::Both.flip(), Side::Both);
    }

    fn chain(depth: u32) -> PlanNode {
        let mut n = PlanNode::new(NodeKind::LocalData, "LocalRelation");
        n.output = vec![Attr::new("a", 1, "L")];
        for _ in 0..depth {
            let mut f = PlanNode::new(
                NodeKind::Filter {
                    condition: Expr::Literal("true".into()),
                },
                "Filter",
            );
            f.children.push(n);
            n = f;
        }
        n
    }

    #[test]
    fn plans_number_nodes_in_pre_order_and_render() {
        let mut root = chain(2);
        let mut sub = PlanNode::new(NodeKind::SubqueryRoot { id: Some(7) }, "Subquery");
        sub.children.push(chain(0));
        root.subqueries.push(sub);
        let p = Plan::new(root);
        assert_eq!(p.len(), 5);
        let mut ids = Vec::new();
        p.apply(|n| {
            ids.push((n.id.0, n.name.clone()));
            Recursion::Continue
        });
        assert_eq!(
            ids,
            [
                (0, "Filter".to_string()),
                (1, "Filter".into()),
                (2, "LocalRelation".into()),
                (3, "Subquery".into()),
                (4, "LocalRelation".into())
            ]
        );
        let mut flow = Vec::new();
        p.apply_data_flow(|n| {
            flow.push(n.id.0);
            Recursion::Continue
        });
        assert_eq!(flow, [0, 1, 2], "the subquery plan (3, 4) is not data flow");
        assert_eq!(
            p.render(),
            "Filter -> [a#1L]\n  Filter -> [a#1L]\n    LocalRelation -> [a#1L]\n  subquery: Subquery -> [a#1L]\n    LocalRelation -> [a#1L]\n"
        );
    }

    #[test]
    fn deep_plans_finish_clone_render_and_drop_on_a_small_stack() {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let p = Plan::new(chain(20_000));
                assert_eq!(p.len(), 20_001);
                assert_eq!(p.output, [Attr::new("a", 1, "L")]);
                let q = p.clone();
                assert_eq!(q.render().lines().count(), 20_001);
                drop(p);
                drop(q);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
