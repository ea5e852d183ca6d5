//! Iceberg manifest bounds against pyiceberg's own file pruning: for each
//! predicate of `tests/data/skipping/iceberg-expected.json` (written by
//! `scripts/skipping/make_iceberg_fixture.py`), the files lakeaudit keeps
//! are the files pyiceberg's `plan_files()` keeps.

use skipping::{predicates, read, Engine};
use std::collections::BTreeSet;
use std::sync::Arc;

#[test]
fn iceberg_bounds_keep_the_files_pyiceberg_plans() {
    let (found, errors) = tables::discover(&[testdata::data("skipping/iceberg/orders")]);
    assert!(errors.is_empty(), "{errors:?}");
    let wanted: BTreeSet<String> = [
        "o_orderkey",
        "o_orderdate",
        "o_totalprice",
        "o_orderstatus",
        "o_orderpriority",
        "o_shippriority",
        "o_comment",
    ]
    .map(String::from)
    .into();
    let opts = tables::ReadOptions {
        stats_columns: Some(Arc::new(wanted)),
        ..tables::ReadOptions::default()
    };
    let t = tables::read_table(&found[0], &opts).unwrap();
    assert_eq!(t.stats_unreadable, 0);
    let expected: serde_json::Value =
        serde_json::from_str(&testdata::read_to_string("skipping/iceberg-expected.json")).unwrap();
    let mut skipped_somewhere = false;
    for e in expected.as_array().unwrap() {
        let text = e["predicate_spark"].as_str().unwrap();
        let p = predicates(Some(&format!("[{text}]")), None, &t.columns);
        let r = read(&t, &p, Engine::MinMax);
        assert_eq!(r.files_total, e["files_total"].as_u64().unwrap(), "{text}");
        assert_eq!(r.files_read, e["files_planned"].as_u64().unwrap(), "{text}");
        skipped_somewhere |= r.files_read < r.files_total;
    }
    assert!(skipped_somewhere);
}
