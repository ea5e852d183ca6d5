//! What one SQL execution contributes: its relationships, resolved through
//! whichever of its plans the log carries.
//!
//! A `CommandResult` execution (`spark.sql("INSERT ...").collect()` logs the
//! command, then an execution whose plan is `CommandResult` over the
//! command's tree) contributes no relationships: the joins ran once, in the
//! command's execution.

use crate::lineage::Lineage;
use crate::relationships::{relationships, relationships_with, Relationship};
use plan::Plan;

/// The plans one execution's log carries.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExecutionPlans<'a> {
    /// The executed physical plan (the final adaptive plan when there is one).
    pub physical: Option<&'a Plan>,
    /// The optimized logical plan (extended explain mode only).
    pub optimized: Option<&'a Plan>,
    /// The analyzed logical plan (extended explain mode only).
    pub analyzed: Option<&'a Plan>,
}

/// The join relationships of one execution. Joins are read from the plan
/// that ran (physical, else optimized, else analyzed). In extended mode the
/// physical text prints aggregate outputs without their aliases; the
/// optimized plan shares its exprIds and has them, so lineage resolves
/// through both.
pub fn execution_relationships(plans: ExecutionPlans<'_>) -> Vec<Relationship> {
    if plans
        .physical
        .is_some_and(|p| is_command_result(p) || defines_a_view(p))
    {
        return Vec::new();
    }
    match (plans.physical, plans.optimized) {
        (Some(p), Some(o)) => relationships_with(p, &Lineage::build_all(&[p, o])),
        (p, o) => p
            .or(o)
            .or(plans.analyzed)
            .map(relationships)
            .unwrap_or_default(),
    }
}

/// Whether a plan reports the rows of a command that ran in an earlier
/// execution (`CommandResult` over a repeat of the command's tree): its
/// joins are that execution's, not its own.
pub fn is_command_result(plan: &Plan) -> bool {
    plan::operator_word(&top_operator(plan).name) == "CommandResult"
}

/// The first operator below the root's single-child pass-throughs.
fn top_operator(plan: &Plan) -> &plan::PlanNode {
    let mut n: &plan::PlanNode = plan;
    while let (plan::NodeKind::PassThrough, [child]) = (&n.kind, n.children.as_slice()) {
        n = child;
    }
    n
}

/// Whether a plan only defines a view (`CREATE VIEW`, `ALTER VIEW ... AS`,
/// `createOrReplaceTempView`): extended explain mode prints the view's
/// query under the command, but its joins run later, in the executions that
/// read the view, not here.
pub fn defines_a_view(plan: &Plan) -> bool {
    let n = top_operator(plan);
    matches!(n.kind, plan::NodeKind::Command)
        && n.name.split_whitespace().any(|w| {
            matches!(
                w,
                "CreateViewCommand" | "AlterViewAsCommand" | "CreateTempViewUsing"
            )
        })
}
