//! Plan parsing: every plan form Spark writes becomes one [`plan::node::Plan`] (the Spark plan).
//!
//! | source | module |
//! |---|---|
//! | formatted `physicalPlanDescription` | [`formatted`] |
//! | extended-mode text (`== Physical Plan ==`, logical sections) | [`extended`] |
//! | `sparkPlanInfo` JSON | [`spark_plan_info`] |
//! | `TreeNode.toJSON` arrays (a test oracle: see the module) | [`tree_json`] |
//!
//! Expressions in every text form are parsed by [`expr`]. What a plan
//! means (the IR, the operator registry, the output pass, the walks) is the
//! `lakeaudit-plan` crate, reached by that one path (`plan::…`), not
//! through this module.

mod args;
pub mod expr;
pub mod extended;
pub mod formatted;
pub mod spark_plan_info;
pub mod tree_json;

/// A plan-crate error (a depth over the budget) as this crate's error.
pub(crate) fn plan_error(what: &str, e: ::plan::Error) -> crate::Error {
    crate::Error::Plan(format!("{what}: {e}"))
}
