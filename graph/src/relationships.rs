//! Join relationships: which base-table columns a plan joins on.
//!
//! [`relationships`] finds equi-join predicates in one plan and resolves
//! both sides through [`Lineage`]:
//!
//! - physical join key lists (`Left keys [2]: [a, b]` / `Right keys`), paired
//!   by position;
//! - equality conjuncts (`=`, `<=>`) of join conditions whose sides come from
//!   the two different children (logical `Join Inner, (a = b)`, extra
//!   physical conditions), including an equality common to every branch of
//!   an `OR` (TPC-H q19) and the null-aware `NOT IN` form
//!   `(a = b) OR isnull((a = b))`;
//! - equality conjuncts of a `Filter` whose sides come from the two sides of
//!   a join below it (analyzed plans keep comma joins as `Join Inner` with
//!   no condition under the WHERE filter); the lowest join that separates
//!   the two sides is the one the predicate belongs to, and the relationship
//!   is `Inner` (an equality in WHERE rejects the nulls an outer join adds);
//! - subquery expressions of analyzed plans: correlation predicates
//!   `(o_custkey#191L = outer(c_custkey#182L))` inside an `exists#N` /
//!   `IN (list#N)` / `scalar-subquery#N` plan give a `LeftSemi` /
//!   `LeftAnti` (under `NOT`) / `ScalarSubquery` relationship; `x IN
//!   (list#N [])` relates `x` to the subquery's output column; `x =
//!   scalar-subquery#N [refs]` (correlated) is a non-simple relationship
//!   with the subquery's result.
//!
//! An attribute reference whose exprId the plan binds to another name is
//! treated as a literal: Spark prints string literals unquoted, and TPC-H
//! q17's `(p_brand#123 = Brand#23)` would otherwise join `part.p_brand` to
//! `lineitem.l_shipmode#23`. Dynamic partition pruning filters are skipped
//! (they repeat a join that is there anyway).
//!
//! All pairs of one join (or one subquery) that resolve to the same pair of
//! tables form ONE relationship, so composite keys stay together; pairs of
//! one join that resolve to different table pairs (TPC-H q05) give one
//! relationship per table pair. A side that is not a plain column
//! (expression, aggregate result, unknown) gives its own relationship with
//! `non_simple: true`: it is reported, never dropped and never resolved to
//! a column it does not carry. An aggregate output whose definition the
//! source did not print (sparkPlanInfo and extended physical
//! `HashAggregate`s list no result aliases) is such an unknown side, with an
//! empty table; give [`relationships_with`] a lineage built from another
//! plan of the same query ([`Lineage::build_all`]) to resolve it.
//!
//! Relationships are oriented canonically (the smaller `table.column` list
//! on the left; `preserved_side` keeps the meaning of `LeftOuter`,
//! `LeftSemi`, ... after a swap), composite pairs are ordered by the left
//! column, and the result is sorted with duplicates removed (two copies of
//! one predicate differ only in exprIds: kept once; the same pair with two
//! join types stays twice).

use crate::lineage::ColumnRef;
use crate::lineage::{cast_chain, node_aggregate_ids, simple_attr, Lineage, Scope};
use plan::predicate::{ColumnType, IntWidth};
use plan::{
    Attr, BinaryOp, Expr, ExprId, JoinStrategy, JoinType, NodeId, NodeKind, Plan, PlanNode,
    Recursion, Runtime, SubqueryExpr, SubqueryKind, TreeNode, TreeNodeVisitor, UnaryOp,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A side of a relationship: the plan crate's join side.
pub use plan::Side;

/// What relates a relationship's two sides: a join of a type, or the
/// correlation of a subquery. Written and read as Spark prints the join
/// type (`Inner`, `LeftSemi`, `ExistenceJoin(exists#12)`) or as
/// `ScalarSubquery` / `Subquery`, and ordered by that text, so sorted and
/// deduplicated outputs are as before the type existed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Relation {
    /// A join of this type.
    Join(JoinType),
    /// The correlation of a correlated scalar subquery (analyzed plans).
    ScalarSubquery,
    /// The correlation of another kind of subquery.
    Subquery,
}

impl Relation {
    /// Read the printed form.
    pub fn parse(text: &str) -> Relation {
        match text.trim() {
            "ScalarSubquery" => Relation::ScalarSubquery,
            "Subquery" => Relation::Subquery,
            t => Relation::Join(JoinType::parse(t)),
        }
    }
}

impl std::fmt::Display for Relation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Relation::Join(j) => j.fmt(f),
            Relation::ScalarSubquery => f.write_str("ScalarSubquery"),
            Relation::Subquery => f.write_str("Subquery"),
        }
    }
}

impl PartialOrd for Relation {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Relation {
    /// By the printed text (the order relationships were sorted in when
    /// the field was a string).
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.to_string().cmp(&other.to_string())
    }
}

impl PartialEq<&str> for Relation {
    fn eq(&self, other: &&str) -> bool {
        match self {
            Relation::ScalarSubquery => *other == "ScalarSubquery",
            Relation::Subquery => *other == "Subquery",
            Relation::Join(j) => {
                let text = j.to_string();
                text == *other
            }
        }
    }
}

impl Serialize for Relation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Relation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Ok(Relation::parse(&text))
    }
}

/// The table(s) of one side of a relationship: one table for a simple
/// side; for a non-simple side, the tables of its source columns, sorted
/// and without repeats (none when no source is known).
///
/// Written and read as the names joined by `+` (`a+b`; empty for none),
/// the text the field had when it was a string, and compared, ordered and
/// hashed by that text, so sorted and deduplicated outputs are as before
/// the type existed. Reading splits at every `+`: a table whose name holds
/// a `+` (a path) reads back as several, with the same text.
#[derive(Clone, Debug, Default)]
pub struct SideTables(Vec<String>);

impl SideTables {
    /// The tables named, sorted and without repeats.
    pub fn new(names: impl IntoIterator<Item = String>) -> SideTables {
        let mut v: Vec<String> = names.into_iter().collect();
        v.sort();
        v.dedup();
        // No table and one empty name print alike: keep one form.
        if v.len() == 1 && v[0].is_empty() {
            v.clear();
        }
        SideTables(v)
    }

    /// Read the printed form (`a+b`, or one table, or empty).
    pub fn parse(text: &str) -> SideTables {
        if text.is_empty() {
            return SideTables::default();
        }
        SideTables::new(text.split('+').map(str::to_string))
    }

    /// The tables, sorted.
    pub fn names(&self) -> &[String] {
        &self.0
    }

    /// The table when the side has exactly one.
    pub fn single(&self) -> Option<&str> {
        match self.0.as_slice() {
            [t] => Some(t),
            _ => None,
        }
    }

    /// Whether no table is known.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every table renamed by `f`, sorted and without repeats again.
    pub fn rename(&self, f: impl Fn(&str) -> String) -> SideTables {
        SideTables::new(self.0.iter().map(|t| f(t)))
    }
}

impl From<&str> for SideTables {
    /// One table (none for an empty name).
    fn from(table: &str) -> SideTables {
        SideTables::new([table.to_string()])
    }
}

impl From<String> for SideTables {
    /// One table (none for an empty name).
    fn from(table: String) -> SideTables {
        SideTables::new([table])
    }
}

impl std::fmt::Display for SideTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(t)?;
        }
        Ok(())
    }
}

impl PartialEq for SideTables {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for SideTables {}

impl std::hash::Hash for SideTables {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.to_string().hash(h);
    }
}

impl PartialOrd for SideTables {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SideTables {
    /// By the printed text.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (self.single(), other.single()) {
            (Some(a), Some(b)) => a.cmp(b),
            _ => self.to_string().cmp(&other.to_string()),
        }
    }
}

impl PartialEq<&str> for SideTables {
    /// Whether `other` is the printed text.
    fn eq(&self, other: &&str) -> bool {
        let mut rest = *other;
        for (i, t) in self.0.iter().enumerate() {
            let after = if i == 0 {
                Some(rest)
            } else {
                rest.strip_prefix('+')
            };
            match after.and_then(|r| r.strip_prefix(t.as_str())) {
                Some(r) => rest = r,
                None => return false,
            }
        }
        rest.is_empty()
    }
}

impl Serialize for SideTables {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SideTables {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Ok(SideTables::parse(&text))
    }
}

/// One join relationship between columns of two tables (or of one table
/// with itself).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Relationship {
    /// Canonical table of the left side (for a non-simple side: the
    /// tables of its source columns, written joined with `+` if several,
    /// empty if none is known).
    pub left_table: SideTables,
    /// Left columns, position-paired with `right_columns` for simple
    /// relationships; the source columns of a non-simple side.
    pub left_columns: Vec<String>,
    /// Canonical table of the right side.
    pub right_table: SideTables,
    /// Right columns.
    pub right_columns: Vec<String>,
    /// The join type as Spark prints it (`Inner`, `LeftOuter`, `LeftSemi`,
    /// `LeftAnti`, `FullOuter`, ...), or `ScalarSubquery` for the correlation
    /// of a correlated scalar subquery in an analyzed plan. After the
    /// canonical swap it keeps Spark's wording: see `preserved_side`.
    pub join_type: Relation,
    /// The join operator (`Join` for logical plans and subqueries).
    pub strategy: JoinStrategy,
    /// Whether a side is an expression or a computed value rather than
    /// plain columns.
    pub non_simple: bool,
    /// The left key expression(s) as printed, `, `-separated.
    pub left_expr: String,
    /// The right key expression(s) as printed.
    pub right_expr: String,
    /// The preserved side of an outer join, or the outer-query side of a
    /// semi / anti / existence join or correlated subquery; `None` for
    /// inner joins.
    pub preserved_side: Option<Side>,
    /// Whether the left key reaches the join through an aggregate's
    /// grouping key (a join against a GROUP BY result, e.g. a decorrelated
    /// scalar subquery or a `WITH ... GROUP BY` view).
    pub left_aggregated: bool,
    /// Same for the right side.
    pub right_aggregated: bool,
    /// Whether the key compares nulls as equal (`a <=> b`, which physical
    /// plans print as the key pairs `coalesce(a, 0) = coalesce(b, 0)` and
    /// `isnull(a) = isnull(b)`). Serialized only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub null_safe: bool,
    /// The engine that ran the join (`spark`, `photon`, `gpu`).
    pub engine: Runtime,
}

impl Relationship {
    /// The `table.column` pairs of a simple relationship, one per key
    /// column (composite keys split).
    pub fn column_pairs(&self) -> Vec<(ColumnRef, ColumnRef)> {
        if self.non_simple {
            return Vec::new();
        }
        self.left_columns
            .iter()
            .zip(self.right_columns.iter())
            .map(|(l, r)| {
                (
                    ColumnRef {
                        table: self.left_table.to_string(),
                        column: l.clone(),
                    },
                    ColumnRef {
                        table: self.right_table.to_string(),
                        column: r.clone(),
                    },
                )
            })
            .collect()
    }

    /// Rename both sides' tables with `identity` (the workload crate's
    /// `identity::Locations`; each table of a non-simple side) and
    /// restore the canonical orientation: the smaller `table.column` list
    /// on the left.
    pub fn rename_tables(&mut self, identity: impl Fn(&str) -> String) {
        self.left_table = self.left_table.rename(&identity);
        self.right_table = self.right_table.rename(&identity);
        let list = |t: &SideTables, cols: &[String]| {
            let mut v: Vec<String> = cols.iter().map(|c| format!("{t}.{c}")).collect();
            v.sort();
            v
        };
        if list(&self.left_table, &self.left_columns) > list(&self.right_table, &self.right_columns)
        {
            std::mem::swap(&mut self.left_table, &mut self.right_table);
            std::mem::swap(&mut self.left_columns, &mut self.right_columns);
            std::mem::swap(&mut self.left_expr, &mut self.right_expr);
            std::mem::swap(&mut self.left_aggregated, &mut self.right_aggregated);
            self.preserved_side = self.preserved_side.map(Side::flip);
        }
    }

    /// One line for snapshots: `l.t.[a, b] = r.t.[x, y] Inner
    /// BroadcastHashJoin`, with markers for non-simple, preserved side and
    /// aggregated sides.
    pub fn render(&self) -> String {
        let mut s = format!(
            "{}[{}] = {}[{}] {} {}",
            self.left_table,
            self.left_columns.join(", "),
            self.right_table,
            self.right_columns.join(", "),
            self.join_type,
            self.strategy.as_str()
        );
        if let Some(p) = self.preserved_side {
            s.push_str(&format!(" preserved={p:?}"));
        }
        if self.left_aggregated {
            s.push_str(" left_aggregated");
        }
        if self.right_aggregated {
            s.push_str(" right_aggregated");
        }
        if self.null_safe {
            s.push_str(" null_safe");
        }
        if self.engine != Runtime::Spark {
            s.push_str(&format!(" engine={}", self.engine.as_str()));
        }
        if self.non_simple {
            s.push_str(&format!(
                " NON_SIMPLE {} = {}",
                self.left_expr, self.right_expr
            ));
        }
        s
    }
}

/// Render a list of relationships, one per line.
pub fn render(rels: &[Relationship]) -> String {
    rels.iter().map(|r| r.render() + "\n").collect()
}

/// Every join relationship of one plan: sorted, exact duplicates removed.
pub fn relationships(plan: &Plan) -> Vec<Relationship> {
    let lineage = Lineage::build(plan);
    relationships_with(plan, &lineage)
}

/// [`relationships`] with a lineage the caller already built with `plan`
/// as its first plan.
pub fn relationships_with(plan: &Plan, lineage: &Lineage) -> Vec<Relationship> {
    let mut x = Extractor {
        lineage,
        produced: HashMap::new(),
        aggregates: HashMap::new(),
        unions: HashMap::new(),
        links: HashMap::new(),
        sub_types: HashMap::new(),
        types: column_types(plan),
        engine: Runtime::Spark,
        out: Vec::new(),
    };
    x.link_subqueries(plan);
    x.walk(plan);
    let mut out = x.out;
    // The same join written twice (outer block and uncorrelated subquery)
    // differs only in exprIds: one relationship, keeping the first texts.
    out.sort_by(|a, b| identity(a).cmp(&identity(b)).then_with(|| a.cmp(b)));
    out.dedup_by(|a, b| identity(a) == identity(b));
    out
}

/// Everything but the printed expressions of a simple relationship (whose
/// exprIds differ between two copies of one predicate); a non-simple
/// relationship is identified by its expressions too, minus exprIds.
fn identity(r: &Relationship) -> impl Ord + '_ {
    let texts = if r.non_simple {
        (strip_ids(&r.left_expr), strip_ids(&r.right_expr))
    } else {
        (String::new(), String::new())
    };
    (
        (
            &r.left_table,
            &r.left_columns,
            &r.right_table,
            &r.right_columns,
        ),
        (&r.join_type, r.strategy, r.non_simple, r.preserved_side),
        (r.left_aggregated, r.right_aggregated),
        texts,
    )
}

/// `ps_supplycost#139` -> `ps_supplycost`: expression text without exprIds.
fn strip_ids(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '#' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            if chars.peek() == Some(&'L') {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// How a subquery expression is used by its host.
struct SubUse<'e> {
    sub: &'e SubqueryExpr,
    negated: bool,
    /// The tested values of `IN (list#N)`.
    values: &'e [Expr],
}

/// What the walk knows while inside a subquery plan.
#[derive(Clone)]
struct SubCtx {
    join_type: Relation,
}

/// One resolved side of a key pair.
enum Resolved {
    /// Plain base column(s).
    Columns(BTreeSet<ColumnRef>),
    /// Computed or unknown; the base columns feeding it.
    Computed(BTreeSet<ColumnRef>),
}

/// A key pair ready to group: the two sides' expressions and resolutions.
struct Pair {
    left: Expr,
    right: Expr,
    l: Resolved,
    r: Resolved,
    l_agg: bool,
    r_agg: bool,
    /// `a <=> b` (or its coalesce/isnull rewrite).
    null_safe: bool,
}

struct Extractor<'a> {
    lineage: &'a Lineage,
    /// exprIds produced in a subtree (data-flow children only), by node.
    produced: HashMap<NodeId, HashSet<ExprId>>,
    /// Aggregate output ids in a subtree (data flow), by node.
    aggregates: HashMap<NodeId, HashSet<ExprId>>,
    /// Union nodes in a subtree (subqueries included), by node.
    unions: HashMap<NodeId, HashSet<NodeId>>,
    /// Subquery expression id -> its plan.
    links: HashMap<ExprId, &'a PlanNode>,
    /// Subquery plan -> the join type its correlation means.
    sub_types: HashMap<NodeId, Relation>,
    /// Data type of base columns, from the scans' `ReadSchema`.
    types: HashMap<ColumnRef, ColumnType>,
    /// The engine of the join being emitted.
    engine: Runtime,
    out: Vec<Relationship>,
}

/// Whether an expression negates its operands (`NOT x`, `not(x)`).
fn is_not(e: &Expr) -> bool {
    match e {
        Expr::Unary {
            op: UnaryOp::Not, ..
        } => true,
        Expr::Call { name, .. } => name.eq_ignore_ascii_case("NOT"),
        _ => false,
    }
}

/// Subquery expressions in pre-order (Spark's `subqueries` order), with
/// whether each sits under a `NOT`.
fn collect_subs<'e>(e: &'e Expr, out: &mut Vec<SubUse<'e>>) {
    struct Subs<'o, 'e> {
        out: &'o mut Vec<SubUse<'e>>,
        /// How many `NOT`s enclose the node visited.
        nots: usize,
    }
    impl<'e> TreeNodeVisitor<'e> for Subs<'_, 'e> {
        type Node = Expr;
        fn f_down(&mut self, x: &'e Expr) -> Recursion {
            let negated = self.nots % 2 == 1;
            match x {
                // Dynamic partition pruning filters repeat a join that
                // exists anyway (`dynamicpruningexpression(day IN
                // dynamicpruning#101)`): not a relationship of their own.
                Expr::Call { name, .. }
                    if name.to_ascii_lowercase().starts_with("dynamicpruning") =>
                {
                    return Recursion::Jump;
                }
                Expr::Subquery(s) => self.out.push(SubUse {
                    sub: s,
                    negated,
                    values: &[],
                }),
                Expr::InSubquery { values, subquery } => self.out.push(SubUse {
                    sub: subquery,
                    negated,
                    values,
                }),
                _ => {}
            }
            if is_not(x) {
                self.nots += 1;
            }
            Recursion::Continue
        }
        fn f_up(&mut self, x: &'e Expr) -> Recursion {
            if is_not(x) {
                self.nots -= 1;
            }
            Recursion::Continue
        }
    }
    e.visit(&mut Subs { out, nots: 0 });
}

/// Outer references (`outer(x#1)`) anywhere in an expression.
fn outer_ids(e: &Expr) -> Vec<ExprId> {
    let mut v = Vec::new();
    e.apply(|x| match x {
        Expr::Outer(c) => {
            v.extend(c.attrs().into_iter().map(|a| a.id));
            Recursion::Jump
        }
        _ => Recursion::Continue,
    });
    v
}

/// Whether an expression holds a subquery expression.
fn has_subquery(e: &Expr) -> bool {
    e.exists(|x| matches!(x, Expr::Subquery(_) | Expr::InSubquery { .. }))
}

/// Unwrap `outer(...)`.
fn strip_outer(e: &Expr) -> &Expr {
    let mut e = e;
    while let Expr::Outer(c) = e {
        e = c;
    }
    e
}

/// The equality predicates a condition implies: its equality conjuncts,
/// the equality of a null-aware `(a = b) OR isnull((a = b))`, and equalities
/// common to every branch of an `OR`.
fn equalities(cond: &Expr) -> Vec<(&Expr, &Expr)> {
    let mut out = Vec::new();
    for c in cond.conjuncts() {
        match c {
            Expr::Binary { op, left, right } if op.is_equality() => out.push((&**left, &**right)),
            Expr::Binary {
                op: BinaryOp::Or, ..
            } => {
                out.extend(or_common(c));
            }
            _ => {}
        }
    }
    out
}

/// Equalities implied by an OR: `(a = b) OR isnull((a = b))` (null-aware
/// NOT IN) implies `a = b` for join purposes; otherwise an equality
/// conjunct present in every branch (either orientation) is implied.
fn or_common(e: &Expr) -> Vec<(&Expr, &Expr)> {
    let ds = e.disjuncts();
    // Null-aware anti join condition.
    if let [Expr::Binary { op, left, right }, Expr::Call { name, args }] = ds.as_slice() {
        if op.is_equality()
            && name.eq_ignore_ascii_case("isnull")
            && args.len() == 1
            && args.first().map(|a| a.to_string()) == Some(ds[0].to_string())
        {
            return vec![(&**left, &**right)];
        }
    }
    let key = |l: &Expr, r: &Expr| {
        let (a, b) = (l.to_string(), r.to_string());
        if a <= b {
            (a, b)
        } else {
            (b, a)
        }
    };
    let sets: Vec<HashSet<(String, String)>> = ds
        .iter()
        .map(|d| equalities(d).into_iter().map(|(l, r)| key(l, r)).collect())
        .collect();
    let Some((first, rest)) = ds.split_first() else {
        return Vec::new();
    };
    equalities(first)
        .into_iter()
        .filter(|(l, r)| {
            let k = key(l, r);
            rest.iter()
                .enumerate()
                .all(|(i, _)| sets.get(i + 1).is_some_and(|s| s.contains(&k)))
        })
        .collect()
}

/// For two sides with the same `table.column` list (a self join) and no
/// preserved side: whether to swap them. Decided by what is stable across
/// runs and Spark versions first (expression text without exprIds, then the
/// aggregated side on the right), the exprIds last.
fn tie_swap(left: (&str, bool), right: (&str, bool)) -> bool {
    (strip_ids(left.0), left.1, left.0) > (strip_ids(right.0), right.1, right.0)
}

/// A per-node set over a subtree, computed bottom-up once per node: the
/// node's `own` items plus its children's (and, if asked, its subquery
/// plans') sets. Returns the root's.
fn bottom_up<'m, T: Copy + Eq + std::hash::Hash>(
    memo: &'m mut HashMap<NodeId, HashSet<T>>,
    root: &PlanNode,
    with_subqueries: bool,
    own: impl Fn(&PlanNode) -> Vec<T>,
) -> &'m HashSet<T> {
    struct Up<'m, T, F> {
        memo: &'m mut HashMap<NodeId, HashSet<T>>,
        with_subqueries: bool,
        own: F,
    }
    impl<'n, T: Copy + Eq + std::hash::Hash, F: Fn(&PlanNode) -> Vec<T>> TreeNodeVisitor<'n>
        for Up<'_, T, F>
    {
        type Node = PlanNode;
        fn f_down(&mut self, n: &'n PlanNode) -> Recursion {
            if self.memo.contains_key(&n.id) {
                Recursion::Jump
            } else {
                Recursion::Continue
            }
        }
        fn f_up(&mut self, m: &'n PlanNode) -> Recursion {
            if !self.memo.contains_key(&m.id) {
                let mut s: HashSet<T> = (self.own)(m).into_iter().collect();
                let subs: &[PlanNode] = if self.with_subqueries {
                    &m.subqueries
                } else {
                    &[]
                };
                for c in m.children.iter().chain(subs) {
                    if let Some(cs) = self.memo.get(&c.id) {
                        s.extend(cs.iter().copied());
                    }
                }
                self.memo.insert(m.id, s);
            }
            Recursion::Continue
        }
    }
    if !memo.contains_key(&root.id) {
        root.visit(&mut Up {
            memo: &mut *memo,
            with_subqueries,
            own,
        });
    }
    memo.entry(root.id).or_default()
}

/// The tables of a set of columns.
fn tables_of(cols: &BTreeSet<ColumnRef>) -> SideTables {
    SideTables::new(cols.iter().map(|c| c.table.clone()))
}

/// Fold the physical form of null-safe keys: Spark plans `a <=> b` as the
/// two key pairs `coalesce(a, 0) = coalesce(b, 0)` and `isnull(a) =
/// isnull(b)`. Such a couple becomes the one pair `a = b`, flagged
/// null-safe; every other pair is kept as it is.
fn fold_null_safe(pairs: Vec<(Expr, Expr)>) -> Vec<(Expr, Expr, bool)> {
    fn coalesced(e: &Expr) -> Option<&Expr> {
        match e {
            Expr::Call { name, args } if name.eq_ignore_ascii_case("coalesce") => {
                match args.as_slice() {
                    [x, Expr::Literal(_)] => Some(x),
                    _ => None,
                }
            }
            _ => None,
        }
    }
    fn isnull(e: &Expr) -> Option<&Expr> {
        match e {
            Expr::Call { name, args } if name.eq_ignore_ascii_case("isnull") => {
                match args.as_slice() {
                    [x] => Some(x),
                    _ => None,
                }
            }
            _ => None,
        }
    }
    let nulls: Vec<Option<(String, String)>> = pairs
        .iter()
        .map(|(l, r)| Some((isnull(l)?.to_string(), isnull(r)?.to_string())))
        .collect();
    let mut used = vec![false; pairs.len()];
    let mut folded: Vec<Option<(Expr, Expr)>> = vec![None; pairs.len()];
    for (i, (l, r)) in pairs.iter().enumerate() {
        let (Some(a), Some(b)) = (coalesced(l), coalesced(r)) else {
            continue;
        };
        let want = (a.to_string(), b.to_string());
        let partner = nulls
            .iter()
            .enumerate()
            .find(|(k, n)| !used[*k] && n.as_ref() == Some(&want));
        if let Some((k, _)) = partner {
            used[k] = true;
            folded[i] = Some((a.clone(), b.clone()));
        }
    }
    pairs
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !used[*i])
        .map(|(i, (l, r))| match folded[i].take() {
            Some((a, b)) => (a, b, true),
            None => (l, r, false),
        })
        .collect()
}

/// The `<=>` conjuncts' operands of a condition, by address (to flag the
/// pairs [`equalities`] returns).
fn null_safe_conjuncts(cond: &Expr) -> HashSet<*const Expr> {
    cond.conjuncts()
        .into_iter()
        .filter_map(|c| match c {
            Expr::Binary {
                op: BinaryOp::EqNullSafe,
                left,
                ..
            } => Some(&**left as *const Expr),
            _ => None,
        })
        .collect()
}

/// Data types of base columns, from every scan's `ReadSchema`
/// (`struct<l_orderkey:bigint,l_comment:string>`).
fn column_types(plan: &Plan) -> HashMap<ColumnRef, ColumnType> {
    let mut out = HashMap::new();
    plan.apply(|n| {
        if let NodeKind::Scan(s) = &n.kind {
            for (col, ty) in &s.read_schema {
                out.insert(
                    ColumnRef {
                        table: crate::tables::canonical_table(&s.table),
                        column: col.clone(),
                    },
                    ty.clone(),
                );
            }
        }
        Recursion::Continue
    });
    out
}

impl<'a> Extractor<'a> {
    fn produced(&mut self, n: &PlanNode) -> &HashSet<ExprId> {
        bottom_up(&mut self.produced, n, false, |m| {
            m.output.iter().map(|a| a.id).collect()
        })
    }

    /// Whether an attribute reference really is the attribute its exprId
    /// names in this plan. Spark prints string literals unquoted, so the
    /// literal `Brand#23` (TPC-H q17) reads like an attribute `Brand` with
    /// exprId 23 — which may be `l_shipmode#23` elsewhere in the plan.
    fn bound(&self, a: &Attr) -> bool {
        self.lineage
            .name_of(a.id)
            .is_none_or(|n| n.eq_ignore_ascii_case(&a.name))
    }

    /// ExprIds an expression references (outer references included),
    /// without look-alike literals.
    fn ids(&self, e: &Expr) -> Vec<ExprId> {
        e.attrs()
            .into_iter()
            .filter(|a| self.bound(a))
            .map(|a| a.id)
            .collect()
    }

    fn covers(&mut self, n: &PlanNode, ids: &[ExprId]) -> bool {
        let p = self.produced(n);
        ids.iter().all(|i| p.contains(i))
    }

    /// Link every subquery expression to its plan, and remember what a
    /// correlation inside that plan means.
    fn link_subqueries(&mut self, plan: &'a PlanNode) {
        plan.apply(|node| {
            self.link_node(node);
            Recursion::Continue
        });
    }

    fn link_node(&mut self, node: &'a PlanNode) {
        let mut uses = Vec::new();
        for e in node.expressions() {
            collect_subs(e, &mut uses);
        }
        let plans: Vec<&'a PlanNode> = node.subqueries.iter().collect();
        let mut pairs: Vec<(usize, &'a PlanNode)> = Vec::new();
        let mut used = HashSet::new();
        let mut left: Vec<&'a PlanNode> = Vec::new();
        // 1. By id: formatted and TreeNode JSON wrap a subquery plan in a
        //    `SubqueryRoot` carrying the subquery's exprId.
        for p in &plans {
            let found = match p.kind {
                NodeKind::SubqueryRoot { id: Some(x) } => uses
                    .iter()
                    .enumerate()
                    .find(|(i, u)| !used.contains(i) && u.sub.id == x)
                    .map(|(i, _)| i),
                _ => None,
            };
            match found {
                Some(i) => {
                    used.insert(i);
                    pairs.push((i, p));
                }
                None => left.push(p),
            }
        }
        let rest: Vec<usize> = (0..uses.len()).filter(|i| !used.contains(i)).collect();
        if rest.len() == left.len() {
            // 2. By position: Spark lists a node's subquery plans in the
            //    order of the subquery expressions (pre-order).
            pairs.extend(rest.into_iter().zip(left));
        } else {
            // 3. Counts differ (a source that keeps only some plans): by
            //    the outer references each plan uses.
            for p in left {
                let mut refs: BTreeSet<ExprId> = BTreeSet::new();
                p.apply(|n| {
                    refs.extend(n.expressions().into_iter().flat_map(outer_ids));
                    Recursion::Continue
                });
                let found = rest.iter().copied().find(|i| {
                    !used.contains(i)
                        && uses.get(*i).is_some_and(|u| {
                            !u.sub.outer_refs.is_empty()
                                && u.sub
                                    .outer_refs
                                    .iter()
                                    .flat_map(|r| r.attrs())
                                    .map(|a| a.id)
                                    .collect::<BTreeSet<_>>()
                                    == refs
                        })
                });
                if let Some(i) = found {
                    used.insert(i);
                    pairs.push((i, p));
                }
            }
        }
        for (i, p) in pairs {
            let Some(u) = uses.get(i) else { continue };
            self.links.insert(u.sub.id, p);
            let jt = match u.sub.kind {
                SubqueryKind::Scalar => Relation::ScalarSubquery,
                SubqueryKind::Exists | SubqueryKind::List if u.negated => {
                    Relation::Join(JoinType::LeftAnti)
                }
                SubqueryKind::Exists | SubqueryKind::List => Relation::Join(JoinType::LeftSemi),
                SubqueryKind::Other => Relation::Subquery,
            };
            self.sub_types.insert(p.id, jt);
        }
    }

    /// Visit every operator with the subquery context it sits in: a data-flow
    /// child inherits its parent's, a subquery plan has its own.
    fn walk(&mut self, plan: &'a PlanNode) {
        struct Walk<'x, 'a> {
            x: &'x mut Extractor<'a>,
            /// The context of each node on the path from the root.
            ctx: Vec<Option<SubCtx>>,
            /// Whether each node still to come is a subquery plan, the next
            /// one last (as in `PlanNode::render`).
            marks: Vec<bool>,
        }
        impl<'a> TreeNodeVisitor<'a> for Walk<'_, 'a> {
            type Node = PlanNode;
            fn f_down(&mut self, node: &'a PlanNode) -> Recursion {
                let ctx = if self.marks.pop() == Some(true) {
                    self.x.sub_types.get(&node.id).map(|t| SubCtx {
                        join_type: t.clone(),
                    })
                } else {
                    self.ctx.last().cloned().flatten()
                };
                self.x.visit(node, ctx.as_ref());
                self.ctx.push(ctx);
                self.marks.extend(node.subqueries.iter().map(|_| true));
                self.marks.extend(node.children.iter().map(|_| false));
                Recursion::Continue
            }
            fn f_up(&mut self, _: &'a PlanNode) -> Recursion {
                self.ctx.pop();
                Recursion::Continue
            }
        }
        plan.visit(&mut Walk {
            x: self,
            ctx: Vec::new(),
            marks: Vec::new(),
        });
    }

    fn visit(&mut self, node: &'a PlanNode, ctx: Option<&SubCtx>) {
        let conds = node.predicates();
        if let Some(c) = ctx {
            self.correlations(&conds, c);
        }
        for c in &conds {
            self.scalar_comparisons(c);
        }
        self.in_subqueries(node);
        match &node.kind {
            NodeKind::Join(j) => self.join(node, j),
            NodeKind::Filter { condition } => self.filter(node, condition),
            NodeKind::Scan(_)
            | NodeKind::Project { .. }
            | NodeKind::Aggregate { .. }
            | NodeKind::Window { .. }
            | NodeKind::Expand { .. }
            | NodeKind::Generate { .. }
            | NodeKind::Union
            | NodeKind::Sort { .. }
            | NodeKind::Limit { .. }
            | NodeKind::Exchange
            | NodeKind::SubqueryAlias { .. }
            | NodeKind::Reused { .. }
            | NodeKind::SubqueryRoot { .. }
            | NodeKind::PassThrough
            | NodeKind::Command
            | NodeKind::LocalData
            | NodeKind::Other
            | NodeKind::Unknown => {}
        }
    }

    /// Ids of attributes output by aggregates in a subtree (see
    /// [`crate::lineage::aggregate_ids`]), memoized.
    fn aggregate_ids(&mut self, n: &PlanNode) -> HashSet<ExprId> {
        let lineage = self.lineage;
        bottom_up(&mut self.aggregates, n, false, |m| {
            node_aggregate_ids(m, Some(lineage))
        })
        .clone()
    }

    /// Union nodes in a subtree, subquery plans included, memoized.
    fn unions_in(&mut self, n: &PlanNode) -> Scope {
        bottom_up(&mut self.unions, n, true, |m| match m.kind {
            NodeKind::Union => vec![m.id],
            _ => Vec::new(),
        })
        .clone()
    }

    fn resolve_side(&self, e: &Expr, scope: Option<&Scope>) -> Resolved {
        let res = |id: ExprId| match scope {
            Some(s) => self.lineage.resolve_in(id, s),
            None => self.lineage.resolve(id),
        };
        if let Some(a) = simple_attr(strip_outer(e)) {
            // A look-alike literal, or an aggregate output whose definition
            // the source did not print: the side is unknown, not its guess.
            if !self.bound(a) || self.lineage.is_guess(a.id) {
                return Resolved::Computed(BTreeSet::new());
            }
            let o = res(a.id);
            if o.is_column() {
                return Resolved::Columns(o.columns);
            }
            return Resolved::Computed(o.sources);
        }
        let mut sources = BTreeSet::new();
        for a in e.attrs().into_iter().filter(|a| self.bound(a)) {
            sources.extend(res(a.id).sources);
        }
        Resolved::Computed(sources)
    }

    fn agg_flag(&self, e: &Expr, scope: &Scope, aggs: &HashSet<ExprId>) -> bool {
        match simple_attr(strip_outer(e)) {
            Some(a) => self.lineage.renames_any(a.id, scope, aggs),
            None => e
                .attrs()
                .iter()
                .any(|a| self.lineage.renames_any(a.id, scope, aggs)),
        }
    }

    /// A physical or logical join: key lists and condition equalities.
    fn join(&mut self, node: &'a PlanNode, j: &plan::JoinInfo) {
        let [left, right] = node.children.as_slice() else {
            return;
        };
        // A key pair with a side that references nothing (a literal) is no
        // relationship between tables.
        let mut raw: Vec<(Expr, Expr, bool)> = fold_null_safe(
            j.left_keys
                .iter()
                .zip(j.right_keys.iter())
                .filter(|(l, r)| !l.attrs().is_empty() && !r.attrs().is_empty())
                .map(|(l, r)| (l.clone(), r.clone()))
                .collect(),
        );
        if let Some(c) = &j.condition {
            let null_safe = null_safe_conjuncts(c);
            for (a, b) in equalities(c) {
                let ns = null_safe.contains(&(a as *const Expr));
                if has_subquery(a) || has_subquery(b) {
                    continue;
                }
                if !outer_ids(a).is_empty() || !outer_ids(b).is_empty() {
                    continue;
                }
                let (ia, ib) = (self.ids(a), self.ids(b));
                if ia.is_empty() || ib.is_empty() {
                    continue;
                }
                if self.covers(left, &ia) && self.covers(right, &ib) {
                    raw.push((a.clone(), b.clone(), ns));
                } else if self.covers(left, &ib) && self.covers(right, &ia) {
                    raw.push((b.clone(), a.clone(), ns));
                }
            }
        }
        if raw.is_empty() {
            return;
        }
        let scope = self.unions_in(node);
        let (la, ra) = (self.aggregate_ids(left), self.aggregate_ids(right));
        let pairs = raw
            .into_iter()
            .map(|(l, r, ns)| {
                let mut p = self.pair(l, r, Some(&scope), (&la, &ra));
                p.null_safe = ns;
                p
            })
            .collect();
        self.engine = node.engine;
        self.emit(
            pairs,
            &Relation::Join(j.join_type.clone()),
            j.strategy,
            j.join_type.preserved_side(),
        );
    }

    fn pair(
        &self,
        l: Expr,
        r: Expr,
        scope: Option<&Scope>,
        aggs: (&HashSet<ExprId>, &HashSet<ExprId>),
    ) -> Pair {
        let empty = Scope::new();
        let s = scope.unwrap_or(&empty);
        Pair {
            l: self.lossless(&l, self.resolve_side(&l, scope)),
            r: self.lossless(&r, self.resolve_side(&r, scope)),
            l_agg: self.agg_flag(&l, s, aggs.0),
            r_agg: self.agg_flag(&r, s, aggs.1),
            left: l,
            right: r,
            null_safe: false,
        }
    }

    /// A side that resolved to a column through casts stays that column
    /// only when every cast is order-preserving and injective over the
    /// type it converts (see [`ColumnType::widens_to`]); otherwise the key is an
    /// expression over that column.
    fn lossless(&self, e: &Expr, r: Resolved) -> Resolved {
        let Resolved::Columns(cols) = r else {
            return r;
        };
        let Some((attr, targets)) = cast_chain(strip_outer(e)) else {
            return Resolved::Columns(cols);
        };
        if targets.is_empty() {
            return Resolved::Columns(cols);
        }
        let known = (cols.len() == 1)
            .then(|| cols.iter().next().and_then(|c| self.types.get(c)))
            .flatten()
            .cloned()
            .or_else(|| (attr.suffix == "L").then_some(ColumnType::Integer(IntWidth::Long)));
        if ColumnType::casts_keep_order(known, targets) {
            Resolved::Columns(cols)
        } else {
            Resolved::Computed(cols)
        }
    }

    /// Equalities of a filter between the two sides of a join below it.
    fn filter(&mut self, node: &'a PlanNode, cond: &Expr) {
        // Group per separating join, so a composite key stays together.
        type Group<'p> = (&'p PlanNode, Vec<(Expr, Expr)>);
        let mut groups: BTreeMap<NodeId, Group<'a>> = BTreeMap::new();
        for (a, b) in equalities(cond) {
            if has_subquery(a) || has_subquery(b) {
                continue;
            }
            if !outer_ids(a).is_empty() || !outer_ids(b).is_empty() {
                continue;
            }
            let (ia, ib) = (self.ids(a), self.ids(b));
            if ia.is_empty() || ib.is_empty() {
                continue;
            }
            let found = node
                .children
                .iter()
                .find_map(|c| self.find_split(c, &ia, &ib));
            if let Some((j, swapped)) = found {
                let pair = if swapped {
                    (b.clone(), a.clone())
                } else {
                    (a.clone(), b.clone())
                };
                groups
                    .entry(j.id)
                    .or_insert_with(|| (j, Vec::new()))
                    .1
                    .push(pair);
            }
        }
        for (_, (j, raw)) in groups {
            let strategy = match &j.kind {
                NodeKind::Join(info) => info.strategy,
                _ => JoinStrategy::Join,
            };
            self.engine = j.engine;
            let [left, right] = j.children.as_slice() else {
                continue;
            };
            let scope = self.unions_in(j);
            let (la, ra) = (self.aggregate_ids(left), self.aggregate_ids(right));
            let pairs = raw
                .into_iter()
                .map(|(l, r)| self.pair(l, r, Some(&scope), (&la, &ra)))
                .collect();
            self.emit(pairs, &Relation::Join(JoinType::Inner), strategy, None);
        }
    }

    /// The lowest join under `n` with `a` from one side and `b` from the
    /// other; `true` when `a` is on the right.
    fn find_split(
        &mut self,
        n: &'a PlanNode,
        a: &[ExprId],
        b: &[ExprId],
    ) -> Option<(&'a PlanNode, bool)> {
        let both: Vec<ExprId> = a.iter().chain(b.iter()).copied().collect();
        let mut n = n;
        loop {
            if let NodeKind::Join(_) = n.kind {
                if let [l, r] = n.children.as_slice() {
                    if self.covers(l, a) && self.covers(r, b) {
                        return Some((n, false));
                    }
                    if self.covers(l, b) && self.covers(r, a) {
                        return Some((n, true));
                    }
                }
            }
            let next = n.children.iter().find(|c| self.covers(c, &both))?;
            n = next;
        }
    }

    /// Correlation predicates inside a subquery plan: `inner = outer(x)`.
    fn correlations(&mut self, conds: &[&Expr], ctx: &SubCtx) {
        let mut raw = Vec::new();
        for c in conds {
            for (a, b) in equalities(c) {
                let (oa, ob) = (outer_ids(a), outer_ids(b));
                let (ia, ib) = (a.attrs().len(), b.attrs().len());
                // One side entirely outer, the other entirely local.
                if !oa.is_empty() && oa.len() == ia && ob.is_empty() && ib > 0 {
                    raw.push((a.clone(), b.clone()));
                } else if !ob.is_empty() && ob.len() == ib && oa.is_empty() && ia > 0 {
                    raw.push((b.clone(), a.clone()));
                }
            }
        }
        if raw.is_empty() {
            return;
        }
        let none = HashSet::new();
        let pairs = raw
            .into_iter()
            .map(|(l, r)| self.pair(l, r, None, (&none, &none)))
            .collect();
        self.engine = Runtime::Spark;
        self.emit(pairs, &ctx.join_type, JoinStrategy::Join, Some(Side::Left));
    }

    /// `x = scalar-subquery#N [refs]` with a correlated subquery: a
    /// non-simple relationship between `x` and the subquery's result.
    fn scalar_comparisons(&mut self, cond: &Expr) {
        for (a, b) in equalities(cond) {
            let (outer, sub) = match (a, b) {
                (x, Expr::Subquery(s)) | (Expr::Subquery(s), x)
                    if s.kind == SubqueryKind::Scalar && !s.outer_refs.is_empty() =>
                {
                    (x, s)
                }
                _ => continue,
            };
            if has_subquery(outer) || outer.attrs().is_empty() {
                continue;
            }
            let result = self
                .links
                .get(&sub.id)
                .and_then(|p| p.output.first().cloned());
            let r = match &result {
                Some(attr) => self.resolve_side(&Expr::Attr(attr.clone()), None),
                None => Resolved::Computed(BTreeSet::new()),
            };
            let p = Pair {
                l: self.resolve_side(outer, None),
                r: match r {
                    // The result of a subquery is never the outer join key
                    // itself: keep it computed even if it renames a column.
                    Resolved::Columns(c) => Resolved::Computed(c),
                    other => other,
                },
                l_agg: false,
                r_agg: true,
                left: outer.clone(),
                right: Expr::Subquery(sub.clone()),
                null_safe: false,
            };
            self.engine = Runtime::Spark;
            self.emit(
                vec![p],
                &Relation::ScalarSubquery,
                JoinStrategy::Join,
                Some(Side::Left),
            );
        }
    }

    /// `x IN (list#N [...])`: the tested values against the subquery's
    /// output columns.
    fn in_subqueries(&mut self, node: &'a PlanNode) {
        let mut uses = Vec::new();
        for e in node.expressions() {
            collect_subs(e, &mut uses);
        }
        for u in uses {
            if u.values.is_empty() {
                continue;
            }
            let Some(plan) = self.links.get(&u.sub.id).copied() else {
                continue;
            };
            let outs = &plan.output;
            let aggs = self.aggregate_ids(plan);
            let none = HashSet::new();
            let pairs: Vec<Pair> = u
                .values
                .iter()
                .zip(outs.iter())
                .filter(|(v, _)| !v.attrs().is_empty())
                .map(|(v, o)| self.pair(v.clone(), Expr::Attr(o.clone()), None, (&none, &aggs)))
                .collect();
            let jt = if u.negated {
                JoinType::LeftAnti
            } else {
                JoinType::LeftSemi
            };
            self.engine = Runtime::Spark;
            self.emit(
                pairs,
                &Relation::Join(jt),
                JoinStrategy::Join,
                Some(Side::Left),
            );
        }
    }

    /// Group the pairs of one join by table pair and record relationships.
    fn emit(
        &mut self,
        pairs: Vec<Pair>,
        join_type: &Relation,
        strategy: JoinStrategy,
        preserved: Option<Side>,
    ) {
        type Key = (String, String, bool, bool);
        let mut groups: BTreeMap<Key, Vec<(String, String, String, String)>> = BTreeMap::new();
        let mut null_safe: HashSet<Key> = HashSet::new();
        let engine = self.engine;
        for p in pairs {
            match (&p.l, &p.r) {
                (Resolved::Columns(lc), Resolved::Columns(rc)) => {
                    for l in lc {
                        if p.null_safe {
                            for r in rc {
                                null_safe.insert((
                                    l.table.clone(),
                                    r.table.clone(),
                                    p.l_agg,
                                    p.r_agg,
                                ));
                            }
                        }
                        for r in rc {
                            groups
                                .entry((l.table.clone(), r.table.clone(), p.l_agg, p.r_agg))
                                .or_default()
                                .push((
                                    l.column.clone(),
                                    r.column.clone(),
                                    p.left.to_string(),
                                    p.right.to_string(),
                                ));
                        }
                    }
                }
                (l, r) => {
                    let side = |x: &Resolved| match x {
                        Resolved::Columns(c) | Resolved::Computed(c) => (
                            tables_of(c),
                            c.iter()
                                .map(|c| c.column.clone())
                                .collect::<BTreeSet<_>>()
                                .into_iter()
                                .collect::<Vec<_>>(),
                        ),
                    };
                    let (lt, lcols) = side(l);
                    let (rt, rcols) = side(r);
                    self.push(Relationship {
                        left_table: lt,
                        left_columns: lcols,
                        right_table: rt,
                        right_columns: rcols,
                        join_type: join_type.clone(),
                        strategy,
                        non_simple: true,
                        left_expr: p.left.to_string(),
                        right_expr: p.right.to_string(),
                        preserved_side: preserved,
                        left_aggregated: p.l_agg,
                        right_aggregated: p.r_agg,
                        null_safe: p.null_safe,
                        engine,
                    });
                }
            }
        }
        for ((lt, rt, la, ra), cols) in groups {
            let ns = null_safe.contains(&(lt.clone(), rt.clone(), la, ra));
            let mut seen = HashSet::new();
            let mut cols: Vec<_> = cols
                .into_iter()
                .filter(|c| seen.insert((c.0.clone(), c.1.clone())))
                .collect();
            let texts = |v: Vec<&String>| {
                let mut seen = HashSet::new();
                v.into_iter()
                    .filter(|s| seen.insert(s.as_str()))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let list = |t: &str, v: Vec<&String>| {
                let mut v: Vec<String> = v.into_iter().map(|c| format!("{t}.{c}")).collect();
                v.sort();
                v
            };
            let (l, r) = (
                list(&lt, cols.iter().map(|c| &c.0).collect()),
                list(&rt, cols.iter().map(|c| &c.1).collect()),
            );
            // Canonical orientation: the smaller `table.column` list on the
            // left (see `push`), decided before the pairs are ordered so
            // that each pair keeps its own printed expressions.
            let swap = l > r
                || (l == r
                    && preserved.is_none()
                    && tie_swap(
                        (&texts(cols.iter().map(|c| &c.2).collect()), la),
                        (&texts(cols.iter().map(|c| &c.3).collect()), ra),
                    ));
            let (lt, rt, la, ra, preserved) = if swap {
                for c in cols.iter_mut() {
                    std::mem::swap(&mut c.0, &mut c.1);
                    std::mem::swap(&mut c.2, &mut c.3);
                }
                (rt, lt, ra, la, preserved.map(Side::flip))
            } else {
                (lt, rt, la, ra, preserved)
            };
            // Pairs of a composite key ordered by the left column.
            cols.sort();
            self.out.push(Relationship {
                left_table: lt.into(),
                left_columns: cols.iter().map(|c| c.0.clone()).collect(),
                right_table: rt.into(),
                right_columns: cols.iter().map(|c| c.1.clone()).collect(),
                join_type: join_type.clone(),
                strategy,
                non_simple: false,
                left_expr: texts(cols.iter().map(|c| &c.2).collect()),
                right_expr: texts(cols.iter().map(|c| &c.3).collect()),
                preserved_side: preserved,
                left_aggregated: la,
                right_aggregated: ra,
                null_safe: ns,
                engine,
            });
        }
    }

    /// Put a non-simple relationship in canonical orientation (the
    /// lexicographically smaller `table.column` list on the left; on a tie,
    /// the smaller expression text unless a side is preserved) and record it.
    fn push(&mut self, mut r: Relationship) {
        let list = |t: &SideTables, cols: &[String]| {
            let mut v: Vec<String> = cols.iter().map(|c| format!("{t}.{c}")).collect();
            v.sort();
            v
        };
        let (l, rr) = (
            list(&r.left_table, &r.left_columns),
            list(&r.right_table, &r.right_columns),
        );
        if l > rr
            || (l == rr
                && r.preserved_side.is_none()
                && tie_swap(
                    (&r.left_expr, r.left_aggregated),
                    (&r.right_expr, r.right_aggregated),
                ))
        {
            std::mem::swap(&mut r.left_table, &mut r.right_table);
            std::mem::swap(&mut r.left_columns, &mut r.right_columns);
            std::mem::swap(&mut r.left_expr, &mut r.right_expr);
            std::mem::swap(&mut r.left_aggregated, &mut r.right_aggregated);
            r.preserved_side = r.preserved_side.map(Side::flip);
        }
        self.out.push(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plan::{Attr, JoinInfo, JoinType, ScanInfo};

    fn e(name: &str, id: ExprId) -> Expr {
        Expr::Attr(Attr::new(name, id, "L"))
    }
    fn bin(op: &str, l: Expr, r: Expr) -> Expr {
        Expr::binary(BinaryOp::parse(op).expect("operator"), l, r)
    }
    fn scan(table: &str, cols: &[(&str, ExprId)]) -> PlanNode {
        let mut n = PlanNode::new(
            NodeKind::Scan(ScanInfo {
                table: table.into(),
                ..ScanInfo::default()
            }),
            "Scan",
        );
        n.output = cols.iter().map(|(c, i)| Attr::new(*c, *i, "L")).collect();
        n
    }
    fn join(
        jt: &str,
        lk: Vec<Expr>,
        rk: Vec<Expr>,
        cond: Option<Expr>,
        l: PlanNode,
        r: PlanNode,
    ) -> PlanNode {
        let mut n = PlanNode::new(
            NodeKind::Join(JoinInfo {
                strategy: if lk.is_empty() {
                    JoinStrategy::Join
                } else {
                    JoinStrategy::SortMergeJoin
                },
                join_type: JoinType::parse(jt),
                left_keys: lk,
                right_keys: rk,
                condition: cond,
                null_aware: false,
            }),
            "Join",
        );
        n.children = vec![l, r];
        n
    }

    fn call(name: &str, args: Vec<Expr>) -> Expr {
        Expr::Call {
            name: name.into(),
            args,
        }
    }
    fn cast(x: Expr, to: &str) -> Expr {
        call("cast", vec![x, Expr::Literal(to.into())])
    }
    fn typed_scan(table: &str, cols: &[(&str, ExprId, &str)]) -> PlanNode {
        let mut n = scan(table, &[]);
        n.output = cols
            .iter()
            .map(|(c, i, t)| Attr::new(*c, *i, if *t == "bigint" { "L" } else { "" }))
            .collect();
        let fields: Vec<String> = cols.iter().map(|(c, _, t)| format!("{c}:{t}")).collect();
        if let NodeKind::Scan(s) = &mut n.kind {
            s.read_schema = plan::predicate::read_schema(&format!("struct<{}>", fields.join(",")));
        }
        n
    }

    #[test]
    fn side_tables_read_and_write_as_plus_joined_text() {
        let t = SideTables::new(["b".to_string(), "a".to_string(), "b".to_string()]);
        assert_eq!(t.names(), ["a", "b"]);
        assert_eq!(t.to_string(), "a+b");
        assert_eq!(t, "a+b");
        assert!(t != "a");
        assert_eq!(SideTables::parse("a+b"), t);
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"a+b\"");
        assert_eq!(serde_json::from_str::<SideTables>("\"b+a\"").unwrap(), t);
        let one = SideTables::from("db.t");
        assert_eq!(one.single(), Some("db.t"));
        assert_eq!(one, "db.t");
        // No table and an empty name are one value, printed empty.
        assert!(SideTables::from("").is_empty());
        assert_eq!(SideTables::from(""), SideTables::parse(""));
        assert_eq!(SideTables::default(), "");
        // Renamed per table, sorted again.
        assert_eq!(
            t.rename(|n| format!("z{n}"))
                .rename(|n| n.replace("zb", "c")),
            "c+za"
        );
        // Ordered by the text, as the string field was.
        let mut v = vec![SideTables::from("a*"), t.clone()];
        v.sort();
        assert_eq!(v, [SideTables::from("a*"), t]);
    }

    #[test]
    fn casts_are_transparent_only_when_they_widen() {
        // The rules are `ColumnType::widens_to`'s (lakeaudit-plan). Real keys of the lineage workload (Spark 4.0.1): l_suppkey is
        // BIGINT, s_suppkey INT, r_orderkey STRING, l_quantity DOUBLE.
        let rel = |lk: Expr, rk: Expr, r: PlanNode| {
            let j = join(
                "Inner",
                vec![lk],
                vec![rk],
                None,
                typed_scan(
                    "lineitem",
                    &[("l_suppkey", 1, "bigint"), ("l_quantity", 2, "double")],
                ),
                r,
            );
            render(&relationships(&Plan::new(j))).replace("spark_catalog.default.", "")
        };
        let supplier = || typed_scan("supplier", &[("s_suppkey", 5, "int")]);
        let returns = || typed_scan("returns", &[("r_orderkey", 7, "string")]);
        let l = || Expr::Attr(Attr::new("l_suppkey", 1, "L"));
        let s = || Expr::Attr(Attr::new("s_suppkey", 5, ""));
        let r = || Expr::Attr(Attr::new("r_orderkey", 7, ""));
        let q = || Expr::Attr(Attr::new("l_quantity", 2, ""));
        // Type coercion widens INT to BIGINT: a simple key.
        assert!(!rel(l(), cast(s(), "bigint"), supplier()).contains("NON_SIMPLE"));
        // Narrowing, narrowing re-widened, DOUBLE->INT, ->STRING, STRING->.
        assert!(rel(cast(l(), "int"), s(), supplier()).contains("NON_SIMPLE"));
        assert!(rel(
            cast(cast(l(), "int"), "bigint"),
            cast(s(), "bigint"),
            supplier()
        )
        .contains("NON_SIMPLE"));
        assert!(rel(cast(q(), "int"), s(), supplier()).contains("NON_SIMPLE"));
        assert!(rel(cast(l(), "string"), r(), returns()).contains("NON_SIMPLE"));
        assert!(rel(l(), cast(r(), "bigint"), returns()).contains("NON_SIMPLE"));
    }

    #[test]
    fn null_safe_keys_fold_into_one_simple_key() {
        // Left keys [2]: [coalesce(c_nationkey#66L, 0), isnull(c_nationkey#66L)]
        // Right keys [2]: [coalesce(s_nationkey#161L, 0), isnull(s_nationkey#161L)]
        let c = || e("c_nationkey", 66);
        let s = || e("s_nationkey", 161);
        let zero = || Expr::Literal("0".into());
        let j = join(
            "Inner",
            vec![
                call("coalesce", vec![c(), zero()]),
                call("isnull", vec![c()]),
            ],
            vec![
                call("coalesce", vec![s(), zero()]),
                call("isnull", vec![s()]),
            ],
            None,
            scan("customer", &[("c_nationkey", 66)]),
            scan("supplier", &[("s_nationkey", 161)]),
        );
        let rels = relationships(&Plan::new(j));
        insta::assert_snapshot!(render(&rels).replace("spark_catalog.default.", ""), @"customer[c_nationkey] = supplier[s_nationkey] Inner SortMergeJoin null_safe");
        assert!(rels.iter().all(|r| r.null_safe && !r.non_simple));
        // `<=>` in a logical join condition.
        let j = join(
            "Inner",
            vec![],
            vec![],
            Some(bin("<=>", c(), s())),
            scan("customer", &[("c_nationkey", 66)]),
            scan("supplier", &[("s_nationkey", 161)]),
        );
        let rels = relationships(&Plan::new(j));
        assert_eq!(rels.len(), 1);
        assert!(rels[0].null_safe && !rels[0].non_simple);
        // A coalesce without its isnull partner stays an expression.
        let j = join(
            "Inner",
            vec![call("coalesce", vec![c(), zero()])],
            vec![call("coalesce", vec![s(), zero()])],
            None,
            scan("customer", &[("c_nationkey", 66)]),
            scan("supplier", &[("s_nationkey", 161)]),
        );
        let rels = relationships(&Plan::new(j));
        assert!(rels.iter().all(|r| r.non_simple && !r.null_safe));
    }

    #[test]
    fn composite_keys_split_by_table_pair_q05_shape() {
        // [l_suppkey, c_nationkey] = [s_suppkey, s_nationkey]: lineitem and
        // customer on the left, supplier on the right (TPC-H q05).
        let left = join(
            "Inner",
            vec![],
            vec![],
            Some(bin("=", e("c_custkey", 1), e("l_orderkey", 3))),
            scan("customer", &[("c_custkey", 1), ("c_nationkey", 2)]),
            scan("lineitem", &[("l_orderkey", 3), ("l_suppkey", 4)]),
        );
        let j = join(
            "Inner",
            vec![e("l_suppkey", 4), e("c_nationkey", 2)],
            vec![e("s_suppkey", 5), e("s_nationkey", 6)],
            None,
            left,
            scan("supplier", &[("s_suppkey", 5), ("s_nationkey", 6)]),
        );
        insta::assert_snapshot!(render(&relationships(&Plan::new(j))).replace("spark_catalog.default.", ""), @r"
        customer[c_custkey] = lineitem[l_orderkey] Inner Join
        customer[c_nationkey] = supplier[s_nationkey] Inner SortMergeJoin
        lineitem[l_suppkey] = supplier[s_suppkey] Inner SortMergeJoin
        ");
        // A two-column key to one table stays one relationship.
        let j = join(
            "LeftOuter",
            vec![e("ps_suppkey", 11), e("ps_partkey", 10)],
            vec![e("l_suppkey", 21), e("l_partkey", 20)],
            None,
            scan("partsupp", &[("ps_partkey", 10), ("ps_suppkey", 11)]),
            scan("lineitem", &[("l_partkey", 20), ("l_suppkey", 21)]),
        );
        let rels = relationships(&Plan::new(j));
        assert_eq!(rels.len(), 1);
        let r = &rels[0];
        // Canonical order puts lineitem left: LeftOuter's preserved side
        // (partsupp) is now the right one.
        assert_eq!(r.left_table, "spark_catalog.default.lineitem");
        assert_eq!(r.left_columns, ["l_partkey", "l_suppkey"]);
        assert_eq!(r.right_columns, ["ps_partkey", "ps_suppkey"]);
        assert_eq!(r.join_type, "LeftOuter");
        assert_eq!(r.preserved_side, Some(Side::Right));
    }

    #[test]
    fn expression_keys_are_non_simple_and_never_columns() {
        let coalesce = Expr::Call {
            name: "coalesce".into(),
            args: vec![e("l_orderkey", 1), Expr::Literal("-1".into())],
        };
        let j = join(
            "Inner",
            vec![coalesce],
            vec![e("o_orderkey", 2)],
            None,
            scan("lineitem", &[("l_orderkey", 1)]),
            scan("orders", &[("o_orderkey", 2)]),
        );
        let rels = relationships(&Plan::new(j));
        assert_eq!(rels.len(), 1);
        assert!(rels[0].non_simple);
        assert_eq!(rels[0].left_expr, "coalesce(l_orderkey#1L, -1)");
        assert!(rels[0].column_pairs().is_empty());
    }

    #[test]
    fn null_aware_not_in_and_or_factored_equalities() {
        // Optimized NOT IN: LeftAnti, ((a = b) OR isnull((a = b))).
        let eq = bin("=", e("ps_suppkey", 1), e("s_suppkey", 2));
        let na = bin(
            "OR",
            eq.clone(),
            Expr::Call {
                name: "isnull".into(),
                args: vec![eq],
            },
        );
        let j = join(
            "LeftAnti",
            vec![],
            vec![],
            Some(na),
            scan("partsupp", &[("ps_suppkey", 1)]),
            scan("supplier", &[("s_suppkey", 2)]),
        );
        let rels = relationships(&Plan::new(j));
        assert_eq!(rels.len(), 1);
        assert_eq!(rels[0].join_type, "LeftAnti");
        assert_eq!(rels[0].preserved_side, Some(Side::Left));
        // q19 shape: the key repeated in every OR branch is a join key; an
        // equality in only one branch is not.
        let b = |x: Expr| bin("AND", bin("=", e("p_partkey", 3), e("l_partkey", 4)), x);
        let lit = |id| bin("=", e("p_size", id), Expr::Literal("5".into()));
        let cond = bin(
            "OR",
            b(lit(5)),
            bin("OR", b(lit(5)), b(bin("=", e("p_size", 5), e("l_qty", 6)))),
        );
        let j = join(
            "Inner",
            vec![],
            vec![],
            Some(cond),
            scan("part", &[("p_partkey", 3), ("p_size", 5)]),
            scan("lineitem", &[("l_partkey", 4), ("l_qty", 6)]),
        );
        let rels = relationships(&Plan::new(j));
        assert_eq!(rels.len(), 1, "{rels:?}");
        assert_eq!(rels[0].right_columns, ["p_partkey"]);
    }

    #[test]
    fn self_join_keeps_both_instances_and_dedupes_repeats() {
        // nation n1 join nation n2 written twice (outer and subquery copy).
        let one = || {
            join(
                "Inner",
                vec![e("n_nationkey", 1)],
                vec![e("n_nationkey", 2)],
                None,
                scan("nation", &[("n_nationkey", 1)]),
                scan("nation", &[("n_nationkey", 2)]),
            )
        };
        let mut root = one();
        root.subqueries.push(one());
        let rels = relationships(&Plan::new(root));
        assert_eq!(rels.len(), 1);
        assert_eq!(rels[0].left_columns, rels[0].right_columns);
        assert_eq!(rels[0].left_table, rels[0].right_table);
    }

    /// TPC-H q17's analyzed plan (tpch-extended log, execution 24): a comma
    /// join under a WHERE filter, a correlated scalar subquery, and the
    /// unquoted literal `Brand#23`, which reads like an attribute with
    /// exprId 23 — the id of `l_shipmode#23` in the same plan.
    const Q17_ANALYZED: &str = "== Analyzed Logical Plan ==
avg_yearly: decimal(30,6)
Aggregate [(sum(l_extendedprice#14) / 7.0) AS avg_yearly#544]
+- Filter (((p_partkey#120L = l_partkey#10L) AND (p_brand#123 = Brand#23)) AND ((p_container#126 = MED BOX) AND (cast(l_quantity#13 as decimal(21,7)) < scalar-subquery#545 [p_partkey#120L])))
   :  +- Aggregate [(0.2 * avg(l_quantity#552)) AS (0.2 * avg(l_quantity))#547]
   :     +- Filter (l_partkey#549L = outer(p_partkey#120L))
   :        +- SubqueryAlias spark_catalog.default.lineitem
   :           +- Relation spark_catalog.default.lineitem[l_orderkey#548L,l_partkey#549L,l_suppkey#550L,l_linenumber#551,l_quantity#552,l_extendedprice#553,l_discount#554,l_tax#555,l_returnflag#556,l_linestatus#557,l_shipdate#558,l_commitdate#559,l_receiptdate#560,l_shipinstruct#561,l_shipmode#562,l_comment#563] parquet
   +- Join Inner
      :- SubqueryAlias spark_catalog.default.lineitem
      :  +- Relation spark_catalog.default.lineitem[l_orderkey#9L,l_partkey#10L,l_suppkey#11L,l_linenumber#12,l_quantity#13,l_extendedprice#14,l_discount#15,l_tax#16,l_returnflag#17,l_linestatus#18,l_shipdate#19,l_commitdate#20,l_receiptdate#21,l_shipinstruct#22,l_shipmode#23,l_comment#24] parquet
      +- SubqueryAlias spark_catalog.default.part
         +- Relation spark_catalog.default.part[p_partkey#120L,p_name#121,p_mfgr#122,p_brand#123,p_type#124,p_size#125,p_container#126,p_retailprice#127,p_comment#128] parquet
";

    #[test]
    fn q17_analyzed_comma_join_scalar_subquery_and_literal_lookalike() {
        let plans = parsers::plan::extended::parse(Q17_ANALYZED).expect("extended");
        let plan = plans.analyzed.expect("analyzed");
        let out = render(&relationships(&plan)).replace("spark_catalog.default.", "");
        insta::assert_snapshot!(out, @r"
        lineitem[l_partkey] = part[p_partkey] Inner Join
        lineitem[l_partkey] = part[p_partkey] ScalarSubquery Join preserved=Right
        ");
    }

    /// A fragment produced by `tests/fixtures/make_fragments.py`:
    /// relationships, then the lineage of every attribute.
    fn show(plan: &Plan) -> String {
        let l = Lineage::build(plan);
        let s = format!(
            "{}--\n{}",
            render(&relationships_with(plan, &l)),
            l.render()
        );
        s.replace("spark_catalog.default.", "")
    }

    macro_rules! fragment {
        ($test:ident, $name:literal) => {
            #[test]
            fn $test() {
                for (which, json) in [
                    (
                        "analyzed",
                        include_str!(concat!("../tests/fixtures/", $name, ".analyzed.json")),
                    ),
                    (
                        "optimized",
                        include_str!(concat!("../tests/fixtures/", $name, ".optimized.json")),
                    ),
                ] {
                    let plan = parsers::plan::tree_json::parse(json).expect("tree json");
                    insta::assert_snapshot!(format!("{}_tree_json_{}", $name, which), show(&plan));
                }
                // The same query's extended-mode text: the analyzed and
                // optimized plans must give what TreeNode JSON gives.
                let text = include_str!(concat!("../tests/fixtures/", $name, ".txt"));
                let plans = parsers::plan::extended::parse(text).expect("extended");
                for (which, plan) in [
                    ("analyzed", &plans.analyzed),
                    ("optimized", &plans.optimized),
                    ("physical", &plans.physical),
                ] {
                    let plan = plan.as_ref().expect("section");
                    insta::assert_snapshot!(format!("{}_extended_{}", $name, which), show(plan));
                }
            }
        };
    }

    /// The same fragments produced by pyspark 3.5.9
    /// (`tests/fixtures/spark35/`): relationships equal Spark 4.0's, up to
    /// exprIds.
    #[test]
    fn spark35_fragments_match_spark4() {
        macro_rules! both {
            ($($name:literal),*) => {
                vec![$((
                    $name,
                    include_str!(concat!("../tests/fixtures/", $name, ".txt")),
                    include_str!(concat!("../tests/fixtures/spark35/", $name, ".txt")),
                    include_str!(concat!("../tests/fixtures/", $name, ".analyzed.json")),
                    include_str!(concat!("../tests/fixtures/spark35/", $name, ".analyzed.json")),
                )),*]
            };
        }
        let rels = |p: &Plan| strip_ids(&render(&relationships(p)));
        let mut diffs = Vec::new();
        for (name, t4, t35, j4, j35) in both!(
            "alias_chain",
            "union_of_joins",
            "cte_twice",
            "in_subquery",
            "not_in_subquery",
            "exists_subquery",
            "not_exists_subquery",
            "scalar_subquery",
            "expression_join",
            "dynamic_pruning",
            "self_join_composite",
            "outer_joins",
            "window_expand_generate",
            "with_column_renamed"
        ) {
            let (a, b) = (
                parsers::plan::extended::parse(t4).expect("4.0 text"),
                parsers::plan::extended::parse(t35).expect("3.5 text"),
            );
            for (which, x, y) in [
                ("analyzed", &a.analyzed, &b.analyzed),
                ("optimized", &a.optimized, &b.optimized),
                ("physical", &a.physical, &b.physical),
            ] {
                let (Some(x), Some(y)) = (x, y) else {
                    diffs.push(format!("{name} {which}: section missing"));
                    continue;
                };
                if rels(x) != rels(y) {
                    diffs.push(format!(
                        "{name} extended {which}:\n4.0:\n{}3.5:\n{}",
                        rels(x),
                        rels(y)
                    ));
                }
            }
            let (x, y) = (
                parsers::plan::tree_json::parse(j4).expect("4.0 json"),
                parsers::plan::tree_json::parse(j35).expect("3.5 json"),
            );
            if rels(&x) != rels(&y) {
                diffs.push(format!(
                    "{name} tree_json analyzed:\n4.0:\n{}3.5:\n{}",
                    rels(&x),
                    rels(&y)
                ));
            }
        }
        assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    }

    fragment!(fragment_alias_chain, "alias_chain");
    fragment!(fragment_union_of_joins, "union_of_joins");
    fragment!(fragment_cte_twice, "cte_twice");
    fragment!(fragment_in_subquery, "in_subquery");
    fragment!(fragment_not_in_subquery, "not_in_subquery");
    fragment!(fragment_exists_subquery, "exists_subquery");
    fragment!(fragment_not_exists_subquery, "not_exists_subquery");
    fragment!(fragment_scalar_subquery, "scalar_subquery");
    fragment!(fragment_expression_join, "expression_join");
    fragment!(fragment_dynamic_pruning, "dynamic_pruning");
    fragment!(fragment_self_join_composite, "self_join_composite");
    fragment!(fragment_outer_joins, "outer_joins");
    fragment!(fragment_window_expand_generate, "window_expand_generate");
    fragment!(fragment_with_column_renamed, "with_column_renamed");
}

#[cfg(test)]
mod deep_tests {
    use super::*;
    use plan::{Attr, JoinInfo, JoinType, ScanInfo};

    /// The parsers accept trees 2000 operators deep: lineage and
    /// relationship walks must not exhaust a test thread's 2 MiB stack.
    #[test]
    fn two_thousand_nested_aliases() {
        let mut scan = PlanNode::new(
            NodeKind::Scan(ScanInfo {
                table: "t".into(),
                ..ScanInfo::default()
            }),
            "Scan",
        );
        scan.output = vec![Attr::new("a", 0, "L")];
        let mut node = scan;
        for i in 1..2000u64 {
            let mut p = PlanNode::new(
                NodeKind::Project {
                    list: vec![Expr::Alias {
                        child: Box::new(Expr::Attr(Attr::new("a", i - 1, "L"))),
                        attr: Attr::new("a", i, "L"),
                    }],
                },
                "Project",
            );
            p.children = vec![node];
            node = p;
        }
        let mut other = PlanNode::new(
            NodeKind::Scan(ScanInfo {
                table: "u".into(),
                ..ScanInfo::default()
            }),
            "Scan",
        );
        other.output = vec![Attr::new("b", 5000, "L")];
        let mut j = PlanNode::new(
            NodeKind::Join(JoinInfo {
                strategy: JoinStrategy::Join,
                join_type: JoinType::Inner,
                left_keys: vec![],
                right_keys: vec![],
                condition: Some(Expr::binary(
                    BinaryOp::Eq,
                    Expr::Attr(Attr::new("a", 1999, "L")),
                    Expr::Attr(Attr::new("b", 5000, "L")),
                )),
                null_aware: false,
            }),
            "Join",
        );
        j.children = vec![node, other];
        let rels = relationships(&Plan::new(j));
        assert_eq!(rels.len(), 1);
        assert_eq!(rels[0].left_columns, ["a"]);
    }
}
