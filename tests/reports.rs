//! `report.md` and `report.html` of `lakeaudit analyze` on real logs (the
//! tests are in `report/`; `make report-check` runs its browser check).

#[allow(dead_code)]
mod common;
mod report;
