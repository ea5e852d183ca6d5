//! What a Spark plan means, independent of how it was written down.
//!
//! Spark writes the plan of every SQL execution several ways: formatted and
//! extended explain text, the `sparkPlanInfo` JSON tree, TreeNode JSON.
//! Parsers (in `lakeaudit-parsers`) read each into this crate's IR, and
//! everything that interprets a plan lives here, once:
//!
//! - the IR: [`PlanNode`] with its [`NodeKind`], typed [`JoinType`],
//!   [`BinaryOp`] and [`Expr`];
//! - [`registry`]: which operator names are which kind of node (and which
//!   engine runs them), for every parser;
//! - [`output`]: the one pass that derives each node's output attributes
//!   from what the source stated;
//! - [`tree`]: the [`TreeNode`] walks (`apply`, `visit`, `exists`,
//!   `transform_up`/`transform_down`), safe at any depth, with one
//!   [`DEPTH_BUDGET`] for every source;
//! - [`list`]: the one splitter of Spark's printed lists at their
//!   top-level commas;
//! - [`predicate`]: a scan's printed filters as typed predicates on its
//!   columns (typed by its `ReadSchema`), for file skipping;
//! - [`iceberg_filters`]: the same from an Iceberg scan's own filter text
//!   (`BatchScan … [filters=…, groupedBy=]`), typed by the table's schema;
//! - [`Plan`]: a finished tree (outputs derived, nodes numbered by
//!   [`NodeId`]) that analyses take.
//!
//! ```
//! use plan::{operator, Attr, Expr, Family, JoinInfo, JoinStrategy, JoinType, NodeKind};
//! use plan::{Plan, PlanNode, Recursion, ScanInfo, TreeNode};
//!
//! // `LeftSemi` joins output their left side only.
//! let scan = |t: &str, a: Attr| {
//!     let mut n = PlanNode::new(NodeKind::Scan(ScanInfo { table: t.into(), ..ScanInfo::default() }), "Scan");
//!     n.output = vec![a];
//!     n
//! };
//! let (o, c) = (Attr::new("o_custkey", 35, "L"), Attr::new("c_custkey", 31, "L"));
//! assert_eq!(operator("Join", plan::Level::Logical).family, Family::Join(JoinStrategy::Join));
//! let mut join = PlanNode::new(
//!     NodeKind::Join(JoinInfo {
//!         strategy: JoinStrategy::Join,
//!         join_type: JoinType::parse("LeftSemi"),
//!         left_keys: vec![],
//!         right_keys: vec![],
//!         condition: Some(Expr::binary(plan::BinaryOp::Eq, Expr::Attr(o.clone()), Expr::Attr(c.clone()))),
//!         null_aware: false,
//!     }),
//!     "Join",
//! );
//! join.children = vec![scan("orders", o.clone()), scan("customer", c)];
//! let plan = Plan::new(join);
//! assert_eq!(plan.output, [o]);
//! let mut tables = Vec::new();
//! plan.apply(|n| {
//!     if let NodeKind::Scan(s) = &n.kind {
//!         tables.push((n.id.0, s.table.clone()));
//!     }
//!     Recursion::Continue
//! });
//! assert_eq!(tables, [(1, "orders".to_string()), (2, "customer".to_string())]);
//! ```
#![deny(missing_docs)]

pub mod error;
pub mod expr;
pub mod iceberg_filters;
pub mod list;
pub mod node;
pub mod output;
pub mod predicate;
pub mod registry;
pub mod tree;

pub use error::Error;
pub use expr::{
    attr_of_item, output_attrs, Attr, BinaryOp, Expr, ExprId, NullOrdering, SortDirection,
    SubqueryExpr, SubqueryKind, UnaryOp,
};
pub use node::{
    join_type_text, JoinInfo, JoinStrategy, JoinType, Metric, NodeId, NodeKind, Plan, PlanNode,
    PlanSource, ScanInfo, Side,
};
pub use output::derive_outputs;
pub use registry::{operator, operator_word, Family, Level, Operator, Runtime};
pub use tree::{guard, Recursion, TreeNode, TreeNodeVisitor, DEPTH_BUDGET};
