//! Column lineage through Spark plans, join relationships, and the join graph.
#![deny(missing_docs)]

pub mod edges;
pub mod lineage;
pub mod relationships;
pub mod score;
pub mod tables;
