//! Column lineage through Spark plans and join relationships (METHOD.md
//! stage 2); the weighted join graph built from them is the workload
//! crate's (`lakeaudit-workload`).
//!
//! - [`lineage`] maps every attribute exprId of a plan to the base-table
//!   columns it comes from, through every node kind of the plan IR.
//! - [`relationships`] extracts equi-join relationships resolved to base
//!   columns (composite keys together, expression sides marked non-simple).
//! - [`execution`] chooses which of an execution's plans lineage reads.
//! - [`tables`] makes `orders`, `default.orders` and
//!   `spark_catalog.default.orders` one table.
//!
//! ```
//! use graph::relationships::relationships;
//! use parsers::plan::extended;
//!
//! // An optimized logical plan as Spark prints it (pyspark 4.0.1).
//! let text = "\
//! Join LeftSemi, (o_custkey#35L = c_custkey#31L)
//! :- Relation spark_catalog.default.orders[o_orderkey#34L,o_custkey#35L,o_total#36] parquet
//! +- Project [c_custkey#31L]
//!    +- Relation spark_catalog.default.customer[c_custkey#31L,c_nationkey#32L,c_name#33] parquet
//! ";
//! let plan = extended::parse_tree(text).unwrap();
//! let rels = relationships(&plan);
//! assert_eq!(rels.len(), 1);
//! let r = &rels[0];
//! // The smaller `table.column` list goes on the left.
//! assert_eq!(r.left_table, "spark_catalog.default.customer");
//! assert_eq!(r.left_columns, ["c_custkey"]);
//! assert_eq!(r.right_table, "spark_catalog.default.orders");
//! assert_eq!(r.right_columns, ["o_custkey"]);
//! assert_eq!(r.join_type, "LeftSemi");
//! ```
#![deny(missing_docs)]

pub mod execution;
pub mod lineage;
pub mod relationships;
pub mod tables;
