//! Pareto frontiers of plans: (rewrite cost, storage cost, NPV) options.
//!
//! A point dominates another when it costs no more on both budgets and its
//! NPV is at least as high (within the instance's float tolerance). A
//! frontier keeps only undominated points, sorted by rewrite then storage
//! cost, each with the assignment that achieves it. Every frontier a solver
//! returns starts with the do-nothing plan (zero cost), so "the best point
//! within budgets" always exists.

/// One way to plan: its costs, its NPV and the assignment (option per table
/// of the problem the frontier belongs to).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Point {
    pub rewrite: f64,
    pub storage: f64,
    pub npv: f64,
    pub x: Vec<usize>,
}

/// Undominated points, sorted by (rewrite, storage).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Frontier {
    points: Vec<Point>,
    tol: f64,
}

impl Frontier {
    /// An empty frontier; NPVs within `tol` of each other count as equal.
    pub fn new(tol: f64) -> Frontier {
        Frontier {
            points: Vec::new(),
            tol,
        }
    }

    pub fn points(&self) -> &[Point] {
        &self.points
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Is there a point costing at most (`rewrite`, `storage`) with an NPV of
    /// at least `npv` (within tolerance)?
    pub fn dominated(&self, rewrite: f64, storage: f64, npv: f64) -> bool {
        for p in &self.points {
            if p.rewrite > rewrite {
                break;
            }
            if p.storage <= storage && p.npv >= npv - self.tol {
                return true;
            }
        }
        false
    }

    /// Would a point with these figures be kept?
    pub fn admits(&self, rewrite: f64, storage: f64, npv: f64) -> bool {
        !self.dominated(rewrite, storage, npv)
    }

    /// Insert `point` unless dominated; drop the points it dominates. True
    /// when it was inserted.
    pub fn insert(&mut self, point: Point) -> bool {
        if self.dominated(point.rewrite, point.storage, point.npv) {
            return false;
        }
        let tol = self.tol;
        self.points.retain(|q| {
            !(point.rewrite <= q.rewrite && point.storage <= q.storage && point.npv >= q.npv - tol)
        });
        let at = self.points.partition_point(|q| {
            (q.rewrite, q.storage) <= (point.rewrite, point.storage)
                && !(q.rewrite == point.rewrite && q.storage == point.storage)
        });
        self.points.insert(at, point);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(rewrite: f64, storage: f64, npv: f64) -> Point {
        Point {
            rewrite,
            storage,
            npv,
            x: vec![],
        }
    }

    #[test]
    fn keeps_only_undominated_points_in_cost_order() {
        let mut f = Frontier::new(1e-9);
        assert!(f.insert(pt(0.0, 0.0, 0.0)));
        assert!(f.insert(pt(10.0, 10.0, 5.0)));
        assert!(f.insert(pt(4.0, 4.0, 3.0)));
        // Costs more, worth less: dominated by (10, 10, 5).
        assert!(!f.insert(pt(12.0, 12.0, 4.0)));
        // Same cost as (10, 10), worth more: replaces it.
        assert!(f.insert(pt(10.0, 10.0, 6.0)));
        // Cheaper on rewrite, dearer on storage: both kept.
        assert!(f.insert(pt(9.0, 11.0, 6.5)));
        let got: Vec<(f64, f64, f64)> = f
            .points()
            .iter()
            .map(|p| (p.rewrite, p.storage, p.npv))
            .collect();
        assert_eq!(
            got,
            vec![
                (0.0, 0.0, 0.0),
                (4.0, 4.0, 3.0),
                (9.0, 11.0, 6.5),
                (10.0, 10.0, 6.0)
            ]
        );
        assert!(f.dominated(10.0, 10.0, 6.0));
        assert!(!f.dominated(10.0, 10.0, 6.2));
    }
}
