//! The workload: what the executions of the input did, between the parsed
//! logs (`lakeaudit-parsers`, lineage in `lakeaudit-graph`) and the planner
//! (`lakeaudit-planner`), owned in one place so every later stage reads the
//! same facts.
//!
//! - [`exec`] holds one execution with the relationships its plans resolve
//!   to, loaded from logs ([`ingest`], in parallel, spooled to a temporary
//!   file while they are read: [`spool`]) or from a Spark map job's
//!   records ([`records`]) into the same type.
//! - [`identity`] gives every table one identity across the input: a path
//!   read of a catalog table's location is that catalog table, and an
//!   audited table found on disk is the catalog table the logs saw there.
//! - [`bounds`] holds what an execution's times and figures can be, and
//!   the cap on windows, checked where executions enter.
//! - [`time`] reads the times and window lengths users give and aligns
//!   windows on the calendar.
//! - [`edges`] aggregates relationships of many executions into the edge
//!   table (F, D, C, JIS) per time window; [`score`] holds the JIS maths.
//! - [`windows`] builds a run's edge tables once, over the whole input and
//!   per window, for every stage that reads them.
//!
//! ```
//! use graph::relationships::{Relation, Relationship};
//! use workload::edges::{build_edges, CostMeasure, ExecFacts, RowFallback};
//!
//! // One execution that joined orders to lineitem with a sort-merge join.
//! let join = Relationship {
//!     left_table: "orders".into(),
//!     left_columns: vec!["o_orderkey".into()],
//!     right_table: "lineitem".into(),
//!     right_columns: vec!["l_orderkey".into()],
//!     join_type: Relation::Join(plan::JoinType::Inner),
//!     strategy: plan::JoinStrategy::SortMergeJoin,
//!     non_simple: false,
//!     left_expr: String::new(),
//!     right_expr: String::new(),
//!     preserved_side: None,
//!     left_aggregated: false,
//!     right_aggregated: false,
//!     null_safe: false,
//!     engine: plan::Runtime::Spark,
//! };
//! let mut exec = ExecFacts {
//!     app_id: "app-1".into(),
//!     execution_id: 7,
//!     start_ms: Some(1_791_190_801_980),
//!     duration_ms: Some(1_500),
//!     relationships: vec![join],
//!     ..ExecFacts::default()
//! };
//! exec.add_scan("orders", Some(1_000), Some(64_000));
//! exec.add_scan("default.lineitem", Some(4_000), Some(256_000));
//!
//! let edges = build_edges(&[exec], CostMeasure::Duration, &RowFallback::new());
//! assert_eq!(edges.len(), 1);
//! // Tables are canonical, the smaller `table.column` list on the left.
//! assert_eq!(edges[0].key().label(), "lineitem(l_orderkey) = orders(o_orderkey)");
//! assert_eq!(edges[0].frequency, 1);
//! assert_eq!(edges[0].data_volume, 4_000_000.0);
//! assert_eq!(edges[0].executions.strings(), ["app-1:7"]);
//! ```
//!
//! Fallible calls return the crate's [`Error`] (a time or window that does
//! not parse, a records or aggregates file that is not what lakeaudit
//! writes, with the row and column at fault, the spool's I/O).
#![deny(missing_docs)]

pub mod aggregates;
pub mod apps;
pub mod bounds;
pub mod edges;
pub mod error;
pub mod exec;
pub mod from_logs;
pub mod identity;
pub mod ingest;
pub mod inputs;
pub mod loaded;
pub mod records;
pub mod score;
pub mod spool;
pub mod time;
pub mod windows;

pub use error::{Error, Result};
pub use loaded::{load, Workload};
