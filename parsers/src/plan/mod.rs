//! Plan parsing: every plan form Spark writes becomes one [`PlanNode`] tree.
//!
//! | source | module |
//! |---|---|
//! | formatted `physicalPlanDescription` | [`formatted`] |
//! | extended-mode text (`== Physical Plan ==`, logical sections) | [`extended`] |
//! | `sparkPlanInfo` JSON | [`spark_plan_info`] |
//! | `TreeNode.toJSON` arrays | [`tree_json`] |
//!
//! Expressions in every text form are parsed by [`expr`].

pub mod expr;
pub mod extended;
pub mod formatted;
mod ir;
pub mod spark_plan_info;
pub mod tree_json;

pub use ir::*;
