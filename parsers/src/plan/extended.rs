//! Extended-mode plan text into the plan IR.
//!
//! With `spark.sql.ui.explainMode=extended` (and in `EXPLAIN EXTENDED`),
//! `physicalPlanDescription` holds up to four sections, each a tree printed
//! by Catalyst's `TreeNode.generateTreeString`:
//!
//! ```text
//! == Parsed Logical Plan ==
//! == Analyzed Logical Plan ==      (first line: the output schema, `name: type, ...`)
//! == Optimized Logical Plan ==
//! == Physical Plan ==
//! ```
//!
//! Tree lines are `prefix + simpleString`. A node at depth `d` has a prefix
//! of `d` three-character units: one per ancestor (`:  ` if that ancestor
//! has later siblings, else three spaces) and a branch (`:- ` for a child
//! with later siblings, `+- ` for the last). Subquery plans
//! (`innerChildren`) are printed right after their host's line two levels
//! deeper, so a line's parent is the nearest earlier line that is less
//! deep: one level up makes it a child, two levels up a subquery of that
//! node. `AdaptiveSparkPlan` prints its plans under `+- == Final Plan ==` /
//! `== Current Plan ==` / `== Initial Plan ==` headers with the plan's root
//! at the header's column and no branch; only the final (or current) plan
//! is kept as the node's child, since the initial plan is not what ran.
//!
//! Operator strings become [`NodeKind`]s (which kind, the operator
//! registry says) with their expressions (parsed by [`super::expr`]) and
//! the output attributes the text prints (Project lists, aggregates, scans,
//! CTE references, ...); the others are derived by the plan crate's output
//! pass. Operators the registry does not know become [`NodeKind::Unknown`]
//! and keep their children.
//!
//! Identities this text offers, and where they go:
//! - scans: the catalog name as printed (`spark_catalog.default.orders`,
//!   `default.orders`, `cat.db.t`); a path-based `FileScan` is named by its
//!   location path; a path-based logical `Relation [cols] parquet` prints no
//!   name or path, so it borrows the name of the physical scan reading the
//!   same exprIds (empty when there is none). Parsed plans'
//!   `'UnresolvedRelation [t]` become scans of the name as written (which
//!   may be a CTE or view name).
//! - exchanges have no operator id here, so `Exchange`/`BroadcastExchange`
//!   carry their `[plan_id=N]` in [`PlanNode::op_id`] and `ReusedExchange`
//!   refers to it in [`NodeKind::Reused`]; `ReusedSubquery` refers to the
//!   subquery's exprId, `CTERelationRef` to the CTE id.
//! - physical aggregates print result attributes but not the aliases that
//!   define them; their `results` are those attributes (the optimized
//!   logical plan has the full aggregate list).
//! - string literals that read as attributes (`Brand#45`) are turned back
//!   into literals when the tree defines every attribute it references.
//!
//! ```
//! let text = "== Physical Plan ==\n\
//! *(1) Project [o_orderkey#17L]\n\
//! +- *(1) Filter isnotnull(o_orderkey#17L)\n   \
//!    +- FileScan parquet spark_catalog.default.orders[o_orderkey#17L] Batched: true, \
//! DataFilters: [isnotnull(o_orderkey#17L)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/w/orders], \
//! PartitionFilters: [], PushedFilters: [IsNotNull(o_orderkey)], ReadSchema: struct<o_orderkey:bigint>\n";
//! let plans = parsers::plan::extended::parse(text).unwrap();
//! let p = plans.physical.unwrap();
//! assert_eq!(p.name, "Project");
//! assert_eq!(p.children[0].children[0].output[0].to_string(), "o_orderkey#17L");
//! ```

use crate::plan::formatted::{is_python_eval, python_eval_list};
use std::collections::HashSet;

use serde::Serialize;

use super::expr::{demote_unknown_attrs, parse_attr_list, parse_expr, parse_expr_list};
use super::plan_error;
use crate::{Error, Result};
use ::plan::predicate::read_schema;
use ::plan::{
    list::split_top_level, operator, Attr, Expr, ExprId, Family, JoinInfo, JoinStrategy, JoinType,
    Level, NodeKind, Plan, PlanNode, Recursion, ScanInfo, TreeNode,
};

/// The plans of an extended-mode description; a section that is absent (or
/// holds no tree, e.g. an analysis error message) is `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExtendedPlans {
    /// `== Parsed Logical Plan ==` (unresolved names: `'Project ['a]`).
    pub parsed: Option<Plan>,
    /// `== Analyzed Logical Plan ==`.
    pub analyzed: Option<Plan>,
    /// `== Optimized Logical Plan ==`.
    pub optimized: Option<Plan>,
    /// `== Physical Plan ==`.
    pub physical: Option<Plan>,
}

/// Parse an extended-mode description. Text without any section header is
/// read as a single tree and returned as the physical plan (explain modes
/// `simple` and `cost` print only that, `== Physical Plan ==` aside).
///
/// Errors only when no section holds a plan tree.
pub fn parse(text: &str) -> Result<ExtendedPlans> {
    let sections = split_sections(text);
    if sections.is_empty() {
        return Ok(ExtendedPlans {
            physical: Some(parse_tree(text)?),
            ..ExtendedPlans::default()
        });
    }
    // [parsed, analyzed, optimized, physical] before the output pass.
    let mut trees: [Option<PlanNode>; 4] = [None, None, None, None];
    for (section, body) in sections {
        if is_error_text(body) {
            // `== Analyzed Logical Plan ==` followed by the analysis error.
            continue;
        }
        let body = match section {
            Section::Analyzed => skip_schema_line(body),
            _ => body,
        };
        let Ok(tree) = parse_node(body) else {
            continue;
        };
        let slot = match section {
            Section::Parsed => 0,
            Section::Analyzed => 1,
            Section::Optimized => 2,
            Section::Physical => 3,
        };
        trees[slot] = Some(tree);
    }
    if trees.iter().all(Option::is_none) {
        return Err(Error::Plan("extended plan text holds no plan tree".into()));
    }
    name_path_relations(&mut trees);
    let [parsed, analyzed, optimized, physical] = trees.map(|t| t.map(Plan::new));
    Ok(ExtendedPlans {
        parsed,
        analyzed,
        optimized,
        physical,
    })
}

/// Parse one tree printed by `TreeNode.treeString` (no section headers).
pub fn parse_tree(text: &str) -> Result<Plan> {
    parse_node(text).map(Plan::new)
}

/// One tree, with the outputs its text states.
fn parse_node(text: &str) -> Result<PlanNode> {
    let lines = scan_lines(text);
    if lines.is_empty() {
        return Err(Error::Plan("no plan tree in text".into()));
    }
    let root = build(lines)?;
    // Spark's truncatedString: `[a#1, b#2, ... 30 more fields]` hides
    // attribute definitions.
    let truncated = text.contains(" more fields");
    Ok(demote_literal_attrs(root, truncated))
}

/// A path-based logical `Relation [a#1,b#2] parquet` prints no table name
/// or path, but the physical scan of the same attributes (exprIds are kept
/// from analysis to execution) prints its location: borrow that name.
fn name_path_relations(trees: &mut [Option<PlanNode>; 4]) {
    let mut by_id: std::collections::HashMap<ExprId, String> = std::collections::HashMap::new();
    if let Some(p) = &trees[3] {
        p.apply(|n| {
            if let NodeKind::Scan(s) = &n.kind {
                if !s.table.is_empty() {
                    for a in &n.output {
                        by_id.entry(a.id).or_insert_with(|| s.table.clone());
                    }
                }
            }
            Recursion::Continue
        });
    }
    if by_id.is_empty() {
        return;
    }
    // The analyzed and optimized plans.
    for tree in &mut trees[1..3] {
        *tree = tree.take().map(|t| {
            t.transform_up(|mut n| {
                let found = n.output.iter().find_map(|a| by_id.get(&a.id)).cloned();
                if let (NodeKind::Scan(s), Some(t)) = (&mut n.kind, found) {
                    if s.table.is_empty() {
                        s.table = t;
                    }
                }
                n
            })
        });
    }
}

// ---------------------------------------------------------------------------
// Sections

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    Parsed,
    Analyzed,
    Optimized,
    Physical,
}

/// The sections in order of appearance, each with its body text.
fn split_sections(text: &str) -> Vec<(Section, &str)> {
    let mut heads: Vec<(Section, usize, usize)> = Vec::new(); // (section, header start, body start)
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let section = match line.trim_end() {
            "== Parsed Logical Plan ==" => Some(Section::Parsed),
            "== Analyzed Logical Plan ==" => Some(Section::Analyzed),
            "== Optimized Logical Plan ==" => Some(Section::Optimized),
            "== Physical Plan ==" => Some(Section::Physical),
            _ => None,
        };
        if let Some(s) = section {
            heads.push((s, pos, pos + line.len()));
        }
        pos += line.len();
    }
    let mut out = Vec::with_capacity(heads.len());
    for (k, &(s, _, body)) in heads.iter().enumerate() {
        let end = heads.get(k + 1).map_or(text.len(), |h| h.1);
        out.push((s, text.get(body..end).unwrap_or("")));
    }
    out
}

/// A section holding an exception message instead of a tree
/// (`org.apache.spark.sql.catalyst.ExtendedAnalysisException: ...`).
fn is_error_text(body: &str) -> bool {
    let first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let word = first.split_whitespace().next().unwrap_or("");
    let word = word.trim_end_matches(':');
    word.contains('.') && (word.ends_with("Exception") || word.ends_with("Error"))
}

/// The analyzed section starts with the output schema (`a: bigint, b:
/// string`) when the plan has output; the tree's root is the next line at
/// column 0.
fn skip_schema_line(body: &str) -> &str {
    let mut lines = body.split_inclusive('\n').filter(|l| !l.trim().is_empty());
    let (Some(first), Some(second)) = (lines.next(), lines.next()) else {
        return body;
    };
    let second_is_root = !second.starts_with([' ', ':', '+']);
    if second_is_root {
        let start = body.find(first).map_or(0, |p| p + first.len());
        return body.get(start..).unwrap_or(body);
    }
    body
}

// ---------------------------------------------------------------------------
// Lines and tree shape

/// One operator line.
#[derive(Debug)]
struct Line {
    /// Column where the operator text starts.
    col: usize,
    /// `== Final Plan ==` and friends.
    header: bool,
    /// The operator text (continuation lines appended).
    text: String,
}

/// Split text into operator lines; lines that are neither a tree line nor a
/// plan root after an AQE header continue the previous operator's text
/// (multi-line strings such as a view's SQL text).
fn scan_lines(text: &str) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for raw in text.lines() {
        if raw.trim().is_empty() {
            continue;
        }
        let b = raw.as_bytes();
        let mut k = 0;
        let mut branch = false;
        while k + 3 <= b.len() {
            match &b[k..k + 3] {
                b"   " | b":  " => k += 3,
                b"+- " | b":- " => {
                    k += 3;
                    branch = true;
                    break;
                }
                _ => break,
            }
        }
        // Trailing spaces of an indentation-only unit (`:` then the text).
        let body = raw.get(k..).unwrap_or("").trim_end();
        let header = branch && body.starts_with("== ") && body.ends_with(" ==");
        let after_header = out.last().is_some_and(|l| l.header);
        let is_node = out.is_empty() || branch || after_header;
        if is_node {
            out.push(Line {
                col: k,
                header,
                text: body.to_string(),
            });
        } else if let Some(prev) = out.last_mut() {
            prev.text.push('\n');
            prev.text.push_str(raw.trim());
        }
    }
    out
}

/// A line in the arena while the tree is being assembled.
struct Slot {
    line: Line,
    /// Depth key: `2 * col` for operators, one less for AQE headers so the
    /// plan root printed at a header's column nests under it.
    key: usize,
    children: Vec<usize>,
    subqueries: Vec<usize>,
}

fn build(lines: Vec<Line>) -> Result<PlanNode> {
    let mut slots: Vec<Slot> = Vec::with_capacity(lines.len());
    let mut stack: Vec<usize> = Vec::new();
    let mut root: Option<usize> = None;
    for line in lines {
        ::plan::Error::check_depth(line.col / 3).map_err(|e| plan_error("plan text", e))?;
        let me = slots.len();
        let key = if line.header {
            (2 * line.col).saturating_sub(1)
        } else {
            2 * line.col
        };
        if line.header {
            // A header belongs to the nearest AdaptiveSparkPlan at or left of
            // its column (nested ones print it at their own column).
            let host = stack.iter().rposition(|&s| {
                slots
                    .get(s)
                    .is_some_and(|p| is_adaptive(&p.line.text) && p.line.col <= line.col)
            });
            match host {
                Some(h) => stack.truncate(h + 1),
                None => pop_to(&mut stack, &slots, key),
            }
        } else {
            pop_to(&mut stack, &slots, key);
        }
        match stack.last().copied() {
            None if root.is_none() => root = Some(me),
            // A second root (stray text): kept out of the tree.
            None => {}
            Some(p) => {
                if let Some(parent) = slots.get_mut(p) {
                    // One column step (6 key units) is a child; a header's
                    // root sits 1 unit deeper; two steps is a subquery.
                    if key.saturating_sub(parent.key) <= 6 || parent.line.header {
                        parent.children.push(me);
                    } else {
                        parent.subqueries.push(me);
                    }
                }
            }
        }
        slots.push(Slot {
            line,
            key,
            children: Vec::new(),
            subqueries: Vec::new(),
        });
        stack.push(me);
    }
    let root = root.ok_or_else(|| Error::Plan("no plan tree in text".into()))?;

    // Children always come after their parent, so building from the last
    // line backwards finds every child finished (no recursion).
    let mut built: Vec<Option<PlanNode>> = Vec::with_capacity(slots.len());
    built.resize_with(slots.len(), || None);
    let mut headers: Vec<Option<(String, Vec<PlanNode>)>> = Vec::new();
    headers.resize_with(slots.len(), || None);
    for k in (0..slots.len()).rev() {
        let Some(slot) = slots.get(k) else { continue };
        let take = |ids: &[usize], built: &mut Vec<Option<PlanNode>>| -> Vec<PlanNode> {
            ids.iter()
                .filter_map(|&c| built.get_mut(c).and_then(Option::take))
                .collect()
        };
        if slot.line.header {
            let kids = take(&slot.children, &mut built);
            headers[k] = Some((slot.line.text.clone(), kids));
            continue;
        }
        let mut children = take(&slot.children, &mut built);
        let subqueries = take(&slot.subqueries, &mut built);
        // AdaptiveSparkPlan: keep the final (or current) plan only.
        let plans: Vec<(String, Vec<PlanNode>)> = slot
            .children
            .iter()
            .filter_map(|&c| headers.get_mut(c).and_then(Option::take))
            .collect();
        if !plans.is_empty() {
            let pick = plans
                .iter()
                .position(|(h, _)| h.contains("Final Plan") || h.contains("Current Plan"))
                .unwrap_or(0);
            if let Some((_, kids)) = plans.into_iter().nth(pick) {
                children.extend(kids);
            }
        }
        built[k] = Some(make_node(&slot.line.text, children, subqueries));
    }
    built
        .get_mut(root)
        .and_then(Option::take)
        .ok_or_else(|| Error::Plan("no plan tree in text".into()))
}

fn pop_to(stack: &mut Vec<usize>, slots: &[Slot], key: usize) {
    while let Some(&top) = stack.last() {
        if slots.get(top).is_some_and(|s| s.key >= key) {
            stack.pop();
        } else {
            break;
        }
    }
}

fn is_adaptive(text: &str) -> bool {
    text.starts_with("AdaptiveSparkPlan")
}

// ---------------------------------------------------------------------------
// Operators

/// The first top-level argument and the arguments after it, unsplit (see
/// [`split_top_level`]).
fn take_arg(s: &str) -> (&str, &str) {
    let mut args = split_top_level(s);
    (args.next().unwrap_or(""), args.rest())
}

/// A leading `[...]` group and the text after it.
fn bracket(s: &str) -> Option<(&str, &str)> {
    if !s.starts_with('[') {
        return None;
    }
    let mut depth = 0usize;
    for (k, c) in s.bytes().enumerate() {
        match c {
            b'[' | b'(' => depth += 1,
            b']' | b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some((&s[..=k], &s[k + 1..]));
                }
            }
            _ => {}
        }
    }
    None
}

/// `key=[...]` inside `HashAggregate(keys=[..], functions=[..], output=[..])`.
fn named_list<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    split_top_level(s).find_map(|a| a.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
}

/// `[plan_id=315]` at the end of an exchange.
fn plan_id(s: &str) -> Option<u64> {
    let p = s.rfind("[plan_id=")?;
    let digits: String = s[p + 9..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The operator word and its arguments: `HashAggregate(keys=...)` →
/// (`HashAggregate`, `keys=...`), `Project [a#1]` → (`Project`, `[a#1]`).
fn split_name(text: &str) -> (&str, &str) {
    let end = text.find([' ', '(', '[']).unwrap_or(text.len());
    let (name, rest) = text.split_at(end);
    if let Some(inner) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        // `TakeOrderedAndProject(limit=.., ...)`, `HashAggregate(...)`.
        return (name, inner);
    }
    (name, rest.trim_start())
}

fn exprs(s: &str) -> Vec<Expr> {
    parse_expr_list(s)
}

/// Build one node from its operator text.
fn make_node(text: &str, children: Vec<PlanNode>, subqueries: Vec<PlanNode>) -> PlanNode {
    let mut t = text;
    // Whole-stage codegen marker `*(3) `.
    if let Some(r) = t.strip_prefix("*(") {
        if let Some(p) = r.find(") ") {
            if r[..p].bytes().all(|c| c.is_ascii_digit()) {
                t = &r[p + 2..];
            }
        }
    }
    // Spark 2's codegen marker is a bare `*` (`*BroadcastHashJoin`).
    if let Some(r) = t.strip_prefix('*') {
        if r.starts_with(|c: char| c.is_ascii_alphabetic()) {
            t = r;
        }
    }
    // Unresolved operators of parsed plans: `'Project`.
    let t = t.strip_prefix('\'').unwrap_or(t);
    // Explain mode `cost` appends the statistics.
    let t = match t.rfind(", Statistics(") {
        Some(p) if t.ends_with(')') => &t[..p],
        _ => t,
    };
    let (name, rest) = split_name(t);
    let mut node = line_operator(name, rest, t);
    // A cached relation prints the plan it reads as an inner child, indented
    // like a subquery (`InMemoryTableScan` over `InMemoryRelation` over the
    // cached plan): it is the data the operator reads, so it is a child.
    if children.is_empty() && matches!(name, "InMemoryTableScan" | "InMemoryRelation") {
        node.children = subqueries;
    } else {
        node.children = children;
        node.subqueries = subqueries;
    }
    node
}

fn node(kind: NodeKind, name: &str, output: Vec<Attr>) -> PlanNode {
    let mut n = PlanNode::new(kind, name);
    n.output = output;
    n
}

/// The operator of one line: what it is comes from the operator registry,
/// how its arguments read is this text's syntax for that operator.
fn line_operator(name: &str, rest: &str, full: &str) -> PlanNode {
    let op = operator(name, Level::Any);
    let mut n = match op.family {
        // Outputs of project lists are derived from the lists.
        // `BatchEvalPython [udf(x#1)#5L], [pythonUDF0#6L]`: each call
        // aliased to its result (extended text does not print the input).
        Family::Project if is_python_eval(name) => node(
            NodeKind::Project {
                list: python_eval_list(rest, &[]),
            },
            name,
            Vec::new(),
        ),
        Family::Project => node(NodeKind::Project { list: exprs(rest) }, name, Vec::new()),
        Family::Filter => node(
            NodeKind::Filter {
                condition: parse_expr(rest),
            },
            name,
            Vec::new(),
        ),
        Family::Join(JoinStrategy::Join) => logical_join(rest),
        Family::Join(
            s @ (JoinStrategy::BroadcastHashJoin
            | JoinStrategy::SortMergeJoin
            | JoinStrategy::ShuffledHashJoin),
        ) => hash_join(name, s, rest),
        Family::Join(JoinStrategy::BroadcastNestedLoopJoin) => {
            // `BuildRight, Inner[, condition]`
            let (_build, r) = take_arg(rest);
            let (join_type, r) = take_arg(r);
            join_node(
                name,
                JoinStrategy::BroadcastNestedLoopJoin,
                join_type,
                vec![],
                vec![],
                r,
                false,
            )
        }
        Family::Join(JoinStrategy::CartesianProduct) => join_node(
            name,
            JoinStrategy::CartesianProduct,
            "Inner",
            vec![],
            vec![],
            rest,
            false,
        ),
        Family::Aggregate if name == "Aggregate" => {
            // `Aggregate [grouping], [results]`; Spark's argString drops
            // empty lists, so a global aggregate prints only `[results]`.
            let (first, r) = take_arg(rest);
            let (second, _) = take_arg(r);
            let (grouping, results) = if second.starts_with('[') {
                (first, second)
            } else {
                ("", first)
            };
            node(
                NodeKind::Aggregate {
                    grouping: exprs(grouping),
                    results: exprs(results),
                },
                name,
                Vec::new(),
            )
        }
        Family::Aggregate => {
            // `HashAggregate(keys=[..], functions=[..], output=[..])`.
            let keys = named_list(rest, "keys").or_else(|| named_list(rest, "key"));
            // The physical text prints result attributes, not the aliases
            // defining them (the optimized logical plan has those).
            let output = named_list(rest, "output")
                .map(parse_attr_list)
                .unwrap_or_default();
            node(
                NodeKind::Aggregate {
                    grouping: keys.map(exprs).unwrap_or_default(),
                    results: output.iter().cloned().map(Expr::Attr).collect(),
                },
                name,
                output,
            )
        }
        Family::Scan => scan(name, rest),
        Family::SubqueryAlias => node(
            NodeKind::SubqueryAlias {
                alias: rest.trim().to_string(),
            },
            name,
            Vec::new(),
        ),
        Family::Sort => {
            let (order, _) = take_arg(rest);
            node(
                NodeKind::Sort {
                    order: exprs(order),
                },
                name,
                Vec::new(),
            )
        }
        Family::Limit => node(NodeKind::Limit { list: Vec::new() }, name, Vec::new()),
        Family::TopK => {
            let list = named_list(rest, "output").map(exprs).unwrap_or_default();
            node(NodeKind::Limit { list }, name, Vec::new())
        }
        Family::Window => {
            // `Window [exprs], [partition], [order]`; an empty partition or
            // order list is not printed at all.
            let mut lists = split_top_level(rest)
                .filter(|s| s.starts_with('['))
                .map(exprs);
            let exprs = lists.next().unwrap_or_default();
            let (mut partition, mut order) = (Vec::new(), Vec::new());
            for l in lists {
                if l.first()
                    .is_some_and(|e| matches!(e, Expr::SortOrder { .. }))
                {
                    order = l;
                } else {
                    partition = l;
                }
            }
            node(
                NodeKind::Window {
                    exprs,
                    partition,
                    order,
                },
                name,
                Vec::new(),
            )
        }
        Family::Expand => {
            let (projs, r) = take_arg(rest);
            let (out, _) = take_arg(r);
            let inner = projs
                .strip_prefix('[')
                .and_then(|p| p.strip_suffix(']'))
                .unwrap_or("");
            let mut projections = Vec::new();
            let mut s = inner.trim_start();
            while let Some((b, r)) = bracket(s) {
                projections.push(exprs(b));
                s = r.trim_start_matches([',', ' ']);
            }
            node(NodeKind::Expand { projections }, name, parse_attr_list(out))
        }
        Family::Generate => {
            let a: Vec<&str> = split_top_level(rest).collect();
            let generator = a
                .first()
                .map_or(Expr::Raw(String::new()), |g| parse_expr(g));
            let generator_output = a
                .last()
                .filter(|s| s.starts_with('['))
                .map(|s| parse_attr_list(s))
                .unwrap_or_default();
            // Physical: generator, [required child output], outer,
            // [generator output] states the whole output. Logical:
            // generator, [unrequired child indexes], outer, qualifier,
            // [generator output]: the child's attributes pass through
            // (derived).
            let out = match a.as_slice() {
                [_, required, _, _] if required.starts_with('[') => {
                    let mut v = parse_attr_list(required);
                    v.extend(generator_output.iter().cloned());
                    v
                }
                _ => Vec::new(),
            };
            node(
                NodeKind::Generate {
                    generator,
                    generator_output,
                },
                name,
                out,
            )
        }
        Family::Union => node(NodeKind::Union, name, Vec::new()),
        Family::Exchange => {
            let mut n = node(NodeKind::Exchange, name, Vec::new());
            // The plan id is the only identity an exchange has in this text;
            // `ReusedExchange` refers to it.
            n.op_id = plan_id(rest);
            n
        }
        Family::Reused => match name {
            "ReusedExchange" => {
                let (cols, _) = take_arg(rest);
                node(
                    NodeKind::Reused {
                        target: plan_id(rest),
                    },
                    name,
                    parse_attr_list(cols),
                )
            }
            "CTERelationRef" => {
                // `CTERelationRef 0, true, [a#1, b#2], false, false`
                let a: Vec<&str> = split_top_level(rest).collect();
                let target = a.first().and_then(|s| s.trim().parse().ok());
                let out = a
                    .iter()
                    .find(|s| s.starts_with('['))
                    .map(|s| parse_attr_list(s))
                    .unwrap_or_default();
                node(NodeKind::Reused { target }, name, out)
            }
            // `ReusedSubquery Subquery subquery#446, [id=#6644]`.
            _ => node(
                NodeKind::Reused {
                    target: subquery_id(rest),
                },
                name,
                Vec::new(),
            ),
        },
        Family::SubqueryRoot => {
            let id = if name == "CTERelationDef" {
                // `CTERelationDef 0, false`
                take_arg(rest).0.trim().parse().ok()
            } else {
                subquery_id(rest)
            };
            node(NodeKind::SubqueryRoot { id }, name, Vec::new())
        }
        Family::PassThrough => node(NodeKind::PassThrough, name, Vec::new()),
        Family::LocalData => {
            // `LocalRelation [a#1, b#2]`, `LocalRelation <empty>, [a#1]`.
            let cols = split_top_level(rest)
                .find(|s| s.starts_with('['))
                .unwrap_or("");
            node(NodeKind::LocalData, name, parse_attr_list(cols))
        }
        Family::Command if name == "Execute" => node(NodeKind::Command, full, Vec::new()),
        Family::Command => node(NodeKind::Command, name, Vec::new()),
        Family::Other | Family::Unknown => {
            // Keep any attribute list it prints first.
            let output = bracket(rest)
                .map(|(b, _)| parse_attr_list(b))
                .unwrap_or_default();
            let kind = if op.family == Family::Other {
                NodeKind::Other
            } else {
                NodeKind::Unknown
            };
            node(kind, name, output)
        }
    };
    n.engine = op.engine;
    n
}

/// A scan line, in the syntax of its operator.
fn scan(name: &str, rest: &str) -> PlanNode {
    match name {
        "Relation" => relation(rest),
        "RelationV2" => {
            // `RelationV2[id#0L, k#1L] parquet file:/data/t` (file source:
            // format and path) or `RelationV2[a#1] cat.db.t` (catalog table).
            let (cols, after) = bracket(rest).unwrap_or(("", rest));
            let words: Vec<&str> = after.split_whitespace().collect();
            let (format, table) = match words.as_slice() {
                [] => (None, ""),
                [t] => (None, *t),
                [f, t, ..] => (Some(f.to_string()), *t),
            };
            node(
                NodeKind::Scan(ScanInfo {
                    table: table.to_string(),
                    format,
                    ..ScanInfo::default()
                }),
                name,
                parse_attr_list(cols),
            )
        }
        "FileScan" | "BatchScan" => file_scan(name, rest),
        "UnresolvedRelation" => {
            // `'UnresolvedRelation [partsupp], [], false`: the name as
            // written in the query (a table, view or CTE name).
            let ident = bracket(rest).map_or("", |(b, _)| b);
            let table = ident
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(", ")
                .collect::<Vec<_>>()
                .join(".");
            node(
                NodeKind::Scan(ScanInfo {
                    table,
                    ..ScanInfo::default()
                }),
                name,
                Vec::new(),
            )
        }
        "HiveTableRelation" | "HiveTableScan" => hive(name, rest),
        _ => {
            // `Scan parquet spark_catalog.default.t` (formatted-style line)
            // and other scans: `<format> <table>[cols]`. One that names no
            // table (`Scan ExistingRDD[a#1]`) reads local data.
            let (head, cols) = match rest.find('[') {
                Some(p) => (&rest[..p], &rest[p..]),
                None => (rest, ""),
            };
            let output = parse_attr_list(cols);
            let mut words = head.split_whitespace();
            if name == "Scan" && head.trim().is_empty() {
                // `Scan[obj#1]`: an RDD of objects (`ExternalRDD` in the
                // logical plans), named by its object column.
                return node(
                    NodeKind::Scan(ScanInfo {
                        table: crate::plan::formatted::scan_table(name, None, cols),
                        ..ScanInfo::default()
                    }),
                    name,
                    output,
                );
            }
            match (words.next(), words.next()) {
                (Some(format), Some(table)) => node(
                    NodeKind::Scan(ScanInfo {
                        table: table.to_string(),
                        format: Some(format.to_string()),
                        ..ScanInfo::default()
                    }),
                    name,
                    output,
                ),
                _ => node(NodeKind::LocalData, name, output),
            }
        }
    }
}

/// `subquery#446` in `Subquery subquery#446, [id=#6644]` (also behind
/// `ReusedSubquery Subquery ...` and `SubqueryBroadcast dynamicpruning#5, ...`).
fn subquery_id(s: &str) -> Option<u64> {
    let p = s.find('#')?;
    let digits: String = s[p + 1..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Logical `Join Inner[, condition]` (hints, when printed, follow).
fn logical_join(rest: &str) -> PlanNode {
    let (join_type, cond) = take_arg(rest);
    // Strip printed join hints: `..., leftHint=(strategy=broadcast)`.
    let cond = match cond
        .find(", leftHint=")
        .or_else(|| cond.find(", rightHint="))
    {
        Some(p) => &cond[..p],
        None if cond.starts_with("leftHint=") || cond.starts_with("rightHint=") => "",
        None => cond,
    };
    join_node(
        "Join",
        JoinStrategy::Join,
        join_type,
        vec![],
        vec![],
        cond,
        false,
    )
}

/// `BroadcastHashJoin [lk], [rk], Inner, BuildRight[, cond], false`,
/// `SortMergeJoin [lk], [rk], Inner[, cond]`,
/// `ShuffledHashJoin [lk], [rk], Inner, BuildRight[, cond]`.
fn hash_join(name: &str, strategy: JoinStrategy, rest: &str) -> PlanNode {
    // AQE's skew join marker: `SortMergeJoin(skew=true) [..]`.
    let rest = rest
        .strip_prefix("(skew=true)")
        .or_else(|| rest.strip_prefix("(skew=false)"))
        .map_or(rest, str::trim_start);
    let (lk, r) = take_arg(rest);
    let (rk, r) = take_arg(r);
    let (join_type, mut r) = take_arg(r);
    let mut null_aware = false;
    if strategy != JoinStrategy::SortMergeJoin {
        // Build side.
        let (build, r2) = take_arg(r);
        if build.starts_with("Build") {
            r = r2;
        }
    }
    if strategy == JoinStrategy::BroadcastHashJoin {
        // `isNullAwareAntiJoin` is the last argument, after the optional
        // condition.
        for (flag, value) in [("true", true), ("false", false)] {
            if r == flag {
                null_aware = value;
                r = "";
            } else if let Some(c) = r.strip_suffix(flag).and_then(|c| c.strip_suffix(", ")) {
                null_aware = value;
                r = c;
            }
        }
    }
    join_node(
        name,
        strategy,
        join_type,
        exprs(lk),
        exprs(rk),
        r,
        null_aware,
    )
}

fn join_node(
    name: &str,
    strategy: JoinStrategy,
    join_type: &str,
    left_keys: Vec<Expr>,
    right_keys: Vec<Expr>,
    cond: &str,
    null_aware: bool,
) -> PlanNode {
    let cond = cond.trim();
    node(
        NodeKind::Join(JoinInfo {
            strategy,
            join_type: JoinType::parse(join_type),
            left_keys,
            right_keys,
            condition: (!cond.is_empty()).then(|| parse_expr(cond)),
            null_aware,
        }),
        name,
        Vec::new(),
    )
}

/// `Relation spark_catalog.default.part[p_partkey#120L,...] parquet`
/// (`Relation [a#1] parquet` for a path-based read: the table name is then
/// unknown here and left empty).
fn relation(rest: &str) -> PlanNode {
    let (table, cols_fmt) = match rest.find('[') {
        Some(p) => (rest[..p].trim(), &rest[p..]),
        None => (rest.trim(), ""),
    };
    let (cols, format) = bracket(cols_fmt).unwrap_or(("", cols_fmt));
    let format = format.trim();
    node(
        NodeKind::Scan(ScanInfo {
            table: table.to_string(),
            format: (!format.is_empty()).then(|| format.to_string()),
            ..ScanInfo::default()
        }),
        "Relation",
        parse_attr_list(cols),
    )
}

/// Metadata keys a file scan prints after its column list, in Spark's
/// (alphabetical) order.
const SCAN_KEYS: &[&str] = &[
    "Batched",
    "Bucketed",
    "DataFilters",
    "DictionaryFilters",
    "Format",
    "Location",
    "PartitionFilters",
    "PushedAggregation",
    "PushedFilters",
    "PushedGroupBy",
    "PushedLimit",
    "PushedOffset",
    "PushedTopN",
    "ReadSchema",
    "RuntimeFilters",
    "SelectedBucketsCount",
];

/// `FileScan parquet spark_catalog.default.part[cols] Batched: true,
/// DataFilters: [...], Format: Parquet, Location: InMemoryFileIndex(1
/// paths)[file:/...], PartitionFilters: [], PushedFilters: [...], ReadSchema:
/// struct<...>` (long lists truncated by Spark with `...`).
fn file_scan(name: &str, rest: &str) -> PlanNode {
    let (head, after) = match rest.find('[') {
        Some(p) => (&rest[..p], &rest[p..]),
        None => (rest, ""),
    };
    let (cols, meta) = bracket(after).unwrap_or(("", after));
    let words: Vec<&str> = head.split_whitespace().collect();
    // `FileScan parquet t[..]`, `FileScan parquet [..]` (path-based),
    // `BatchScan parquet file:/data/t[..]`, `BatchScan cat.db.t[..]`.
    let (format, table) = match words.as_slice() {
        [t] if name == "BatchScan" => (None, *t),
        [f] => (Some(f.to_string()), ""),
        [f, t, ..] => (Some(f.to_string()), *t),
        [] => (None, ""),
    };
    let mut table = table.to_string();
    let mut info = ScanInfo {
        format,
        ..ScanInfo::default()
    };
    for (key, value) in scan_metadata(meta) {
        let v = Some(value.to_string());
        match key {
            "Location" => info.location = v,
            "PushedFilters" => info.pushed_filters = v,
            "PartitionFilters" => info.partition_filters = v,
            "DataFilters" => info.data_filters = v,
            "ReadSchema" => info.read_schema = read_schema(value),
            _ => {}
        }
    }
    if table.is_empty() {
        table = info
            .location
            .as_deref()
            .map(location_path)
            .unwrap_or_default();
    }
    info.table = table;
    // An Iceberg scan describes itself after its columns (`BatchScan
    // lake.db.t[a#1] lake.db.t (branch=null) [filters=…] RuntimeFilters: []`).
    if name == "BatchScan" {
        info.runtime_filters = crate::plan::formatted::runtime_filters_in(meta);
        crate::plan::formatted::iceberg_scan(&mut info, rest);
    }
    node(NodeKind::Scan(info), name, parse_attr_list(cols))
}

/// Split `Key: value, Key: value` at the known keys.
fn scan_metadata(meta: &str) -> Vec<(&str, &str)> {
    let mut marks: Vec<(usize, &str)> = Vec::new();
    for key in SCAN_KEYS {
        let pat = format!("{key}: ");
        let mut from = 0;
        while let Some(p) = meta.get(from..).and_then(|m| m.find(&pat)) {
            let at = from + p;
            let boundary = at == 0 || meta[..at].ends_with(", ") || meta[..at].ends_with(' ');
            if boundary {
                marks.push((at, key));
                break;
            }
            from = at + pat.len();
        }
    }
    marks.sort_unstable();
    let mut out = Vec::with_capacity(marks.len());
    for (k, &(at, key)) in marks.iter().enumerate() {
        let start = at + key.len() + 2;
        let end = marks.get(k + 1).map_or(meta.len(), |m| m.0);
        let value = meta.get(start..end).unwrap_or("").trim_end();
        out.push((key, value.strip_suffix(',').unwrap_or(value)));
    }
    out
}

/// The path(s) inside `InMemoryFileIndex(1 paths)[file:/a/b]`.
fn location_path(loc: &str) -> String {
    match (loc.rfind('['), loc.ends_with(']')) {
        (Some(p), true) => loc[p + 1..loc.len() - 1].to_string(),
        _ => loc.to_string(),
    }
}

/// `HiveTableRelation [`default`.`t`, org.apache..., Data Cols: [a#1, ...], ...]`
/// and `HiveTableScan [a#1, b#2], HiveTableRelation [...]`.
fn hive(name: &str, rest: &str) -> PlanNode {
    let rel = match rest.find("HiveTableRelation [") {
        Some(p) => &rest[p + "HiveTableRelation ".len()..],
        None => rest,
    };
    let inner = rel.strip_prefix('[').unwrap_or(rel);
    let (ident, _) = take_arg(inner);
    let table = ident.replace('`', "");
    let output = if name == "HiveTableScan" {
        bracket(rest)
            .map(|(b, _)| parse_attr_list(b))
            .unwrap_or_default()
    } else {
        let mut cols = Vec::new();
        for key in ["Data Cols: ", "Partition Cols: "] {
            if let Some(p) = rel.find(key) {
                if let Some((b, _)) = bracket(&rel[p + key.len()..]) {
                    cols.extend(parse_attr_list(b));
                }
            }
        }
        cols
    };
    node(
        NodeKind::Scan(ScanInfo {
            table,
            format: Some("hive".into()),
            ..ScanInfo::default()
        }),
        name,
        output,
    )
}

/// Spark prints string literals raw, so `(p_brand#123 = Brand#45)` holds a
/// literal that reads as an attribute. When the tree prints the definition
/// of every attribute (no truncated list, no leaf with an unprinted
/// output), attributes whose exprId nothing defines are turned back into
/// literals.
fn demote_literal_attrs(root: PlanNode, truncated: bool) -> PlanNode {
    let mut known: HashSet<ExprId> = HashSet::new();
    let mut complete = !truncated;
    root.apply(|n| {
        known.extend(n.output.iter().map(|a| a.id));
        if let NodeKind::Generate {
            generator_output, ..
        } = &n.kind
        {
            known.extend(generator_output.iter().map(|a| a.id));
        }
        for e in n.expressions() {
            e.apply(|x| {
                if let Expr::Alias { attr, .. } = x {
                    known.insert(attr.id);
                }
                if let Expr::Raw(r) | Expr::Literal(r) = x {
                    if r.ends_with("...") {
                        complete = false;
                    }
                }
                Recursion::Continue
            });
        }
        let leaf = n.children.is_empty();
        let silent_leaf = leaf
            && n.output.is_empty()
            && !matches!(n.kind, NodeKind::Command | NodeKind::Reused { .. })
            && n.name != "OneRowRelation"
            && n.name != "UnresolvedRelation";
        if silent_leaf {
            complete = false;
        }
        Recursion::Continue
    });
    if !complete {
        return root;
    }
    root.transform_up(|mut n| {
        for e in n.expressions_mut() {
            demote_unknown_attrs(e, &known);
        }
        n
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::plan::predicate::{ColumnType, IntWidth};
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::OnceLock;

    const LOG: &str = "spark-logs/tpch-extended/local-1796009833175";
    const TRUTH: &str = "spark-logs/tpch-truth.json";

    /// `physicalPlanDescription` of every SQL execution start, by id.
    fn descriptions() -> &'static BTreeMap<u64, String> {
        &log_plans().0
    }

    /// The last AQE update's description per execution: the plan that ran.
    fn final_descriptions() -> &'static BTreeMap<u64, String> {
        &log_plans().1
    }

    fn log_plans() -> &'static (BTreeMap<u64, String>, BTreeMap<u64, String>) {
        static D: OnceLock<(BTreeMap<u64, String>, BTreeMap<u64, String>)> = OnceLock::new();
        D.get_or_init(|| {
            let text = testdata::read_to_string(LOG);
            let (mut start, mut last) = (BTreeMap::new(), BTreeMap::new());
            for line in text.lines() {
                let is_start = line.contains("SparkListenerSQLExecutionStart");
                if !is_start && !line.contains("SparkListenerSQLAdaptiveExecutionUpdate") {
                    continue;
                }
                let v: serde_json::Value = serde_json::from_str(line).expect("json line");
                let id = v["executionId"].as_u64().expect("executionId");
                let d = v["physicalPlanDescription"].as_str().expect("description");
                if is_start {
                    start.insert(id, d.to_string());
                } else {
                    last.insert(id, d.to_string());
                }
            }
            (start, last)
        })
    }

    fn render_all(p: &ExtendedPlans) -> String {
        let mut s = String::new();
        for (h, t) in [
            ("parsed", &p.parsed),
            ("analyzed", &p.analyzed),
            ("optimized", &p.optimized),
            ("physical", &p.physical),
        ] {
            s.push_str(&format!("== {h} ==\n"));
            s.push_str(&t.as_ref().map_or("(none)\n".to_string(), |t| t.render()));
        }
        s
    }

    fn query(exec: u64) -> ExtendedPlans {
        parse(&descriptions()[&exec]).expect("parse")
    }

    // Executions 8..29 are q01..q22 (executions/tpch-extended.json).
    #[test]
    fn snapshot_q02_correlated_scalar_subquery() {
        insta::assert_snapshot!(render_all(&query(9)));
    }

    #[test]
    fn snapshot_q07_self_join_of_nation() {
        insta::assert_snapshot!(render_all(&query(14)));
    }

    #[test]
    fn snapshot_q13_left_outer_join() {
        insta::assert_snapshot!(render_all(&query(20)));
    }

    #[test]
    fn snapshot_q15_cte() {
        insta::assert_snapshot!(render_all(&query(22)));
    }

    #[test]
    fn snapshot_q16_not_in() {
        insta::assert_snapshot!(render_all(&query(23)));
    }

    #[test]
    fn snapshot_q20_in_subquery() {
        insta::assert_snapshot!(render_all(&query(27)));
    }

    #[test]
    fn snapshot_q21_exists_not_exists() {
        insta::assert_snapshot!(render_all(&query(28)));
    }

    #[test]
    fn snapshot_q22_not_exists_and_scalar_subquery() {
        insta::assert_snapshot!(render_all(&query(29)));
    }

    /// The final physical plan of TPC-H q22 from the last AQE update of the
    /// tpch-extended log (execution 29), up to the top-level initial plan's
    /// first operators.
    const Q22_FINAL: &str = r#"AdaptiveSparkPlan isFinalPlan=true
+- == Final Plan ==
   ResultQueryStage 3
   +- *(4) Sort [cntrycode#713 ASC NULLS FIRST], true, 0
      +- AQEShuffleRead coalesced
         +- ShuffleQueryStage 2
            +- Exchange rangepartitioning(cntrycode#713 ASC NULLS FIRST, 200), ENSURE_REQUIREMENTS, [plan_id=10288]
               +- *(3) HashAggregate(keys=[cntrycode#713], functions=[count(1), sum(c_acctbal#187)], output=[cntrycode#713, numcust#716L, totacctbal#717])
                  +- AQEShuffleRead coalesced
                     +- ShuffleQueryStage 1
                        +- Exchange hashpartitioning(cntrycode#713, 200), ENSURE_REQUIREMENTS, [plan_id=10222]
                           +- *(2) HashAggregate(keys=[cntrycode#713], functions=[partial_count(1), partial_sum(c_acctbal#187)], output=[cntrycode#713, count#733L, sum#734, isEmpty#735])
                              +- *(2) Project [substring(c_phone#186, 1, 2) AS cntrycode#713, c_acctbal#187]
                                 +- *(2) BroadcastHashJoin [c_custkey#182L], [o_custkey#191L], LeftAnti, BuildRight, false
                                    :- *(2) Filter ((isnotnull(c_acctbal#187) AND substring(c_phone#186, 1, 2) IN (13,31,23,29,30,18,17)) AND (cast(c_acctbal#187 as decimal(19,6)) > Subquery subquery#714, [id=#10075]))
                                    :  :  +- Subquery subquery#714, [id=#10075]
                                    :  :     +- AdaptiveSparkPlan isFinalPlan=true
                                             +- == Final Plan ==
                                                ResultQueryStage 1
                                                +- *(2) HashAggregate(keys=[], functions=[avg(c_acctbal#726)], output=[avg(c_acctbal)#720])
                                                   +- ShuffleQueryStage 0
                                                      +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=10254]
                                                         +- *(1) HashAggregate(keys=[], functions=[partial_avg(c_acctbal#726)], output=[sum#738, count#739L])
                                                            +- *(1) Project [c_acctbal#726]
                                                               +- *(1) Filter ((isnotnull(c_acctbal#726) AND (c_acctbal#726 > 0.00)) AND substring(c_phone#725, 1, 2) IN (13,31,23,29,30,18,17))
                                                                  +- *(1) ColumnarToRow
                                                                     +- FileScan parquet spark_catalog.default.customer[c_phone#725,c_acctbal#726] Batched: true, DataFilters: [isnotnull(c_acctbal#726), (c_acctbal#726 > 0.00), substring(c_phone#725, 1, 2) IN (13,31,23,29,3..., Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/srv/lakehouse/warehouse/customer], PartitionFilters: [], PushedFilters: [IsNotNull(c_acctbal), GreaterThan(c_acctbal,0.00)], ReadSchema: struct<c_phone:string,c_acctbal:decimal(15,2)>
                                             +- == Initial Plan ==
                                                HashAggregate(keys=[], functions=[avg(c_acctbal#726)], output=[avg(c_acctbal)#720])
                                                +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=10073]
                                                   +- HashAggregate(keys=[], functions=[partial_avg(c_acctbal#726)], output=[sum#738, count#739L])
                                                      +- Project [c_acctbal#726]
                                                         +- Filter ((isnotnull(c_acctbal#726) AND (c_acctbal#726 > 0.00)) AND substring(c_phone#725, 1, 2) IN (13,31,23,29,30,18,17))
                                                            +- FileScan parquet spark_catalog.default.customer[c_phone#725,c_acctbal#726] Batched: true, DataFilters: [isnotnull(c_acctbal#726), (c_acctbal#726 > 0.00), substring(c_phone#725, 1, 2) IN (13,31,23,29,3..., Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/srv/lakehouse/warehouse/customer], PartitionFilters: [], PushedFilters: [IsNotNull(c_acctbal), GreaterThan(c_acctbal,0.00)], ReadSchema: struct<c_phone:string,c_acctbal:decimal(15,2)>
                                    :  +- *(2) ColumnarToRow
                                    :     +- FileScan parquet spark_catalog.default.customer[c_custkey#182L,c_phone#186,c_acctbal#187] Batched: true, DataFilters: [isnotnull(c_acctbal#187), substring(c_phone#186, 1, 2) IN (13,31,23,29,30,18,17), (cast(c_acctba..., Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/srv/lakehouse/warehouse/customer], PartitionFilters: [], PushedFilters: [IsNotNull(c_acctbal)], ReadSchema: struct<c_custkey:bigint,c_phone:string,c_acctbal:decimal(15,2)>
                                    :           +- ReusedSubquery Subquery subquery#714, [id=#10075]
                                    +- BroadcastQueryStage 0
                                       +- BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, true]),false), [plan_id=10135]
                                          +- *(1) ColumnarToRow
                                             +- FileScan parquet spark_catalog.default.orders[o_custkey#191L] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/srv/lakehouse/warehouse/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_custkey:bigint>
+- == Initial Plan ==
   Sort [cntrycode#713 ASC NULLS FIRST], true, 0
   +- Exchange rangepartitioning(cntrycode#713 ASC NULLS FIRST, 200), ENSURE_REQUIREMENTS, [plan_id=10100]
"#;

    fn find<'a>(p: &'a PlanNode, pred: &dyn Fn(&PlanNode) -> bool) -> Vec<&'a PlanNode> {
        let mut out = Vec::new();
        p.apply(|n| {
            if pred(n) {
                out.push(n);
            }
            Recursion::Continue
        });
        out
    }

    #[test]
    fn aqe_final_plan_with_nested_adaptive_subquery() {
        let p = parse_tree(Q22_FINAL).expect("tree");
        assert_eq!(p.name, "AdaptiveSparkPlan");
        // Only the final plan is kept: no initial-plan Sort under the root.
        assert_eq!(p.children.len(), 1);
        assert_eq!(p.children[0].name, "ResultQueryStage");
        assert_eq!(p.children[0].children[0].name, "Sort");
        let filters = find(&p, &|n| {
            matches!(n.kind, NodeKind::Filter { .. }) && n.subqueries.len() == 1
        });
        let host = filters.first().expect("filter hosting the scalar subquery");
        let sub = &host.subqueries[0];
        assert_eq!(sub.kind, NodeKind::SubqueryRoot { id: Some(714) });
        // The nested AdaptiveSparkPlan prints its headers at its own column.
        let asp = &sub.children[0];
        assert_eq!(asp.name, "AdaptiveSparkPlan");
        assert_eq!(asp.children.len(), 1);
        assert_eq!(asp.children[0].name, "ResultQueryStage");
        assert_eq!(asp.output, vec![Attr::new("avg(c_acctbal)", 720, "")]);
        // After the nested plan, the Filter's own child continues.
        assert_eq!(host.children.len(), 1);
        assert_eq!(host.children[0].name, "ColumnarToRow");
        let scan = &host.children[0].children[0];
        assert!(
            matches!(&scan.kind, NodeKind::Scan(s) if s.table == "spark_catalog.default.customer")
        );
        assert_eq!(scan.subqueries.len(), 1);
        assert_eq!(
            scan.subqueries[0].kind,
            NodeKind::Reused { target: Some(714) }
        );
        let joins = find(&p, &|n| matches!(n.kind, NodeKind::Join(_)));
        assert_eq!(joins.len(), 1);
        let NodeKind::Join(j) = &joins[0].kind else {
            unreachable!()
        };
        assert_eq!(j.join_type, JoinType::LeftAnti);
        assert_eq!(j.left_keys[0].to_string(), "c_custkey#182L");
        assert_eq!(j.right_keys[0].to_string(), "o_custkey#191L");
        assert!(!j.null_aware);
        // Three scans in the final plan (the subquery's, the probe side's,
        // the broadcast side's); the initial plan's are dropped.
        assert_eq!(find(&p, &|n| matches!(n.kind, NodeKind::Scan(_))).len(), 3);
    }

    #[test]
    fn sections_and_schema_line() {
        let text = "== Parsed Logical Plan ==\n\
'Project ['c_custkey]\n\
+- 'UnresolvedRelation [customer], [], false\n\
\n\
== Analyzed Logical Plan ==\n\
c_custkey: bigint\n\
Project [c_custkey#182L]\n\
+- SubqueryAlias spark_catalog.default.customer\n   \
+- Relation spark_catalog.default.customer[c_custkey#182L,c_name#183] parquet\n\
\n\
== Optimized Logical Plan ==\n\
Project [c_custkey#182L]\n\
+- Relation spark_catalog.default.customer[c_custkey#182L,c_name#183] parquet\n\
\n\
== Physical Plan ==\n\
*(1) ColumnarToRow\n\
+- FileScan parquet spark_catalog.default.customer[c_custkey#182L] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/srv/lakehouse/warehouse/customer], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<c_custkey:bigint>\n";
        let p = parse(text).expect("plans");
        let parsed = p.parsed.expect("parsed");
        assert_eq!(
            parsed.children[0].kind,
            NodeKind::Scan(ScanInfo {
                table: "customer".into(),
                ..ScanInfo::default()
            })
        );
        let analyzed = p.analyzed.expect("analyzed");
        assert_eq!(analyzed.name, "Project");
        assert_eq!(analyzed.output, vec![Attr::new("c_custkey", 182, "L")]);
        let rel = &analyzed.children[0].children[0];
        let NodeKind::Scan(s) = &rel.kind else {
            panic!("{rel:?}")
        };
        assert_eq!(
            (s.table.as_str(), s.format.as_deref()),
            ("spark_catalog.default.customer", Some("parquet"))
        );
        assert_eq!(rel.output.len(), 2);
        let phys = p.physical.expect("physical");
        assert_eq!(phys.name, "ColumnarToRow");
        assert_eq!(phys.output, vec![Attr::new("c_custkey", 182, "L")]);
        let NodeKind::Scan(s) = &phys.children[0].kind else {
            panic!()
        };
        assert_eq!(
            s.location.as_deref(),
            Some("InMemoryFileIndex(1 paths)[file:/srv/lakehouse/warehouse/customer]")
        );
        assert_eq!(
            s.read_schema,
            [("c_custkey".into(), ColumnType::Integer(IntWidth::Long))]
        );
        assert_eq!(s.pushed_filters.as_deref(), Some("[]"));
        // A bare tree (explain mode `simple` without its header) is the physical plan.
        let p = parse("*(1) ColumnarToRow\n+- LocalTableScan [a#1]\n").expect("bare");
        assert_eq!(
            p.physical.map(|t| t.output.clone()),
            Some(vec![Attr::new("a", 1, "")])
        );
    }

    #[test]
    fn iceberg_batch_scan_line() {
        // Spark 3.5.6 + Iceberg 1.10.2 (tests/data/iceberg-spark, q18),
        // with a runtime filter as a partitioned table's join prints one.
        let t = "BatchScan lake.tpch.orders[o_orderstatus#9] lake.tpch.orders (branch=audit) \
                 [filters=o_orderstatus IS NOT NULL, o_orderstatus = 'F', groupedBy=] \
                 RuntimeFilters: [dynamicpruningexpression(o_orderdate#3 IN dynamicpruning#7)]";
        let n = make_node(t, vec![], vec![]);
        let NodeKind::Scan(s) = &n.kind else {
            panic!("{n:?}")
        };
        assert_eq!(s.table, "lake.tpch.orders");
        assert_eq!(s.format.as_deref(), Some("iceberg"));
        assert_eq!(s.branch.as_deref(), Some("audit"));
        assert_eq!(
            s.pushed_filters.as_deref(),
            Some("[filters=o_orderstatus IS NOT NULL, o_orderstatus = 'F', groupedBy=]")
        );
        assert_eq!(
            s.runtime_filters.as_deref(),
            Some("[dynamicpruningexpression(o_orderdate#3 IN dynamicpruning#7)]")
        );
        assert_eq!(n.output, vec![Attr::new("o_orderstatus", 9, "")]);
    }

    #[test]
    fn join_operators() {
        // q07 (execution 14): the condition comes before isNullAware.
        let t = "BroadcastHashJoin [c_nationkey#185L], [n_nationkey#248L], Inner, BuildRight, (((n_name#142 = FRANCE) AND (n_name#249 = GERMANY)) OR ((n_name#142 = GERMANY) AND (n_name#249 = FRANCE))), false";
        let NodeKind::Join(j) = make_node(t, vec![], vec![]).kind.clone() else {
            panic!()
        };
        assert_eq!(j.strategy, JoinStrategy::BroadcastHashJoin);
        assert_eq!((&j.join_type, j.null_aware), (&JoinType::Inner, false));
        assert_eq!(j.condition.map(|c| c.attrs().len()), Some(4));
        // q16 (execution 23): NOT IN as a null-aware anti join.
        let t = "BroadcastHashJoin [ps_suppkey#137L], [s_suppkey#129L], LeftAnti, BuildRight, true";
        let NodeKind::Join(j) = make_node(t, vec![], vec![]).kind.clone() else {
            panic!()
        };
        assert!(j.null_aware);
        assert_eq!(j.condition, None);
        // q02 (execution 9).
        let t = "SortMergeJoin [ps_supplycost#139, p_partkey#120L], [min(ps_supplycost)#153, ps_partkey#155L], Inner";
        let NodeKind::Join(j) = make_node(t, vec![], vec![]).kind.clone() else {
            panic!()
        };
        assert_eq!(
            j.right_keys[0],
            Expr::Attr(Attr::new("min(ps_supplycost)", 153, ""))
        );
        // q21 (execution 28), logical.
        let t = "Join LeftSemi, ((l_orderkey#679L = l_orderkey#9L) AND NOT (l_suppkey#681L = l_suppkey#11L))";
        let n = make_node(t, vec![], vec![]);
        let NodeKind::Join(j) = n.kind.clone() else {
            panic!()
        };
        assert_eq!(
            (j.strategy, j.join_type),
            (JoinStrategy::Join, JoinType::LeftSemi)
        );
        assert_eq!(j.condition.map(|c| c.conjuncts().len()), Some(2));
        let NodeKind::Join(j) = make_node("Join Inner", vec![], vec![]).kind.clone() else {
            panic!()
        };
        assert_eq!(j.condition, None);
    }

    #[test]
    fn literal_lookalikes_become_literals_again() {
        // q16's analyzed filter: `Brand#45` is a string literal.
        let text =
            "Filter (NOT (p_brand#123 = Brand#45) AND p_size#125 IN (49,14,23,45,19,3,36,9))\n\
+- Relation spark_catalog.default.part[p_partkey#120L,p_brand#123,p_size#125] parquet\n";
        let p = parse_tree(text).expect("tree");
        let NodeKind::Filter { condition } = &p.kind else {
            panic!()
        };
        let ids: Vec<ExprId> = condition.attrs().iter().map(|a| a.id).collect();
        assert_eq!(ids, vec![123, 125]);
        assert_eq!(
            condition.to_string(),
            "(NOT (p_brand#123 = Brand#45) AND p_size#125 IN (49,14,23,45,19,3,36,9))"
        );
        // When a definition may be missing (a truncated column list), nothing is demoted.
        let text = "Filter (x#900 = Brand#45)\n+- Relation t[a#1, ... 30 more fields] parquet\n";
        let p = parse_tree(text).expect("tree");
        let NodeKind::Filter { condition } = &p.kind else {
            panic!()
        };
        assert_eq!(condition.attrs().len(), 2);
    }

    #[test]
    fn commands_ctes_and_unknown_operators() {
        // Execution 0 of the tpch-extended log.
        let p = parse_tree("Execute CreateDataSourceTableCommand\n   +- CreateDataSourceTableCommand `spark_catalog`.`default`.`region`, true\n").expect("tree");
        assert_eq!(
            (p.kind.clone(), p.name.as_str()),
            (NodeKind::Command, "Execute CreateDataSourceTableCommand")
        );
        assert_eq!(p.subqueries.len(), 1);
        assert_eq!(p.subqueries[0].kind, NodeKind::Command);
        // q15 (execution 22), analyzed.
        let n = make_node(
            "CTERelationRef 0, true, [supplier_no#450L, total_revenue#451], false, false",
            vec![],
            vec![],
        );
        assert_eq!(n.kind, NodeKind::Reused { target: Some(0) });
        assert_eq!(n.output.len(), 2);
        assert_eq!(
            make_node("CTERelationDef 0, false", vec![], vec![]).kind,
            NodeKind::SubqueryRoot { id: Some(0) }
        );
        let n = make_node("ReusedExchange [r_regionkey#145L], BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, true]),false), [plan_id=454]", vec![], vec![]);
        assert_eq!(n.kind, NodeKind::Reused { target: Some(454) });
        assert_eq!(n.output, vec![Attr::new("r_regionkey", 145, "L")]);
        let n = make_node(
            "Exchange hashpartitioning(ps_partkey#155L, 200), ENSURE_REQUIREMENTS, [plan_id=310]",
            vec![],
            vec![],
        );
        assert_eq!((n.kind.clone(), n.op_id), (NodeKind::Exchange, Some(310)));
        // Unknown operators keep children and a printed attribute list.
        let child = make_node("LocalRelation [a#1L]", vec![], vec![]);
        let n = make_node("FancyNewOperator [a#1L], 42", vec![child], vec![]);
        assert_eq!((n.kind.clone(), n.children.len()), (NodeKind::Unknown, 1));
        assert_eq!(n.output, vec![Attr::new("a", 1, "L")]);
        // A section holding an analysis error (synthetic message) has no tree.
        let p = parse("== Parsed Logical Plan ==\n'Project [*]\n+- 'UnresolvedRelation [nope], [], false\n\n== Analyzed Logical Plan ==\norg.apache.spark.sql.catalyst.ExtendedAnalysisException: [TABLE_OR_VIEW_NOT_FOUND] The table or view `nope` cannot be found.\n").expect("parsed section");
        assert!(p.parsed.is_some() && p.analyzed.is_none());
        // Not a plan at all.
        assert!(parse("").is_err());
        assert!(parse("\n\n").is_err());
        assert!(parse_tree("   \n").is_err());
    }

    #[test]
    fn scans_of_other_shapes() {
        // Path-based read: no table name, so the location path names it.
        let n = make_node("FileScan parquet [a#1L,b#2] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/data/events], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<a:bigint,b:string>", vec![], vec![]);
        let NodeKind::Scan(s) = &n.kind else { panic!() };
        assert_eq!(s.table, "file:/data/events");
        assert_eq!(n.output.len(), 2);
        // Older Spark prints `default.orders`.
        let n = make_node("FileScan parquet default.orders[o_orderkey#17L] Batched: true, Format: Parquet, Location: InMemoryFileIndex[file:/w/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_orderkey:bigint>", vec![], vec![]);
        let NodeKind::Scan(s) = &n.kind else { panic!() };
        assert_eq!(s.table, "default.orders");
        // Explain mode `cost` suffix and codegen prefix are not part of the operator.
        let n = Plan::new(make_node(
            "*(3) Project [a#1], Statistics(sizeInBytes=8.0 B)",
            vec![],
            vec![],
        ));
        assert_eq!((n.name.as_str(), n.output.len()), ("Project", 1));
        let n = Plan::new(make_node(
            "Aggregate [avg(c_acctbal#726) AS avg(c_acctbal)#720]",
            vec![],
            vec![],
        ));
        let NodeKind::Aggregate { grouping, results } = &n.kind else {
            panic!()
        };
        assert!(grouping.is_empty());
        assert_eq!(results.len(), 1);
        assert_eq!(n.output, vec![Attr::new("avg(c_acctbal)", 720, "")]);
    }

    #[test]
    fn continuation_lines_and_garbage_never_panic() {
        let text =
            "Project [a#1]\n+- Filter (a#1 = multi\nline literal)\n   +- LocalRelation [a#1]\n";
        let p = parse_tree(text).expect("tree");
        assert_eq!(p.children[0].children[0].name, "LocalRelation");
        let NodeKind::Filter { condition } = &p.children[0].kind else {
            panic!()
        };
        assert_eq!(condition.attrs().len(), 1);
        for t in [Q22_FINAL, text] {
            for (k, _) in t.char_indices().step_by(5) {
                let _ = parse(&t[..k]);
                let _ = parse(&t[k..]);
            }
        }
        for t in [
            "+- ",
            ":- :- :-",
            "== Physical Plan ==\n",
            "== Final Plan ==",
            "+- == Final Plan ==\n   X\n+- == Initial Plan ==\n   Y",
        ] {
            let _ = parse(t);
            let _ = parse_tree(t);
        }
    }

    // Operators the TPC-H fixtures lack, from real pyspark 4.0.1 runs
    // (local[1], spark.sql.ui.explainMode=extended, event log
    // physicalPlanDescription; script gen_extended_cases.py, kept with the
    // exprs helper's report): window, rollup, explode and a broadcast nested
    // loop join over two path-based parquet reads.
    const WINDOW: &str = r#"== Optimized Logical Plan ==
Project [id#7L, k#8L, r#13, total#14L]
+- Window [rank(id#7L) windowspecdefinition(k#8L, id#7L ASC NULLS FIRST, specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$())) AS r#13], [k#8L], [id#7L ASC NULLS FIRST]
   +- Window [sum(id#7L) windowspecdefinition(specifiedwindowframe(RowFrame, unboundedpreceding$(), unboundedfollowing$())) AS total#14L]
      +- Project [id#7L, k#8L]
         +- Relation [id#7L,k#8L,xs#9,s#10] parquet

== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- Project [id#7L, k#8L, r#13, total#14L]
   +- Window [rank(id#7L) windowspecdefinition(k#8L, id#7L ASC NULLS FIRST, specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$())) AS r#13], [k#8L], [id#7L ASC NULLS FIRST]
      +- Sort [k#8L ASC NULLS FIRST, id#7L ASC NULLS FIRST], false, 0
         +- Window [sum(id#7L) windowspecdefinition(specifiedwindowframe(RowFrame, unboundedpreceding$(), unboundedfollowing$())) AS total#14L]
            +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=65]
               +- FileScan parquet [id#7L,k#8L] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/tmp/exprs/gen/data/t], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<id:bigint,k:bigint>
"#;
    const ROLLUP: &str = r#"== Optimized Logical Plan ==
Aggregate [k#30L, s#31, spark_grouping_id#29L], [k#30L, s#31, count(1) AS c#25L]
+- Expand [[k#8L, s#10, 0], [k#8L, null, 1], [null, null, 3]], [k#30L, s#31, spark_grouping_id#29L]
   +- Project [k#8L, s#10]
      +- Relation [id#7L,k#8L,xs#9,s#10] parquet

== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- HashAggregate(keys=[k#30L, s#31, spark_grouping_id#29L], functions=[count(1)], output=[k#30L, s#31, c#25L])
   +- Exchange hashpartitioning(k#30L, s#31, spark_grouping_id#29L, 200), ENSURE_REQUIREMENTS, [plan_id=129]
      +- HashAggregate(keys=[k#30L, s#31, spark_grouping_id#29L], functions=[partial_count(1)], output=[k#30L, s#31, spark_grouping_id#29L, count#33L])
         +- Expand [[k#8L, s#10, 0], [k#8L, null, 1], [null, null, 3]], [k#30L, s#31, spark_grouping_id#29L]
            +- FileScan parquet [k#8L,s#10] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/tmp/exprs/gen/data/t], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:bigint,s:string>
"#;
    const EXPLODE: &str = r#"== Optimized Logical Plan ==
Generate explode(xs#9), [1], false, e, [x#34L]
+- Project [id#7L, xs#9]
   +- Filter ((size(xs#9, false) > 0) AND isnotnull(xs#9))
      +- Relation [id#7L,k#8L,xs#9,s#10] parquet

== Physical Plan ==
*(1) Generate explode(xs#9), [id#7L], false, [x#34L]
+- *(1) Filter ((size(xs#9, false) > 0) AND isnotnull(xs#9))
   +- *(1) ColumnarToRow
      +- FileScan parquet [id#7L,xs#9] Batched: true, DataFilters: [(size(xs#9, false) > 0), isnotnull(xs#9)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/tmp/exprs/gen/data/t], PartitionFilters: [], PushedFilters: [IsNotNull(xs)], ReadSchema: struct<id:bigint,xs:array<bigint>>
"#;
    const BNLJ: &str = r#"== Optimized Logical Plan ==
Join Inner, (id#7L < id2#11L), rightHint=(strategy=broadcast)
:- Filter isnotnull(id#7L)
:  +- Relation [id#7L,k#8L,xs#9,s#10] parquet
+- Filter isnotnull(id2#11L)
   +- Relation [id2#11L,k2#12L] parquet

== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- BroadcastNestedLoopJoin BuildRight, Inner, (id#7L < id2#11L)
   :- Filter isnotnull(id#7L)
   :  +- FileScan parquet [id#7L,k#8L,xs#9,s#10] Batched: true, DataFilters: [isnotnull(id#7L)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/tmp/exprs/gen/data/t], PartitionFilters: [], PushedFilters: [IsNotNull(id)], ReadSchema: struct<id:bigint,k:bigint,xs:array<bigint>,s:string>
   +- BroadcastExchange IdentityBroadcastMode, [plan_id=227]
      +- Filter isnotnull(id2#11L)
         +- FileScan parquet [id2#11L,k2#12L] Batched: true, DataFilters: [isnotnull(id2#11L)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/tmp/exprs/gen/data/u], PartitionFilters: [], PushedFilters: [IsNotNull(id2)], ReadSchema: struct<id2:bigint,k2:bigint>
"#;

    /// A DataSource V2 parquet read (`spark.sql.sources.useV1SourceList=""`,
    /// pyspark 4.0.1, script gen_v2_cases.py).
    const V2: &str = r#"== Optimized Logical Plan ==
Project [id#0L, k2#5L]
+- Join Inner, (k#1L = k2#5L)
   :- Filter ((isnotnull(id#0L) AND (id#0L > 3)) AND isnotnull(k#1L))
   :  +- RelationV2[id#0L, k#1L] parquet file:/tmp/exprs/gen/data/t
   +- Filter isnotnull(k2#5L)
      +- RelationV2[k2#5L] parquet file:/tmp/exprs/gen/data/u

== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- Project [id#0L, k2#5L]
   +- BroadcastHashJoin [k#1L], [k2#5L], Inner, BuildRight, false
      :- Filter ((isnotnull(id#0L) AND (id#0L > 3)) AND isnotnull(k#1L))
      :  +- BatchScan parquet file:/tmp/exprs/gen/data/t[id#0L, k#1L] ParquetScan DataFilters: [isnotnull(id#0L), (id#0L > 3), isnotnull(k#1L)], Format: parquet, Location: InMemoryFileIndex(1 paths)[file:/tmp/exprs/gen/data/t], PartitionFilters: [], PushedAggregation: [], PushedFilters: [IsNotNull(id), GreaterThan(id,3), IsNotNull(k)], PushedGroupBy: [], ReadSchema: struct<id:bigint,k:bigint> RuntimeFilters: []
      +- BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, false]),false), [plan_id=32]
         +- Filter isnotnull(k2#5L)
            +- BatchScan parquet file:/tmp/exprs/gen/data/u[k2#5L] ParquetScan DataFilters: [isnotnull(k2#5L)], Format: parquet, Location: InMemoryFileIndex(1 paths)[file:/tmp/exprs/gen/data/u], PartitionFilters: [], PushedAggregation: [], PushedFilters: [IsNotNull(k2)], PushedGroupBy: [], ReadSchema: struct<k2:bigint> RuntimeFilters: []
"#;

    #[test]
    fn data_source_v2_scans() {
        let p = parse(V2).expect("v2");
        for tree in [
            p.optimized.expect("optimized"),
            p.physical.expect("physical"),
        ] {
            let scans = find(&tree, &|n| matches!(n.kind, NodeKind::Scan(_)));
            let tables: Vec<(String, Option<String>, usize)> = scans
                .iter()
                .filter_map(|n| match &n.kind {
                    NodeKind::Scan(s) => Some((s.table.clone(), s.format.clone(), n.output.len())),
                    _ => None,
                })
                .collect();
            assert_eq!(
                tables,
                vec![
                    (
                        "file:/tmp/exprs/gen/data/t".to_string(),
                        Some("parquet".to_string()),
                        2
                    ),
                    (
                        "file:/tmp/exprs/gen/data/u".to_string(),
                        Some("parquet".to_string()),
                        1
                    ),
                ]
            );
        }
    }

    #[test]
    fn window_expand_generate_and_nested_loop_join() {
        let p = parse(WINDOW).expect("window");
        let opt = p.optimized.expect("optimized");
        let w = &opt.children[0];
        let NodeKind::Window {
            exprs,
            partition,
            order,
        } = &w.kind
        else {
            panic!("{w:?}")
        };
        assert_eq!(exprs[0].output_attr().map(|a| a.id), Some(13));
        assert_eq!(partition.len(), 1);
        assert_eq!(order[0].to_string(), "id#7L ASC NULLS FIRST");
        // `Window [sum(...) AS total#14L]`: no partition and no order printed.
        let NodeKind::Window {
            partition, order, ..
        } = &w.children[0].kind
        else {
            panic!()
        };
        assert!(partition.is_empty() && order.is_empty());
        assert_eq!(
            w.output.iter().map(|a| a.id).collect::<Vec<_>>(),
            vec![7, 8, 14, 13]
        );
        // Path-based read: the physical scan is named by its location, and
        // the logical relation of the same attributes borrows that name.
        let rel = find(&opt, &|n| matches!(n.kind, NodeKind::Scan(_)));
        assert!(
            matches!(&rel[0].kind, NodeKind::Scan(s) if s.table == "file:/tmp/exprs/gen/data/t")
        );
        let phys = p.physical.expect("physical");
        let scans = find(&phys, &|n| matches!(n.kind, NodeKind::Scan(_)));
        assert!(
            matches!(&scans[0].kind, NodeKind::Scan(s) if s.table == "file:/tmp/exprs/gen/data/t")
        );

        let p = parse(ROLLUP).expect("rollup");
        let opt = p.optimized.expect("optimized");
        let e = &opt.children[0];
        let NodeKind::Expand { projections } = &e.kind else {
            panic!("{e:?}")
        };
        assert_eq!(projections.len(), 3);
        assert_eq!(
            projections[1]
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>(),
            ["k#8L", "null", "1"]
        );
        assert_eq!(
            e.output.iter().map(|a| a.id).collect::<Vec<_>>(),
            vec![30, 31, 29]
        );

        let p = parse(EXPLODE).expect("explode");
        let g = p.optimized.expect("optimized");
        assert!(
            matches!(&g.kind, NodeKind::Generate { generator, .. } if generator.to_string() == "explode(xs#9)")
        );
        assert_eq!(
            g.output.iter().map(|a| a.id).collect::<Vec<_>>(),
            vec![7, 9, 34]
        );
        let g = p.physical.expect("physical");
        assert_eq!(
            g.output.iter().map(|a| a.id).collect::<Vec<_>>(),
            vec![7, 34]
        );

        let p = parse(BNLJ).expect("bnlj");
        let opt = p.optimized.expect("optimized");
        let NodeKind::Join(j) = &opt.kind else {
            panic!()
        };
        assert_eq!(
            j.condition.as_ref().map(|c| c.to_string()).as_deref(),
            Some("(id#7L < id2#11L)")
        );
        let phys = p.physical.expect("physical");
        let NodeKind::Join(j) = &phys.children[0].kind else {
            panic!()
        };
        assert_eq!(
            (j.strategy, j.join_type.clone()),
            (JoinStrategy::BroadcastNestedLoopJoin, JoinType::Inner)
        );
        assert_eq!(
            j.condition.as_ref().map(|c| c.to_string()).as_deref(),
            Some("(id#7L < id2#11L)")
        );
        assert_eq!(phys.children[0].output.len(), 6);
    }

    fn scanned_tables(p: &PlanNode) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        p.apply(|n| {
            if let NodeKind::Scan(s) = &n.kind {
                let short = s.table.rsplit('.').next().unwrap_or("").to_string();
                out.insert(short);
            }
            Recursion::Continue
        });
        out
    }

    fn has_raw(p: &PlanNode) -> Option<String> {
        let mut found = None;
        p.apply(|n| {
            if let NodeKind::Join(j) = &n.kind {
                for e in j.left_keys.iter().chain(&j.right_keys).chain(&j.condition) {
                    e.apply(|x| {
                        if let Expr::Raw(r) = x {
                            found = Some(r.clone());
                        }
                        Recursion::Continue
                    });
                }
            }
            Recursion::Continue
        });
        found
    }

    #[test]
    fn all_executions_parse_with_the_truth_tables() {
        let truth: serde_json::Value =
            serde_json::from_str(&testdata::read_to_string(TRUTH)).expect("json");
        let d = descriptions();
        assert_eq!(d.len(), 30);
        let finals = final_descriptions();
        assert_eq!(finals.len(), 22);
        let all = d
            .iter()
            .map(|(k, v)| (k, v, false))
            .chain(finals.iter().map(|(k, v)| (k, v, true)));
        for (&exec, text, is_final) in all {
            let p = parse(text).unwrap_or_else(|e| panic!("execution {exec}: {e}"));
            let trees = [&p.parsed, &p.analyzed, &p.optimized, &p.physical];
            assert!(
                trees.iter().all(|t| t.is_some()),
                "execution {exec}: missing section"
            );
            for t in trees.into_iter().flatten() {
                assert_eq!(has_raw(t), None, "execution {exec}: Raw join expression");
            }
            if exec < 8 {
                // CREATE TABLE statements.
                let phys = p.physical.as_ref().map(|t| &t.kind);
                assert_eq!(phys, Some(&NodeKind::Command), "execution {exec}");
                continue;
            }
            let q = format!("tpch/q{:02}", exec - 7);
            let want: BTreeSet<String> = truth["queries"][&q]["tables"]
                .as_array()
                .expect("tables")
                .iter()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect();
            for (name, t) in [
                ("analyzed", &p.analyzed),
                ("optimized", &p.optimized),
                ("physical", &p.physical),
            ] {
                let t = t.as_ref().expect("tree");
                if is_final && name == "physical" {
                    // The plan that ran: every AdaptiveSparkPlan has only
                    // its final plan below it.
                    assert!(
                        !t.exists(|n| n.name == "AdaptiveSparkPlan" && n.children.len() != 1),
                        "{q}"
                    );
                    assert!(t.exists(|n| n.name == "ResultQueryStage"), "{q}");
                }
                assert_eq!(scanned_tables(t), want, "{q} {name}");
                let mut scans_have_output = true;
                t.apply(|n| {
                    if matches!(n.kind, NodeKind::Scan(_)) && n.output.is_empty() {
                        scans_have_output = false;
                    }
                    Recursion::Continue
                });
                assert!(scans_have_output, "{q} {name}");
            }
        }
    }
}
