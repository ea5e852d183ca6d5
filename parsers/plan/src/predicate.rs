//! Scan predicates as typed values: what a file-skipping engine can test
//! against a file's column statistics.
//!
//! Spark prints a file scan's `PushedFilters` (and `PartitionFilters` of a
//! V1 source) as its data source filters (`org.apache.spark.sql.sources`:
//! `EqualTo(o_orderstatus,P)`, `GreaterThanOrEqual(o_orderdate,1995-01-01)`,
//! `In(p_size, [1,2,3])`, `Or(EqualTo(n_name,FRANCE),EqualTo(n_name,GERMANY))`),
//! each value printed by its JVM `toString`: strings bare (no quotes),
//! dates `1995-01-01`, decimals `0.05`, timestamps `1995-01-01 00:00:00.0`.
//! The column's type comes from the scan's `ReadSchema`
//! (`struct<o_orderdate:date,o_totalprice:decimal(15,2)>`), and the literal
//! is parsed as that type.
//!
//! Whatever is not understood becomes [`Predicate::Unknown`], which never
//! skips a file: a filter kind with no min/max meaning
//! (`StringContains`), a column missing from the schema, a value that does
//! not parse as its column's type, and the text Spark cut off
//! (`spark.sql.maxMetadataStringLength`, 100 characters by default, ends a
//! long list with `...`).
//!
//! Two things cannot be read back exactly from the printed form, and are
//! kept on the safe side: a string value may itself hold the `,` that
//! separates an `In` list's values (so a string `In` list is evaluated by
//! its range, [`Predicate::string_range`], never by its values), and a
//! timestamp with a time zone is printed in the session's zone (so it is
//! kept with [`Literal::Timestamp`]'s `utc: false`, and widened by a day
//! when compared with statistics in UTC).
//!
//! [`Predicate::may_match`] tests a predicate against one file's column
//! statistics ([`ColumnStats`]: min, max, null count, rows, and whether a
//! string maximum was cut to a prefix) the way a min/max engine skips
//! files: `false` only when the statistics prove no row can match.
//!
//! ```
//! use plan::predicate::{parse_filters, read_schema, CmpOp, Literal, Predicate};
//!
//! let schema = read_schema("struct<o_orderdate:date,o_orderstatus:string,o_totalprice:decimal(15,2)>");
//! let f = parse_filters(
//!     "[IsNotNull(o_orderdate), GreaterThanOrEqual(o_orderdate,1995-01-01), EqualTo(o_orderstatus,P), LessThan(o_totalprice,1000.5)]",
//!     &schema,
//! );
//! assert_eq!(f[0], Predicate::IsNotNull("o_orderdate".into()));
//! assert_eq!(
//!     f[1],
//!     Predicate::Cmp { column: "o_orderdate".into(), op: CmpOp::Ge, value: Literal::Date(9131) }
//! );
//! assert_eq!(f[3], Predicate::Cmp {
//!     column: "o_totalprice".into(), op: CmpOp::Lt,
//!     value: Literal::Decimal { unscaled: 10005, scale: 1 },
//! });
//! // Cut off by Spark: not understood, so it never skips a file.
//! let cut = parse_filters("[IsNotNull(l_shipdate), GreaterThanOrEqual(l_shipda...", &schema);
//! assert!(matches!(cut[1], Predicate::Unknown(_)));
//! ```

use crate::list::split_top_level;
use serde::Serialize;

/// A column's type as a scan's `ReadSchema` prints it (and as a cast names
/// its target type).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ColumnType {
    /// `boolean`.
    Boolean,
    /// `tinyint`, `smallint`, `int`, `bigint`.
    Integer(IntWidth),
    /// `float`, `double`.
    Floating(FloatWidth),
    /// `decimal(p,s)`.
    Decimal {
        /// Precision.
        precision: u8,
        /// Scale.
        scale: u8,
    },
    /// `string`, `varchar(n)`, `char(n)` (and `varchar`, `char`).
    String,
    /// `binary`.
    Binary,
    /// `date`.
    Date,
    /// `timestamp` (an instant, printed in the session's zone).
    Timestamp,
    /// `timestamp_ntz` (a wall-clock time).
    TimestampNtz,
    /// Anything else (`struct<…>`, `array<…>`, `map<…>`, intervals, …).
    Other(String),
}

/// An integer type's width, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum IntWidth {
    /// `tinyint` (`byte`).
    Byte,
    /// `smallint` (`short`).
    Short,
    /// `int` (`integer`).
    Int,
    /// `bigint` (`long`; Spark prints its attributes with an `L`).
    Long,
}

impl IntWidth {
    /// The decimal digits every value of the type fits in.
    pub fn digits(self) -> u8 {
        match self {
            IntWidth::Byte => 3,
            IntWidth::Short => 5,
            IntWidth::Int => 10,
            IntWidth::Long => 19,
        }
    }
}

/// A floating-point type's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum FloatWidth {
    /// `float` (`real`).
    Float,
    /// `double`.
    Double,
}

impl ColumnType {
    /// The type Spark's simple type string names.
    pub fn parse(s: &str) -> ColumnType {
        let t = s.trim();
        let lower = t.to_ascii_lowercase();
        match lower.as_str() {
            "boolean" => ColumnType::Boolean,
            "tinyint" | "byte" => ColumnType::Integer(IntWidth::Byte),
            "smallint" | "short" => ColumnType::Integer(IntWidth::Short),
            "int" | "integer" => ColumnType::Integer(IntWidth::Int),
            "bigint" | "long" => ColumnType::Integer(IntWidth::Long),
            "float" | "real" => ColumnType::Floating(FloatWidth::Float),
            "double" => ColumnType::Floating(FloatWidth::Double),
            "string" | "varchar" | "char" => ColumnType::String,
            "binary" => ColumnType::Binary,
            "date" => ColumnType::Date,
            "timestamp" | "timestamp_ltz" => ColumnType::Timestamp,
            "timestamp_ntz" => ColumnType::TimestampNtz,
            _ if lower.starts_with("varchar(") || lower.starts_with("char(") => ColumnType::String,
            _ if lower.starts_with("decimal(") => lower
                .strip_prefix("decimal(")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|r| r.split_once(','))
                .and_then(|(p, s)| Some((p.trim().parse().ok()?, s.trim().parse().ok()?)))
                .map(|(precision, scale)| ColumnType::Decimal { precision, scale })
                .unwrap_or_else(|| ColumnType::Other(t.to_string())),
            _ => ColumnType::Other(t.to_string()),
        }
    }

    /// Whether a cast from this type to `to` keeps order and is
    /// injective, so a key compared through it clusters like the column
    /// itself: the same type, integer widening (`int` -> `bigint`), an
    /// integer into a decimal with room for all its digits, decimal
    /// widening, `float` -> `double` and `date` -> `timestamp`. Narrowing,
    /// floating -> integer, anything -> string and string -> anything do
    /// not.
    pub fn widens_to(&self, to: &ColumnType) -> bool {
        use ColumnType as T;
        match (self, to) {
            (T::Integer(a), T::Integer(b)) => a <= b,
            (T::Integer(w), T::Decimal { precision, scale }) => {
                precision.saturating_sub(*scale) >= w.digits()
            }
            (
                T::Decimal { precision, scale },
                T::Decimal {
                    precision: p2,
                    scale: s2,
                },
            ) => s2 >= scale && p2.saturating_sub(*s2) >= precision.saturating_sub(*scale),
            (T::Floating(a), T::Floating(b)) => a <= b,
            (T::Date, T::Date | T::Timestamp | T::TimestampNtz) => true,
            (T::Other(a), T::Other(b)) => a.eq_ignore_ascii_case(b),
            (
                T::Boolean | T::String | T::Binary | T::Timestamp | T::TimestampNtz,
                T::Boolean | T::String | T::Binary | T::Timestamp | T::TimestampNtz,
            ) => self == to,
            (
                T::Boolean
                | T::Integer(_)
                | T::Floating(_)
                | T::Decimal { .. }
                | T::String
                | T::Binary
                | T::Date
                | T::Timestamp
                | T::TimestampNtz
                | T::Other(_),
                _,
            ) => false,
        }
    }

    /// Whether a value of this type (`None`: not known) cast through
    /// `targets` in turn, innermost first, still orders and compares like
    /// the value itself: every cast [widens](Self::widens_to). From an
    /// unknown type only a cast to text is known to reorder (a cast from
    /// text is caught where the type is known); Spark's own coercions
    /// widen.
    pub fn casts_keep_order(
        from: Option<ColumnType>,
        targets: impl IntoIterator<Item = ColumnType>,
    ) -> bool {
        let mut from = from;
        for to in targets {
            let ok = match &from {
                Some(f) => f.widens_to(&to),
                None => to != ColumnType::String,
            };
            if !ok {
                return false;
            }
            from = Some(to);
        }
        true
    }
}

/// A scan's read schema: (column, type) in order. A schema Spark cut off
/// (`...`) loses its last, incomplete field; nested types are
/// [`ColumnType::Other`].
pub fn read_schema(s: &str) -> Vec<(String, ColumnType)> {
    let t = s.trim();
    let truncated = t.ends_with("...");
    let body = t.trim_end_matches("...");
    let body = body.strip_prefix("struct<").unwrap_or(body);
    let body = body.strip_suffix('>').unwrap_or(body);
    let mut fields: Vec<&str> = split_top_level(body).collect();
    if truncated {
        fields.pop();
    }
    fields
        .into_iter()
        .filter_map(|f| {
            let (name, ty) = f.split_once(':')?;
            let name = name.trim().trim_matches('`');
            (!name.is_empty()).then(|| (name.to_string(), ColumnType::parse(ty)))
        })
        .collect()
}

/// A literal value, typed by its column.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A decimal: `unscaled` × 10^−`scale` (the literal's own scale).
    Decimal {
        /// The digits without the point.
        unscaled: i128,
        /// Digits after the point.
        scale: u32,
    },
    /// A floating-point number.
    Float(f64),
    /// A string.
    String(String),
    /// A date: days since 1970-01-01.
    Date(i32),
    /// A timestamp: microseconds since 1970-01-01T00:00:00, in UTC when
    /// `utc` (the text gave a zone or it is a `timestamp_ntz` wall-clock
    /// value), else in the session's unknown zone.
    Timestamp {
        /// Microseconds.
        micros: i64,
        /// Whether the instant is known in UTC.
        utc: bool,
    },
}

/// As Spark prints a literal in a filter: `1995-03-15`, `12.50`,
/// `2024-01-01 10:00:00` (UTC when the zone is known), strings unquoted.
impl std::fmt::Display for Literal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Float(x) => write!(f, "{x}"),
            Literal::String(s) => f.write_str(s),
            Literal::Decimal { unscaled, scale } => {
                let scale = *scale as usize;
                let digits = unscaled.unsigned_abs().to_string();
                let sign = if *unscaled < 0 { "-" } else { "" };
                if scale == 0 {
                    return write!(f, "{sign}{digits}");
                }
                let digits = format!("{digits:0>width$}", width = scale + 1);
                let (int, frac) = digits.split_at(digits.len() - scale);
                write!(f, "{sign}{int}.{frac}")
            }
            Literal::Date(d) => match jiff::civil::date(1970, 1, 1)
                .checked_add(jiff::Span::new().days(i64::from(*d)))
            {
                Ok(date) => write!(f, "{date}"),
                Err(_) => write!(f, "{d} days"),
            },
            Literal::Timestamp { micros, utc } => {
                match jiff::Timestamp::from_microsecond(*micros) {
                    Ok(ts) => {
                        let dt = jiff::tz::Offset::UTC.to_datetime(ts);
                        write!(f, "{}", dt.strftime("%Y-%m-%d %H:%M:%S%.f"))?;
                        if *utc {
                            f.write_str(" UTC")?;
                        }
                        Ok(())
                    }
                    Err(_) => write!(f, "{micros} µs"),
                }
            }
        }
    }
}

/// A comparison's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `EqualTo`.
    Eq,
    /// `EqualNullSafe` (`<=>`).
    EqNullSafe,
    /// `GreaterThan`.
    Gt,
    /// `GreaterThanOrEqual`.
    Ge,
    /// `LessThan`.
    Lt,
    /// `LessThanOrEqual`.
    Le,
}

/// A predicate on one scan's columns.
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate {
    /// `column op value`.
    Cmp {
        /// The column.
        column: String,
        /// The operator.
        op: CmpOp,
        /// The value, typed by the column.
        value: Literal,
    },
    /// `column IN (values)`.
    In {
        /// The column.
        column: String,
        /// The values, typed by the column.
        values: Vec<Literal>,
    },
    /// `column IS NULL`.
    IsNull(String),
    /// `column IS NOT NULL`.
    IsNotNull(String),
    /// `column LIKE 'prefix%'`.
    StartsWith {
        /// The column.
        column: String,
        /// The prefix.
        prefix: String,
    },
    /// Both.
    And(Box<Predicate>, Box<Predicate>),
    /// Either.
    Or(Box<Predicate>, Box<Predicate>),
    /// Not.
    Not(Box<Predicate>),
    /// Not understood (the text as printed): never skips a file.
    Unknown(String),
}

impl Predicate {
    /// Predicates not understood, counted through `And`, `Or` and `Not`.
    pub fn unknown_count(&self) -> usize {
        match self {
            Predicate::Unknown(_) => 1,
            Predicate::And(a, b) | Predicate::Or(a, b) => a.unknown_count() + b.unknown_count(),
            Predicate::Not(a) => a.unknown_count(),
            Predicate::Cmp { .. }
            | Predicate::In { .. }
            | Predicate::IsNull(_)
            | Predicate::IsNotNull(_)
            | Predicate::StartsWith { .. } => 0,
        }
    }

    /// For a string `In` list: the smallest and largest value. A string
    /// value can hold the `,` that separates the printed values, so the
    /// list is only trusted as a range.
    pub fn string_range(values: &[Literal]) -> Option<(&str, &str)> {
        let strings: Vec<&str> = values
            .iter()
            .map(|v| match v {
                Literal::String(s) => Some(s.as_str()),
                _ => None,
            })
            .collect::<Option<_>>()?;
        Some((strings.iter().min()?, strings.iter().max()?))
    }
}

/// The data source filters Spark prints (`org.apache.spark.sql.sources`).
const FILTERS: &[&str] = &[
    "EqualTo",
    "EqualNullSafe",
    "GreaterThanOrEqual",
    "GreaterThan",
    "LessThanOrEqual",
    "LessThan",
    "In",
    "IsNull",
    "IsNotNull",
    "StringStartsWith",
    "StringEndsWith",
    "StringContains",
    "And",
    "Or",
    "Not",
    "AlwaysTrue",
    "AlwaysFalse",
];

/// Whether `s` starts with a filter's name and its `(`.
fn starts_filter(s: &str) -> bool {
    FILTERS
        .iter()
        .any(|f| s.strip_prefix(f).is_some_and(|r| r.starts_with('(')))
}

/// A scan's filter list split into its filters: at each `, ` that a
/// filter's name follows. Values are printed bare, so brackets and
/// parentheses inside them (a binary value prints as `[B@1f`) are not
/// counted: one odd value spoils only its own filter.
fn split_list(body: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in body.match_indices(", ") {
        if i >= start && starts_filter(&body[i + 2..]) {
            out.push(body[start..i].trim());
            start = i + 2;
        }
    }
    out.push(body[start..].trim());
    out.retain(|x| !x.is_empty());
    out
}

/// `And`/`Or`'s two arguments: split at the one `,` that a filter's name
/// follows outside parentheses.
fn split_two(args: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut at = None;
    for (i, c) in args.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 && starts_filter(&args[i + 1..]) && at.replace(i).is_some() => {
                return None;
            }
            _ => {}
        }
    }
    let i = at?;
    Some((&args[..i], &args[i + 1..]))
}

/// `Name(args)` → (`Name`, `args`) when the parentheses close at the end.
fn call(s: &str) -> Option<(&str, &str)> {
    let open = s.find('(')?;
    let name = &s[..open];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let args = s[open + 1..].strip_suffix(')')?;
    Some((name, args))
}

/// The printed data source filters of one scan (`[IsNotNull(a), EqualTo(a,1)]`,
/// or the same without brackets), each typed by `schema`.
pub fn parse_filters(text: &str, schema: &[(String, ColumnType)]) -> Vec<Predicate> {
    parse_list(text, split_list, |item| parse_one(item, schema, 0))
}

/// Whether a printed filter list is in Catalyst's expression form
/// (`[isnotnull(o_orderdate#10), (o_orderdate#10 >= 1995-01-01)]`: the
/// `PartitionFilters` and `DataFilters` of a file scan, Photon's
/// `RequiredDataFilters`) rather than the data source filters'
/// (`[IsNotNull(o_orderdate), GreaterThanOrEqual(o_orderdate,1995-01-01)]`).
pub fn is_catalyst(text: &str) -> bool {
    let body = text.trim().trim_start_matches('[');
    !starts_filter(body) && attr_in(body)
}

/// Whether `s` holds an attribute reference (`name#12`, `name#12L`).
fn attr_in(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'#'
            && i > 0
            && (b[i - 1].is_ascii_alphanumeric() || matches!(b[i - 1], b'_' | b'`'))
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
    })
}

/// The column of an attribute reference `name#12` (or `name#12L`), when
/// `s` is exactly one.
fn attr(s: &str) -> Option<&str> {
    let (name, id) = s.trim().rsplit_once('#')?;
    let id = id.strip_suffix('L').unwrap_or(id);
    let name = name.trim_matches('`');
    (!name.is_empty()
        && !id.is_empty()
        && id.bytes().all(|c| c.is_ascii_digit())
        && !name.contains(['(', ')', ' ', ',', '#']))
    .then_some(name)
}

/// `s` without the parentheses that enclose all of it.
fn unwrap_parens(mut s: &str) -> &str {
    loop {
        let t = s.trim();
        let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
            return t;
        };
        // The first `(` must close at the very end.
        let mut depth = 0i32;
        for (i, c) in t.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 && i + 1 < t.len() {
                        return t;
                    }
                }
                _ => {}
            }
        }
        s = inner;
    }
}

/// Split `s` at its first top-level ` word ` (outside parentheses).
fn split_word<'a>(s: &'a str, word: &str) -> Option<(&'a str, &'a str)> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ' ' if depth == 0 && s[i..].starts_with(word) => {
                return Some((&s[..i], &s[i + word.len()..]));
            }
            _ => {}
        }
    }
    None
}

/// The printed Catalyst filters of one scan (`[isnotnull(a#1), (a#1 = 5)]`),
/// each typed by `schema`; what is not understood is
/// [`Predicate::Unknown`]. A value is taken as a literal only when it holds
/// no attribute reference, so a comparison of two columns or of a column
/// with an expression of columns is never read as one with a value.
pub fn parse_catalyst(text: &str, schema: &[(String, ColumnType)]) -> Vec<Predicate> {
    parse_list(
        text,
        |body| split_top_level(body).collect(),
        |item| catalyst_one(item, schema, 0),
    )
}

/// A printed filter list (`[a, b]`, or without brackets) split by `split`
/// and each item read by `one`; a list Spark cut short (`...` at its end)
/// has its last, cut item [`Predicate::Unknown`].
fn parse_list<'t>(
    text: &'t str,
    split: impl Fn(&'t str) -> Vec<&'t str>,
    one: impl Fn(&str) -> Predicate,
) -> Vec<Predicate> {
    let t = text.trim();
    let truncated = t.ends_with("...");
    let body = t.trim_end_matches("...");
    let body = body.strip_prefix('[').unwrap_or(body);
    let body = if truncated {
        body
    } else {
        body.strip_suffix(']').unwrap_or(body)
    };
    let items = split(body);
    let n = items.len();
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            if truncated && i + 1 == n {
                Predicate::Unknown(format!("{item}..."))
            } else {
                one(item)
            }
        })
        .collect()
}

/// One Catalyst filter; `depth` bounds the nesting.
fn catalyst_one(item: &str, schema: &[(String, ColumnType)], depth: u32) -> Predicate {
    let unknown = || Predicate::Unknown(item.trim().to_string());
    if depth > 64 {
        return unknown();
    }
    let e = unwrap_parens(item);
    let sub = |s: &str| Box::new(catalyst_one(s, schema, depth + 1));
    if let Some((a, b)) = split_word(e, " OR ") {
        return Predicate::Or(sub(a), sub(b));
    }
    if let Some((a, b)) = split_word(e, " AND ") {
        return Predicate::And(sub(a), sub(b));
    }
    if let Some(rest) = e.strip_prefix("NOT ") {
        return Predicate::Not(sub(rest));
    }
    let typed = |c: &str| -> Option<(String, &ColumnType)> {
        let c = attr(c)?;
        Some((c.to_string(), type_of(schema, c)?))
    };
    // A value: no attribute in it; an integer may carry Scala's `L`.
    let value = |v: &str, ty: &ColumnType| -> Option<Literal> {
        if attr_in(v) {
            return None;
        }
        let v = v.trim();
        let v = match ty {
            ColumnType::Integer(_) => v.strip_suffix('L').unwrap_or(v),
            _ => v,
        };
        literal(v, ty)
    };
    let parsed = (|| {
        if let Some((name, args)) = e.split_once('(') {
            let args = args.strip_suffix(')');
            match (name, args) {
                // A null check needs no type (as the data source form).
                ("isnotnull", Some(a)) => return Some(Predicate::IsNotNull(attr(a)?.into())),
                ("isnull", Some(a)) => return Some(Predicate::IsNull(attr(a)?.into())),
                ("StartsWith", Some(a)) => {
                    let (c, v) = a.split_once(", ")?;
                    let (column, ty) = typed(c)?;
                    return (*ty == ColumnType::String && !attr_in(v)).then(|| {
                        Predicate::StartsWith {
                            column,
                            prefix: v.to_string(),
                        }
                    });
                }
                _ => {}
            }
        }
        if let Some((c, list)) = split_word(e, " IN (") {
            let (column, ty) = typed(c)?;
            let list = list.strip_suffix(')')?;
            let values = split_top_level(list)
                .map(|v| value(v, ty))
                .collect::<Option<Vec<_>>>()?;
            return Some(Predicate::In { column, values });
        }
        for (op, cmp, flipped) in [
            (" <=> ", CmpOp::EqNullSafe, CmpOp::EqNullSafe),
            (" >= ", CmpOp::Ge, CmpOp::Le),
            (" <= ", CmpOp::Le, CmpOp::Ge),
            (" = ", CmpOp::Eq, CmpOp::Eq),
            (" > ", CmpOp::Gt, CmpOp::Lt),
            (" < ", CmpOp::Lt, CmpOp::Gt),
        ] {
            let Some((l, r)) = split_word(e, op) else {
                continue;
            };
            if let Some((column, ty)) = typed(l) {
                return Some(Predicate::Cmp {
                    column,
                    op: cmp,
                    value: value(r, ty)?,
                });
            }
            let (column, ty) = typed(r)?;
            return Some(Predicate::Cmp {
                column,
                op: flipped,
                value: value(l, ty)?,
            });
        }
        None
    })();
    parsed.unwrap_or_else(unknown)
}

fn type_of<'a>(schema: &'a [(String, ColumnType)], column: &str) -> Option<&'a ColumnType> {
    schema
        .iter()
        .find(|(n, _)| n == column)
        .or_else(|| schema.iter().find(|(n, _)| n.eq_ignore_ascii_case(column)))
        .map(|(_, t)| t)
}

/// One printed filter; `depth` bounds the nesting of `And`/`Or`/`Not`.
fn parse_one(item: &str, schema: &[(String, ColumnType)], depth: u32) -> Predicate {
    let unknown = || Predicate::Unknown(item.to_string());
    if depth > 64 {
        return unknown();
    }
    let Some((name, args)) = call(item) else {
        return unknown();
    };
    let column_value = || {
        let (c, v) = args.split_once(',')?;
        let c = c.trim().trim_matches('`');
        Some((c.to_string(), v, type_of(schema, c)?))
    };
    let cmp = |op: CmpOp| -> Option<Predicate> {
        let (column, v, ty) = column_value()?;
        Some(Predicate::Cmp {
            column,
            op,
            value: literal(v, ty)?,
        })
    };
    let two = || -> Option<(Predicate, Predicate)> {
        let (a, b) = split_two(args)?;
        Some((
            parse_one(a.trim(), schema, depth + 1),
            parse_one(b.trim(), schema, depth + 1),
        ))
    };
    let parsed = match name {
        "EqualTo" => cmp(CmpOp::Eq),
        "EqualNullSafe" => cmp(CmpOp::EqNullSafe),
        "GreaterThan" => cmp(CmpOp::Gt),
        "GreaterThanOrEqual" => cmp(CmpOp::Ge),
        "LessThan" => cmp(CmpOp::Lt),
        "LessThanOrEqual" => cmp(CmpOp::Le),
        "IsNull" | "IsNotNull" => {
            let c = args.trim().trim_matches('`').to_string();
            (!c.is_empty() && !c.contains(',')).then(|| {
                if name == "IsNull" {
                    Predicate::IsNull(c)
                } else {
                    Predicate::IsNotNull(c)
                }
            })
        }
        "StringStartsWith" => column_value().and_then(|(column, v, ty)| {
            (*ty == ColumnType::String).then(|| Predicate::StartsWith {
                column,
                prefix: v.to_string(),
            })
        }),
        "In" => column_value().and_then(|(column, v, ty)| {
            let list = v.trim().strip_prefix('[')?.strip_suffix(']')?;
            let values = if list.is_empty() {
                Vec::new()
            } else {
                list.split(',')
                    .map(|x| literal(x, ty))
                    .collect::<Option<Vec<_>>>()?
            };
            Some(Predicate::In { column, values })
        }),
        "And" => two().map(|(a, b)| Predicate::And(Box::new(a), Box::new(b))),
        "Or" => two().map(|(a, b)| Predicate::Or(Box::new(a), Box::new(b))),
        "Not" => Some(Predicate::Not(Box::new(parse_one(
            args.trim(),
            schema,
            depth + 1,
        )))),
        _ => None,
    };
    parsed.unwrap_or_else(unknown)
}

/// `v` as printed by the JVM, read as type `ty`; `None` when it does not
/// parse as that type (or the type has no literal form here).
pub fn literal(v: &str, ty: &ColumnType) -> Option<Literal> {
    match ty {
        ColumnType::Boolean => match v.trim() {
            "true" => Some(Literal::Bool(true)),
            "false" => Some(Literal::Bool(false)),
            _ => None,
        },
        ColumnType::Integer(_) => v.trim().parse().ok().map(Literal::Int),
        ColumnType::Floating(_) => v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| !f.is_nan())
            .map(Literal::Float),
        ColumnType::Decimal { .. } => decimal(v.trim()),
        // Strings are printed bare: every character is the value's.
        ColumnType::String => Some(Literal::String(v.to_string())),
        ColumnType::Date => days(v.trim()).map(Literal::Date),
        ColumnType::Timestamp | ColumnType::TimestampNtz => {
            timestamp(v.trim(), *ty == ColumnType::TimestampNtz)
        }
        ColumnType::Binary | ColumnType::Other(_) => None,
    }
}

/// `-12.50` → unscaled −1250, scale 2 (plain notation; `1E+2` too).
fn decimal(v: &str) -> Option<Literal> {
    let (mantissa, exp) = match v.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (v, 0),
    };
    let (neg, digits) = match mantissa.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut unscaled: i128 = format!("{int}{frac}").parse().ok()?;
    let mut scale = i32::try_from(frac.len()).ok()? - exp;
    while scale < 0 {
        unscaled = unscaled.checked_mul(10)?;
        scale += 1;
    }
    let scale = u32::try_from(scale).ok().filter(|&s| s <= 38)?;
    Some(Literal::Decimal {
        unscaled: if neg { -unscaled } else { unscaled },
        scale,
    })
}

/// `1995-01-01` → days since 1970-01-01.
fn days(v: &str) -> Option<i32> {
    let d: jiff::civil::Date = v.parse().ok()?;
    let epoch = jiff::civil::date(1970, 1, 1);
    let span = epoch.until((jiff::Unit::Day, d)).ok()?;
    Some(span.get_days())
}

/// `1995-01-01 00:00:00.0` (the JVM's `Timestamp.toString`, in the
/// session's zone), `1995-01-01T00:00:00`, or with a zone
/// (`…Z`, `…+02:00`).
fn timestamp(v: &str, ntz: bool) -> Option<Literal> {
    if let Ok(ts) = v.parse::<jiff::Timestamp>() {
        return Some(Literal::Timestamp {
            micros: ts.as_microsecond(),
            utc: true,
        });
    }
    let dt: jiff::civil::DateTime = v.replacen(' ', "T", 1).parse().ok()?;
    let epoch = jiff::civil::date(1970, 1, 1).at(0, 0, 0, 0);
    let micros = epoch
        .until((jiff::Unit::Microsecond, dt))
        .ok()?
        .get_microseconds();
    Some(Literal::Timestamp { micros, utc: ntz })
}

/// What one file records about one column (Delta `stats`, Iceberg
/// bounds), as the statistics reader hands it over: every field optional,
/// since a file without a statistic is never skipped on it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColumnStats {
    /// Smallest value (a lower bound).
    pub min: Option<Literal>,
    /// Largest value (an upper bound).
    pub max: Option<Literal>,
    /// Whether `max` is the largest value itself; `false` for a string
    /// the writer cut to a prefix (Delta keeps 32 characters, Iceberg 16
    /// by default): the true values may continue past it.
    pub max_exact: bool,
    /// Null values in the file.
    pub null_count: Option<u64>,
    /// Rows in the file.
    pub rows: Option<u64>,
}

/// How two literals of one column order; `None` when they cannot be
/// compared (different kinds, a timestamp in an unknown zone against one
/// in UTC, NaN).
pub fn compare(a: &Literal, b: &Literal) -> Option<std::cmp::Ordering> {
    order(a, b)
}

fn order(a: &Literal, b: &Literal) -> Option<std::cmp::Ordering> {
    use Literal as L;
    match (a, b) {
        (L::Bool(x), L::Bool(y)) => Some(x.cmp(y)),
        (L::Int(x), L::Int(y)) => Some(x.cmp(y)),
        (L::Float(x), L::Float(y)) => x.partial_cmp(y),
        (L::Date(x), L::Date(y)) => Some(x.cmp(y)),
        (L::String(x), L::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (
            L::Decimal {
                unscaled: x,
                scale: sx,
            },
            L::Decimal {
                unscaled: y,
                scale: sy,
            },
        ) => {
            // Bring both to the larger scale; an overflow is no answer.
            let up = |v: i128, by: u32| 10i128.checked_pow(by).and_then(|m| v.checked_mul(m));
            let (x, y) = if sx >= sy {
                (Some(*x), up(*y, sx - sy))
            } else {
                (up(*x, sy - sx), Some(*y))
            };
            Some(x?.cmp(&y?))
        }
        (L::Timestamp { micros: x, utc: ux }, L::Timestamp { micros: y, utc: uy }) if ux == uy => {
            Some(x.cmp(y))
        }
        _ => None,
    }
}

/// A day in microseconds: how far a timestamp printed in an unknown
/// session zone can be from UTC (zones span −12 h to +14 h).
const DAY_MICROS: i64 = 86_400_000_000;

/// `v` moved by `by` days when it is a timestamp in an unknown zone, so
/// that comparing it with UTC statistics stays on the safe side.
fn widened(v: &Literal, by: i64) -> Literal {
    match v {
        Literal::Timestamp { micros, utc: false } => Literal::Timestamp {
            micros: micros.saturating_add(by.saturating_mul(DAY_MICROS)),
            utc: true,
        },
        other => other.clone(),
    }
}

impl ColumnStats {
    /// All values are below `v` (`strict`) or at most `v`: known only from
    /// an exact maximum, or from a cut one whose prefix sorts below `v`'s.
    fn all_below(&self, v: &Literal, strict: bool) -> bool {
        // Below every instant a zoneless timestamp may stand for.
        let v = widened(v, -1);
        let Some(max) = &self.max else {
            return false;
        };
        if !self.max_exact {
            // A cut string maximum: the values run up to the prefix
            // followed by anything, so only a prefix below v's own prefix
            // of the same length bounds them.
            return match (max, &v) {
                (Literal::String(m), Literal::String(x)) => {
                    let n = m.len().min(x.len());
                    x.is_char_boundary(n) && m.as_bytes() < &x.as_bytes()[..n]
                }
                _ => false,
            };
        }
        match order(max, &v) {
            Some(o) if strict => o.is_lt(),
            Some(o) => o.is_le(),
            None => false,
        }
    }

    /// All values are above `v` (`strict`) or at least `v`.
    fn all_above(&self, v: &Literal, strict: bool) -> bool {
        // Above every instant a zoneless timestamp may stand for.
        let v = widened(v, 1);
        match self.min.as_ref().and_then(|min| order(min, &v)) {
            Some(o) if strict => o.is_gt(),
            Some(o) => o.is_ge(),
            None => false,
        }
    }

    /// Every value of the file is null.
    fn all_null(&self) -> bool {
        matches!((self.null_count, self.rows), (Some(n), Some(r)) if r > 0 && n >= r)
    }
}

impl Predicate {
    /// Whether a file whose columns have the statistics `stats` gives may
    /// hold a row that satisfies the predicate: `false` only when the
    /// statistics prove it holds none, so a min/max engine skips the file.
    /// A column without statistics, an [`Predicate::Unknown`] and a `Not`
    /// never skip.
    pub fn may_match(&self, stats: &dyn Fn(&str) -> Option<ColumnStats>) -> bool {
        match self {
            Predicate::Unknown(_) | Predicate::Not(_) => true,
            Predicate::And(a, b) => a.may_match(stats) && b.may_match(stats),
            Predicate::Or(a, b) => a.may_match(stats) || b.may_match(stats),
            Predicate::IsNull(c) => !matches!(stats(c).and_then(|s| s.null_count), Some(0)),
            Predicate::IsNotNull(c) => !stats(c).is_some_and(|s| s.all_null()),
            Predicate::Cmp { column, op, value } => {
                let Some(s) = stats(column) else {
                    return true;
                };
                // A comparison with a value is never true on null.
                if s.all_null() {
                    return false;
                }
                match op {
                    CmpOp::Eq | CmpOp::EqNullSafe => {
                        !(s.all_below(value, true) || s.all_above(value, true))
                    }
                    CmpOp::Gt => !s.all_below(value, false),
                    CmpOp::Ge => !s.all_below(value, true),
                    CmpOp::Lt => !s.all_above(value, false),
                    CmpOp::Le => !s.all_above(value, true),
                }
            }
            Predicate::In { column, values } => {
                let Some(s) = stats(column) else {
                    return true;
                };
                if s.all_null() {
                    return false;
                }
                match Predicate::string_range(values) {
                    // A string list is trusted only as its range.
                    Some((lo, hi)) => {
                        !(s.all_below(&Literal::String(lo.to_string()), true)
                            || s.all_above(&Literal::String(hi.to_string()), true))
                    }
                    None => values
                        .iter()
                        .any(|v| !(s.all_below(v, true) || s.all_above(v, true))),
                }
            }
            Predicate::StartsWith { column, prefix } => {
                let Some(s) = stats(column) else {
                    return true;
                };
                if s.all_null() {
                    return false;
                }
                let p = Literal::String(prefix.clone());
                // Strings with the prefix sort at or after it; a minimum
                // past it that does not start with it is past them all.
                let past = matches!(&s.min, Some(Literal::String(m)) if m.as_str() > prefix.as_str() && !m.starts_with(prefix.as_str()));
                !(s.all_below(&p, true) || past)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> String {
        x.to_string()
    }

    #[test]
    fn catalyst_filters_as_spark_and_photon_print_them() {
        let schema = vec![
            (s("l_shipdate"), ColumnType::Date),
            (s("l_orderkey"), ColumnType::Integer(IntWidth::Long)),
            (s("s_store_name"), ColumnType::String),
            (s("t_hour"), ColumnType::Integer(IntWidth::Int)),
            (s("t_minute"), ColumnType::Integer(IntWidth::Int)),
            (s("l_receiptdate"), ColumnType::Date),
        ];
        let p = parse_catalyst(
            "[isnotnull(l_shipdate#19), (l_shipdate#19 <= 1998-09-02), (s_store_name#223 = ese), \
             (5 < l_orderkey#0L), l_orderkey#0L IN (1,2,3), ((t_hour#958 = 9) OR (t_minute#959 >= 30)), \
             (l_shipdate#19 < l_receiptdate#20), NOT (t_hour#1 = 3), (cast(t_hour#1 as string) = 9), \
             StartsWith(s_store_name#223, ab)]",
            &schema,
        );
        let cmp = |c: &str, op, value| Predicate::Cmp {
            column: s(c),
            op,
            value,
        };
        assert_eq!(p[0], Predicate::IsNotNull(s("l_shipdate")));
        assert_eq!(p[1], cmp("l_shipdate", CmpOp::Le, Literal::Date(10471)));
        assert_eq!(
            p[2],
            cmp("s_store_name", CmpOp::Eq, Literal::String(s("ese")))
        );
        // A value on the left: the operator turns around.
        assert_eq!(p[3], cmp("l_orderkey", CmpOp::Gt, Literal::Int(5)));
        assert_eq!(
            p[4],
            Predicate::In {
                column: s("l_orderkey"),
                values: vec![Literal::Int(1), Literal::Int(2), Literal::Int(3)]
            }
        );
        assert_eq!(
            p[5],
            Predicate::Or(
                Box::new(cmp("t_hour", CmpOp::Eq, Literal::Int(9))),
                Box::new(cmp("t_minute", CmpOp::Ge, Literal::Int(30)))
            )
        );
        // Two columns, or a function of a column: never a value.
        assert!(matches!(p[6], Predicate::Unknown(_)));
        assert_eq!(
            p[7],
            Predicate::Not(Box::new(cmp("t_hour", CmpOp::Eq, Literal::Int(3))))
        );
        assert!(matches!(p[8], Predicate::Unknown(_)));
        assert_eq!(
            p[9],
            Predicate::StartsWith {
                column: s("s_store_name"),
                prefix: s("ab")
            }
        );
        assert_eq!(p.len(), 10);
        assert!(is_catalyst("[isnotnull(a#1)]"));
        assert!(!is_catalyst("[IsNotNull(a), EqualTo(b,#1)]"));
    }

    #[test]
    fn literals_display_as_spark_prints_them() {
        let shown: Vec<String> = [
            Literal::Date(9204),
            Literal::Int(-3),
            Literal::Decimal {
                unscaled: 1250,
                scale: 2,
            },
            Literal::Decimal {
                unscaled: -5,
                scale: 3,
            },
            Literal::String("a,b".into()),
            Literal::Timestamp {
                micros: 1_704_103_200_000_000,
                utc: true,
            },
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            shown,
            [
                "1995-03-15",
                "-3",
                "12.50",
                "-0.005",
                "a,b",
                "2024-01-01 10:00:00 UTC"
            ]
        );
    }

    #[test]
    fn casts_keep_order_only_when_they_widen() {
        let widens = |a: &str, b: &str| ColumnType::parse(a).widens_to(&ColumnType::parse(b));
        assert!(widens("int", "bigint"));
        assert!(widens("smallint", "int"));
        assert!(widens("int", "decimal(10,0)"));
        assert!(!widens("int", "decimal(9,0)"));
        assert!(widens("decimal(7,2)", "decimal(12,2)"));
        assert!(!widens("decimal(7,2)", "decimal(7,0)"));
        assert!(widens("date", "timestamp"));
        assert!(widens("float", "double"));
        assert!(widens("array<int>", "ARRAY<INT>"));
        assert!(!widens("bigint", "int"));
        assert!(!widens("double", "float"));
        assert!(!widens("double", "int"));
        assert!(!widens("bigint", "string"));
        assert!(!widens("string", "bigint"));
        assert!(!widens("timestamp", "date"));
        let chain = |from: Option<&str>, to: &[&str]| {
            ColumnType::casts_keep_order(
                from.map(ColumnType::parse),
                to.iter().map(|t| ColumnType::parse(t)),
            )
        };
        assert!(chain(Some("int"), &["bigint", "decimal(20,0)"]));
        assert!(!chain(Some("int"), &["bigint", "int"]));
        // An unknown source: only a cast to text is known to reorder.
        assert!(chain(None, &["bigint"]));
        assert!(!chain(None, &["string"]));
    }

    #[test]
    fn read_schemas_as_spark_prints_them() {
        let r = read_schema(
            "struct<l_orderkey:bigint,l_quantity:decimal(15,2),l_shipdate:date,l_comment:string,m:map<string,int>,t:timestamp_ntz>",
        );
        assert_eq!(
            r,
            vec![
                (s("l_orderkey"), ColumnType::Integer(IntWidth::Long)),
                (
                    s("l_quantity"),
                    ColumnType::Decimal {
                        precision: 15,
                        scale: 2
                    }
                ),
                (s("l_shipdate"), ColumnType::Date),
                (s("l_comment"), ColumnType::String),
                (s("m"), ColumnType::Other(s("map<string,int>"))),
                (s("t"), ColumnType::TimestampNtz),
            ]
        );
        // Cut off by Spark: the incomplete last field is dropped.
        let cut = read_schema(
            "struct<l_quantity:decimal(15,2),l_extendedprice:decimal(15,2),l_shipdate...",
        );
        assert_eq!(cut.len(), 2);
    }

    /// Filters as Spark 4.0.1 printed them in the TPC-H fixture logs.
    #[test]
    fn real_pushed_filters() {
        let schema = read_schema(
            "struct<l_shipdate:date,l_discount:decimal(15,2),l_quantity:decimal(15,2),l_shipmode:string,l_returnflag:string>",
        );
        let f = parse_filters(
            "[IsNotNull(l_shipdate), IsNotNull(l_discount), IsNotNull(l_quantity), GreaterThanOrEqual(l_shipdate,1994-01-01), LessThan(l_shipdate,1995-01-01), GreaterThanOrEqual(l_discount,0.05), LessThanOrEqual(l_discount,0.07), LessThan(l_quantity,24.00)]",
            &schema,
        );
        assert_eq!(f.len(), 8);
        assert!(f.iter().all(|p| p.unknown_count() == 0), "{f:?}");
        assert_eq!(
            f[3],
            Predicate::Cmp {
                column: s("l_shipdate"),
                op: CmpOp::Ge,
                value: Literal::Date(8766)
            }
        );
        assert_eq!(
            f[7],
            Predicate::Cmp {
                column: s("l_quantity"),
                op: CmpOp::Lt,
                value: Literal::Decimal {
                    unscaled: 2400,
                    scale: 2
                }
            }
        );
        let f = parse_filters(
            "[IsNotNull(l_shipinstruct), In(l_shipmode, [AIR,AIR REG]), EqualTo(l_returnflag,R)]",
            &schema,
        );
        assert_eq!(f[0], Predicate::IsNotNull(s("l_shipinstruct")));
        let Predicate::In { column, values } = &f[1] else {
            panic!("{f:?}")
        };
        assert_eq!(column, "l_shipmode");
        assert_eq!(Predicate::string_range(values), Some(("AIR", "AIR REG")));
        assert_eq!(
            f[2],
            Predicate::Cmp {
                column: s("l_returnflag"),
                op: CmpOp::Eq,
                value: Literal::String(s("R"))
            }
        );
    }

    #[test]
    fn or_and_not_nest() {
        let schema = read_schema("struct<n_name:string,n_nationkey:bigint,p_size:int>");
        let f = parse_filters(
            "[IsNotNull(n_nationkey), Or(EqualTo(n_name,FRANCE),EqualTo(n_name,GERMANY)), Not(In(p_size, [1,2,3])), StringStartsWith(n_name,UNITED)]",
            &schema,
        );
        let eq = |v: &str| Predicate::Cmp {
            column: s("n_name"),
            op: CmpOp::Eq,
            value: Literal::String(s(v)),
        };
        assert_eq!(
            f[1],
            Predicate::Or(Box::new(eq("FRANCE")), Box::new(eq("GERMANY")))
        );
        assert_eq!(
            f[2],
            Predicate::Not(Box::new(Predicate::In {
                column: s("p_size"),
                values: vec![Literal::Int(1), Literal::Int(2), Literal::Int(3)]
            }))
        );
        assert_eq!(
            f[3],
            Predicate::StartsWith {
                column: s("n_name"),
                prefix: s("UNITED")
            }
        );
    }

    #[test]
    fn what_is_not_understood_is_unknown_and_counted() {
        let schema = read_schema("struct<a:int,b:string,c:date,d:binary>");
        let f = parse_filters(
            "[EqualTo(a,x1), StringContains(b,foo), EqualTo(z,1), EqualTo(c,1995-02-30), EqualTo(d,[B@1f), And(EqualTo(a,1),EqualTo(a,zz)), GreaterThan(a,1), LessThan(a,2...",
            &schema,
        );
        let unknown: usize = f.iter().map(Predicate::unknown_count).sum();
        // a not an int; no min/max meaning; z not in the schema; no such
        // date; binary; half of the And; the cut-off last item.
        assert_eq!(unknown, 7, "{f:?}");
        assert!(matches!(f[6], Predicate::Cmp { op: CmpOp::Gt, .. }));
        assert!(matches!(&f[7], Predicate::Unknown(t) if t.ends_with("...")));
        // A string value keeps its commas and parentheses after the first
        // comma: the column name never holds one.
        let f = parse_filters("[EqualTo(b,a,b (c))]", &schema);
        assert_eq!(
            f[0],
            Predicate::Cmp {
                column: s("b"),
                op: CmpOp::Eq,
                value: Literal::String(s("a,b (c)"))
            }
        );
    }

    #[test]
    fn literals_by_type() {
        let d = |p, s| ColumnType::Decimal {
            precision: p,
            scale: s,
        };
        assert_eq!(
            literal("-12.50", &d(10, 2)),
            Some(Literal::Decimal {
                unscaled: -1250,
                scale: 2
            })
        );
        assert_eq!(
            literal("1E+2", &d(10, 0)),
            Some(Literal::Decimal {
                unscaled: 100,
                scale: 0
            })
        );
        assert_eq!(literal("1.5.5", &d(10, 2)), None);
        assert_eq!(
            literal("1970-01-02", &ColumnType::Date),
            Some(Literal::Date(1))
        );
        assert_eq!(
            literal("1969-12-31", &ColumnType::Date),
            Some(Literal::Date(-1))
        );
        assert_eq!(
            literal("1970-01-01 00:00:01.5", &ColumnType::Timestamp),
            Some(Literal::Timestamp {
                micros: 1_500_000,
                utc: false
            })
        );
        assert_eq!(
            literal("1970-01-01T00:00:01Z", &ColumnType::Timestamp),
            Some(Literal::Timestamp {
                micros: 1_000_000,
                utc: true
            })
        );
        assert_eq!(
            literal("1970-01-01 00:00:02", &ColumnType::TimestampNtz),
            Some(Literal::Timestamp {
                micros: 2_000_000,
                utc: true
            })
        );
        assert_eq!(
            literal("true", &ColumnType::Boolean),
            Some(Literal::Bool(true))
        );
        assert_eq!(
            literal("NaN", &ColumnType::Floating(FloatWidth::Double)),
            None
        );
        assert_eq!(
            literal("2.5", &ColumnType::Floating(FloatWidth::Double)),
            Some(Literal::Float(2.5))
        );
    }

    fn stats(min: Literal, max: Literal) -> ColumnStats {
        ColumnStats {
            min: Some(min),
            max: Some(max),
            max_exact: true,
            null_count: Some(0),
            rows: Some(100),
        }
    }

    fn skips(p: &Predicate, s: &ColumnStats) -> bool {
        !p.may_match(&|_| Some(s.clone()))
    }

    #[test]
    fn comparisons_skip_only_what_the_bounds_exclude() {
        let schema = read_schema("struct<d:date,q:decimal(15,2),s:string,t:timestamp,n:int>");
        let p = |f: &str| parse_filters(f, &schema).remove(0);
        // A file of dates 1995-01-01 .. 1995-03-31.
        let f = stats(Literal::Date(9131), Literal::Date(9220));
        assert!(skips(&p("GreaterThanOrEqual(d,1995-04-01)"), &f));
        assert!(!skips(&p("GreaterThanOrEqual(d,1995-03-31)"), &f));
        assert!(skips(&p("GreaterThan(d,1995-03-31)"), &f));
        assert!(skips(&p("LessThan(d,1995-01-01)"), &f));
        assert!(!skips(&p("LessThanOrEqual(d,1995-01-01)"), &f));
        assert!(skips(&p("EqualTo(d,1996-01-01)"), &f));
        assert!(!skips(&p("EqualTo(d,1995-02-01)"), &f));
        // Decimals of other scales compare by value: 0.05 .. 0.07.
        let q = stats(
            Literal::Decimal {
                unscaled: 5,
                scale: 2,
            },
            Literal::Decimal {
                unscaled: 7,
                scale: 2,
            },
        );
        assert!(skips(&p("GreaterThan(q,0.070)"), &q));
        assert!(!skips(&p("GreaterThanOrEqual(q,0.070)"), &q));
        // And skips when one side does; Or only when both do.
        assert!(skips(&p("And(GreaterThan(d,1999-01-01),IsNotNull(d))"), &f));
        assert!(!skips(&p("Or(GreaterThan(d,1999-01-01),IsNotNull(d))"), &f));
        // Not, unknown filters and missing statistics never skip.
        assert!(!skips(&p("Not(EqualTo(d,1995-02-01))"), &f));
        assert!(!skips(&p("StringContains(s,x)"), &f));
        assert!(p("GreaterThan(d,1999-01-01)").may_match(&|_| None));
        // Statistics of another kind than the literal: no answer, no skip.
        assert!(!skips(&p("GreaterThan(n,5)"), &f));
    }

    #[test]
    fn nulls_in_lists_prefixes_and_cut_strings() {
        let schema = read_schema("struct<s:string,n:int,t:timestamp>");
        let p = |f: &str| parse_filters(f, &schema).remove(0);
        let mut nulls = stats(Literal::Int(1), Literal::Int(9));
        nulls.null_count = Some(100);
        assert!(skips(&p("IsNotNull(n)"), &nulls));
        assert!(skips(&p("EqualTo(n,5)"), &nulls));
        assert!(!skips(&p("IsNull(n)"), &nulls));
        assert!(skips(
            &p("IsNull(n)"),
            &stats(Literal::Int(1), Literal::Int(9))
        ));
        // Integer lists by value: none of 10, 20 lies in 1..9.
        let f = stats(Literal::Int(1), Literal::Int(9));
        assert!(skips(&p("In(n, [10,20])"), &f));
        assert!(!skips(&p("In(n, [0,5])"), &f));
        // String lists by range: [AIR, AIR REG] overlaps [AB, AZ].
        let s = stats(Literal::String("AB".into()), Literal::String("AZ".into()));
        assert!(!skips(&p("In(s, [AIR,AIR REG])"), &s));
        assert!(skips(&p("In(s, [MAIL,SHIP])"), &s));
        // Prefixes: PROMO sorts after every value in [AB, AZ].
        assert!(skips(&p("StringStartsWith(s,PROMO)"), &s));
        assert!(skips(&p("StringStartsWith(s,AA)"), &s));
        assert!(!skips(&p("StringStartsWith(s,AC)"), &s));
        // A cut maximum "abc" may stand for "abcz…": only a value whose
        // prefix of that length sorts after it is past the file.
        let mut cut = stats(Literal::String("a".into()), Literal::String("abc".into()));
        cut.max_exact = false;
        assert!(!skips(&p("EqualTo(s,abcq)"), &cut));
        assert!(!skips(&p("GreaterThan(s,abc)"), &cut));
        assert!(skips(&p("GreaterThanOrEqual(s,abd)"), &cut));
        // A timestamp in the session's unknown zone is widened by a day
        // against UTC statistics.
        let day = 86_400_000_000i64;
        let ts = |m| Literal::Timestamp {
            micros: m,
            utc: true,
        };
        let t = stats(ts(0), ts(day));
        assert!(!skips(&p("GreaterThan(t,1970-01-02 12:00:00.0)"), &t));
        assert!(!skips(&p("GreaterThan(t,1970-01-02 23:00:00.0)"), &t));
        assert!(skips(&p("GreaterThan(t,1970-01-03 00:00:00.0)"), &t));
        assert!(!skips(&p("LessThan(t,1969-12-31 12:00:00.0)"), &t));
        assert!(skips(&p("LessThan(t,1969-12-31 00:00:00.0)"), &t));
    }
}
