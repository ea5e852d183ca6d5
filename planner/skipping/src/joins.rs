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
//! ([`build_side`]): every data file is read (the key and the columns its
//! scans filter on), each row is tested against the build scans' literal
//! predicates, and the keys of the rows that pass are kept. What this
//! leaves out only widens the keys, so it never skips a file an engine
//! would read: the build side's own joins and aggregates (which can only
//! remove rows), and predicates lakeaudit cannot read (a row passes them).
//! Which side is the probe: the preserved side of a semi-join; for an inner
//! join the table with more rows (engines build their hash table on the
//! smaller side).

use crate::simulate::{file_literals, Sample};
use graph::relationships::{Relation, Relationship};
use plan::node::{JoinType, Side};
use plan::predicate::{compare, CmpOp, ColumnStats, Literal, Predicate};
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
        let range = Predicate::And(
            Box::new(Predicate::Cmp {
                column: self.column.clone(),
                op: CmpOp::Ge,
                value: self.build.min.clone(),
            }),
            Box::new(Predicate::Cmp {
                column: self.column.clone(),
                op: CmpOp::Le,
                value: self.build.max.clone(),
            }),
        );
        if !range.may_match(&|_| Some(s.clone())) {
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

/// Whether one row (its values, by column index of `cols`) may pass every
/// predicate of one scan: each value is taken as a one-row file, so what
/// the predicates cannot decide passes.
fn row_passes(preds: &[Predicate], cols: &[String], row: &[Option<Literal>]) -> bool {
    let stats = |c: &str| -> Option<ColumnStats> {
        let i = cols.iter().position(|n| n.eq_ignore_ascii_case(c))?;
        let v = row[i].clone();
        Some(ColumnStats {
            null_count: Some(u64::from(v.is_none())),
            min: v.clone(),
            max: v,
            max_exact: true,
            rows: Some(1),
        })
    };
    preds.iter().all(|p| p.may_match(&stats))
}

/// The keys `key` of `t`'s rows that pass the predicates of at least one
/// of the build side's scans (`scans`: one predicate list per scan of the
/// table in the execution), read from every data file; `Err` names why
/// they are unknown (a file that cannot be read, no key column, more than
/// `max_rows` rows). `Ok(None)`: no row passes.
pub fn build_side(
    t: &TableState,
    key: &str,
    scans: &[Vec<Predicate>],
    max_rows: u64,
) -> Result<Option<BuildSide>, String> {
    let rows_total = table_rows(t);
    if rows_total > max_rows {
        return Err(format!(
            "{}: {rows_total} rows, more than the {max_rows} read for a join's build side",
            t.location.display()
        ));
    }
    let mut cols: Vec<String> = vec![key.to_string()];
    for p in scans.iter().flatten() {
        let mut c = std::collections::BTreeSet::new();
        crate::all_columns(p, &mut c);
        for c in c {
            if let Some((n, _)) = t.columns.iter().find(|(n, _)| n.eq_ignore_ascii_case(&c)) {
                if !cols.contains(n) {
                    cols.push(n.clone());
                }
            }
        }
    }
    let Some(typed) = t.columns.iter().find(|(n, _)| n == key) else {
        return Err(format!("{}: no column {key}", t.location.display()));
    };
    let discrete = matches!(
        typed.1,
        plan::predicate::ColumnType::Integer
            | plan::predicate::ColumnType::Date
            | plan::predicate::ColumnType::Decimal { .. }
    );
    let mut keys: Vec<Literal> = Vec::new();
    let mut many = !discrete;
    let (mut min, mut max): (Option<Literal>, Option<Literal>) = (None, None);
    let mut rows = 0u64;
    let wider = |a: &Literal, b: &Literal, want: Ordering| compare(a, b) == Some(want);
    for f in &t.files {
        let mut sample = Sample {
            values: vec![Vec::new(); cols.len()],
            ..Sample::default()
        };
        file_literals(t, f, &cols, &mut sample)?;
        let n = sample.rows();
        let mut row = vec![None; cols.len()];
        for i in 0..n {
            for (k, c) in sample.values.iter().enumerate() {
                row[k] = c.get(i).cloned().flatten();
            }
            let Some(v) = row[0].clone() else {
                continue;
            };
            if !scans.is_empty() && !scans.iter().any(|p| row_passes(p, &cols, &row)) {
                continue;
            }
            rows += 1;
            if min.as_ref().is_none_or(|m| wider(&v, m, Ordering::Less)) {
                min = Some(v.clone());
            }
            if max.as_ref().is_none_or(|m| wider(&v, m, Ordering::Greater)) {
                max = Some(v.clone());
            }
            if !many {
                keys.push(v);
                if keys.len() > 2 * MAX_VALUES {
                    sort_dedup(&mut keys);
                    many = keys.len() > MAX_VALUES;
                }
            }
        }
    }
    let (Some(min), Some(max)) = (min, max) else {
        return Ok(None);
    };
    let values = if many {
        None
    } else {
        sort_dedup(&mut keys);
        (keys.len() <= MAX_VALUES).then(|| Arc::from(keys))
    };
    Ok(Some(BuildSide {
        min,
        max,
        values,
        rows,
    }))
}

fn sort_dedup(keys: &mut Vec<Literal>) {
    keys.sort_by(|a, b| compare(a, b).unwrap_or(Ordering::Equal));
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
            build: Arc::new(BuildSide {
                min: values[0].clone(),
                max: values[values.len() - 1].clone(),
                values: Some(values.into()),
                rows: keys.len() as u64,
            }),
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
    fn a_row_passes_what_its_predicates_cannot_decide() {
        let cols = vec!["d".to_string()];
        let ge = Predicate::Cmp {
            column: "d".into(),
            op: CmpOp::Ge,
            value: Literal::Int(5),
        };
        assert!(row_passes(&[ge.clone()], &cols, &[Some(Literal::Int(5))]));
        assert!(!row_passes(&[ge.clone()], &cols, &[Some(Literal::Int(4))]));
        assert!(!row_passes(&[ge], &cols, &[None]));
        let unknown = Predicate::Unknown("StringContains(d,x)".into());
        assert!(row_passes(&[unknown], &cols, &[Some(Literal::Int(4))]));
        let not = Predicate::Not(Box::new(Predicate::IsNull("d".into())));
        assert!(row_passes(&[not], &cols, &[None]));
    }
}
