//! Expressions in Spark's printed syntax.
//!
//! [`Expr`] is a small AST whose `Display` prints the way Spark does
//! (`o_orderkey#17L`, `(a#1 = b#2)`, `sum(x#3) AS s#4`), so a key printed
//! from the IR reads like the plan it came from. Operators, sort directions
//! and subquery kinds are enums: what an operator *means* is decided here
//! once ([`BinaryOp::is_equality`], [`BinaryOp::precedence`]), not by string
//! comparisons in every consumer.

use serde::Serialize;
use std::fmt;

use crate::tree::{Recursion, TreeNode};

/// A Spark expression id (`#17` in `o_orderkey#17L`).
pub type ExprId = u64;

/// A resolved attribute reference: `name#id` plus Spark's type suffix
/// (`L` for bigint, empty otherwise).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Attr {
    /// Column name as printed (backquotes removed).
    pub name: String,
    /// The exprId.
    pub id: ExprId,
    /// Type suffix Spark appends to the id (`"L"` for LongType, else empty).
    pub suffix: String,
}

impl Attr {
    /// A new attribute.
    pub fn new(name: impl Into<String>, id: ExprId, suffix: impl Into<String>) -> Self {
        Attr {
            name: name.into(),
            id,
            suffix: suffix.into(),
        }
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}{}", self.name, self.id, self.suffix)
    }
}

/// A binary operator as Spark prints it between its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum BinaryOp {
    /// `=`.
    Eq,
    /// `<=>` (null-safe equality).
    EqNullSafe,
    /// `==`.
    EqEq,
    /// `<>`.
    NotEq,
    /// `!=`.
    BangEq,
    /// `<`.
    Lt,
    /// `<=`.
    LtEq,
    /// `>`.
    Gt,
    /// `>=`.
    GtEq,
    /// `+`.
    Plus,
    /// `-`.
    Minus,
    /// `*`.
    Multiply,
    /// `/`.
    Divide,
    /// `%`.
    Modulo,
    /// `div` (integral division).
    Div,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `AND`.
    And,
    /// `OR`.
    Or,
    /// `LIKE`.
    Like,
    /// `ILIKE`.
    ILike,
    /// `RLIKE`.
    RLike,
}

impl BinaryOp {
    /// Every operator, longer printed forms before their prefixes (`<=>`
    /// before `<=` before `<`), the order a tokenizer must try them in.
    pub const ALL: [BinaryOp; 23] = [
        BinaryOp::EqNullSafe,
        BinaryOp::LtEq,
        BinaryOp::GtEq,
        BinaryOp::NotEq,
        BinaryOp::BangEq,
        BinaryOp::EqEq,
        BinaryOp::Eq,
        BinaryOp::Lt,
        BinaryOp::Gt,
        BinaryOp::Plus,
        BinaryOp::Minus,
        BinaryOp::Multiply,
        BinaryOp::Divide,
        BinaryOp::Modulo,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Div,
        BinaryOp::Like,
        BinaryOp::ILike,
        BinaryOp::RLike,
    ];

    /// The operator as Spark prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Eq => "=",
            BinaryOp::EqNullSafe => "<=>",
            BinaryOp::EqEq => "==",
            BinaryOp::NotEq => "<>",
            BinaryOp::BangEq => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::Plus => "+",
            BinaryOp::Minus => "-",
            BinaryOp::Multiply => "*",
            BinaryOp::Divide => "/",
            BinaryOp::Modulo => "%",
            BinaryOp::Div => "div",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::And => "AND",
            BinaryOp::Or => "OR",
            BinaryOp::Like => "LIKE",
            BinaryOp::ILike => "ILIKE",
            BinaryOp::RLike => "RLIKE",
        }
    }

    /// The operator printed as `text` (`AND` and `and` alike).
    pub fn parse(text: &str) -> Option<BinaryOp> {
        BinaryOp::ALL
            .into_iter()
            .find(|op| op.as_str().eq_ignore_ascii_case(text))
    }

    /// Whether `a op b` states that `a` equals `b` (`=`, `==`, `<=>`).
    pub fn is_equality(self) -> bool {
        matches!(self, BinaryOp::Eq | BinaryOp::EqEq | BinaryOp::EqNullSafe)
    }

    /// SQL precedence (higher binds tighter), for operators Spark printed
    /// without parentheses.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Or => 1,
            BinaryOp::And => 2,
            BinaryOp::Eq
            | BinaryOp::EqNullSafe
            | BinaryOp::EqEq
            | BinaryOp::NotEq
            | BinaryOp::BangEq
            | BinaryOp::Lt
            | BinaryOp::LtEq
            | BinaryOp::Gt
            | BinaryOp::GtEq => 4,
            BinaryOp::BitOr => 5,
            BinaryOp::BitXor => 6,
            BinaryOp::BitAnd => 7,
            BinaryOp::Plus | BinaryOp::Minus => 8,
            BinaryOp::Multiply
            | BinaryOp::Divide
            | BinaryOp::Modulo
            | BinaryOp::Div
            | BinaryOp::Like
            | BinaryOp::ILike
            | BinaryOp::RLike => 9,
        }
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A prefix operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum UnaryOp {
    /// `NOT`.
    Not,
    /// `-` (negation).
    Minus,
    /// `distinct`, inside an aggregate call (`count(distinct x#1)`).
    Distinct,
}

impl UnaryOp {
    /// The operator as Spark prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Not => "NOT",
            UnaryOp::Minus => "-",
            UnaryOp::Distinct => "distinct",
        }
    }
}

impl fmt::Display for UnaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a sort puts nulls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum NullOrdering {
    /// `NULLS FIRST`.
    First,
    /// `NULLS LAST`.
    Last,
}

/// A sort direction: `ASC`, `DESC NULLS LAST`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SortDirection {
    /// `DESC` rather than `ASC`.
    pub descending: bool,
    /// The null ordering, when printed.
    pub nulls: Option<NullOrdering>,
}

impl fmt::Display for SortDirection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.descending { "DESC" } else { "ASC" })?;
        match self.nulls {
            Some(NullOrdering::First) => f.write_str(" NULLS FIRST"),
            Some(NullOrdering::Last) => f.write_str(" NULLS LAST"),
            None => Ok(()),
        }
    }
}

/// The kind of a subquery expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SubqueryKind {
    /// `scalar-subquery#N [outer refs]` (logical) or `Subquery subquery#N` (physical).
    Scalar,
    /// `exists#N [outer refs]`.
    Exists,
    /// `IN (list#N [outer refs])`, the value side is in [`Expr::InSubquery`].
    List,
    /// A lateral subquery or any other subquery expression.
    Other,
}

/// A subquery expression: its id, the outer references it is correlated on
/// (the `[...]` list), and its plan when the source carries it inline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SubqueryExpr {
    /// Which subquery expression.
    pub kind: SubqueryKind,
    /// The subquery's exprId (`#N`).
    pub id: ExprId,
    /// Outer attributes the subquery is correlated on.
    pub outer_refs: Vec<Expr>,
}

/// An expression in Spark's printed syntax.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Expr {
    /// `name#id[L]`.
    Attr(Attr),
    /// `child AS name#id`.
    Alias {
        /// Aliased expression.
        child: Box<Expr>,
        /// The new attribute.
        attr: Attr,
    },
    /// `outer(x#1L)`: a correlated reference to the outer query.
    Outer(Box<Expr>),
    /// An unresolved name from a parsed (not analyzed) plan: `'c_custkey`.
    Unresolved(String),
    /// A literal as printed (`1995-03-15`, `BUILDING`, `0.00`, `null`).
    Literal(String),
    /// `*`.
    Star,
    /// A function call, including casts (`cast(x as decimal(19,6))` is
    /// `Call { name: "cast", args: [x, Literal("decimal(19,6)")] }`).
    Call {
        /// Function name as printed.
        name: String,
        /// Arguments.
        args: Vec<Expr>,
    },
    /// A binary operator, printed as `(left op right)`.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        left: Box<Expr>,
        /// Right operand.
        right: Box<Expr>,
    },
    /// A prefix operator (`NOT`, `-`, `distinct`).
    Unary {
        /// The operator.
        op: UnaryOp,
        /// Operand.
        child: Box<Expr>,
    },
    /// `value IN (a, b, c)`.
    In {
        /// Tested value.
        value: Box<Expr>,
        /// The literal list.
        list: Vec<Expr>,
    },
    /// `value IN (list#N [...])` / `(a, b) IN (list#N [...])`.
    InSubquery {
        /// The tested values.
        values: Vec<Expr>,
        /// The subquery.
        subquery: SubqueryExpr,
    },
    /// `scalar-subquery#N [...]`, `exists#N [...]`, `Subquery subquery#N`.
    Subquery(SubqueryExpr),
    /// `child ASC NULLS FIRST`.
    SortOrder {
        /// The sort key.
        child: Box<Expr>,
        /// `ASC NULLS FIRST` etc.
        direction: SortDirection,
    },
    /// Text the expression parser did not understand, kept verbatim.
    Raw(String),
}

impl Expr {
    /// `left op right`.
    pub fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        }
    }

    /// The attribute if this is a plain (possibly `outer(...)`) attribute.
    pub fn as_attr(&self) -> Option<&Attr> {
        match self {
            Expr::Attr(a) => Some(a),
            Expr::Outer(e) => e.as_attr(),
            _ => None,
        }
    }

    /// The attribute an output expression defines: an `Attr` itself or an
    /// `Alias`'s new attribute.
    pub fn output_attr(&self) -> Option<&Attr> {
        match self {
            Expr::Attr(a) => Some(a),
            Expr::Alias { attr, .. } => Some(attr),
            _ => None,
        }
    }

    /// Direct child expressions, in print order (the order every walk
    /// visits them in).
    pub fn children(&self) -> Vec<&Expr> {
        let mut v = Vec::new();
        self.apply_children(|c| {
            v.push(c);
            Recursion::Continue
        });
        v
    }

    /// Every attribute referenced anywhere in the expression (including
    /// `outer(...)` references and subquery correlation lists).
    pub fn attrs(&self) -> Vec<&Attr> {
        let mut out = Vec::new();
        self.apply(|e| {
            if let Expr::Attr(a) = e {
                out.push(a);
            }
            Recursion::Continue
        });
        out
    }

    /// Split a conjunction `(a AND b) AND c` into `[a, b, c]`.
    pub fn conjuncts(&self) -> Vec<&Expr> {
        self.split(BinaryOp::And)
    }

    /// Split a disjunction `(a OR b) OR c` into `[a, b, c]`.
    pub fn disjuncts(&self) -> Vec<&Expr> {
        self.split(BinaryOp::Or)
    }

    /// The operands of a chain of one binary operator, left to right.
    fn split(&self, by: BinaryOp) -> Vec<&Expr> {
        let mut out = Vec::new();
        // Left-deep chains (`((a AND b) AND c) ...`) are walked without
        // recursion: the right operands are pushed, the left followed.
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Binary { op, left, right } if *op == by => {
                    stack.push(right);
                    stack.push(left);
                }
                other => out.push(other),
            }
        }
        out
    }
}

impl TreeNode for Expr {
    fn apply_children<'n, F: FnMut(&'n Self) -> Recursion>(&'n self, mut f: F) -> Recursion {
        let mut each = |items: &mut dyn Iterator<Item = &'n Expr>| {
            for c in items {
                if f(c) == Recursion::Stop {
                    return Recursion::Stop;
                }
            }
            Recursion::Continue
        };
        match self {
            Expr::Attr(_) | Expr::Unresolved(_) | Expr::Literal(_) | Expr::Star | Expr::Raw(_) => {
                Recursion::Continue
            }
            Expr::Alias { child, .. }
            | Expr::Outer(child)
            | Expr::Unary { child, .. }
            | Expr::SortOrder { child, .. } => each(&mut std::iter::once(&**child)),
            Expr::Call { args, .. } => each(&mut args.iter()),
            Expr::Binary { left, right, .. } => each(&mut [&**left, &**right].into_iter()),
            Expr::In { value, list } => each(&mut std::iter::once(&**value).chain(list.iter())),
            Expr::InSubquery { values, subquery } => {
                each(&mut values.iter().chain(subquery.outer_refs.iter()))
            }
            Expr::Subquery(s) => each(&mut s.outer_refs.iter()),
        }
    }

    fn map_children<F: FnMut(Self) -> Self>(self, mut f: F) -> Self {
        let map_box = |b: Box<Expr>, f: &mut F| Box::new(f(*b));
        let map_vec = |v: Vec<Expr>, f: &mut F| v.into_iter().map(&mut *f).collect::<Vec<_>>();
        match self {
            e @ (Expr::Attr(_)
            | Expr::Unresolved(_)
            | Expr::Literal(_)
            | Expr::Star
            | Expr::Raw(_)) => e,
            Expr::Alias { child, attr } => Expr::Alias {
                child: map_box(child, &mut f),
                attr,
            },
            Expr::Outer(child) => Expr::Outer(map_box(child, &mut f)),
            Expr::Unary { op, child } => Expr::Unary {
                op,
                child: map_box(child, &mut f),
            },
            Expr::SortOrder { child, direction } => Expr::SortOrder {
                child: map_box(child, &mut f),
                direction,
            },
            Expr::Call { name, args } => Expr::Call {
                name,
                args: map_vec(args, &mut f),
            },
            Expr::Binary { op, left, right } => {
                let left = map_box(left, &mut f);
                Expr::Binary {
                    op,
                    left,
                    right: map_box(right, &mut f),
                }
            }
            Expr::In { value, list } => {
                let value = map_box(value, &mut f);
                Expr::In {
                    value,
                    list: map_vec(list, &mut f),
                }
            }
            Expr::InSubquery { values, subquery } => {
                let values = map_vec(values, &mut f);
                Expr::InSubquery {
                    values,
                    subquery: SubqueryExpr {
                        outer_refs: map_vec(subquery.outer_refs, &mut f),
                        ..subquery
                    },
                }
            }
            Expr::Subquery(s) => Expr::Subquery(SubqueryExpr {
                outer_refs: map_vec(s.outer_refs, &mut f),
                ..s
            }),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list(f: &mut fmt::Formatter<'_>, items: &[Expr]) -> fmt::Result {
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{e}")?;
            }
            Ok(())
        }
        fn sub(f: &mut fmt::Formatter<'_>, s: &SubqueryExpr) -> fmt::Result {
            let name = match s.kind {
                SubqueryKind::Scalar => "scalar-subquery",
                SubqueryKind::Exists => "exists",
                SubqueryKind::List => "list",
                SubqueryKind::Other => "subquery",
            };
            write!(f, "{name}#{} [", s.id)?;
            list(f, &s.outer_refs)?;
            f.write_str("]")
        }
        match self {
            Expr::Attr(a) => write!(f, "{a}"),
            Expr::Alias { child, attr } => write!(f, "{child} AS {attr}"),
            Expr::Outer(e) => write!(f, "outer({e})"),
            Expr::Unresolved(n) => write!(f, "'{n}"),
            Expr::Literal(l) => f.write_str(l),
            Expr::Star => f.write_str("*"),
            Expr::Call { name, args } if name.eq_ignore_ascii_case("cast") && args.len() == 2 => {
                write!(f, "cast({} as {})", args[0], args[1])
            }
            Expr::Call { name, args } => {
                write!(f, "{name}(")?;
                list(f, args)?;
                f.write_str(")")
            }
            Expr::Binary { op, left, right } => write!(f, "({left} {op} {right})"),
            Expr::Unary { op, child } => write!(f, "{op} {child}"),
            Expr::In { value, list: l } => {
                write!(f, "{value} IN (")?;
                for (i, e) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str(")")
            }
            Expr::InSubquery { values, subquery } => {
                if values.len() == 1 {
                    write!(f, "{} IN (", values[0])?;
                } else {
                    f.write_str("named_struct(")?;
                    list(f, values)?;
                    f.write_str(") IN (")?;
                }
                sub(f, subquery)?;
                f.write_str(")")
            }
            Expr::Subquery(s) => sub(f, s),
            Expr::SortOrder { child, direction } => write!(f, "{child} {direction}"),
            Expr::Raw(t) => f.write_str(t),
        }
    }
}

/// The attributes an output list defines: plain attributes and aliases; an
/// item a parser kept as raw text still defines the `name#id` it ends in.
pub fn output_attrs(list: &[Expr]) -> Vec<Attr> {
    let mut out = Vec::new();
    for e in list {
        match e.output_attr() {
            Some(a) => out.push(a.clone()),
            None => {
                if let Expr::Raw(t) = e {
                    out.extend(attr_of_item(t));
                }
            }
        }
    }
    out
}

/// `name#17L` or `expr AS name#17L` (as raw text) → the attribute.
pub fn attr_of_item(item: &str) -> Option<Attr> {
    let item = item.trim();
    let item = match item.rfind(" AS ") {
        Some(p) => &item[p + 4..],
        None => item,
    };
    let hash = item.rfind('#')?;
    let name = item[..hash].trim().trim_matches('`');
    let tail = &item[hash + 1..];
    let digits_end = tail
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(tail.len());
    let id: u64 = tail[..digits_end].parse().ok()?;
    let suffix = &tail[digits_end..];
    if name.is_empty() || !suffix.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    Some(Attr::new(name, id, suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(n: &str, id: ExprId) -> Expr {
        Expr::Attr(Attr::new(n, id, "L"))
    }

    #[test]
    fn operators_print_and_parse_as_spark_prints_them() {
        for op in BinaryOp::ALL {
            assert_eq!(BinaryOp::parse(op.as_str()), Some(op));
        }
        assert_eq!(BinaryOp::parse("and"), Some(BinaryOp::And));
        assert_eq!(BinaryOp::parse("=~"), None);
        // A tokenizer trying ALL in order never stops at a prefix.
        for (i, op) in BinaryOp::ALL.iter().enumerate() {
            for later in &BinaryOp::ALL[i + 1..] {
                assert!(
                    !later.as_str().starts_with(op.as_str()),
                    "{later} after its prefix {op}"
                );
            }
        }
        assert!(BinaryOp::EqNullSafe.is_equality() && !BinaryOp::LtEq.is_equality());
        let e = Expr::binary(BinaryOp::And, a("x", 1), Expr::Literal("5".into()));
        assert_eq!(e.to_string(), "(x#1L AND 5)");
        let s = Expr::SortOrder {
            child: Box::new(a("x", 1)),
            direction: SortDirection {
                descending: true,
                nulls: Some(NullOrdering::Last),
            },
        };
        assert_eq!(s.to_string(), "x#1L DESC NULLS LAST");
    }

    #[test]
    fn conjuncts_of_a_long_chain_without_recursion() {
        // Expression parsers bound nesting (about 1,500 levels); splitting
        // does not recurse at all.
        let mut e = a("x", 0);
        for i in 1..1_000 {
            e = Expr::binary(BinaryOp::And, e, a("x", i));
        }
        let c = e.conjuncts();
        assert_eq!(c.len(), 1_000);
        assert_eq!(c[0].to_string(), "x#0L");
        assert_eq!(c[999].to_string(), "x#999L");
        assert_eq!(e.disjuncts().len(), 1);
    }

    #[test]
    fn raw_items_still_define_their_attribute() {
        let list = vec![
            a("k", 1),
            Expr::Raw("weird thing AS w#7".into()),
            Expr::Raw("... 3 more fields".into()),
        ];
        assert_eq!(
            output_attrs(&list),
            [Attr::new("k", 1, "L"), Attr::new("w", 7, "")]
        );
    }
}
