//! Formatted `physicalPlanDescription` (explain mode FORMATTED, Spark's
//! default since 3.1) into the plan IR.
//!
//! The text has three parts, all written by Spark's `ExplainUtils.processPlan`:
//!
//! 1. the operator tree, one operator per line with its id: `* Project (4)`
//!    (`* ` marks whole-stage codegen; query stages add `, Statistics(...)`;
//!    `AdaptiveSparkPlan` prints `+- == Final Plan ==` and
//!    `+- == Initial Plan ==` sections);
//! 2. one detail block per id: `(4) Project [codegen id : 1]` followed by
//!    `Output [2]: [...]`, `Input [4]: [...]`, `Condition : ...` lines;
//! 3. optionally `===== Subqueries =====` (`Subquery:1 Hosting operator id =
//!    3 Hosting Expression = ...`, then the subquery's own tree and blocks)
//!    and `===== Adaptively Optimized Out Exchanges =====` (`Subplan:1`).
//!
//! Detail blocks are printed once per id and shared by every tree line with
//! that id (AQE's initial plan repeats the ids of unchanged operators), so
//! they are collected first and joined to the tree by id.
//!
//! ```
//! let text = "== Physical Plan ==\n* Filter (2)\n+- Scan parquet spark_catalog.default.t (1)\n\n\n\
//! (1) Scan parquet spark_catalog.default.t\nOutput [1]: [a#1L]\n\n\
//! (2) Filter [codegen id : 1]\nInput [1]: [a#1L]\nCondition : isnotnull(a#1L)\n";
//! let plan = parsers::plan::formatted::parse(text).unwrap();
//! assert_eq!(plan.name, "Filter");
//! assert_eq!(plan.children[0].output[0].to_string(), "a#1L");
//! ```

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::expr::{parse_attr_list, parse_expr, parse_expr_list};
use super::plan_error;
use crate::{Error, Result};
use ::plan::predicate::read_schema;
use ::plan::{
    derive_outputs, guard, list::split_top_level, operator, Attr, Expr, Family, JoinInfo,
    JoinStrategy, JoinType, Level, NodeKind, Plan, PlanNode, Recursion, ScanInfo, TreeNode,
};

/// Parse a formatted physical plan description into a [`Plan`].
///
/// With AQE, the `AdaptiveSparkPlan` node's children are the final (or
/// current) plan only: the initial plan is not what ran. Subquery plans are
/// attached to their hosting operator's [`PlanNode::subqueries`], wrapped in
/// a [`NodeKind::SubqueryRoot`] node. Operators the registry does not know
/// become [`NodeKind::Unknown`]; text without any operator tree, or nested
/// deeper than [`::plan::DEPTH_BUDGET`], is an error.
pub fn parse(text: &str) -> Result<Plan> {
    let doc = scan_text(text);
    let main = doc
        .sections
        .first()
        .ok_or_else(|| Error::Plan("formatted plan: no operator tree".into()))?;
    let root_idx = match main.roots.as_slice() {
        [r] => *r,
        [] => return Err(Error::Plan("formatted plan: no operator tree".into())),
        _ => {
            return Err(Error::Plan(
                "formatted plan: more than one root operator".into(),
            ))
        }
    };
    let depth = doc.arena.iter().map(|l| l.depth).max().unwrap_or(0);
    ::plan::Error::check_depth(depth).map_err(|e| plan_error("formatted plan", e))?;
    if doc.arena.get(root_idx).and_then(|l| l.op_id).is_none() {
        return Err(Error::Plan(
            "formatted plan: the root line has no operator id".into(),
        ));
    }
    let b = Builder { doc: &doc };
    let mut root = b.build(root_idx)?;

    // Subqueries are listed parents first, so a nested subquery's host is
    // already in the tree when it is attached.
    let mut sub_roots: HashMap<u64, (u64, Vec<Attr>)> = HashMap::new();
    for sec in doc.sections.iter().skip(1) {
        let SectionKind::Subquery { host, expr } = &sec.kind else {
            continue;
        };
        let sub_id = subquery_id(expr);
        let node = if let Some(&r) = sec.roots.first() {
            // The one output pass, early on this subtree: a later
            // `ReusedSubquery` repeats its output.
            let child = derive_outputs(b.build(r)?);
            let name = if expr.contains("dynamicpruning") {
                "SubqueryBroadcast"
            } else {
                "Subquery"
            };
            let mut n = PlanNode::new(NodeKind::SubqueryRoot { id: sub_id }, name);
            if let (Some(id), Some(op)) = (sub_id, child.op_id) {
                sub_roots.insert(id, (op, child.output.clone()));
            }
            n.children.push(child);
            n
        } else {
            // `ReusedSubquery`: Spark prints the plan only once; point at it.
            let target = sub_id.and_then(|id| sub_roots.get(&id).cloned());
            let mut n = PlanNode::new(
                NodeKind::Reused {
                    target: target.as_ref().map(|t| t.0),
                },
                "ReusedSubquery",
            );
            if let Some((_, out)) = target {
                n.output = out;
            }
            n
        };
        root = attach_to_host(root, *host, node);
    }

    // A reused exchange whose target is not in the built tree (it sat only
    // in the dropped initial plan, or in an "Adaptively Optimized Out
    // Exchanges" subplan) gets the target's subtree as its child, so lineage
    // can still resolve it.
    let root = attach_missing_targets(&b, root)?;
    Ok(Plan::new(root))
}

// ---------------------------------------------------------------------------
// Scanning the text into tree lines, sections and detail blocks.

/// One line of an operator tree (or a `== Final Plan ==` header). The
/// scan borrows every text from the plan description: a plan's lines and
/// fields are read once and copied only into the nodes built from them.
#[derive(Debug)]
struct TreeLine<'a> {
    /// Nesting key: twice the text column, minus one for headers, so that a
    /// header is the parent of the plan printed at its own column.
    key: usize,
    /// The text after the tree prefix and codegen marker, without `(N)`.
    label: &'a str,
    op_id: Option<u64>,
    /// Nesting level (the root is 0).
    depth: usize,
    /// `Final Plan`, `Current Plan` or `Initial Plan` for header lines.
    header: Option<&'a str>,
    children: Vec<usize>,
}

#[derive(Debug)]
enum SectionKind<'a> {
    Main,
    Subquery { host: Option<u64>, expr: &'a str },
    Subplan,
}

#[derive(Debug)]
struct Section<'a> {
    kind: SectionKind<'a>,
    roots: Vec<usize>,
}

/// A detail block `(N) Name [codegen id : k]` and its fields.
#[derive(Debug, Default)]
struct Detail<'a> {
    name: &'a str,
    reuses: Option<u64>,
    /// Field name without its `[k]` count, and the value (owned only when
    /// it spans lines).
    fields: Vec<(&'a str, Cow<'a, str>)>,
}

impl Detail<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_ref())
    }
}

#[derive(Debug, Default)]
struct Doc<'a> {
    arena: Vec<TreeLine<'a>>,
    sections: Vec<Section<'a>>,
    details: HashMap<u64, Detail<'a>>,
    /// First tree line of each operator id.
    by_id: HashMap<u64, usize>,
}

fn scan_text(text: &str) -> Doc<'_> {
    let mut doc = Doc::default();
    doc.sections.push(Section {
        kind: SectionKind::Main,
        roots: Vec::new(),
    });
    let mut in_tree = true;
    let mut stack: Vec<usize> = Vec::new();
    let mut cur_detail: Option<u64> = None;
    for raw in text.lines() {
        let line = raw.trim_end();
        if line == "== Physical Plan ==" {
            in_tree = true;
            stack.clear();
            continue;
        }
        if line.starts_with("===== ") && line.ends_with(" =====") {
            in_tree = false;
            cur_detail = None;
            continue;
        }
        if let Some(kind) = section_header(line) {
            doc.sections.push(Section {
                kind,
                roots: Vec::new(),
            });
            in_tree = true;
            stack.clear();
            cur_detail = None;
            continue;
        }
        let header = detail_header(line);
        if in_tree {
            if line.trim().is_empty() {
                // The tree ends at its first blank line; a blank line before
                // any tree line (text starting with a newline) is skipped.
                if doc.sections.last().is_some_and(|s| !s.roots.is_empty()) {
                    in_tree = false;
                }
                continue;
            }
            if header.is_none() {
                push_tree_line(&mut doc, &mut stack, line);
                continue;
            }
            in_tree = false;
        }
        if let Some((id, d)) = header {
            doc.details.entry(id).or_insert(d);
            cur_detail = Some(id);
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        if let Some(d) = cur_detail.and_then(|id| doc.details.get_mut(&id)) {
            match field_line(line) {
                // Iceberg's scan description, a line of its own in a
                // `BatchScan` block (`lake.db.t (branch=null) [filters=…]`;
                // a filter's value may hold a `:`).
                _ if d.name.starts_with("BatchScan")
                    && ::plan::iceberg_filters::description(line).is_some() =>
                {
                    d.fields.push(("Description", Cow::Borrowed(line)));
                }
                Some((k, v)) => d.fields.push((k, Cow::Borrowed(v))),
                None => {
                    // A value that spans lines (a literal with a newline).
                    if let Some((_, v)) = d.fields.last_mut() {
                        let v = v.to_mut();
                        v.push('\n');
                        v.push_str(line);
                    }
                }
            }
        }
    }
    doc
}

fn section_header(line: &str) -> Option<SectionKind<'_>> {
    if let Some(rest) = line.strip_prefix("Subquery:") {
        let (_, after) = rest.split_once(" Hosting operator id = ")?;
        let (host, expr) = after
            .split_once(" Hosting Expression = ")
            .unwrap_or((after, ""));
        return Some(SectionKind::Subquery {
            host: host.trim().parse().ok(),
            expr: expr.trim(),
        });
    }
    let rest = line.strip_prefix("Subplan:")?;
    rest.trim()
        .chars()
        .all(|c| c.is_ascii_digit())
        .then_some(SectionKind::Subplan)
}

/// `(N) Name [codegen id : k]` / `(N) ReusedExchange [Reuses operator id: M]`.
fn detail_header(line: &str) -> Option<(u64, Detail<'_>)> {
    let rest = line.strip_prefix('(')?;
    let (id, rest) = rest.split_once(") ")?;
    let id: u64 = id.parse().ok()?;
    let mut name = rest.trim();
    let mut reuses = None;
    // Both suffixes open with ` [`: most headers have neither.
    if name.contains(" [") {
        const REUSES: &str = " [Reuses operator id: ";
        if let Some(pos) = name.find(REUSES) {
            let tail = &name[pos + REUSES.len()..];
            reuses = tail.trim_end_matches(']').trim().parse().ok();
            name = &name[..pos];
        }
        if let Some(pos) = name.find(" [codegen id : ") {
            name = &name[..pos];
        }
    }
    Some((
        id,
        Detail {
            name: name.trim(),
            reuses,
            fields: Vec::new(),
        },
    ))
}

/// `Key [k]: value`, `Key: value` or `Condition : value`.
fn field_line(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let mut key = key.trim();
    if let Some(pos) = key.find(" [") {
        let count = &key[pos + 2..];
        if !count
            .trim_end_matches(']')
            .chars()
            .all(|c| c.is_ascii_digit())
        {
            return None;
        }
        key = &key[..pos];
    }
    let ok = !key.is_empty()
        && key.starts_with(|c: char| c.is_ascii_alphabetic())
        && key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b' ' || c == b'_');
    ok.then(|| (key, value.trim()))
}

fn push_tree_line<'a>(doc: &mut Doc<'a>, stack: &mut Vec<usize>, line: &'a str) {
    let col = line
        .find(|c: char| !matches!(c, ' ' | ':' | '+' | '-'))
        .unwrap_or(line.len());
    let text = line[col..].trim();
    let (key, label, op_id, header) =
        if let Some(h) = text.strip_prefix("== ").and_then(|t| t.strip_suffix(" ==")) {
            (2 * col.max(1) - 1, text, None, Some(h))
        } else {
            let body = text.strip_prefix("* ").unwrap_or(text);
            let (label, id) = split_op_id(body);
            (2 * col, label, id, None)
        };
    while stack
        .last()
        .is_some_and(|&top| doc.arena.get(top).is_some_and(|t| t.key >= key))
    {
        stack.pop();
    }
    let idx = doc.arena.len();
    let depth = stack
        .last()
        .and_then(|&p| doc.arena.get(p))
        .map_or(0, |p| p.depth + 1);
    doc.arena.push(TreeLine {
        key,
        label,
        op_id,
        depth,
        header,
        children: Vec::new(),
    });
    if let Some(id) = op_id {
        doc.by_id.entry(id).or_insert(idx);
    }
    match stack.last().and_then(|&p| doc.arena.get_mut(p)) {
        Some(parent) => parent.children.push(idx),
        None => {
            if let Some(sec) = doc.sections.last_mut() {
                sec.roots.push(idx);
            }
        }
    }
    stack.push(idx);
}

/// `BroadcastHashJoin Inner BuildRight (66)` → (`BroadcastHashJoin Inner
/// BuildRight`, 66); `ShuffleQueryStage (13), Statistics(...)` → 13.
fn split_op_id(body: &str) -> (&str, Option<u64>) {
    let mut search = 0;
    while let Some(pos) = body[search..].find(" (").map(|p| p + search) {
        let after = &body[pos + 2..];
        if let Some(close) = after.find(')') {
            let inner = &after[..close];
            let rest = &after[close + 1..];
            let is_id = inner == "unknown"
                || (!inner.is_empty() && inner.bytes().all(|c| c.is_ascii_digit()));
            if is_id && (rest.is_empty() || rest.starts_with(',')) {
                return (body[..pos].trim(), inner.parse().ok());
            }
        }
        search = pos + 2;
    }
    (body.trim(), None)
}

// ---------------------------------------------------------------------------
// Building PlanNodes.

struct Builder<'a> {
    doc: &'a Doc<'a>,
}

impl Builder<'_> {
    fn line(&self, idx: usize) -> Result<&TreeLine<'_>> {
        self.doc
            .arena
            .get(idx)
            .ok_or_else(|| Error::Plan("formatted plan: bad tree index".into()))
    }

    /// The data-flow children of a tree line: for `AdaptiveSparkPlan` the
    /// final (or current) plan only; header lines are looked through.
    fn child_lines(&self, idx: usize, name: &str) -> Result<Vec<usize>> {
        let line = self.line(idx)?;
        let headers: Vec<usize> = line
            .children
            .iter()
            .copied()
            .filter(|&c| self.doc.arena.get(c).is_some_and(|l| l.header.is_some()))
            .collect();
        if name == "AdaptiveSparkPlan" && !headers.is_empty() {
            let pick = |want: &str| {
                headers.iter().copied().find(|&h| {
                    self.doc
                        .arena
                        .get(h)
                        .and_then(|l| l.header)
                        .is_some_and(|t| t == want)
                })
            };
            let chosen = pick("Final Plan")
                .or_else(|| pick("Current Plan"))
                .or_else(|| headers.first().copied());
            return Ok(chosen
                .and_then(|h| self.doc.arena.get(h))
                .map(|l| l.children.clone())
                .unwrap_or_default());
        }
        let mut out = Vec::new();
        for &c in &line.children {
            let l = self.line(c)?;
            if l.header.is_some() {
                out.extend(l.children.iter().copied());
            } else {
                out.push(c);
            }
        }
        Ok(out)
    }

    /// Build the operator of a tree line and its subtree. Recurses once per
    /// level through [`guard`]; the depth was checked against the budget.
    fn build(&self, idx: usize) -> Result<PlanNode> {
        guard(|| {
            let line = self.line(idx)?;
            let detail = line.op_id.and_then(|id| self.doc.details.get(&id));
            let name = match detail {
                Some(d) if !d.name.is_empty() => d.name.to_string(),
                _ => line.label.to_string(),
            };
            let mut children = Vec::new();
            for c in self.child_lines(idx, &name)? {
                children.push(self.build(c)?);
            }
            let empty = Detail::default();
            let d = detail.unwrap_or(&empty);
            let op = operator(&name, Level::Physical);
            let kind = self.kind(op.family, &name, line.label, d, idx);
            let output = stated_output(&kind, d);
            let mut node = PlanNode::new(kind, name);
            node.engine = op.engine;
            node.op_id = line.op_id;
            node.output = output;
            node.children = children;
            Ok(node)
        })
    }

    fn kind(&self, family: Family, name: &str, label: &str, d: &Detail, idx: usize) -> NodeKind {
        let args = d.get("Arguments").unwrap_or("");
        match family {
            Family::Scan => {
                let location = d.get("Location").map(str::to_string);
                let mut info = ScanInfo {
                    table: scan_table(name, location.as_deref(), args),
                    format: scan_format(name),
                    location,
                    pushed_filters: d.get("PushedFilters").map(str::to_string),
                    partition_filters: d.get("PartitionFilters").map(str::to_string),
                    // Photon prints its scans' Catalyst filters as
                    // `RequiredDataFilters` (and no `PushedFilters`).
                    data_filters: d
                        .get("DataFilters")
                        .or_else(|| d.get("RequiredDataFilters"))
                        .map(str::to_string),
                    read_schema: d.get("ReadSchema").map(read_schema).unwrap_or_default(),
                    branch: None,
                    runtime_filters: d.get("RuntimeFilters").and_then(runtime_filters),
                };
                if let Some(desc) = d.get("Description") {
                    iceberg_scan(&mut info, desc);
                }
                NodeKind::Scan(info)
            }
            Family::Filter => NodeKind::Filter {
                condition: parse_expr(d.get("Condition").unwrap_or("")),
            },
            Family::Project if is_python_eval(name) => NodeKind::Project {
                list: python_eval_list(args, &attrs_of_list(d.get("Input").unwrap_or(""))),
            },
            Family::Project => NodeKind::Project {
                list: parse_expr_list(d.get("Output").unwrap_or("")),
            },
            Family::Aggregate => NodeKind::Aggregate {
                grouping: parse_expr_list(d.get("Keys").unwrap_or("")),
                results: parse_expr_list(d.get("Results").unwrap_or("")),
            },
            Family::Join(strategy) => {
                let mut words = label.split_whitespace().skip(1);
                let join_type = JoinType::parse(
                    d.get("Join type")
                        .or_else(|| words.next())
                        .unwrap_or_default(),
                );
                let condition = d
                    .get("Join condition")
                    .filter(|c| !c.is_empty() && *c != "None")
                    .map(parse_expr);
                let null_aware = strategy == JoinStrategy::BroadcastHashJoin
                    && join_type == JoinType::LeftAnti
                    && self.null_aware_build(idx, label);
                if d.get("Left keys").is_none() && !args.is_empty() {
                    // RAPIDS prints no key lines: `Arguments: [ws_warehouse_sk#682],
                    // [w_warehouse_sk#100], Inner, GpuBuildRight`, the
                    // simpleString's arguments.
                    if let NodeKind::Join(mut j) = super::args::join_info(strategy, args) {
                        if !matches!(join_type, JoinType::Unparsed(_)) {
                            j.join_type = join_type;
                        }
                        j.condition = condition.or(j.condition);
                        return NodeKind::Join(j);
                    }
                }
                NodeKind::Join(JoinInfo {
                    strategy,
                    join_type,
                    left_keys: parse_expr_list(d.get("Left keys").unwrap_or("")),
                    right_keys: parse_expr_list(d.get("Right keys").unwrap_or("")),
                    condition,
                    null_aware,
                })
            }
            Family::Exchange => NodeKind::Exchange,
            Family::PassThrough => NodeKind::PassThrough,
            Family::Reused => NodeKind::Reused { target: d.reuses },
            Family::SubqueryRoot => NodeKind::SubqueryRoot {
                id: first_hash_number(label),
            },
            Family::SubqueryAlias => NodeKind::SubqueryAlias {
                alias: label
                    .split_once(' ')
                    .map_or("", |(_, a)| a.trim())
                    .to_string(),
            },
            Family::Sort => NodeKind::Sort {
                order: split_top_level(args)
                    .next()
                    .map(parse_expr_list)
                    .unwrap_or_default(),
            },
            Family::TopK => NodeKind::Limit {
                list: split_top_level(args)
                    .last()
                    .filter(|s| s.starts_with('['))
                    .map(parse_expr_list)
                    .unwrap_or_default(),
            },
            Family::Limit => NodeKind::Limit { list: Vec::new() },
            Family::Union => NodeKind::Union,
            Family::Expand => NodeKind::Expand {
                projections: expand_projections(args),
            },
            Family::Generate => generate_kind(args),
            Family::Window => window_kind(args, parse_expr_list),
            Family::Command => NodeKind::Command,
            Family::LocalData => NodeKind::LocalData,
            Family::Other => NodeKind::Other,
            Family::Unknown => NodeKind::Unknown,
        }
    }

    /// Whether the build side of a `LeftAnti` broadcast join broadcasts a
    /// null-aware relation: the formatted text does not print the join's
    /// `isNullAwareAntiJoin` flag, but its `BroadcastExchange` argument
    /// `HashedRelationBroadcastMode(..., true)` carries the same fact.
    fn null_aware_build(&self, idx: usize, label: &str) -> bool {
        let Ok(kids) = self.child_lines(idx, "") else {
            return false;
        };
        let build = if label.contains("BuildLeft") {
            kids.first()
        } else {
            kids.get(1)
        };
        let mut cur = build.copied();
        for _ in 0..16 {
            let Some(i) = cur else { return false };
            let Some(line) = self.doc.arena.get(i) else {
                return false;
            };
            let Some(d) = line.op_id.and_then(|id| self.doc.details.get(&id)) else {
                return false;
            };
            if d.name == "BroadcastExchange" {
                return d.get("Arguments").is_some_and(broadcast_mode_null_aware);
            }
            if d.name == "ReusedExchange" {
                return d
                    .reuses
                    .and_then(|t| self.doc.details.get(&t))
                    .and_then(|t| t.get("Arguments"))
                    .is_some_and(broadcast_mode_null_aware);
            }
            cur = self
                .child_lines(i, "")
                .ok()
                .and_then(|k| k.first().copied());
        }
        false
    }
}

/// The output the text states for an operator: its `Output` list; for
/// `Expand` and `Generate`, the attribute lists of their arguments; for an
/// operator that does not define its own output, its `Input` (what it
/// passes on). Everything else is left to [`::plan::derive_outputs`].
fn stated_output(kind: &NodeKind, d: &Detail) -> Vec<Attr> {
    if let Some(o) = d.get("Output") {
        return attrs_of_list(o);
    }
    if let Some(out) = argument_output(kind, d.get("Arguments").unwrap_or("")) {
        return out;
    }
    match d.get("Input") {
        Some(i) if !kind.defines_output() => attrs_of_list(i),
        _ => Vec::new(),
    }
}

/// `BatchEvalPython` / `ArrowEvalPython`: evaluates Python UDFs.
pub(crate) fn is_python_eval(name: &str) -> bool {
    ::plan::operator_word(name).ends_with("EvalPython")
}

/// The project list a Python UDF evaluation amounts to: its input, then each
/// UDF call aliased to its result column (`[norm_key(o_custkey#34L)#514L],
/// [pythonUDF0#515L]` gives `norm_key(o_custkey#34L) AS pythonUDF0#515L`),
/// so a key computed by a UDF is an expression over the UDF's arguments.
pub(crate) fn python_eval_list(args: &str, input: &[Attr]) -> Vec<Expr> {
    let mut parts = split_top_level(args);
    // Each call prints with its own exprId (`norm_key(x#1)#514L`): drop it.
    let calls: Vec<Expr> = parts
        .next()
        .map(|s| {
            let inner = s.trim().trim_start_matches('[');
            let inner = inner.strip_suffix(']').unwrap_or(inner);
            split_top_level(inner)
                .map(|c| {
                    let call = match c.rfind('#') {
                        Some(h)
                            if !c[h + 1..].is_empty()
                                && c[h + 1..]
                                    .trim_end_matches('L')
                                    .bytes()
                                    .all(|b| b.is_ascii_digit()) =>
                        {
                            &c[..h]
                        }
                        _ => c,
                    };
                    parse_expr(call)
                })
                .collect()
        })
        .unwrap_or_default();
    let results = parts.next().map(attrs_of_list).unwrap_or_default();
    let mut list: Vec<Expr> = input.iter().cloned().map(Expr::Attr).collect();
    for (call, attr) in calls.into_iter().zip(results) {
        list.push(Expr::Alias {
            child: Box::new(call),
            attr,
        });
    }
    list
}

/// The output `Expand` and `Generate` state in their arguments (formatted
/// `Arguments:` and `sparkPlanInfo` `simpleString` print the same):
/// `[[...], [...]], [k#1, gid#2]` states the expand's output;
/// `explode(x), [requiredChildOutput], outer, [generatorOutput]` the
/// generate's. `None` for other operators.
pub(crate) fn argument_output(kind: &NodeKind, args: &str) -> Option<Vec<Attr>> {
    if let NodeKind::Expand { .. } = kind {
        return Some(
            split_top_level(args)
                .last()
                .filter(|s| s.starts_with('['))
                .map(attrs_of_list)
                .unwrap_or_default(),
        );
    }
    if let NodeKind::Generate { .. } = kind {
        return Some(
            split_top_level(args)
                .skip(1)
                .filter(|p| p.starts_with('['))
                .flat_map(attrs_of_list)
                .collect(),
        );
    }
    None
}

/// `HashedRelationBroadcastMode(List(...),true)`: the last argument is
/// `isNullAware`.
fn broadcast_mode_null_aware(args: &str) -> bool {
    args.contains("),true)")
}

/// Attach a subquery plan to the first operator (pre-order) with the
/// hosting operator id, else to the root.
fn attach_to_host(root: PlanNode, host: Option<u64>, sub: PlanNode) -> PlanNode {
    let mut sub = Some(sub);
    let root = match host {
        Some(h) => root.transform_down(|mut n| {
            let is_host = n.op_id == Some(h) && !matches!(n.kind, NodeKind::SubqueryRoot { .. });
            if is_host {
                if let Some(s) = sub.take() {
                    n.subqueries.push(s);
                }
            }
            n
        }),
        None => root,
    };
    match sub {
        Some(s) => {
            let mut root = root;
            root.subqueries.push(s);
            root
        }
        None => root,
    }
}

/// Every operator id in a tree.
fn collect_ids(node: &PlanNode, ids: &mut HashSet<u64>) {
    node.apply(|n| {
        ids.extend(n.op_id);
        Recursion::Continue
    });
}

fn attach_missing_targets(b: &Builder<'_>, root: PlanNode) -> Result<PlanNode> {
    let mut present = HashSet::new();
    collect_ids(&root, &mut present);
    // Reused exchanges without a child whose target is not in the tree, in
    // the order they are attached (later reuses of a target find it).
    let mut wanted = Vec::new();
    root.apply(|n| {
        if let NodeKind::Reused { target: Some(t) } = n.kind {
            if n.name == "ReusedExchange" && n.children.is_empty() && !present.contains(&t) {
                wanted.push(t);
            }
        }
        Recursion::Continue
    });
    let mut built: HashMap<u64, PlanNode> = HashMap::new();
    for t in wanted {
        if present.contains(&t) {
            continue;
        }
        if let Some(&line) = b.doc.by_id.get(&t) {
            let sub = b.build(line)?;
            collect_ids(&sub, &mut present);
            built.insert(t, sub);
        }
    }
    if built.is_empty() {
        return Ok(root);
    }
    Ok(root.transform_down(|mut n| {
        if let NodeKind::Reused { target: Some(t) } = n.kind {
            if n.name == "ReusedExchange" && n.children.is_empty() {
                if let Some(sub) = built.remove(&t) {
                    n.children.push(sub);
                }
            }
        }
        n
    }))
}

// ---------------------------------------------------------------------------
// Helpers shared with the sparkPlanInfo parser.

/// Data source formats a scan name may print before what it reads.
const FORMATS: &[&str] = &[
    "avro",
    "binaryfile",
    "csv",
    "delta",
    "hive",
    "iceberg",
    "json",
    "orc",
    "parquet",
    "text",
];

/// What a scan reads, from its node name, its location and its arguments:
///
/// - a catalog table: `Scan parquet spark_catalog.default.orders`, `Scan
///   parquet default.orders` (older Spark), `Scan hive default.t`,
///   `BatchScan cat.db.t[...]` (DataSource V2 catalog table);
/// - a path: `BatchScan parquet file:/data/orders` (a V2 file read), or the
///   location of a scan that names no table (`Scan parquet ` of a V1 path
///   read, `PhotonScan parquet `, `GpuScan parquet `), so one directory has
///   one identity whatever the scan node;
/// - a JDBC table: `Scan JDBCRelation(TBLS) [numPartitions=1]` is `jdbc:TBLS`;
/// - an RDD: `Scan` with `Arguments: obj#94: int, ParallelCollectionRDD[41]
///   at makeRDD at ...` is `rdd:ParallelCollectionRDD[41]`; with nothing
///   naming it, `rdd:` and its object (`rdd:obj#1`).
///
/// Never empty, and never starts with a format name.
pub(crate) fn scan_table(name: &str, location: Option<&str>, args: &str) -> String {
    let name = name.trim();
    let (head, cols) = match name.find('[') {
        Some(p) if !name[..p].contains("JDBCRelation(") => (&name[..p], &name[p..]),
        _ => (name, ""),
    };
    let mut words = head.split_whitespace().peekable();
    let op = words.next().unwrap_or("");
    let op = op.trim_start_matches('*');
    let mut rest: Vec<&str> = words.collect();
    if let Some(jdbc) = rest.first().and_then(|w| {
        w.strip_prefix("JDBCRelation(")
            .and_then(|r| r.rsplit_once(')'))
            .map(|(t, _)| t)
    }) {
        return format!("jdbc:{jdbc}");
    }
    // The format word: always printed by `Scan`-style names, and by
    // `BatchScan` of a file source (`BatchScan parquet file:/...`).
    let skip_format = match rest.as_slice() {
        // `Scan <format> <table>`, `Scan <format>` (format words have no
        // `.`, `:` or `/`; a lone `Scan default.t` of old Spark has no format).
        [f, ..] if op != "BatchScan" => rest.len() > 1 || !f.contains(['.', ':', '/']),
        [f, _, ..] => FORMATS.contains(&f.to_ascii_lowercase().as_str()),
        _ => false,
    };
    if skip_format {
        rest.remove(0);
    }
    let table = rest.join(" ");
    if !table.is_empty() {
        return table;
    }
    if let Some(loc) = location.map(location_paths).filter(|l| !l.is_empty()) {
        return loc;
    }
    // No table and no location: an RDD (`Scan` / `Scan[obj#1]`).
    let rdd = args
        .split(',')
        .map(str::trim)
        .find_map(|a| {
            let w = a.split_whitespace().next()?;
            (w.contains("RDD[")).then_some(w)
        })
        .map(str::to_string)
        .or_else(|| {
            // `Scan[obj#1]`: the object column is all that names it.
            let c = if cols.is_empty() {
                args.trim()
            } else {
                cols.trim()
            };
            let c = c.strip_prefix('[')?.split(']').next()?.trim();
            (!c.is_empty()).then(|| c.to_string())
        })
        .unwrap_or_else(|| "unnamed".to_string());
    format!("rdd:{rdd}")
}

/// An Iceberg scan's description (see [`::plan::iceberg_filters`]) in
/// `text` read into `info`: its table, branch, and filter list kept as
/// printed in `pushed_filters` (`[filters=…, groupedBy=…]`, read back by
/// [`::plan::iceberg_filters::parse`]); format `iceberg`. Nothing changes
/// when `text` holds none.
pub(crate) fn iceberg_scan(info: &mut ScanInfo, text: &str) {
    if let Some(d) = ::plan::iceberg_filters::description(text) {
        info.table = d.table;
        info.branch = d.branch;
        info.pushed_filters = Some(d.filters);
        info.format = Some("iceberg".into());
    }
}

/// A V2 scan's `RuntimeFilters` list, `None` when empty (`[]`).
pub(crate) fn runtime_filters(v: &str) -> Option<String> {
    let v = v.trim();
    (!v.is_empty() && v != "[]").then(|| v.to_string())
}

/// The `RuntimeFilters: […]` a V2 scan's one-line form ends with.
pub(crate) fn runtime_filters_in(text: &str) -> Option<String> {
    let at = text.rfind(" RuntimeFilters: ")?;
    runtime_filters(&text[at + " RuntimeFilters: ".len()..])
}

/// `parquet` from `Scan parquet ...`, `PhotonScan parquet `, `BatchScan
/// parquet file:/...`.
pub(crate) fn scan_format(name: &str) -> Option<String> {
    let mut words = name.split_whitespace();
    let op = words.next()?.trim_start_matches('*');
    let f = words.next()?;
    let known = FORMATS.contains(&f.to_ascii_lowercase().as_str());
    match op {
        "BatchScan" if !known => None,
        _ if f.starts_with("JDBCRelation(") => Some("jdbc".to_string()),
        _ => Some(f.to_ascii_lowercase()),
    }
}

/// `InMemoryFileIndex [file:/a]` / `InMemoryFileIndex(1 paths)[file:/a]` →
/// `file:/a`.
pub(crate) fn location_paths(loc: &str) -> String {
    match (loc.find('['), loc.rfind(']')) {
        (Some(a), Some(b)) if b > a => loc[a + 1..b].trim().to_string(),
        _ => loc.trim().to_string(),
    }
}

/// Attributes of a printed list `[a#1, b#2L, x AS c#3]` (brackets optional,
/// commas with or without a space); items that define no attribute (a
/// `... N more fields` marker) are skipped.
pub(crate) fn attrs_of_list(text: &str) -> Vec<Attr> {
    parse_attr_list(text)
}

/// `Generate` from its arguments (`explode(x), [..], false, [..]`): the
/// generator is the first top-level argument, its output the last list.
pub(crate) fn generate_kind(args: &str) -> NodeKind {
    let parts: Vec<&str> = split_top_level(args).collect();
    NodeKind::Generate {
        generator: parts
            .first()
            .map(|s| parse_expr(s))
            .unwrap_or_else(|| Expr::Raw(String::new())),
        // `explode(x), [requiredChildOutput], outer, [generatorOutput]`.
        generator_output: parts
            .iter()
            .skip(2)
            .rev()
            .find(|p| p.starts_with('['))
            .map(|l| attrs_of_list(l))
            .unwrap_or_default(),
    }
}

/// `Window` from its arguments: `[exprs], [partition], [order]`.
pub(crate) fn window_kind(args: &str, list: impl Fn(&str) -> Vec<Expr>) -> NodeKind {
    let parts: Vec<&str> = split_top_level(args).collect();
    let at = |i: usize| parts.get(i).map(|s| list(s)).unwrap_or_default();
    NodeKind::Window {
        exprs: at(0),
        partition: at(1),
        order: at(2),
    }
}

/// `[[a#1, null, 0], [b#2, c#3, 1]], [x#4, y#5, spark_grouping_id#6L]` → the
/// projections.
pub(crate) fn expand_projections(args: &str) -> Vec<Vec<Expr>> {
    let Some(first) = split_top_level(args).next() else {
        return Vec::new();
    };
    let inner = first
        .trim()
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(first);
    split_top_level(inner)
        .filter(|p| p.starts_with('['))
        .map(parse_expr_list)
        .collect()
}

/// The subquery's exprId in a hosting expression: `Subquery subquery#714,
/// [id=#10262]` → 714; `dynamicpruningexpression(x#3 IN dynamicpruning#9)`
/// → 9 (not the attribute's 3).
fn subquery_id(expr: &str) -> Option<u64> {
    ["scalar-subquery#", "subquery#", "dynamicpruning#"]
        .iter()
        .find_map(|tag| expr.find(tag).map(|p| &expr[p..]))
        .and_then(first_hash_number)
        .or_else(|| first_hash_number(expr))
}

/// The first `#N` number in a text (`Subquery subquery#714, [id=#10262]` →
/// 714).
pub(crate) fn first_hash_number(text: &str) -> Option<u64> {
    let pos = text.find('#')?;
    let tail = &text[pos + 1..];
    let end = tail
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(tail.len());
    tail[..end].parse().ok()
}

/// Real fixtures for the plan parsers' tests: the repository's TPC-H event
/// logs (`tests/data/spark-logs`, `samples/`), decompressed in memory once
/// per test binary.
#[cfg(test)]
pub(crate) mod testdata {
    use std::collections::{BTreeMap, BTreeSet, HashSet};
    use std::sync::OnceLock;

    use super::split_op_id;
    use ::plan::{NodeKind, PlanNode, Recursion, TreeNode};

    /// One SQL execution's plans.
    #[derive(Debug, Default, Clone)]
    pub(crate) struct Exec {
        pub(crate) id: u64,
        pub(crate) start_desc: String,
        pub(crate) start_info: String,
        /// The last AQE update's plans, else the start's.
        pub(crate) final_desc: String,
        pub(crate) final_info: String,
        pub(crate) updates: usize,
    }

    fn collect(text: &str) -> Vec<Exec> {
        let mut by_id: BTreeMap<u64, Exec> = BTreeMap::new();
        for line in text.lines() {
            if !line.contains("SparkListenerSQLExecutionStart")
                && !line.contains("SparkListenerSQLAdaptiveExecutionUpdate")
            {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(line).expect("event json");
            let ev = v["Event"].as_str().unwrap_or_default();
            let Some(id) = v["executionId"].as_u64() else {
                continue;
            };
            let desc = v["physicalPlanDescription"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let info = v["sparkPlanInfo"].to_string();
            let e = by_id.entry(id).or_default();
            e.id = id;
            if ev.ends_with("SQLExecutionStart") {
                e.start_desc = desc.clone();
                e.start_info = info.clone();
                if e.updates == 0 {
                    e.final_desc = desc;
                    e.final_info = info;
                }
            } else if ev.ends_with("SQLAdaptiveExecutionUpdate") {
                e.updates += 1;
                e.final_desc = desc;
                e.final_info = info;
            }
        }
        by_id.into_values().collect()
    }

    /// The tpch-default application (zstd, formatted explain mode).
    pub(crate) fn tpch_default() -> &'static [Exec] {
        static CELL: OnceLock<Vec<Exec>> = OnceLock::new();
        CELL.get_or_init(|| {
            let path = testdata::spark_logs(
                "tpch-default/eventlog_v2_local-1796009792357/events_1_local-1796009792357.zstd",
            );
            let bytes = std::fs::read(path).expect("tpch-default log");
            let text = zstd::stream::decode_all(&bytes[..]).expect("zstd");
            collect(&String::from_utf8(text).expect("utf8"))
        })
    }

    /// Every execution of the four `weekly/` applications (zstd).
    pub(crate) fn weekly() -> &'static [Exec] {
        static CELL: OnceLock<Vec<Exec>> = OnceLock::new();
        CELL.get_or_init(|| {
            let mut all = Vec::new();
            let dir = testdata::spark_logs("weekly");
            let mut apps: Vec<_> = std::fs::read_dir(&dir)
                .expect("weekly dir")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir() && p.to_string_lossy().contains("eventlog_v2_"))
                .collect();
            apps.sort();
            for app in apps {
                for f in std::fs::read_dir(&app)
                    .expect("app dir")
                    .filter_map(|e| e.ok())
                {
                    let path = f.path();
                    if path.extension().is_some_and(|x| x == "zstd") {
                        let bytes = std::fs::read(&path).expect("weekly log");
                        let text = zstd::stream::decode_all(&bytes[..]).expect("zstd");
                        all.extend(collect(&String::from_utf8(text).expect("utf8")));
                    }
                }
            }
            all
        })
    }

    /// The tpch-smj application (snappy-java stream format: a 16-byte
    /// header, then `[u32 BE length][raw snappy block]` chunks).
    pub(crate) fn tpch_smj() -> &'static [Exec] {
        static CELL: OnceLock<Vec<Exec>> = OnceLock::new();
        CELL.get_or_init(|| {
            let path = testdata::spark_logs(
                "tpch-smj/eventlog_v2_local-1796012495657/events_1_local-1796012495657.snappy",
            );
            let bytes = std::fs::read(path).expect("tpch-smj log");
            let mut out = Vec::new();
            let mut pos = 16;
            let mut dec = snap::raw::Decoder::new();
            while pos + 4 <= bytes.len() {
                let len = u32::from_be_bytes([
                    bytes[pos],
                    bytes[pos + 1],
                    bytes[pos + 2],
                    bytes[pos + 3],
                ]) as usize;
                pos += 4;
                let block = &bytes[pos..pos + len];
                out.extend(dec.decompress_vec(block).expect("snappy block"));
                pos += len;
            }
            collect(&String::from_utf8(out).expect("utf8"))
        })
    }

    /// The query (`q01`..`q22`) an execution id of an application ran.
    pub(crate) fn query_of(app_file: &str, exec_id: u64) -> Option<String> {
        let text = testdata::read_to_string(&format!("spark-logs/{app_file}"));
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        v["runs"].as_array()?.iter().find_map(|r| {
            let ids = r["execution_ids"].as_array()?;
            ids.iter()
                .any(|i| i.as_u64() == Some(exec_id))
                .then(|| r["query"].as_str().map(str::to_string))
                .flatten()
        })
    }

    /// `tables` of a query in the answer key.
    pub(crate) fn truth_tables(query: &str) -> Vec<String> {
        let text = testdata::read_to_string("spark-logs/tpch-truth.json");
        let v: serde_json::Value = serde_json::from_str(&text).expect("truth json");
        let mut t: Vec<String> = v["queries"][format!("tpch/{query}")]["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect();
        t.sort();
        t.dedup();
        t
    }

    /// Base table names (last part of the catalog name) of every scan.
    pub(crate) fn tables(p: &PlanNode) -> Vec<String> {
        let mut t = BTreeSet::new();
        p.apply(|n| {
            if let NodeKind::Scan(s) = &n.kind {
                t.insert(s.table.rsplit('.').next().unwrap_or("").to_string());
            }
            Recursion::Continue
        });
        t.into_iter().collect()
    }

    /// Ids printed only under `== Initial Plan ==` headers.
    pub(crate) fn initial_only_ids(text: &str) -> HashSet<u64> {
        let (mut initial, mut fin) = (HashSet::new(), HashSet::new());
        let mut in_initial = false;
        for line in text.lines() {
            if line.contains("== Initial Plan ==") {
                in_initial = true;
                continue;
            }
            if line.contains("== Final Plan ==") || line.trim().is_empty() {
                in_initial = false;
                continue;
            }
            if line.starts_with('(') {
                continue;
            }
            if let (_, Some(id)) = split_op_id(line.trim()) {
                if in_initial {
                    initial.insert(id);
                } else {
                    fin.insert(id);
                }
            }
        }
        initial.difference(&fin).copied().collect()
    }

    /// The execution of tpch-default that ran `query`.
    pub(crate) fn default_exec(query: &str) -> &'static Exec {
        let n: u64 = query.trim_start_matches('q').parse().expect("query number");
        let id = n + 7;
        assert_eq!(
            query_of("executions/tpch-default.json", id).as_deref(),
            Some(query)
        );
        tpch_default()
            .iter()
            .find(|e| e.id == id)
            .expect("execution")
    }
}

#[cfg(test)]
mod tests {
    use super::testdata::*;
    use super::*;
    use ::plan::predicate::{ColumnType, IntWidth};
    use ::plan::Recursion;

    fn find(p: &PlanNode, id: u64) -> &PlanNode {
        let mut found = None;
        p.apply(|n| {
            if n.op_id == Some(id) && found.is_none() {
                found = Some(n);
                return Recursion::Stop;
            }
            Recursion::Continue
        });
        found.unwrap_or_else(|| panic!("operator ({id}) not in the tree"))
    }

    fn joins(p: &PlanNode) -> Vec<&JoinInfo> {
        let mut v = Vec::new();
        p.apply(|n| {
            if let NodeKind::Join(j) = &n.kind {
                v.push(j);
            }
            Recursion::Continue
        });
        v
    }

    const SMALL: &str = "== Physical Plan ==
AdaptiveSparkPlan (9)
+- == Final Plan ==
   ResultQueryStage (5), Statistics(sizeInBytes=8.0 EiB)
   +- * Project (4)
      +- * Filter (3)
         +- * ColumnarToRow (2)
            +- Scan parquet spark_catalog.default.region (1)
+- == Initial Plan ==
   Project (8)
   +- Filter (7)
      +- Scan parquet spark_catalog.default.region (1)


(1) Scan parquet spark_catalog.default.region
Output [2]: [r_regionkey#171L, r_name#172]
Batched: true
Location: InMemoryFileIndex [file:/srv/lakehouse/warehouse/region]
PushedFilters: [IsNotNull(r_name), EqualTo(r_name,EUROPE), IsNotNull(r_regionkey)]
ReadSchema: struct<r_regionkey:bigint,r_name:string>

(2) ColumnarToRow [codegen id : 4]
Input [2]: [r_regionkey#171L, r_name#172]

(3) Filter [codegen id : 4]
Input [2]: [r_regionkey#171L, r_name#172]
Condition : ((isnotnull(r_name#172) AND (r_name#172 = EUROPE)) AND isnotnull(r_regionkey#171L))

(4) Project [codegen id : 4]
Output [1]: [r_regionkey#171L]
Input [2]: [r_regionkey#171L, r_name#172]

(5) ResultQueryStage
Output [1]: [r_regionkey#171L]
Arguments: 3

(7) Filter
Input [2]: [r_regionkey#171L, r_name#172]
Condition : ((isnotnull(r_name#172) AND (r_name#172 = EUROPE)) AND isnotnull(r_regionkey#171L))

(8) Project
Output [1]: [r_regionkey#171L]
Input [2]: [r_regionkey#171L, r_name#172]

(9) AdaptiveSparkPlan
Output [1]: [r_regionkey#171L]
Arguments: isFinalPlan=true
";

    #[test]
    fn small_aqe_plan_keeps_only_the_final_plan() {
        let p = parse(SMALL).unwrap();
        insta::assert_snapshot!(p.render(), @r"
        AdaptiveSparkPlan (9) -> [r_regionkey#171L]
          ResultQueryStage (5) -> [r_regionkey#171L]
            Project (4) -> [r_regionkey#171L]
              Filter (3) -> [r_regionkey#171L, r_name#172]
                ColumnarToRow (2) -> [r_regionkey#171L, r_name#172]
                  Scan parquet spark_catalog.default.region (1) table=spark_catalog.default.region -> [r_regionkey#171L, r_name#172]
        ");
        let scan = find(&p, 1);
        let NodeKind::Scan(s) = &scan.kind else {
            panic!("not a scan")
        };
        assert_eq!(s.format.as_deref(), Some("parquet"));
        assert_eq!(
            s.location.as_deref(),
            Some("InMemoryFileIndex [file:/srv/lakehouse/warehouse/region]")
        );
        assert_eq!(
            s.read_schema,
            [
                ("r_regionkey".into(), ColumnType::Integer(IntWidth::Long)),
                ("r_name".into(), ColumnType::String)
            ]
        );
        assert!(s
            .pushed_filters
            .as_deref()
            .unwrap()
            .contains("EqualTo(r_name,EUROPE)"));
        let NodeKind::Filter { condition } = &find(&p, 3).kind else {
            panic!("not a filter")
        };
        assert_eq!(
            condition.to_string(),
            "((isnotnull(r_name#172) AND (r_name#172 = EUROPE)) AND isnotnull(r_regionkey#171L))"
        );
        assert!(initial_only_ids(SMALL).contains(&7));
    }

    #[test]
    fn scan_names_give_the_table_or_the_path() {
        let t = |name: &str, loc: Option<&str>| scan_table(name, loc, "");
        assert_eq!(
            t("Scan parquet spark_catalog.default.orders", None),
            "spark_catalog.default.orders"
        );
        assert_eq!(t("Scan parquet default.orders", None), "default.orders");
        assert_eq!(t("BatchScan local.db.orders", None), "local.db.orders");
        assert_eq!(t("Scan hive default.orders", None), "default.orders");
        assert_eq!(
            t(
                "Scan parquet",
                Some("InMemoryFileIndex [file:/data/orders]")
            ),
            "file:/data/orders"
        );
        assert_eq!(
            t(
                "Scan parquet",
                Some("InMemoryFileIndex(1 paths)[file:/data/orders]")
            ),
            "file:/data/orders"
        );
        assert_eq!(
            scan_format("Scan parquet default.orders").as_deref(),
            Some("parquet")
        );
        // Names of the real logs in tests/data/lineage and the public logs
        // tests/it/public.rs reads:
        // a V2 file read is its path, never `parquet file:/...`.
        assert_eq!(
            t("BatchScan parquet file:/tmp/w/orders", None),
            "file:/tmp/w/orders"
        );
        assert_eq!(
            scan_format("BatchScan parquet file:/tmp/w/orders").as_deref(),
            Some("parquet")
        );
        assert_eq!(scan_format("BatchScan local.db.orders"), None);
        assert_eq!(
            t(
                "PhotonScan parquet ",
                Some("InMemoryFileIndex [s3://b/store_sales]")
            ),
            "s3://b/store_sales"
        );
        assert_eq!(
            t(
                "GpuScan parquet ",
                Some("InMemoryFileIndex [gs://b/web_sales]")
            ),
            "gs://b/web_sales"
        );
        assert_eq!(
            t("Scan JDBCRelation(TBLS) [numPartitions=1] ", None),
            "jdbc:TBLS"
        );
        assert_eq!(
            scan_table(
                "Scan",
                None,
                "obj#94: int, ParallelCollectionRDD[41] at makeRDD at QualificationInfoUtils.scala:92"
            ),
            "rdd:ParallelCollectionRDD[41]"
        );
        assert_eq!(scan_table("Scan", None, "[obj#1]"), "rdd:obj#1");
        assert_eq!(scan_table("Scan", None, ""), "rdd:unnamed");
        // Operator names resolve through the one registry.
        let p = parse(
            "== Physical Plan ==\nMystery (2)\n+- Scan OneRowRelation (1)\n\n\n\
(1) Scan OneRowRelation\nOutput: []\n\n(2) Mystery\nInput: []\n",
        )
        .unwrap();
        assert_eq!(p.kind, NodeKind::Unknown);
        assert_eq!(p.children[0].kind, NodeKind::LocalData);
        assert_eq!(
            p.unknown_operators().into_iter().collect::<Vec<_>>(),
            [("Mystery".to_string(), 1)]
        );
    }

    #[test]
    fn subquery_ids_come_from_the_subquery_not_an_attribute() {
        assert_eq!(subquery_id("Subquery subquery#714, [id=#10262]"), Some(714));
        assert_eq!(
            subquery_id("ReusedSubquery Subquery subquery#714, [id=#10262]"),
            Some(714)
        );
        assert_eq!(
            subquery_id("dynamicpruningexpression(d_date_sk#3 IN dynamicpruning#9)"),
            Some(9)
        );
    }

    #[test]
    fn plan_without_final_section_keeps_the_printed_child() {
        let text = "== Physical Plan ==
AdaptiveSparkPlan (3)
+- Filter (2)
   +- Scan parquet spark_catalog.default.region (1)


(1) Scan parquet spark_catalog.default.region
Output [1]: [r_regionkey#171L]

(2) Filter
Input [1]: [r_regionkey#171L]
Condition : isnotnull(r_regionkey#171L)

(3) AdaptiveSparkPlan
Output [1]: [r_regionkey#171L]
Arguments: isFinalPlan=false
";
        let p = parse(text).unwrap();
        assert_eq!(p.children.len(), 1);
        assert_eq!(p.children[0].name, "Filter");
        assert_eq!(tables(&p), ["region"]);
    }

    #[test]
    fn non_plans_are_errors_not_panics() {
        assert!(parse("").is_err());
        assert!(parse("hello world").is_err());
        assert!(parse("== Physical Plan ==\n\n").is_err());
        // Every prefix of a real plan parses or fails cleanly.
        let text = &default_exec("q22").final_desc;
        let mut cut = 0;
        while cut < text.len() {
            if text.is_char_boundary(cut) {
                let _ = parse(&text[..cut]);
            }
            cut += 37;
        }
    }

    /// A chain of `n` Filters over a scan, in formatted text.
    fn deep_text(n: usize) -> String {
        let mut tree = String::from("== Physical Plan ==\n");
        for d in 0..n {
            let prefix = if d == 0 {
                String::new()
            } else {
                format!("{}+- ", "   ".repeat(d - 1))
            };
            tree.push_str(&format!("{prefix}Filter ({})\n", n + 1 - d));
        }
        tree.push_str(&format!(
            "{}+- Scan parquet t (1)\n\n\n",
            "   ".repeat(n.saturating_sub(1))
        ));
        tree.push_str("(1) Scan parquet t\nOutput [1]: [a#1L]\n");
        tree
    }

    #[test]
    fn deep_plans_parse_on_a_small_stack() {
        // Run on a thread with the default test stack size (2 MiB): the
        // builder and every walk recurse through `plan::guard`. (Text past
        // the depth budget would be over 150 MB of indentation; the budget
        // error is tested on the cheaper sources.)
        std::thread::spawn(|| {
            let p = parse(&deep_text(3_000)).unwrap();
            assert_eq!(p.len(), 3_001);
            assert!(p.exists(|n| n.output == [Attr::new("a", 1, "L")]));
            assert_eq!(p.output, [Attr::new("a", 1, "L")]);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn q02_final_plan_keys_reuse_and_outputs() {
        let e = default_exec("q02");
        let p = parse(&e.final_desc).unwrap();
        assert_eq!(p.name, "AdaptiveSparkPlan");
        assert_eq!(p.children.len(), 1);
        assert_eq!(p.children[0].name, "ResultQueryStage");
        let gone = initial_only_ids(&e.final_desc);
        assert!(gone.contains(&98), "the initial SortMergeJoin (98)");
        assert!(!p.exists(|n| n.op_id.is_some_and(|id| gone.contains(&id))));
        // The multi-key join of the correlated min(ps_supplycost) subquery.
        let NodeKind::Join(j) = &find(&p, 48).kind else {
            panic!("(48) is a join")
        };
        assert_eq!(j.strategy, JoinStrategy::BroadcastHashJoin);
        assert_eq!(j.join_type, JoinType::Inner);
        let keys = |v: &[Expr]| v.iter().map(|e| e.to_string()).collect::<Vec<_>>();
        assert_eq!(keys(&j.left_keys), ["ps_supplycost#139", "p_partkey#120L"]);
        assert_eq!(
            keys(&j.right_keys),
            ["min(ps_supplycost)#153", "ps_partkey#155L"]
        );
        assert_eq!(j.condition, None);
        // ReusedExchange (64) [Reuses operator id: 38].
        let r = find(&p, 64);
        assert_eq!(r.kind, NodeKind::Reused { target: Some(38) });
        assert_eq!(r.output, [Attr::new("r_regionkey", 145, "L")]);
        assert!(r.children.is_empty(), "(38) is in the final plan");
        assert_eq!(find(&p, 38).name, "BroadcastExchange");
        // Aggregate result aliases come from Results.
        let agg = find(&p, 46);
        let NodeKind::Aggregate { grouping, results } = &agg.kind else {
            panic!("(46) is an aggregate")
        };
        assert_eq!(keys(grouping), ["ps_partkey#155L"]);
        assert_eq!(results.len(), 2);
        assert_eq!(
            agg.output,
            [
                Attr::new("min(ps_supplycost)", 153, ""),
                Attr::new("ps_partkey", 155, "L")
            ]
        );
        // TakeOrderedAndProject keeps its project list.
        let NodeKind::Limit { list } = &find(&p, 68).kind else {
            panic!("(68) is TakeOrderedAndProject")
        };
        assert_eq!(list.len(), 8);
        assert_eq!(tables(&p), truth_tables("q02"));
    }

    #[test]
    fn q16_not_in_is_a_null_aware_anti_join_and_q22_not_exists_is_not() {
        let p = parse(&default_exec("q16").final_desc).unwrap();
        let NodeKind::Join(j) = &find(&p, 10).kind else {
            panic!("(10) is a join")
        };
        assert_eq!(j.join_type, JoinType::LeftAnti);
        assert!(j.null_aware);
        let p = parse(&default_exec("q22").final_desc).unwrap();
        let NodeKind::Join(j) = &find(&p, 8).kind else {
            panic!("(8) is a join")
        };
        assert_eq!(j.join_type, JoinType::LeftAnti);
        assert!(!j.null_aware);
    }

    #[test]
    fn q22_subqueries_hang_off_their_hosting_operators() {
        let p = parse(&default_exec("q22").final_desc).unwrap();
        let filter = find(&p, 3);
        assert_eq!(filter.subqueries.len(), 1);
        let sub = &filter.subqueries[0];
        assert_eq!(sub.kind, NodeKind::SubqueryRoot { id: Some(714) });
        assert_eq!(sub.children[0].op_id, Some(45));
        assert_eq!(sub.output, [Attr::new("avg(c_acctbal)", 720, "")]);
        assert_eq!(tables(sub), ["customer"]);
        // Subquery:2 is a ReusedSubquery of the same plan, hosted by the scan.
        let scan = find(&p, 1);
        assert_eq!(scan.subqueries.len(), 1);
        assert_eq!(
            scan.subqueries[0].kind,
            NodeKind::Reused { target: Some(45) }
        );
        // The subquery's own initial plan (40..44) is dropped too.
        assert!(!p.exists(|n| n.op_id.is_some_and(|id| (40..=44).contains(&id))));
    }

    #[test]
    fn commands_keep_their_inner_children() {
        let e = tpch_default().iter().find(|e| e.id == 0).unwrap();
        let p = parse(&e.final_desc).unwrap();
        assert_eq!(p.kind, NodeKind::Command);
        assert_eq!(p.name, "Execute CreateDataSourceTableCommand");
        assert_eq!(p.children.len(), 1);
        assert_eq!(p.children[0].name, "CreateDataSourceTableCommand");
        assert_eq!(p.children[0].kind, NodeKind::Command);
    }

    #[test]
    fn initial_plans_parse_as_printed() {
        for e in tpch_default() {
            let p = parse(&e.start_desc).unwrap();
            if e.id >= 8 {
                assert_eq!(p.name, "AdaptiveSparkPlan");
                let q = query_of("executions/tpch-default.json", e.id).unwrap();
                assert_eq!(tables(&p), truth_tables(&q), "{q}");
            }
        }
    }

    #[test]
    fn smj_log_final_plans_have_the_documented_joins() {
        // tpch-smj/README.md: 11 SortMergeJoins and 53 BroadcastHashJoins in
        // the final plans, 19 and 45 in the initial ones.
        let count = |plans: &[Plan], s: JoinStrategy| -> usize {
            plans
                .iter()
                .map(|p| joins(p).iter().filter(|j| j.strategy == s).count())
                .sum()
        };
        let fin: Vec<Plan> = tpch_smj()
            .iter()
            .map(|e| parse(&e.final_desc).unwrap())
            .collect();
        assert_eq!(count(&fin, JoinStrategy::SortMergeJoin), 11);
        assert_eq!(count(&fin, JoinStrategy::BroadcastHashJoin), 53);
        // Executions 8..29 ran q01..q22 in this application too.
        let q13 = tpch_smj().iter().find(|e| e.id == 20).unwrap();
        let p = parse(&q13.final_desc).unwrap();
        let smj: Vec<String> = joins(&p)
            .iter()
            .filter(|j| j.strategy == JoinStrategy::SortMergeJoin)
            .map(|j| format!("{} {} = {}", j.join_type, j.left_keys[0], j.right_keys[0]))
            .collect();
        assert_eq!(smj, ["LeftOuter c_custkey#182L = o_custkey#191L"]);
    }

    #[test]
    fn every_pushed_filter_of_the_tpch_plans_is_typed() {
        // The formatted plans print each scan's PushedFilters and
        // ReadSchema whole (the JSON tree cuts them at 100 characters):
        // every filter of the 22 queries is understood and typed.
        let mut seen = 0;
        let mut ranges = 0;
        for q in 1..=22 {
            let p = parse(&default_exec(&format!("q{q:02}")).final_desc).unwrap();
            p.apply(|n| {
                if let NodeKind::Scan(s) = &n.kind {
                    for f in ::plan::predicate::parse_filters(
                        s.pushed_filters.as_deref().unwrap_or_default(),
                        &s.read_schema,
                    ) {
                        // StringEndsWith / StringContains have no min/max
                        // meaning: unknown by design (never skip a file).
                        if let ::plan::predicate::Predicate::Unknown(t) = &f {
                            assert!(
                                t.starts_with("StringEndsWith(")
                                    || t.starts_with("StringContains("),
                                "q{q}: {f:?} in {s:?}"
                            );
                        } else {
                            assert_eq!(f.unknown_count(), 0, "q{q}: {f:?} in {s:?}");
                        }
                        seen += 1;
                        ranges +=
                            usize::from(matches!(f, ::plan::predicate::Predicate::Cmp { .. }));
                    }
                }
                Recursion::Continue
            });
        }
        assert!(
            seen > 100 && ranges > 20,
            "{seen} filters, {ranges} comparisons"
        );
    }

    #[test]
    fn snapshots_of_real_queries() {
        for q in ["q02", "q07", "q13", "q15", "q16", "q20", "q21", "q22"] {
            let p = parse(&default_exec(q).final_desc).unwrap();
            insta::assert_snapshot!(format!("formatted_{q}"), p.render());
        }
    }
}
