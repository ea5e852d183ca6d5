//! `TreeNode.toJSON` plans (logical plans serialised by Spark's
//! `TreeNode.jsonValue`) into the plan IR.
//!
//! No input of the binary carries this form, so this parser is a test
//! oracle: the analyzed and optimized plans of `tpch-plans.jsonl` and of
//! the graph crate's fixtures come in both this form and extended text
//! from one Spark session, and lineage must agree on both. (OpenLineage
//! run events carry the same JSON in their `spark.logicalPlan` facet, which
//! the OpenLineage Spark agent leaves out by default; the only public
//! real events found with it are two write-only quickstart examples with
//! no table read and no join, too little to make an input worth having.)
//!
//! A plan is a pre-order array of nodes, each with `class` and
//! `num-children`; fields that name a child hold its index among the node's
//! children (`child: 0`, `left: 0, right: 1`, `cteDefs: [0]`). Expressions are
//! pre-order arrays of the same shape; an expression list is an array of such
//! arrays. Subquery expressions (`ScalarSubquery`, `Exists`, `ListQuery`)
//! carry their plan in a `plan` field; it is attached to the hosting node's
//! [`PlanNode::subqueries`], wrapped in a [`NodeKind::SubqueryRoot`] node whose
//! id is the subquery's exprId.
//!
//! ```
//! let json = r#"[{"class":"org.apache.spark.sql.catalyst.plans.logical.Filter","num-children":1,
//!   "condition":[{"class":"org.apache.spark.sql.catalyst.expressions.IsNotNull","num-children":1,"child":0},
//!                {"class":"org.apache.spark.sql.catalyst.expressions.AttributeReference","num-children":0,
//!                 "name":"a","dataType":"long","exprId":{"id":1},"qualifier":[]}],"child":0},
//!   {"class":"org.apache.spark.sql.catalyst.plans.logical.LocalRelation","num-children":0,"output":[]}]"#;
//! let plan = parsers::plan::tree_json::parse(json).unwrap();
//! assert_eq!(plan.name, "Filter");
//! ```

use serde_json::Value;

use super::plan_error;
use crate::{Error, Result};
use ::plan::{
    guard, operator, output_attrs, Attr, BinaryOp, Expr, Family, JoinInfo, JoinType, Level,
    NodeKind, NullOrdering, Plan, PlanNode, ScanInfo, SortDirection, SubqueryExpr, SubqueryKind,
    UnaryOp,
};

/// Parse the JSON text of one plan array.
pub fn parse(json: &str) -> Result<Plan> {
    let v: Value =
        serde_json::from_str(json).map_err(|e| Error::Plan(format!("tree json: {e}")))?;
    from_value(&v)
}

/// Convert one plan array (already parsed JSON). Errors when the value is not
/// a non-empty array of nodes or its `num-children` counts do not add up;
/// unknown node and expression classes are kept, never an error.
pub fn from_value(nodes: &Value) -> Result<Plan> {
    let arr = nodes
        .as_array()
        .ok_or_else(|| Error::Plan("tree json: a plan must be an array".into()))?;
    let tree = build_tree(arr)?;
    Ok(Plan::new(convert_plan(&tree, 0)?))
}

// ---------------------------------------------------------------------------
// Pre-order arrays into trees.

/// A node of a pre-order array with its children rebuilt.
struct Tree<'a> {
    node: &'a serde_json::Map<String, Value>,
    children: Vec<Tree<'a>>,
}

impl Tree<'_> {
    fn class(&self) -> &str {
        short_class(self.node.get("class").and_then(Value::as_str).unwrap_or(""))
    }

    fn field(&self, k: &str) -> Option<&Value> {
        self.node.get(k).filter(|v| !v.is_null())
    }

    /// The child a field names by index (`child: 0`).
    fn child_at(&self, k: &str) -> Option<&Tree<'_>> {
        let i = self.field(k)?.as_u64()?;
        self.children.get(usize::try_from(i).ok()?)
    }

    /// The children a field names by a list of indices (`list: [1, 2]`).
    fn children_at(&self, k: &str) -> Vec<&Tree<'_>> {
        self.field(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|i| self.children.get(usize::try_from(i.as_u64()?).ok()?))
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn short_class(c: &str) -> &str {
    c.rsplit('.').next().unwrap_or(c)
}

fn build_tree(arr: &[Value]) -> Result<Tree<'_>> {
    let mut pos = 0;
    let t = build_at(arr, &mut pos, 0)?;
    if pos != arr.len() {
        return Err(Error::Plan(format!(
            "tree json: {} trailing nodes after the root's subtree",
            arr.len() - pos
        )));
    }
    Ok(t)
}

fn build_at<'a>(arr: &'a [Value], pos: &mut usize, depth: usize) -> Result<Tree<'a>> {
    ::plan::Error::check_depth(depth).map_err(|e| plan_error("tree json", e))?;
    guard(|| build_node(arr, pos, depth))
}

fn build_node<'a>(arr: &'a [Value], pos: &mut usize, depth: usize) -> Result<Tree<'a>> {
    let node = arr
        .get(*pos)
        .and_then(Value::as_object)
        .ok_or_else(|| Error::Plan(format!("tree json: node {} missing or not an object", *pos)))?;
    *pos += 1;
    let n = node
        .get("num-children")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let mut children = Vec::new();
    for _ in 0..n {
        children.push(build_at(arr, pos, depth + 1)?);
    }
    Ok(Tree { node, children })
}

// ---------------------------------------------------------------------------
// Plans.

fn convert_plan(t: &Tree<'_>, depth: usize) -> Result<PlanNode> {
    ::plan::Error::check_depth(depth).map_err(|e| plan_error("tree json", e))?;
    guard(|| {
        let mut children = Vec::new();
        for c in &t.children {
            children.push(convert_plan(c, depth + 1)?);
        }
        let class = t.class().to_string();
        let op = operator(&class, Level::Logical);
        let kind = plan_kind(t, op.family, &class);
        let output = stated_output(t);
        let mut node = PlanNode::new(kind, class);
        node.engine = op.engine;
        node.output = output;
        node.children = children;
        node.subqueries = subquery_plans(t, depth)?;
        Ok(node)
    })
}

fn expr_field(t: &Tree<'_>, k: &str) -> Option<Expr> {
    t.field(k).and_then(expr_value)
}

fn list_field(t: &Tree<'_>, k: &str) -> Vec<Expr> {
    t.field(k).map(expr_list).unwrap_or_default()
}

/// `catalogTable.identifier` / `tableMeta.identifier` / V2 `identifier` →
/// `spark_catalog.default.orders`, as the text plans print it.
fn table_name(t: &Tree<'_>) -> Option<String> {
    let ident = t
        .field("catalogTable")
        .and_then(|c| c.get("identifier"))
        .or_else(|| t.field("tableMeta").and_then(|c| c.get("identifier")))
        .or_else(|| t.field("identifier"))?;
    let s = |k: &str| ident.get(k).and_then(Value::as_str).map(str::to_string);
    let mut parts = Vec::new();
    if let Some(c) = s("catalog") {
        parts.push(c);
    } else if let Some(c) = t
        .field("catalog")
        .and_then(|c| c.get("name").or(Some(c)))
        .and_then(Value::as_str)
    {
        parts.push(c.to_string());
    }
    if let Some(d) = s("database") {
        parts.push(d);
    }
    if let Some(ns) = ident.get("namespace").and_then(Value::as_array) {
        parts.extend(ns.iter().filter_map(|n| n.as_str().map(str::to_string)));
    }
    let table = s("table").or_else(|| s("name"))?;
    parts.push(table);
    Some(parts.join("."))
}

fn join_type(v: Option<&Value>) -> JoinType {
    JoinType::parse(&join_type_name(v))
}

fn join_type_name(v: Option<&Value>) -> String {
    let Some(v) = v else { return String::new() };
    if let Some(o) = v.get("object").and_then(Value::as_str) {
        return short_class(o).trim_end_matches('$').to_string();
    }
    if let Some(pc) = v.get("product-class").and_then(Value::as_str) {
        let name = short_class(pc).trim_end_matches('$').to_string();
        // ExistenceJoin(exists#12)
        if let Some(e) = v.get("exists").and_then(expr_value) {
            return format!("{name}({e})");
        }
        return name;
    }
    v.as_str().unwrap_or_default().to_string()
}

fn plan_kind(t: &Tree<'_>, family: Family, class: &str) -> NodeKind {
    match family {
        Family::Project => NodeKind::Project {
            list: list_field(t, "projectList"),
        },
        Family::Filter => NodeKind::Filter {
            condition: expr_field(t, "condition").unwrap_or(Expr::Literal("true".into())),
        },
        Family::Join(strategy) => {
            let join_type = join_type(t.field("joinType"));
            let condition = expr_field(t, "condition");
            let null_aware =
                join_type == JoinType::LeftAnti && condition.as_ref().is_some_and(is_not_in);
            NodeKind::Join(JoinInfo {
                strategy,
                join_type,
                left_keys: Vec::new(),
                right_keys: Vec::new(),
                condition,
                null_aware,
            })
        }
        Family::Aggregate => NodeKind::Aggregate {
            grouping: list_field(t, "groupingExpressions"),
            results: list_field(t, "aggregateExpressions"),
        },
        Family::Window => NodeKind::Window {
            exprs: list_field(t, "windowExpressions"),
            partition: list_field(t, "partitionSpec"),
            order: list_field(t, "orderSpec"),
        },
        Family::Expand => NodeKind::Expand {
            projections: t
                .field("projections")
                .and_then(Value::as_array)
                .map(|ps| ps.iter().map(expr_list).collect())
                .unwrap_or_default(),
        },
        Family::Generate => NodeKind::Generate {
            generator: expr_field(t, "generator").unwrap_or(Expr::Raw(String::new())),
            generator_output: attrs_field(t, "generatorOutput"),
        },
        Family::Union => NodeKind::Union,
        Family::Sort => NodeKind::Sort {
            order: list_field(t, "order"),
        },
        Family::Limit | Family::TopK => NodeKind::Limit { list: Vec::new() },
        Family::SubqueryAlias => NodeKind::SubqueryAlias {
            alias: alias_name(t),
        },
        Family::Scan => NodeKind::Scan(ScanInfo {
            table: table_name(t)
                .or_else(|| t.field("multipartIdentifier").and_then(dotted))
                .unwrap_or_else(|| class.to_string()),
            format: None,
            ..ScanInfo::default()
        }),
        Family::Exchange => NodeKind::Exchange,
        Family::PassThrough => NodeKind::PassThrough,
        Family::SubqueryRoot => NodeKind::SubqueryRoot {
            id: t.field("id").and_then(Value::as_u64),
        },
        Family::Reused => NodeKind::Reused {
            target: t.field("cteId").and_then(Value::as_u64),
        },
        Family::LocalData => NodeKind::LocalData,
        Family::Command => NodeKind::Command,
        Family::Other => NodeKind::Other,
        Family::Unknown => NodeKind::Unknown,
    }
}

/// `NOT IN` rewritten as an anti join: `(a = b) OR isnull((a = b))`, the
/// logical form of a null-aware anti join.
fn is_not_in(cond: &Expr) -> bool {
    match cond {
        Expr::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => match &**right {
            Expr::Call { name, args } => {
                name == "isnull" && matches!(args.as_slice(), [a] if *a == **left)
            }
            _ => false,
        },
        _ => false,
    }
}

/// `SubqueryAlias` identifier: `spark_catalog.default.orders` for a table,
/// `n1` for an alias, as the extended text prints it.
fn alias_name(t: &Tree<'_>) -> String {
    let Some(id) = t.field("identifier") else {
        return String::new();
    };
    if let Some(s) = id.as_str() {
        return s.to_string();
    }
    let name = id.get("name").and_then(Value::as_str).unwrap_or_default();
    let mut parts = qualifier(id.get("qualifier"));
    parts.push(name.to_string());
    parts.join(".")
}

/// A qualifier printed as a string `"[spark_catalog, default]"` or an array.
fn qualifier(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => s
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|p| p.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn attrs_field(t: &Tree<'_>, k: &str) -> Vec<Attr> {
    output_attrs(&list_field(t, k))
}

/// `["spark_catalog", "default", "t"]` → `spark_catalog.default.t`.
fn dotted(v: &Value) -> Option<String> {
    v.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(".")
    })
}

/// Output attributes the JSON states: a node's own `output` field (leaves,
/// `Expand`, CTE references, commands, unmodelled operators print one), a
/// Hive relation's data and partition columns. The rest is derived by
/// [`::plan::derive_outputs`].
fn stated_output(t: &Tree<'_>) -> Vec<Attr> {
    if t.field("output").is_none() && t.field("dataCols").is_some() {
        // HiveTableRelation: data columns, then partition columns.
        let mut out = attrs_field(t, "dataCols");
        out.extend(attrs_field(t, "partitionCols"));
        return out;
    }
    attrs_field(t, "output")
}

/// Subquery plans held by a plan node's expressions (not inside nested
/// plans: those belong to the nested plan's own nodes).
fn subquery_plans(t: &Tree<'_>, depth: usize) -> Result<Vec<PlanNode>> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for (k, v) in t.node.iter() {
        if k == "class" || k == "num-children" {
            continue;
        }
        find_subqueries(v, depth, &mut out, &mut seen, 0)?;
    }
    Ok(out)
}

fn find_subqueries(
    v: &Value,
    depth: usize,
    out: &mut Vec<PlanNode>,
    seen: &mut Vec<u64>,
    nest: usize,
) -> Result<()> {
    if nest > ::plan::DEPTH_BUDGET {
        return Ok(());
    }
    guard(|| find_subqueries_in(v, depth, out, seen, nest))
}

fn find_subqueries_in(
    v: &Value,
    depth: usize,
    out: &mut Vec<PlanNode>,
    seen: &mut Vec<u64>,
    nest: usize,
) -> Result<()> {
    match v {
        Value::Array(a) => {
            for e in a {
                find_subqueries(e, depth, out, seen, nest + 1)?;
            }
        }
        Value::Object(o) => {
            let class = short_class(o.get("class").and_then(Value::as_str).unwrap_or(""));
            if let (Some(_), Some(plan)) = (subquery_kind(class), o.get("plan")) {
                if plan.is_array() {
                    let id = o
                        .get("exprId")
                        .and_then(|e| e.get("id"))
                        .and_then(Value::as_u64);
                    if id.is_some_and(|i| seen.contains(&i)) {
                        return Ok(());
                    }
                    if let Some(i) = id {
                        seen.push(i);
                    }
                    let arr = plan.as_array().map(Vec::as_slice).unwrap_or(&[]);
                    let tree = build_tree(arr)?;
                    let inner = convert_plan(&tree, depth + 1)?;
                    let mut root = PlanNode::new(NodeKind::SubqueryRoot { id }, class);
                    root.children.push(inner);
                    out.push(root);
                    return Ok(());
                }
            }
            for (k, e) in o {
                if k != "class" {
                    find_subqueries(e, depth, out, seen, nest + 1)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn subquery_kind(class: &str) -> Option<SubqueryKind> {
    Some(match class {
        "ScalarSubquery" => SubqueryKind::Scalar,
        "Exists" => SubqueryKind::Exists,
        "ListQuery" => SubqueryKind::List,
        "LateralSubquery" | "FunctionTableSubqueryArgumentExpression" => SubqueryKind::Other,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// Expressions.

/// One expression: a pre-order array of expression nodes.
fn expr_value(v: &Value) -> Option<Expr> {
    let arr = v.as_array()?;
    if arr.is_empty() {
        return None;
    }
    let tree = build_tree(arr).ok()?;
    Some(convert_expr(&tree, 0))
}

/// A list of expressions: an array of pre-order arrays. A single expression
/// array is accepted as a one-item list.
fn expr_list(v: &Value) -> Vec<Expr> {
    let Some(arr) = v.as_array() else {
        return Vec::new();
    };
    if arr.first().is_some_and(Value::is_object) {
        return expr_value(v).into_iter().collect();
    }
    arr.iter().filter_map(expr_value).collect()
}

fn expr_id(t: &Tree<'_>) -> u64 {
    t.field("exprId")
        .and_then(|e| e.get("id"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// Spark's type suffix: `L` for LongType.
fn suffix_for(data_type: Option<&str>) -> &'static str {
    if data_type == Some("long") {
        "L"
    } else {
        ""
    }
}

/// Whether an expression's result type is LongType, as far as the JSON
/// shows it (needed for the `L` suffix of an `Alias`, whose JSON has no
/// data type).
fn is_long(t: &Tree<'_>, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    if let Some(dt) = t.field("dataType").and_then(Value::as_str) {
        return dt == "long";
    }
    match t.class() {
        "Count" | "CountIf" | "ApproxCountDistinct" | "HyperLogLogPlusPlus" => true,
        "AggregateExpression" => t
            .child_at("aggregateFunction")
            .is_some_and(|c| is_long(c, depth + 1)),
        "Sum"
        | "Min"
        | "Max"
        | "First"
        | "Last"
        | "Add"
        | "Subtract"
        | "Multiply"
        | "UnaryMinus"
        | "Abs"
        | "Alias"
        | "Coalesce"
        | "If"
        | "CaseWhen"
        | "KnownNotNull"
        | "KnownFloatingPointNormalized" => {
            t.children.first().is_some_and(|c| is_long(c, depth + 1))
        }
        _ => false,
    }
}

fn binary_op(class: &str) -> Option<BinaryOp> {
    Some(match class {
        "EqualTo" => BinaryOp::Eq,
        "EqualNullSafe" => BinaryOp::EqNullSafe,
        "LessThan" => BinaryOp::Lt,
        "LessThanOrEqual" => BinaryOp::LtEq,
        "GreaterThan" => BinaryOp::Gt,
        "GreaterThanOrEqual" => BinaryOp::GtEq,
        "And" => BinaryOp::And,
        "Or" => BinaryOp::Or,
        "Add" | "DateAddYMInterval" | "TimeAdd" | "DateAddInterval" => BinaryOp::Plus,
        "Subtract" => BinaryOp::Minus,
        "Multiply" => BinaryOp::Multiply,
        "Divide" => BinaryOp::Divide,
        "IntegralDivide" => BinaryOp::Div,
        "Remainder" => BinaryOp::Modulo,
        "BitwiseAnd" => BinaryOp::BitAnd,
        "BitwiseOr" => BinaryOp::BitOr,
        "BitwiseXor" => BinaryOp::BitXor,
        "Like" => BinaryOp::Like,
        _ => return None,
    })
}

/// Function names Spark prints differently from the lowercased class name.
fn call_name(class: &str) -> String {
    match class {
        "Average" => "avg".into(),
        "StartsWith" | "EndsWith" | "Contains" => class.into(),
        "CaseWhen" => "CASE WHEN".into(),
        other => other.to_ascii_lowercase(),
    }
}

fn data_type_sql(dt: &str) -> String {
    match dt {
        "long" => "bigint".into(),
        "integer" => "int".into(),
        "short" => "smallint".into(),
        "byte" => "tinyint".into(),
        other => other.into(),
    }
}

fn subquery_expr(t: &Tree<'_>, kind: SubqueryKind, depth: usize) -> SubqueryExpr {
    let outer_refs = t
        .children_at("outerAttrs")
        .into_iter()
        .map(|c| convert_expr(c, depth + 1))
        .collect();
    SubqueryExpr {
        kind,
        id: expr_id(t),
        outer_refs,
    }
}

fn convert_expr(t: &Tree<'_>, depth: usize) -> Expr {
    if depth > ::plan::DEPTH_BUDGET {
        return Expr::Raw(t.class().to_string());
    }
    guard(|| convert_expr_node(t, depth))
}

fn convert_expr_node(t: &Tree<'_>, depth: usize) -> Expr {
    let class = t.class();
    let kid = |k: &str| t.child_at(k).map(|c| Box::new(convert_expr(c, depth + 1)));
    let all = || -> Vec<Expr> {
        t.children
            .iter()
            .map(|c| convert_expr(c, depth + 1))
            .collect()
    };
    match class {
        "AttributeReference" => Expr::Attr(Attr::new(
            t.field("name").and_then(Value::as_str).unwrap_or_default(),
            expr_id(t),
            suffix_for(t.field("dataType").and_then(Value::as_str)),
        )),
        "Alias" => {
            let long = t.children.first().is_some_and(|c| is_long(c, 0));
            let attr = Attr::new(
                t.field("name").and_then(Value::as_str).unwrap_or_default(),
                expr_id(t),
                if long { "L" } else { "" },
            );
            let child = kid("child").unwrap_or_else(|| Box::new(Expr::Raw(String::new())));
            Expr::Alias { child, attr }
        }
        "OuterReference" => {
            let inner = t
                .field("e")
                .and_then(expr_value)
                .or_else(|| t.children.first().map(|c| convert_expr(c, depth + 1)))
                .unwrap_or(Expr::Raw(String::new()));
            Expr::Outer(Box::new(inner))
        }
        "Literal" => Expr::Literal(match t.field("value") {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => "null".into(),
        }),
        "Star" | "UnresolvedStar" => Expr::Star,
        "UnresolvedAttribute" => Expr::Unresolved(
            t.field("nameParts")
                .and_then(dotted)
                .or_else(|| t.field("name").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default(),
        ),
        "Not" => Expr::Unary {
            op: UnaryOp::Not,
            child: kid("child").unwrap_or_else(|| Box::new(Expr::Raw(String::new()))),
        },
        "UnaryMinus" => Expr::Unary {
            op: UnaryOp::Minus,
            child: kid("child").unwrap_or_else(|| Box::new(Expr::Raw(String::new()))),
        },
        "Cast" | "AnsiCast" | "TryCast" => {
            let dt = t.field("dataType").and_then(Value::as_str).unwrap_or("?");
            let mut args = all();
            args.truncate(1);
            args.push(Expr::Literal(data_type_sql(dt)));
            Expr::Call {
                name: "cast".into(),
                args,
            }
        }
        "SortOrder" => {
            let dir = t
                .field("direction")
                .and_then(|d| d.get("object"))
                .and_then(Value::as_str)
                .map(|o| short_class(o).trim_end_matches('$'))
                .unwrap_or("Ascending");
            let nulls = t
                .field("nullOrdering")
                .and_then(|d| d.get("object"))
                .and_then(Value::as_str)
                .map(|o| short_class(o).trim_end_matches('$'))
                .unwrap_or("NullsFirst");
            let direction = SortDirection {
                descending: dir == "Descending",
                nulls: Some(if nulls == "NullsLast" {
                    NullOrdering::Last
                } else {
                    NullOrdering::First
                }),
            };
            Expr::SortOrder {
                child: kid("child").unwrap_or_else(|| Box::new(Expr::Raw(String::new()))),
                direction,
            }
        }
        "In" => Expr::In {
            value: kid("value").unwrap_or_else(|| Box::new(Expr::Raw(String::new()))),
            list: t
                .children_at("list")
                .into_iter()
                .map(|c| convert_expr(c, depth + 1))
                .collect(),
        },
        "InSubquery" => {
            let values = t
                .children_at("values")
                .into_iter()
                .map(|c| convert_expr(c, depth + 1))
                .collect();
            let subquery = t
                .child_at("query")
                .map(|q| subquery_expr(q, SubqueryKind::List, depth))
                .unwrap_or(SubqueryExpr {
                    kind: SubqueryKind::List,
                    id: 0,
                    outer_refs: Vec::new(),
                });
            Expr::InSubquery { values, subquery }
        }
        "AggregateExpression" => {
            let func = t
                .child_at("aggregateFunction")
                .map(|c| convert_expr(c, depth + 1))
                .unwrap_or(Expr::Raw(String::new()));
            let distinct = t.field("isDistinct").and_then(Value::as_bool) == Some(true);
            match func {
                Expr::Call { name, args } if distinct => Expr::Call {
                    name,
                    args: args
                        .into_iter()
                        .map(|a| Expr::Unary {
                            op: UnaryOp::Distinct,
                            child: Box::new(a),
                        })
                        .collect(),
                },
                f => f,
            }
        }
        c => {
            if let Some(kind) = subquery_kind(c) {
                return Expr::Subquery(subquery_expr(t, kind, depth));
            }
            if let Some(op) = binary_op(c) {
                let mut args = all().into_iter();
                if let (Some(l), Some(r)) = (args.next(), args.next()) {
                    return Expr::binary(op, l, r);
                }
            }
            // Spark 4 runtime-replaceable expressions print as their
            // replacement (`Extract` as `year(...)`).
            if let Some(r) = t.child_at("replacement") {
                return convert_expr(r, depth + 1);
            }
            Expr::Call {
                name: call_name(c),
                args: all(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::formatted::testdata::{tables, truth_tables};
    use ::plan::{Recursion, TreeNode};

    fn plans() -> Vec<Value> {
        let text = testdata::read_to_string("spark-logs/tpch-plans.jsonl");
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn plan(q: &str, which: &str) -> Plan {
        let v = plans()
            .into_iter()
            .find(|v| v["query"].as_str() == Some(q))
            .unwrap();
        from_value(&v[which]).unwrap()
    }

    fn joins(p: &PlanNode) -> Vec<String> {
        let mut v = Vec::new();
        p.apply(|n| {
            if let NodeKind::Join(j) = &n.kind {
                let c = j
                    .condition
                    .as_ref()
                    .map(|c| c.to_string())
                    .unwrap_or_default();
                v.push(format!("{} {c}", j.join_type));
            }
            Recursion::Continue
        });
        v
    }

    #[test]
    fn all_queries_parse_and_scan_the_key_tables() {
        let all = plans();
        assert_eq!(all.len(), 22);
        for v in &all {
            let q = v["query"].as_str().unwrap();
            for which in ["analyzed", "optimized"] {
                let p = from_value(&v[which]).unwrap();
                assert_eq!(tables(&p), truth_tables(q), "{q} {which}");
                assert!(!p.output.is_empty(), "{q} {which}");
                // Every node class of these plans is known.
                assert!(!p.exists(|n| n.kind == NodeKind::Unknown), "{q} {which}");
            }
        }
    }

    #[test]
    fn join_types_conditions_and_subqueries() {
        let q13 = plan("q13", "optimized");
        assert_eq!(joins(&q13), ["LeftOuter (c_custkey#182L = o_custkey#191L)"]);
        let q16 = plan("q16", "optimized");
        let mut null_aware = Vec::new();
        q16.apply(|n| {
            if let NodeKind::Join(j) = &n.kind {
                null_aware.push((j.join_type.clone(), j.null_aware));
            }
            Recursion::Continue
        });
        assert_eq!(
            null_aware,
            [(JoinType::Inner, false), (JoinType::LeftAnti, true)]
        );
        let q21 = plan("q21", "optimized");
        let j = joins(&q21);
        assert!(j.iter().any(|s| s.starts_with("LeftSemi ")), "{j:?}");
        assert!(j.iter().any(|s| s.starts_with("LeftAnti ")), "{j:?}");
        // q22 analyzed: `not exists (... o_custkey = c_custkey)` is an
        // Exists subquery correlated on c_custkey, its plan attached.
        let q22 = plan("q22", "analyzed");
        let mut found = None;
        q22.apply(|n| {
            for e in n.expressions() {
                e.apply(|x| {
                    if let Expr::Subquery(s) = x {
                        if s.kind == SubqueryKind::Exists {
                            found = Some(s.clone());
                        }
                    }
                    Recursion::Continue
                });
            }
            Recursion::Continue
        });
        let exists = found.unwrap();
        assert_eq!(exists.outer_refs.len(), 1);
        assert_eq!(exists.outer_refs[0].to_string(), "c_custkey#182L");
        let mut roots = Vec::new();
        q22.apply(|n| {
            if let NodeKind::SubqueryRoot { id } = n.kind {
                roots.push((n.name.clone(), id, tables(n)));
            }
            Recursion::Continue
        });
        assert!(roots.contains(&("Exists".into(), Some(exists.id), vec!["orders".into()])));
        // The correlated reference inside the subquery plan is `outer(...)`.
        let mut outer = Vec::new();
        q22.apply(|n| {
            for e in n.expressions() {
                e.apply(|x| {
                    if let Expr::Outer(inner) = x {
                        outer.push(inner.to_string());
                    }
                    Recursion::Continue
                });
            }
            Recursion::Continue
        });
        assert_eq!(outer, ["c_custkey#182L"]);
    }

    #[test]
    fn aliases_get_the_long_suffix_and_ctes_are_kept() {
        let q22 = plan("q22", "optimized");
        assert_eq!(
            q22.output,
            [
                Attr::new("cntrycode", 713, ""),
                Attr::new("numcust", 716, "L"),
                Attr::new("totacctbal", 717, "")
            ]
        );
        let q15 = plan("q15", "analyzed");
        assert_eq!(q15.name, "WithCTE");
        assert_eq!(q15.children[0].kind, NodeKind::SubqueryRoot { id: Some(0) });
        assert!(q15.exists(|n| n.kind == NodeKind::Reused { target: Some(0) }));
        assert!(q15.exists(|n| n.kind
            == NodeKind::SubqueryAlias {
                alias: "revenue0".into()
            }));
        assert!(q15.exists(|n| n.kind
            == NodeKind::SubqueryAlias {
                alias: "spark_catalog.default.supplier".into()
            }));
    }

    #[test]
    fn bad_input_is_an_error_and_unknown_classes_are_kept() {
        assert!(parse("").is_err());
        assert!(parse("{}").is_err());
        assert!(parse("[]").is_err());
        assert!(parse(r#"[{"class":"a.Project","num-children":2}]"#).is_err());
        assert!(
            parse(r#"[{"class":"a.B","num-children":0},{"class":"a.C","num-children":0}]"#)
                .is_err()
        );
        let p = parse(
            r#"[{"class":"x.Mystery","num-children":1,"weird":[{"class":"y.Frobnicate","num-children":1,"child":0},{"class":"y.Literal","num-children":0,"value":"1","dataType":"integer"}],"child":0},
                {"class":"x.LocalRelation","num-children":0,"output":[]}]"#,
        )
        .unwrap();
        assert_eq!(p.kind, NodeKind::Unknown);
        assert_eq!(p.children[0].kind, NodeKind::LocalData);
        assert_eq!(
            p.unknown_operators().into_iter().collect::<Vec<_>>(),
            [("Mystery".to_string(), 1)]
        );
    }

    fn deep_json(n: usize) -> String {
        let filter = r#"{"class":"x.Filter","num-children":1,"condition":[{"class":"x.Literal","num-children":0,"value":"true","dataType":"boolean"}],"child":0}"#;
        let mut v: Vec<&str> = vec![filter; n];
        v.push(r#"{"class":"x.OneRowRelation","num-children":0}"#);
        format!("[{}]", v.join(","))
    }

    #[test]
    fn deep_plans_parse_up_to_the_cap_and_fail_cleanly_beyond() {
        std::thread::spawn(|| {
            let p = parse(&deep_json(::plan::DEPTH_BUDGET - 10)).unwrap();
            assert!(p.exists(|n| n.kind == NodeKind::LocalData));
            let e = parse(&deep_json(::plan::DEPTH_BUDGET + 10)).unwrap_err();
            assert!(
                e.to_string().contains("over the depth budget of 10000"),
                "{e}"
            );
        })
        .join()
        .unwrap();
    }

    #[test]
    fn snapshots_of_real_queries() {
        for q in ["q02", "q07", "q13", "q15", "q16", "q20", "q21", "q22"] {
            let p = plan(q, "optimized");
            insta::assert_snapshot!(format!("tree_json_{q}_optimized"), p.render());
        }
        for q in ["q15", "q20"] {
            let p = plan(q, "analyzed");
            insta::assert_snapshot!(format!("tree_json_{q}_analyzed"), p.render());
        }
    }
}
