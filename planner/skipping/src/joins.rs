//! Join-induced predicates (sideways information passing): what the rows
//! of a join's build side let an engine skip in the probe side's scan.
//!
//! For an inner equi-join `probe.a = build.b`, a probe row can survive only
//! if its `a` equals some `b` of a build row that passed the build side's
//! filters. An engine that learns the build side before it lists the probe
//! side's files can skip a probe file whose `[min, max]` of `a` holds no
//! such `b`:
//!
//! - with the build keys' minimum and maximum ([`BuildSide::min`],
//!   [`BuildSide::max`]): a dynamic filter's range tested against file
//!   statistics ([`crate::Engine::JoinRange`]; Trino's dynamic filtering
//!   of splits on a large build side). DuckDB 1.5.5 pushes such a range
//!   into its Delta scan but, measured on the star fixture, reads every
//!   file anyway: it filters rows, not files;
//! - with the build keys themselves ([`BuildSide::values`]): Databricks'
//!   dynamic file pruning on Delta and Photon ([`crate::Engine::Values`]);
//! - on a partition column, with the values: Spark's dynamic partition
//!   pruning (every engine).
//!
//! The build keys are computed offline from the build table's own rows
//! ([`build_sides`]): every data file is read (the key and the columns its
//! scans filter on), each row is tested against the build scans' literal
//! predicates, and the keys of the rows that pass are kept. What this
//! leaves out only widens the keys, so it never skips a file an engine
//! would read: the build side's own joins and aggregates (which can only
//! remove rows), and predicates lakeaudit cannot read (a row passes them).
//! Which side is the probe: the preserved side of a semi-join; for an inner
//! join the table with more rows (engines build their hash table on the
//! smaller side).

use crate::sample::{file_literals, FileError, Sample};
use graph::relationships::{Relation, Relationship};
use plan::node::{JoinType, Side};
use plan::predicate::{compare, CmpOp, ColumnStats, ColumnType, Literal, Predicate};
use std::cmp::Ordering;
use std::sync::Arc;
use tables::TableState;

/// Build keys kept as values at most ([`BuildSide::values`]); past it the
/// values engine uses the keys' range, as the min/max engine does.
pub const MAX_VALUES: usize = 1_000_000;

/// The keys of a join's build side that pass its filters.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildSide {
    /// The smallest key.
    pub min: Literal,
    /// The largest key.
    pub max: Literal,
    /// The distinct keys in order, for integer, date and decimal keys of
    /// at most [`MAX_VALUES`] distinct values.
    pub values: Option<Arc<[Literal]>>,
    /// Build rows that pass the filters (and have a key).
    pub rows: u64,
    /// `min <= key <= max`, built once for [`Induced::may_match`] (its
    /// column is never looked up: the caller gives the statistics).
    range: Predicate,
}

impl BuildSide {
    /// The keys' range and, when known, the keys themselves.
    pub fn new(min: Literal, max: Literal, values: Option<Arc<[Literal]>>, rows: u64) -> Self {
        let bound = |op, value| {
            Box::new(Predicate::Cmp {
                column: String::new(),
                op,
                value,
            })
        };
        let range = Predicate::And(bound(CmpOp::Ge, min.clone()), bound(CmpOp::Le, max.clone()));
        BuildSide {
            min,
            max,
            values,
            rows,
            range,
        }
    }
}

/// A probe scan's predicate from one join key: `column` takes only the
/// build side's keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Induced {
    /// The probe table's column.
    pub column: String,
    /// The build side's keys.
    pub build: Arc<BuildSide>,
}

impl Induced {
    /// Whether a file with statistics `s` for the column may hold a row
    /// that joins: its `[min, max]` meets the keys' range, or with
    /// `values`, holds one of the keys.
    pub fn may_match(&self, s: Option<&ColumnStats>, values: bool) -> bool {
        let Some(s) = s else {
            return true;
        };
        if !self.build.range.may_match(&|_| Some(s.clone())) {
            return false;
        }
        let (true, Some(keys), Some(lo), Some(hi), true) =
            (values, &self.build.values, &s.min, &s.max, s.max_exact)
        else {
            return true;
        };
        // The first key at or above the file's minimum.
        let i = keys.partition_point(|k| compare(k, lo) == Some(Ordering::Less));
        // Only a key that compares past the maximum is proof.
        keys.get(i)
            .and_then(|k| compare(k, hi))
            .is_none_or(Ordering::is_le)
    }
}

impl Induced {
    /// The predicate as the outputs show it: `l_orderkey in 96..5999975`,
    /// with the keys' count when they are tested one by one
    /// (`l_orderkey in 147390 keys of 96..5999975`).
    pub fn describe(&self, values: bool) -> String {
        let b = &self.build;
        match (&b.values, values) {
            (Some(k), true) => format!(
                "{} in {} keys of {}..{}",
                self.column,
                k.len(),
                b.min,
                b.max
            ),
            _ => format!("{} in {}..{}", self.column, b.min, b.max),
        }
    }
}

/// The sides of `r` whose scan the other side's keys may filter: the
/// preserved side of a semi-join, either side of an inner join. Outer,
/// anti and existence joins, subquery correlations, expressions and
/// null-safe keys filter nothing.
pub fn probe_sides(r: &Relationship) -> &'static [Side] {
    if r.non_simple || r.null_safe || r.left_columns.len() != r.right_columns.len() {
        return &[];
    }
    match (&r.join_type, r.preserved_side) {
        (Relation::Join(JoinType::Inner), None) => &[Side::Left, Side::Right],
        (Relation::Join(JoinType::LeftSemi), Some(Side::Left)) => &[Side::Left],
        (Relation::Join(JoinType::LeftSemi), Some(Side::Right)) => &[Side::Right],
        (Relation::Join(_), _) | (Relation::ScalarSubquery | Relation::Subquery, _) => &[],
    }
}

/// Live rows of a table by its metadata.
pub fn table_rows(t: &TableState) -> u64 {
    t.files.iter().map(|f| f.rows.unwrap_or(0)).sum()
}

/// A predicate's value on one row: true, false, or not known (a null, a
/// value that does not compare, a predicate lakeaudit cannot read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Unknown,
}

impl Tri {
    fn of(b: bool) -> Tri {
        if b {
            Tri::True
        } else {
            Tri::False
        }
    }
}

/// A predicate with its columns resolved to positions in the row, so that
/// testing a row looks up no name.
#[derive(Debug)]
enum Bound {
    Cmp(usize, CmpOp, Literal),
    In(usize, Vec<Literal>),
    /// A string list, trusted only as its range.
    InRange(usize, Literal, Literal),
    IsNull(usize),
    IsNotNull(usize),
    StartsWith(usize, String),
    And(Box<Bound>, Box<Bound>),
    Or(Box<Bound>, Box<Bound>),
    Not(Box<Bound>),
    /// Not understood, or on a column the row lacks.
    Unknown,
}

impl Bound {
    fn new(p: &Predicate, index: &dyn Fn(&str) -> Option<usize>) -> Bound {
        let at = |c: &str, f: &dyn Fn(usize) -> Bound| index(c).map_or(Bound::Unknown, f);
        match p {
            Predicate::Cmp { column, op, value } => {
                at(column, &|i| Bound::Cmp(i, *op, value.clone()))
            }
            Predicate::In { column, values } => match Predicate::string_range(values) {
                Some((lo, hi)) => at(column, &|i| {
                    Bound::InRange(i, Literal::String(lo.into()), Literal::String(hi.into()))
                }),
                None => at(column, &|i| Bound::In(i, values.clone())),
            },
            Predicate::IsNull(c) => at(c, &Bound::IsNull),
            Predicate::IsNotNull(c) => at(c, &Bound::IsNotNull),
            Predicate::StartsWith { column, prefix } => {
                at(column, &|i| Bound::StartsWith(i, prefix.clone()))
            }
            Predicate::And(a, b) => Bound::And(
                Box::new(Bound::new(a, index)),
                Box::new(Bound::new(b, index)),
            ),
            Predicate::Or(a, b) => Bound::Or(
                Box::new(Bound::new(a, index)),
                Box::new(Bound::new(b, index)),
            ),
            Predicate::Not(a) => Bound::Not(Box::new(Bound::new(a, index))),
            Predicate::Unknown(_) => Bound::Unknown,
        }
    }

    /// The predicate on one row (`row(i)`: the value at position `i`,
    /// `None` for null).
    fn eval<'v>(&self, row: &dyn Fn(usize) -> Option<&'v Literal>) -> Tri {
        let cmp = |i: usize, v: &Literal| row(i).and_then(|x| compare(x, v));
        match self {
            Bound::Cmp(i, op, v) => match cmp(*i, v) {
                None => Tri::Unknown,
                Some(o) => Tri::of(match op {
                    CmpOp::Eq | CmpOp::EqNullSafe => o.is_eq(),
                    CmpOp::Gt => o.is_gt(),
                    CmpOp::Ge => o.is_ge(),
                    CmpOp::Lt => o.is_lt(),
                    CmpOp::Le => o.is_le(),
                }),
            },
            Bound::InRange(i, lo, hi) => {
                match (
                    cmp(*i, lo).map(Ordering::is_lt),
                    cmp(*i, hi).map(Ordering::is_gt),
                ) {
                    (Some(true), _) | (_, Some(true)) => Tri::False,
                    _ => Tri::Unknown,
                }
            }
            Bound::In(i, values) => {
                let mut out = Tri::False;
                for v in values {
                    match cmp(*i, v) {
                        Some(Ordering::Equal) => return Tri::True,
                        Some(_) => {}
                        None => out = Tri::Unknown,
                    }
                }
                out
            }
            Bound::IsNull(i) => Tri::of(row(*i).is_none()),
            Bound::IsNotNull(i) => Tri::of(row(*i).is_some()),
            Bound::StartsWith(i, prefix) => match row(*i) {
                Some(Literal::String(s)) => Tri::of(s.starts_with(prefix.as_str())),
                _ => Tri::Unknown,
            },
            Bound::And(a, b) => match (a.eval(row), b.eval(row)) {
                (Tri::False, _) | (_, Tri::False) => Tri::False,
                (Tri::True, Tri::True) => Tri::True,
                _ => Tri::Unknown,
            },
            Bound::Or(a, b) => match (a.eval(row), b.eval(row)) {
                (Tri::True, _) | (_, Tri::True) => Tri::True,
                (Tri::False, Tri::False) => Tri::False,
                _ => Tri::Unknown,
            },
            Bound::Not(a) => match a.eval(row) {
                Tri::True => Tri::False,
                Tri::False => Tri::True,
                Tri::Unknown => Tri::Unknown,
            },
            Bound::Unknown => Tri::Unknown,
        }
    }
}

/// Whether one row may pass every predicate of one scan: only a predicate
/// that is surely false on it fails it.
fn row_passes<'v>(preds: &[Bound], row: &dyn Fn(usize) -> Option<&'v Literal>) -> bool {
    preds.iter().all(|p| p.eval(row) != Tri::False)
}

/// One build side to compute: the key column and the predicates of each
/// of the table's scans in the execution (a row passes if it passes one
/// scan's).
#[derive(Clone, Debug)]
pub struct BuildRequest {
    /// The key column (the table's name for it).
    pub key: String,
    /// One predicate list per scan.
    pub scans: Vec<Vec<Predicate>>,
}

/// What one request has gathered so far.
struct Acc {
    min: Option<Literal>,
    max: Option<Literal>,
    keys: Vec<Literal>,
    many: bool,
    rows: u64,
}

impl Acc {
    fn add(&mut self, v: &Literal) {
        self.rows += 1;
        if self
            .min
            .as_ref()
            .is_none_or(|m| compare(v, m) == Some(Ordering::Less))
        {
            self.min = Some(v.clone());
        }
        if self
            .max
            .as_ref()
            .is_none_or(|m| compare(v, m) == Some(Ordering::Greater))
        {
            self.max = Some(v.clone());
        }
        if !self.many {
            self.keys.push(v.clone());
            if self.keys.len() > 2 * MAX_VALUES {
                sort_dedup(&mut self.keys);
                self.many = self.keys.len() > MAX_VALUES;
            }
        }
    }

    fn finish(mut self) -> Option<BuildSide> {
        let (min, max) = (self.min?, self.max?);
        let values = if self.many {
            None
        } else {
            sort_dedup(&mut self.keys);
            (self.keys.len() <= MAX_VALUES).then(|| Arc::from(self.keys))
        };
        Some(BuildSide::new(min, max, values, self.rows))
    }
}

/// The build sides of `requests` on table `t`, in one pass over its data
/// files: each file is read once (every request's key and filtered
/// columns), skipped unread when its statistics show that no request's
/// scans can match a row of it. Per request, `Ok(None)` when no row
/// passes; all `Err` (naming why) when the table has more than `max_rows`
/// rows or a file cannot be read. `allow_outside`: read files the metadata
/// names outside the table (`--allow-outside-table`).
pub fn build_sides(
    t: &TableState,
    requests: &[BuildRequest],
    max_rows: u64,
    allow_outside: bool,
) -> Vec<Result<Option<BuildSide>, FileError>> {
    let fail = |e: FileError| requests.iter().map(|_| Err(e.clone())).collect();
    let rows_total = table_rows(t);
    if rows_total > max_rows {
        return fail(FileError::unreadable(format!(
            "{}: {rows_total} rows, more than the {max_rows} read for a join's build side (--build-rows)",
            t.location.display()
        )));
    }
    let name = |c: &str| {
        t.columns
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(c))
            .map(|(n, _)| n.clone())
    };
    let mut cols: Vec<String> = Vec::new();
    for r in requests {
        let mut named = std::collections::BTreeSet::new();
        named.insert(r.key.clone());
        for p in r.scans.iter().flatten() {
            crate::all_columns(p, &mut named);
        }
        for c in named.iter().filter_map(|c| name(c)) {
            if !cols.contains(&c) {
                cols.push(c);
            }
        }
    }
    let index = |c: &str| cols.iter().position(|n| n.eq_ignore_ascii_case(c));
    let mut accs: Vec<Acc> = requests
        .iter()
        .map(|r| {
            let discrete = t.columns.iter().any(|(n, ty)| {
                n == &r.key
                    && matches!(
                        ty,
                        ColumnType::Integer(_) | ColumnType::Date | ColumnType::Decimal { .. }
                    )
            });
            Acc {
                min: None,
                max: None,
                keys: Vec::new(),
                many: !discrete,
                rows: 0,
            }
        })
        .collect();
    let keys: Vec<Option<usize>> = requests.iter().map(|r| index(&r.key)).collect();
    let bound: Vec<Vec<Vec<Bound>>> = requests
        .iter()
        .map(|r| {
            r.scans
                .iter()
                .map(|preds| preds.iter().map(|p| Bound::new(p, &index)).collect())
                .collect()
        })
        .collect();
    for f in &t.files {
        // The requests whose scans may match a row of this file.
        let live: Vec<usize> = (0..requests.len())
            .filter(|&k| {
                keys[k].is_some()
                    && (requests[k].scans.is_empty()
                        || requests[k]
                            .scans
                            .iter()
                            .any(|p| crate::file_may_match(t, f, p)))
            })
            .collect();
        if live.is_empty() {
            continue;
        }
        let mut sample = Sample {
            values: vec![Vec::new(); cols.len()],
            ..Sample::default()
        };
        if let Err(e) = file_literals(t, f, &cols, &mut sample, allow_outside) {
            return fail(e);
        }
        let vals = &sample.values;
        // Row i of every column: the values are stored column by column.
        #[allow(clippy::needless_range_loop)]
        for i in 0..sample.rows() {
            let value = |k: usize| vals[k][i].as_ref();
            for &k in &live {
                let Some(Some(v)) = keys[k].map(|c| vals[c][i].as_ref()) else {
                    continue;
                };
                let scans = &bound[k];
                if scans.is_empty() || scans.iter().any(|p| row_passes(p, &value)) {
                    accs[k].add(v);
                }
            }
        }
    }
    accs.into_iter()
        .zip(&keys)
        .zip(requests)
        .map(|((a, k), r)| match k {
            None => Err(FileError::unreadable(format!(
                "{}: no column {}",
                t.location.display(),
                r.key
            ))),
            Some(_) => Ok(a.finish()),
        })
        .collect()
}

fn sort_dedup(keys: &mut Vec<Literal>) {
    // Integer keys (the common case) sort as integers.
    let ints: Option<Vec<i64>> = keys
        .iter()
        .map(|k| match k {
            Literal::Int(i) => Some(*i),
            _ => None,
        })
        .collect();
    if let Some(mut ints) = ints {
        ints.sort_unstable();
        ints.dedup();
        *keys = ints.into_iter().map(Literal::Int).collect();
        return;
    }
    keys.sort_unstable_by(|a, b| compare(a, b).unwrap_or(Ordering::Equal));
    keys.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(lo: i64, hi: i64) -> ColumnStats {
        ColumnStats {
            min: Some(Literal::Int(lo)),
            max: Some(Literal::Int(hi)),
            max_exact: true,
            null_count: Some(0),
            rows: Some(10),
        }
    }

    fn induced(keys: &[i64]) -> Induced {
        let values: Vec<Literal> = keys.iter().map(|&k| Literal::Int(k)).collect();
        Induced {
            column: "k".into(),
            build: Arc::new(BuildSide::new(
                values[0].clone(),
                values[values.len() - 1].clone(),
                Some(values.clone().into()),
                keys.len() as u64,
            )),
        }
    }

    #[test]
    fn a_file_is_skipped_by_the_keys_range_or_by_the_keys_themselves() {
        let i = induced(&[10, 20, 50]);
        // Outside the range: both skip.
        assert!(!i.may_match(Some(&stats(0, 9)), false));
        assert!(!i.may_match(Some(&stats(51, 90)), true));
        // Inside the range but between keys: only the values skip.
        assert!(i.may_match(Some(&stats(21, 49)), false));
        assert!(!i.may_match(Some(&stats(21, 49)), true));
        // Holding a key, at either bound.
        assert!(i.may_match(Some(&stats(20, 30)), true));
        assert!(i.may_match(Some(&stats(11, 20)), true));
        assert!(i.may_match(Some(&stats(50, 50)), true));
        // No statistic: read.
        assert!(i.may_match(None, true));
        assert!(i.may_match(Some(&ColumnStats::default()), true));
    }

    #[test]
    fn a_row_fails_only_a_predicate_surely_false_on_it() {
        let passes = |p: &Predicate, d: Option<i64>| {
            let held = d.map(Literal::Int);
            let b = Bound::new(p, &|c: &str| (c == "d").then_some(0));
            row_passes(std::slice::from_ref(&b), &|_| held.as_ref())
        };
        let ge = Predicate::Cmp {
            column: "d".into(),
            op: CmpOp::Ge,
            value: Literal::Int(5),
        };
        assert!(passes(&ge, Some(5)));
        assert!(!passes(&ge, Some(4)));
        let not = Predicate::Not(Box::new(ge.clone()));
        assert!(passes(&not, Some(4)));
        assert!(!passes(&not, Some(5)));
        assert!(!passes(&Predicate::IsNotNull("d".into()), None));
        assert!(passes(&Predicate::IsNull("d".into()), None));
        // Not understood, or on a column the row lacks: passes.
        assert!(passes(
            &Predicate::Unknown("StringContains(d,x)".into()),
            Some(4)
        ));
        assert!(passes(&Predicate::IsNull("e".into()), Some(4)));
        let in_list = Predicate::In {
            column: "d".into(),
            values: vec![Literal::Int(1), Literal::Int(3)],
        };
        assert!(passes(&in_list, Some(3)));
        assert!(!passes(&in_list, Some(2)));
        let or = Predicate::Or(Box::new(in_list), Box::new(not));
        assert!(passes(&or, Some(2)));
        assert!(!passes(&or, Some(7)));
    }
}
