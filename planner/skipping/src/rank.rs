//! Sampled columns ranked once ([`Ranked`]): the simulations compare and
//! count small integers, not values.

use crate::sample::Sample;
use plan::predicate::{compare, Literal};
use std::cmp::Ordering;

/// A sampled column ranked once: each row's dense rank (0 for null, 1 for
/// the smallest value) and the distinct values in order, so that laying
/// out and taking min/max compare small integers, not values.
#[derive(Debug, Default)]
pub struct Ranked {
    pub(crate) ranks: Vec<u32>,
    pub(crate) distinct: Vec<Literal>,
}

/// Values that do not compare (different kinds) count as equal.
fn cmp_lit(a: &Literal, b: &Literal) -> Ordering {
    compare(a, b).unwrap_or(Ordering::Equal)
}

impl Ranked {
    /// Rank one column.
    pub fn new(values: &[Option<Literal>]) -> Ranked {
        let mut idx: Vec<u32> = (0..values.len() as u32)
            .filter(|&i| values[i as usize].is_some())
            .collect();
        let val = |i: u32| values[i as usize].as_ref().expect("kept non-null rows");
        // Ties are equal values, so an unstable sort ranks alike; integer
        // and date columns sort by their number.
        let number = |v: &Literal| match v {
            Literal::Int(n) => Some(*n),
            Literal::Date(d) => Some(i64::from(*d)),
            _ => None,
        };
        let numbers: Option<Vec<i64>> = idx.iter().map(|&i| number(val(i))).collect();
        match numbers {
            Some(n) => {
                let mut pairs: Vec<(i64, u32)> = n.into_iter().zip(idx.iter().copied()).collect();
                pairs.sort_unstable();
                idx = pairs.into_iter().map(|(_, i)| i).collect();
            }
            None => idx.sort_unstable_by(|&a, &b| cmp_lit(val(a), val(b))),
        }
        let mut ranks = vec![0u32; values.len()];
        let mut distinct: Vec<Literal> = Vec::new();
        for &i in &idx {
            let v = val(i);
            if distinct
                .last()
                .is_none_or(|last| cmp_lit(last, v) != Ordering::Equal)
            {
                distinct.push(v.clone());
            }
            ranks[i as usize] = distinct.len() as u32;
        }
        Ranked { ranks, distinct }
    }
}

impl Ranked {
    /// The distinct values, smallest first (rank `k` is `distinct()[k - 1]`).
    pub fn distinct(&self) -> &[Literal] {
        &self.distinct
    }

    /// Sampled row `row`'s rank (0: null).
    pub fn rank(&self, row: u32) -> u32 {
        self.ranks.get(row as usize).copied().unwrap_or(0)
    }
}

/// Every column of `sample` ranked ([`Ranked`]), for [`crate::simulate::layout`]; the
/// values themselves are dropped (the ranks and distinct values hold
/// them).
pub fn rank_all(sample: &mut Sample) -> Vec<Ranked> {
    std::mem::take(&mut sample.values)
        .into_iter()
        .map(|v| Ranked::new(&v))
        .collect()
}
