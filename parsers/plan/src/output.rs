//! The one pass that derives every node's output attributes.
//!
//! Plan sources differ in what they print: formatted text states most
//! operators' `Output`, logical text prints output lists only for projects,
//! aggregates and leaves, `sparkPlanInfo` prints leaf columns and project
//! lists, TreeNode JSON prints leaf outputs. Parsers record what their
//! source states; [`derive_outputs`] fills every other node's output from
//! its kind and its children, bottom-up, by one set of rules:
//!
//! | kind | output when the source states none |
//! |---|---|
//! | `Project`, `TakeOrderedAndProject`, `Aggregate` | the attributes its list defines ([`output_attrs`]) |
//! | `Filter`, `Sort`, `Limit`, `Exchange`, `SubqueryAlias`, `SubqueryRoot`, `Union`, `Reused` | its first child's |
//! | `PassThrough` | its last child's (`WithCTE` lists the CTE definitions first, the query last) |
//! | `Join` | left then right; left only for semi, anti and existence joins ([`crate::JoinType::outputs_left_only`]), plus the `exists` flag of an existence join |
//! | `Window` | its child's, then the window attributes |
//! | `Generate` | its child's, then the generator's |
//! | `Other`, `Unknown` | its children's, in order: an operator lineage does not model repeats the attributes it passes on (a cached relation under `InMemoryTableScan`), and lineage derives only what is new |
//! | `Scan`, `LocalData`, `Expand`, `Command` | only what the source states (nothing) |
//!
//! A node whose output is stated (non-empty) keeps it: the pass only
//! fills, so running it twice changes nothing.

use crate::expr::{output_attrs, Attr};
use crate::node::{JoinType, NodeKind, Plan, PlanNode};
use crate::tree::TreeNode;

/// Fill the output of every node of a tree whose source stated none (see
/// the module docs), children before parents.
pub fn derive_outputs(root: PlanNode) -> PlanNode {
    root.transform_up(|mut n| {
        if n.output.is_empty() {
            n.output = derived(&n);
        }
        n
    })
}

/// The output a node's kind and children imply.
fn derived(n: &PlanNode) -> Vec<Attr> {
    let first = || {
        n.children
            .first()
            .map(|c| c.output.clone())
            .unwrap_or_default()
    };
    match &n.kind {
        NodeKind::Project { list } => output_attrs(list),
        NodeKind::Limit { list } if !list.is_empty() => output_attrs(list),
        NodeKind::Aggregate { results, .. } => output_attrs(results),
        NodeKind::Limit { .. }
        | NodeKind::Filter { .. }
        | NodeKind::Sort { .. }
        | NodeKind::Exchange
        | NodeKind::SubqueryAlias { .. }
        | NodeKind::SubqueryRoot { .. }
        | NodeKind::Union
        | NodeKind::Reused { .. } => first(),
        NodeKind::PassThrough => n
            .children
            .last()
            .map(|c| c.output.clone())
            .unwrap_or_default(),
        NodeKind::Join(j) => {
            let mut v = first();
            if let JoinType::ExistenceJoin(exists) = &j.join_type {
                v.push(exists.clone());
            }
            if !j.join_type.outputs_left_only() {
                if let Some(r) = n.children.get(1) {
                    v.extend(r.output.iter().cloned());
                }
            }
            v
        }
        NodeKind::Window { exprs, .. } => {
            let mut v = first();
            v.extend(output_attrs(exprs));
            v
        }
        NodeKind::Generate {
            generator_output, ..
        } => {
            let mut v = first();
            v.extend(generator_output.iter().cloned());
            v
        }
        NodeKind::Other | NodeKind::Unknown => n
            .children
            .iter()
            .flat_map(|c| c.output.iter().cloned())
            .collect(),
        NodeKind::Scan(_) | NodeKind::LocalData | NodeKind::Expand { .. } | NodeKind::Command => {
            Vec::new()
        }
    }
}

impl Plan {
    /// Finish a tree: derive every output the source did not state
    /// ([`derive_outputs`]), number the nodes.
    pub fn new(root: PlanNode) -> Plan {
        Plan::numbered(derive_outputs(root))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Expr;
    use crate::node::{JoinInfo, JoinStrategy, ScanInfo};

    fn scan(cols: &[(&str, u64)]) -> PlanNode {
        let mut n = PlanNode::new(NodeKind::Scan(ScanInfo::default()), "Scan");
        n.output = cols.iter().map(|(c, i)| Attr::new(*c, *i, "")).collect();
        n
    }

    fn join(jt: &str, l: PlanNode, r: PlanNode) -> PlanNode {
        let mut n = PlanNode::new(
            NodeKind::Join(JoinInfo {
                strategy: JoinStrategy::Join,
                join_type: JoinType::parse(jt),
                left_keys: vec![],
                right_keys: vec![],
                condition: None,
                null_aware: false,
            }),
            "Join",
        );
        n.children = vec![l, r];
        n
    }

    fn ids(n: &PlanNode) -> Vec<u64> {
        n.output.iter().map(|a| a.id).collect()
    }

    #[test]
    fn joins_output_both_sides_or_the_left_one() {
        let j = |t| derive_outputs(join(t, scan(&[("a", 1)]), scan(&[("b", 2)])));
        assert_eq!(ids(&j("Inner")), [1, 2]);
        assert_eq!(ids(&j("LeftOuter")), [1, 2]);
        assert_eq!(ids(&j("leftsemi")), [1]);
        assert_eq!(ids(&j("LeftAnti")), [1]);
        assert_eq!(ids(&j("ExistenceJoin(exists#9)")), [1, 9]);
    }

    #[test]
    fn wrappers_repeat_their_child_and_stated_outputs_stay() {
        let mut with_cte = PlanNode::new(NodeKind::PassThrough, "WithCTE");
        with_cte.children = vec![scan(&[("cte", 1)]), scan(&[("main", 2)])];
        let mut filter = PlanNode::new(
            NodeKind::Filter {
                condition: Expr::Literal("true".into()),
            },
            "Filter",
        );
        filter.children = vec![with_cte];
        let f = derive_outputs(filter);
        assert_eq!(ids(&f), [2], "WithCTE outputs its last child, the query");
        // A stated output is never replaced.
        let mut p = PlanNode::new(NodeKind::PassThrough, "ColumnarToRow");
        p.output = vec![Attr::new("x", 5, "")];
        p.children = vec![scan(&[("a", 1)])];
        assert_eq!(ids(&derive_outputs(p)), [5]);
        // Unknown operators pass on what their children output; commands
        // state their output or have none.
        let mut u = PlanNode::new(NodeKind::Unknown, "Mystery");
        u.children = vec![scan(&[("a", 1)]), scan(&[("b", 2)])];
        assert_eq!(ids(&derive_outputs(u)), [1, 2]);
        let mut c = PlanNode::new(
            NodeKind::Command,
            "Execute InsertIntoHadoopFsRelationCommand",
        );
        c.children = vec![scan(&[("a", 1)])];
        assert!(derive_outputs(c).output.is_empty());
    }

    #[test]
    fn generate_and_window_add_to_their_child() {
        let mut g = PlanNode::new(
            NodeKind::Generate {
                generator: Expr::Raw("explode(xs#2)".into()),
                generator_output: vec![Attr::new("x", 3, "")],
            },
            "Generate",
        );
        g.children = vec![scan(&[("id", 1), ("xs", 2)])];
        assert_eq!(ids(&derive_outputs(g)), [1, 2, 3]);
        let mut w = PlanNode::new(
            NodeKind::Window {
                exprs: vec![Expr::Alias {
                    child: Box::new(Expr::Raw("rank()".into())),
                    attr: Attr::new("r", 4, ""),
                }],
                partition: vec![],
                order: vec![],
            },
            "Window",
        );
        w.children = vec![scan(&[("id", 1)])];
        assert_eq!(ids(&derive_outputs(w)), [1, 4]);
    }
}
