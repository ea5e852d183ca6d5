//! Iceberg's own filter text, as a Spark scan of an Iceberg table prints it,
//! read into [`Predicate`]s typed by the table's schema.
//!
//! A `BatchScan` of an Iceberg table describes itself with
//! `SparkScan.description()` (apache/iceberg,
//! `spark/v3.5/spark/src/main/java/org/apache/iceberg/spark/source/SparkScan.java`):
//!
//! ```text
//! lake.tpch.lineitem (branch=null) [filters=l_shipdate IS NOT NULL, l_shipdate <= 10471, groupedBy=]
//! ```
//!
//! The filters are the Iceberg expressions Spark pushed and Iceberg
//! accepted, joined by `, `, each printed by `Spark3Util.describe`
//! (`DescribeExpressionVisitor`, same repository,
//! `spark/v3.5/spark/src/main/java/org/apache/iceberg/spark/Spark3Util.java`):
//!
//! - `term IS NULL`, `term IS NOT NULL`, `is_nan(term)`, `not_nan(term)`;
//! - `term < lit`, `<=`, `>`, `>=`, `=`, `!=`;
//! - `term LIKE 'prefix%'`, `term NOT LIKE 'prefix%'` (starts with);
//! - `term IN (lit, lit)`, `term NOT IN (lit, lit)`;
//! - `(a AND b)`, `(a OR b)`, `NOT (a)`, `true`, `false`;
//! - a term is a column name, or `transform(column)` (`day(ts)`,
//!   `bucket[16](id)`);
//! - a literal is `'` + the string + `'` with nothing escaped (`'O'Brien'`),
//!   `X'0A1B'` for binary, else the value's Java `toString`: dates as days
//!   since 1970-01-01 (`10471`), timestamps as microseconds since the epoch,
//!   decimals as `BigDecimal.toString` (`0.05`, `1E+3`), floats as
//!   `Float.toString`.
//!
//! Strings are printed with their quotes unescaped, so where one ends is
//! read from what follows it: the first `'` followed by what may follow a
//! literal there (the end, `, `, ` AND `, ` OR ` or `)`; in a list, `, '`
//! or `)`). A value that itself holds such a sequence (`'a', 'b'` inside
//! one string) is read short; no other printed form is ambiguous.
//!
//! What is not understood becomes [`Predicate::Unknown`], which never skips
//! a file: a transform's term, a column the schema lacks, a literal that is
//! not its column's type, NaN tests. A timestamp literal beyond the year
//! 9999 in microseconds is taken for nanoseconds (Iceberg v3
//! `timestamp_ns`) and is not understood either.
//!
//! ```
//! use plan::iceberg_filters::{parse, is_iceberg};
//! use plan::predicate::{CmpOp, ColumnType, Literal, Predicate};
//!
//! let schema = vec![("c_name".to_string(), ColumnType::String), ("d".to_string(), ColumnType::Date)];
//! let text = "[filters=c_name IS NOT NULL, c_name = 'O'Brien', d <= 10471, groupedBy=]";
//! assert!(is_iceberg(text));
//! let p = parse(text, &schema);
//! assert_eq!(p[0], Predicate::IsNotNull("c_name".into()));
//! assert_eq!(p[1], Predicate::Cmp {
//!     column: "c_name".into(), op: CmpOp::Eq, value: Literal::String("O'Brien".into()),
//! });
//! assert_eq!(p[2], Predicate::Cmp { column: "d".into(), op: CmpOp::Le, value: Literal::Date(10471) });
//! ```

use crate::predicate::{literal, CmpOp, ColumnType, Literal, Predicate};

/// The prefix of the filter list as a scan record keeps it: the
/// description's `[filters=…, groupedBy=…]`, as printed.
pub const PREFIX: &str = "[filters=";

/// Whether `text` is an Iceberg scan's filter list as kept in a scan
/// record (`[filters=…, groupedBy=…]`).
pub fn is_iceberg(text: &str) -> bool {
    text.trim_start().starts_with(PREFIX)
}

/// Iceberg's scan description, split: the parts lakeaudit keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    /// The table as Iceberg names it (`lake.tpch.lineitem`; a Hadoop
    /// catalog's tables are `catalog.namespace.table`).
    pub table: String,
    /// The branch read (`None` for `branch=null`, the main branch).
    pub branch: Option<String>,
    /// `[filters=…, groupedBy=…]` as printed.
    pub filters: String,
}

/// Iceberg's description of a Spark scan, found in `text`: a formatted
/// plan's line (`lake.db.t (branch=null) [filters=…, groupedBy=]`), or a
/// `sparkPlanInfo` `simpleString` / extended plan line, which prints it
/// after the scan's columns (`BatchScan lake.db.t[a#1] lake.db.t
/// (branch=null) [filters=…, groupedBy=] RuntimeFilters: []`).
pub fn description(text: &str) -> Option<Description> {
    let at = text.find(" (branch=")?;
    let table = text[..at].rsplit([' ', ']']).next()?.trim();
    let rest = &text[at + " (branch=".len()..];
    let (branch, rest) = rest.split_once(") ")?;
    if !rest.starts_with(PREFIX) || table.is_empty() {
        return None;
    }
    // The list ends with the grouping keys' names and the bracket; a
    // filter's string may hold `, groupedBy=` too, so the last one counts.
    let g = rest.rfind(", groupedBy=")?;
    let end = g + rest[g..].find(']')? + 1;
    Some(Description {
        table: table.to_string(),
        branch: (branch != "null" && !branch.is_empty()).then(|| branch.to_string()),
        filters: rest[..end].to_string(),
    })
}

/// The filters of `[filters=…, groupedBy=…]` (or the bare list), each typed
/// by `schema`; what is not understood is [`Predicate::Unknown`]. An item
/// that cannot be read makes the rest of the list one unknown predicate.
pub fn parse(text: &str, schema: &[(String, ColumnType)]) -> Vec<Predicate> {
    let t = text.trim();
    let body = match t.strip_prefix(PREFIX) {
        Some(rest) => match rest.rfind(", groupedBy=") {
            Some(g) => &rest[..g],
            None => rest.strip_suffix(']').unwrap_or(rest),
        },
        None => t,
    };
    let mut p = Parser {
        s: body,
        pos: 0,
        schema,
    };
    let mut out = Vec::new();
    while p.pos < p.s.len() {
        let start = p.pos;
        match p.expr(0, Ctx::Top) {
            Some(e) if p.at_end() || p.eat(", ") => out.push(e),
            _ => {
                out.push(Predicate::Unknown(body[start..].to_string()));
                break;
            }
        }
    }
    out
}

/// What may follow the expression being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// A top-level item: the end or `, `.
    Top,
    /// Inside `( … AND/OR … )` or `NOT ( … )`: ` AND `, ` OR ` or `)`.
    Nested,
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    schema: &'a [(String, ColumnType)],
}

/// Deepest nesting of `AND`, `OR` and `NOT` read.
const MAX_DEPTH: u32 = 64;

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    fn eat(&mut self, t: &str) -> bool {
        if self.rest().starts_with(t) {
            self.pos += t.len();
            true
        } else {
            false
        }
    }

    /// Whether `at` (an index into the text) is where an expression read
    /// in `ctx` may end.
    fn may_end_at(&self, at: usize, ctx: Ctx) -> bool {
        let r = &self.s[at..];
        match ctx {
            Ctx::Top => r.is_empty() || r.starts_with(", "),
            Ctx::Nested => r.starts_with(" AND ") || r.starts_with(" OR ") || r.starts_with(')'),
        }
    }

    fn expr(&mut self, depth: u32, ctx: Ctx) -> Option<Predicate> {
        if depth > MAX_DEPTH {
            return None;
        }
        if self.eat("NOT (") {
            let inner = self.expr(depth + 1, Ctx::Nested)?;
            return self.eat(")").then(|| Predicate::Not(Box::new(inner)));
        }
        if self.eat("(") {
            let a = self.expr(depth + 1, Ctx::Nested)?;
            let and = if self.eat(" AND ") {
                true
            } else if self.eat(" OR ") {
                false
            } else {
                return None;
            };
            let b = self.expr(depth + 1, Ctx::Nested)?;
            if !self.eat(")") {
                return None;
            }
            let (a, b) = (Box::new(a), Box::new(b));
            return Some(if and {
                Predicate::And(a, b)
            } else {
                Predicate::Or(a, b)
            });
        }
        for (word, p) in [("true", "true"), ("false", "false")] {
            if self.rest().starts_with(word) && self.may_end_at(self.pos + word.len(), ctx) {
                self.pos += word.len();
                // `true` keeps every file; `false` could skip them all, but
                // is kept unknown (never skips) like any constant here.
                return Some(Predicate::Unknown(p.to_string()));
            }
        }
        for f in ["is_nan(", "not_nan("] {
            if self.rest().starts_with(f) {
                let start = self.pos;
                let close = self.rest().find(')')?;
                self.pos += close + 1;
                return Some(Predicate::Unknown(self.s[start..self.pos].to_string()));
            }
        }
        self.predicate(ctx)
    }

    /// The term: a schema column (longest name first, as names may hold
    /// spaces), else the text up to the first space; `None` for the
    /// column when the term is a transform or not in the schema.
    fn term(&mut self) -> Option<(String, Option<(String, ColumnType)>)> {
        let r = self.rest();
        let known = self
            .schema
            .iter()
            .filter(|(n, _)| {
                !n.is_empty() && r.starts_with(n.as_str()) && r[n.len()..].starts_with(' ')
            })
            .max_by_key(|(n, _)| n.len());
        let len = match known {
            Some((n, _)) => n.len(),
            None => r.find(' ')?,
        };
        let text = r[..len].to_string();
        self.pos += len;
        let column = known.cloned().or_else(|| {
            self.schema
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(&text))
                .cloned()
        });
        Some((text, column))
    }

    fn predicate(&mut self, ctx: Ctx) -> Option<Predicate> {
        let start = self.pos;
        let (text, column) = self.term()?;
        let unknown = |p: &Parser| Predicate::Unknown(p.s[start..p.pos].to_string());
        // A null check needs no type: a plain name is its column (as in
        // the data source form), a transform is not understood.
        let named = column
            .as_ref()
            .map(|(c, _)| c.clone())
            .or_else(|| (!text.contains(['(', ')', '['])).then(|| text.clone()));
        if self.eat(" IS NOT NULL") {
            return Some(match named {
                Some(c) => Predicate::IsNotNull(c),
                None => unknown(self),
            });
        }
        if self.eat(" IS NULL") {
            return Some(match named {
                Some(c) => Predicate::IsNull(c),
                None => unknown(self),
            });
        }
        for (word, negated) in [(" NOT LIKE '", true), (" LIKE '", false)] {
            if self.eat(word) {
                let v = self.string_until("%'", ctx)?;
                let p = match &column {
                    Some((c, ColumnType::String)) => Predicate::StartsWith {
                        column: c.clone(),
                        prefix: v,
                    },
                    _ => unknown(self),
                };
                return Some(if negated {
                    Predicate::Not(Box::new(p))
                } else {
                    p
                });
            }
        }
        for (word, negated) in [(" NOT IN (", true), (" IN (", false)] {
            if self.eat(word) {
                let mut values = Vec::new();
                let mut ok = true;
                loop {
                    let v = self.value(Ctx::Nested, true)?;
                    match (&column, v) {
                        (Some((_, ty)), v) => match typed(&v, ty) {
                            Some(l) => values.push(l),
                            None => ok = false,
                        },
                        (None, _) => ok = false,
                    }
                    if self.eat(")") {
                        break;
                    }
                    if !self.eat(", ") {
                        return None;
                    }
                }
                let p = match (column, ok) {
                    (Some((c, _)), true) => Predicate::In { column: c, values },
                    _ => unknown(self),
                };
                return Some(if negated {
                    Predicate::Not(Box::new(p))
                } else {
                    p
                });
            }
        }
        for (word, op, negated) in [
            (" <= ", CmpOp::Le, false),
            (" >= ", CmpOp::Ge, false),
            (" != ", CmpOp::Eq, true),
            (" < ", CmpOp::Lt, false),
            (" > ", CmpOp::Gt, false),
            (" = ", CmpOp::Eq, false),
        ] {
            if self.eat(word) {
                let v = self.value(ctx, false)?;
                let p = match column.and_then(|(c, ty)| Some((c, typed(&v, &ty)?))) {
                    Some((column, value)) => Predicate::Cmp { column, op, value },
                    None => unknown(self),
                };
                return Some(if negated {
                    Predicate::Not(Box::new(p))
                } else {
                    p
                });
            }
        }
        None
    }

    /// A literal: a quoted string up to the `'` a literal may end at
    /// (`in_list`: followed by `, ` or `)`), else the text up to the next
    /// `,`, `)` or space.
    fn value(&mut self, ctx: Ctx, in_list: bool) -> Option<Value> {
        if self.eat("'") {
            let end = if in_list { Ctx::Nested } else { ctx };
            return self.string_until("'", end).map(Value::Str);
        }
        if self.rest().starts_with("X'") {
            let r = self.rest();
            let close = r[2..].find('\'')? + 3;
            self.pos += close;
            return Some(Value::Binary);
        }
        let r = self.rest();
        let len = r.find([',', ')', ' ']).unwrap_or(r.len());
        if len == 0 {
            return None;
        }
        self.pos += len;
        Some(Value::Bare(r[..len].to_string()))
    }

    /// The string up to the first `close` after which the expression may
    /// end in `ctx` (or, in a list, a `, ` follows).
    fn string_until(&mut self, close: &str, ctx: Ctx) -> Option<String> {
        let r = self.rest();
        let mut from = 0;
        while let Some(i) = r[from..].find(close) {
            let at = from + i;
            let after = self.pos + at + close.len();
            let tail = &self.s[after..];
            if self.may_end_at(after, ctx) || tail.starts_with(", ") {
                let v = r[..at].to_string();
                self.pos = after;
                return Some(v);
            }
            from = at + 1;
        }
        None
    }
}

/// A literal as printed, before typing.
enum Value {
    /// `'…'`, without the quotes.
    Str(String),
    /// `X'…'`.
    Binary,
    /// Anything else (numbers, booleans, UUIDs).
    Bare(String),
}

/// Latest microsecond timestamp read as one: 9999-12-31T23:59:59.999999.
const MAX_MICROS: i64 = 253_402_300_799_999_999;

/// `v` as a value of `ty`, in Iceberg's printed form.
fn typed(v: &Value, ty: &ColumnType) -> Option<Literal> {
    match (v, ty) {
        (Value::Str(s), ColumnType::String) => Some(Literal::String(s.clone())),
        (Value::Bare(b), ColumnType::Date) => b.parse().ok().map(Literal::Date),
        (Value::Bare(b), ColumnType::Timestamp | ColumnType::TimestampNtz) => b
            .parse::<i64>()
            .ok()
            .filter(|m| m.unsigned_abs() <= MAX_MICROS.unsigned_abs())
            .map(|micros| Literal::Timestamp { micros, utc: true }),
        (
            Value::Bare(b),
            ColumnType::Boolean
            | ColumnType::Integer(_)
            | ColumnType::Floating(_)
            | ColumnType::Decimal { .. },
        ) => literal(b, ty),
        (Value::Str(_) | Value::Binary | Value::Bare(_), _) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predicate::IntWidth;

    fn s(x: &str) -> String {
        x.to_string()
    }

    fn schema() -> Vec<(String, ColumnType)> {
        vec![
            (s("l_shipdate"), ColumnType::Date),
            (s("l_shipts"), ColumnType::Timestamp),
            (s("l_orderkey"), ColumnType::Integer(IntWidth::Long)),
            (
                s("l_discount"),
                ColumnType::Decimal {
                    precision: 15,
                    scale: 2,
                },
            ),
            (s("c_name"), ColumnType::String),
            (s("l_shipmode"), ColumnType::String),
            (s("col with space"), ColumnType::Integer(IntWidth::Int)),
        ]
    }

    fn cmp(c: &str, op: CmpOp, value: Literal) -> Predicate {
        Predicate::Cmp {
            column: s(c),
            op,
            value,
        }
    }

    #[test]
    fn descriptions_from_each_plan_source() {
        let f = "lake.tpch.lineitem (branch=null) [filters=l_shipdate IS NOT NULL, l_shipdate <= 10471, groupedBy=]";
        let d = description(f).unwrap();
        assert_eq!(d.table, "lake.tpch.lineitem");
        assert_eq!(d.branch, None);
        assert_eq!(
            d.filters,
            "[filters=l_shipdate IS NOT NULL, l_shipdate <= 10471, groupedBy=]"
        );
        let simple = "BatchScan lake.tpch.orders[o_orderstatus#9] lake.tpch.orders (branch=audit) [filters=o_orderstatus = 'F', groupedBy=] RuntimeFilters: []";
        let d = description(simple).unwrap();
        assert_eq!(d.table, "lake.tpch.orders");
        assert_eq!(d.branch.as_deref(), Some("audit"));
        assert_eq!(d.filters, "[filters=o_orderstatus = 'F', groupedBy=]");
        // A string holding `, groupedBy=`: the last one ends the list.
        let odd = "t (branch=null) [filters=c = 'x, groupedBy=]', groupedBy=]";
        assert_eq!(
            description(odd).unwrap().filters,
            "[filters=c = 'x, groupedBy=]', groupedBy=]"
        );
        assert_eq!(description("BatchScan parquet file:/tmp/t[a#1]"), None);
    }

    #[test]
    fn every_printed_shape() {
        let p = parse(
            "[filters=l_shipdate IS NOT NULL, l_shipdate >= 9190, l_shipts < 823177800000000, \
             l_discount <= 0.07, l_discount > 1E+1, c_name = 'O'Brien', \
             c_name IN ('O'Neil', 'Smith, Jr.', 'Chen'), l_orderkey NOT IN (7, 700), \
             (l_shipdate < 8095 OR l_shipdate > 10470), NOT (c_name LIKE 'DELIVER%'), \
             c_name LIKE 'it's%', (NOT (l_shipmode = 'MAIL') OR l_orderkey != 3), \
             c_name IS NULL, col with space = 4, groupedBy=]",
            &schema(),
        );
        let str_ = |v: &str| Literal::String(s(v));
        let not = |p| Predicate::Not(Box::new(p));
        let expected = vec![
            Predicate::IsNotNull(s("l_shipdate")),
            cmp("l_shipdate", CmpOp::Ge, Literal::Date(9190)),
            cmp(
                "l_shipts",
                CmpOp::Lt,
                Literal::Timestamp {
                    micros: 823_177_800_000_000,
                    utc: true,
                },
            ),
            cmp(
                "l_discount",
                CmpOp::Le,
                Literal::Decimal {
                    unscaled: 7,
                    scale: 2,
                },
            ),
            cmp(
                "l_discount",
                CmpOp::Gt,
                Literal::Decimal {
                    unscaled: 10,
                    scale: 0,
                },
            ),
            cmp("c_name", CmpOp::Eq, str_("O'Brien")),
            Predicate::In {
                column: s("c_name"),
                values: vec![str_("O'Neil"), str_("Smith, Jr."), str_("Chen")],
            },
            not(Predicate::In {
                column: s("l_orderkey"),
                values: vec![Literal::Int(7), Literal::Int(700)],
            }),
            Predicate::Or(
                Box::new(cmp("l_shipdate", CmpOp::Lt, Literal::Date(8095))),
                Box::new(cmp("l_shipdate", CmpOp::Gt, Literal::Date(10470))),
            ),
            not(Predicate::StartsWith {
                column: s("c_name"),
                prefix: s("DELIVER"),
            }),
            Predicate::StartsWith {
                column: s("c_name"),
                prefix: s("it's"),
            },
            Predicate::Or(
                Box::new(not(cmp("l_shipmode", CmpOp::Eq, str_("MAIL")))),
                Box::new(not(cmp("l_orderkey", CmpOp::Eq, Literal::Int(3)))),
            ),
            Predicate::IsNull(s("c_name")),
            cmp("col with space", CmpOp::Eq, Literal::Int(4)),
        ];
        assert_eq!(p, expected);
    }

    #[test]
    fn what_is_not_understood_never_skips() {
        let p = parse(
            "[filters=day(l_shipts) = 19000, missing = 3, l_shipdate = 'x', is_nan(f), \
             l_shipts > 1700000000000000000, true, groupedBy=]",
            &schema(),
        );
        assert_eq!(p.len(), 6);
        assert!(
            p.iter().all(|p| matches!(p, Predicate::Unknown(_))),
            "{p:?}"
        );
        // Broken text: the rest of the list is one unknown predicate.
        let p = parse(
            "[filters=l_shipdate >= 9190, (c_name = 'a' XOR, groupedBy=]",
            &schema(),
        );
        assert_eq!(p[0], cmp("l_shipdate", CmpOp::Ge, Literal::Date(9190)));
        assert_eq!(p[1], Predicate::Unknown(s("(c_name = 'a' XOR")));
        assert_eq!(parse("[filters=, groupedBy=]", &schema()), vec![]);
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut t = s("l_orderkey = 1");
        for _ in 0..10_000 {
            t = format!("NOT ({t})");
        }
        let p = parse(&format!("[filters={t}, groupedBy=]"), &schema());
        assert!(matches!(p.as_slice(), [Predicate::Unknown(_)]), "{p:?}");
    }
}
