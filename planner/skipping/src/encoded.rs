//! How a reordering changes the encoded size of the sampled columns, for
//! writers that close files by encoded (uncompressed) bytes: delta-rs's
//! writer measures an open file by arrow-rs's `in_progress_size`, where a
//! dictionary-encoded column costs its dictionary page (each distinct value
//! once, PLAIN) and its rows' bit-packed indices. Sorting by a column
//! shrinks both for it and for the columns that follow it (TPC-H lineitem
//! sorted by `l_shipdate`: its rows encode in 60 bytes where the shuffled
//! rows took 69), so the rewritten files hold more rows than the current
//! files' footers suggest.
//!
//! [`dictionary_bytes`] estimates one column over one set of rows; with a
//! sample of whole files (each sampled row standing for several of the
//! table's), the distinct values of a simulated file are estimated from
//! the sample by the guaranteed-error estimator (Charikar, Chaudhuri,
//! Motwani, Narasayya, "Towards Estimation Error Guarantees for Distinct
//! Values", PODS 2000): `sqrt(n/r)·f1 + Σ_{j≥2} f_j`, `f_j` the values seen
//! `j` times.

use crate::rank::Ranked;
use plan::predicate::{ColumnType, FloatWidth, IntWidth, Literal};

/// arrow-rs's dictionary page limit (`DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT`,
/// 1 MiB): past it a column chunk falls back to PLAIN.
pub const DICTIONARY_PAGE_LIMIT: f64 = 1_048_576.0;

/// Each distinct value's PLAIN bytes (a string's length plus 4; a number
/// its Parquet width), in rank order (`widths[k - 1]` for rank `k`).
pub fn value_widths(ty: &ColumnType, col: &Ranked) -> Vec<u32> {
    col.distinct()
        .iter()
        .map(|v| match (ty, v) {
            (_, Literal::String(s)) => s.len() as u32 + 4,
            (ColumnType::Integer(IntWidth::Long), _) => 8,
            (ColumnType::Integer(_), _) => 4,
            (ColumnType::Floating(FloatWidth::Double), _) => 8,
            (ColumnType::Floating(_), _) => 4,
            (ColumnType::Decimal { precision, .. }, _) => match precision {
                0..=9 => 4,
                10..=18 => 8,
                _ => 16,
            },
            (ColumnType::Date, _) => 4,
            (ColumnType::Timestamp | ColumnType::TimestampNtz, _) => 8,
            (ColumnType::Boolean, _) => 1,
            (ColumnType::String | ColumnType::Binary | ColumnType::Other(_), _) => 8,
        })
        .collect()
}

/// Reused counts for [`dictionary_bytes`].
#[derive(Debug, Default)]
pub struct Scratch {
    counts: Vec<u32>,
    touched: Vec<u32>,
}

/// Estimated encoded bytes of one column (`col`, its values' `widths`) over
/// the sampled `rows`, each standing for `scale` of the table's rows: the
/// dictionary (the distinct values' PLAIN bytes) plus every row's index at
/// the dictionary's bit width, or PLAIN past [`DICTIONARY_PAGE_LIMIT`].
/// Nulls cost neither.
pub fn dictionary_bytes(
    col: &Ranked,
    widths: &[u32],
    rows: impl Iterator<Item = u32>,
    scale: f64,
    s: &mut Scratch,
) -> f64 {
    if s.counts.len() < widths.len() + 1 {
        s.counts.resize(widths.len() + 1, 0);
    }
    let mut n = 0u64;
    for r in rows {
        let k = col.rank(r);
        if k == 0 {
            continue;
        }
        n += 1;
        if s.counts[k as usize] == 0 {
            s.touched.push(k);
        }
        s.counts[k as usize] += 1;
    }
    let (mut once, mut more, mut dict_once, mut dict_more, mut plain) = (0u64, 0u64, 0.0, 0.0, 0.0);
    for &k in &s.touched {
        let c = std::mem::take(&mut s.counts[k as usize]);
        let w = f64::from(widths[k as usize - 1]);
        plain += w * f64::from(c);
        if c == 1 {
            once += 1;
            dict_once += w;
        } else {
            more += 1;
            dict_more += w;
        }
    }
    s.touched.clear();
    if n == 0 {
        return 0.0;
    }
    let scale = scale.max(1.0);
    let grow = scale.sqrt();
    let distinct = (grow * once as f64 + more as f64).max(1.0);
    let dictionary = grow * dict_once + dict_more;
    let rows = n as f64 * scale;
    let plain = plain * scale;
    if dictionary > DICTIONARY_PAGE_LIMIT {
        return plain;
    }
    let bits = (distinct.log2().ceil()).max(1.0);
    dictionary + (rows * bits / 8.0).ceil()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(v: &[i64]) -> Ranked {
        let vals: Vec<Option<Literal>> = v.iter().map(|&x| Some(Literal::Int(x))).collect();
        Ranked::new(&vals)
    }

    #[test]
    fn sorted_rows_encode_in_fewer_bytes_than_shuffled_ones() {
        // 64 values each 16 times; files of 128 rows.
        let vals: Vec<i64> = (0..1024).map(|i| i % 64).collect();
        let col = ranked(&vals);
        let w = value_widths(&ColumnType::Integer(IntWidth::Long), &col);
        let mut s = Scratch::default();
        // Shuffled (the values cycle): every file holds all 64 values.
        let shuffled = dictionary_bytes(&col, &w, 0..128, 1.0, &mut s);
        assert_eq!(shuffled, 64.0 * 8.0 + 128.0 * 6.0 / 8.0);
        // Sorted: a file of 128 rows holds 8 values.
        let mut order: Vec<u32> = (0..1024).collect();
        order.sort_by_key(|&i| vals[i as usize]);
        let sorted = dictionary_bytes(&col, &w, order[..128].iter().copied(), 1.0, &mut s);
        assert_eq!(sorted, 8.0 * 8.0 + 128.0 * 3.0 / 8.0);
        // The scratch is clean after each call.
        assert_eq!(dictionary_bytes(&col, &w, 0..128, 1.0, &mut s), shuffled);
    }

    #[test]
    fn a_sample_of_unique_values_scales_its_distinct_count() {
        // 100 unique values sampled 1 in 4: about 200 distinct (sqrt(4)
        // times the values seen once), indices over 400 rows.
        let vals: Vec<i64> = (0..100).collect();
        let col = ranked(&vals);
        let w = value_widths(&ColumnType::Integer(IntWidth::Long), &col);
        let b = dictionary_bytes(&col, &w, 0..100, 4.0, &mut Scratch::default());
        assert_eq!(b, 200.0 * 8.0 + 400.0 * 8.0 / 8.0);
    }

    #[test]
    fn a_dictionary_past_its_page_limit_falls_back_to_plain() {
        let vals: Vec<Option<Literal>> = (0..2000)
            .map(|i| Some(Literal::String(format!("{i:0>1000}"))))
            .collect();
        let col = Ranked::new(&vals);
        let w = value_widths(&ColumnType::String, &col);
        let b = dictionary_bytes(&col, &w, 0..2000, 1.0, &mut Scratch::default());
        assert_eq!(b, 2000.0 * 1004.0);
    }
}
