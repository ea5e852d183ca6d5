//! Table identity: one name per table, whatever way a plan spells it.
//!
//! Spark prints the same session-catalog table as `orders`,
//! `default.orders` or `spark_catalog.default.orders` depending on the plan
//! form and on how the query named it. The join graph needs one node per
//! table, so every name goes through [`canonical_table`] before it is used
//! as an identity. Which table a path read is (a catalog table's
//! location) is the workload's to say (`lakeaudit-workload`'s `identity`),
//! since it takes every execution of the input.

/// Spark's session catalog: the catalog of one- and two-part names.
const SESSION_CATALOG: &str = "spark_catalog";
/// The session catalog's current database in the logs we read.
const DEFAULT_DATABASE: &str = "default";

/// The canonical identity of a table name.
///
/// - `orders`, `default.orders`, `spark_catalog.default.orders` (any case,
///   with or without backquotes) all become `spark_catalog.default.orders`:
///   names in the session catalog are case-insensitive, and a one-part name
///   is resolved in the `default` database;
/// - paths (`file:/...`, `s3://...`, `/abs/path`) stay exactly as they are:
///   a path-based read has no catalog name and its case matters;
/// - names in another catalog (`cat.db.t`, or longer V2 identifiers) keep
///   their case, since V2 catalogs may be case-sensitive; only backquotes
///   are removed.
///
/// ```
/// use graph::tables::canonical_table;
/// assert_eq!(canonical_table("orders"), "spark_catalog.default.orders");
/// assert_eq!(canonical_table("default.orders"), "spark_catalog.default.orders");
/// assert_eq!(canonical_table("s3://bkt/t"), "s3://bkt/t");
/// assert_eq!(canonical_table("glue.sales.Orders"), "glue.sales.Orders");
/// ```
pub fn canonical_table(name: &str) -> String {
    let name = name.trim();
    if is_path(name) || is_external(name) {
        return name.to_string();
    }
    let parts = split_identifier(name);
    match parts.as_slice() {
        [] => String::new(),
        [t] => format!(
            "{SESSION_CATALOG}.{DEFAULT_DATABASE}.{}",
            t.to_ascii_lowercase()
        ),
        [db, t] => format!(
            "{SESSION_CATALOG}.{}.{}",
            db.to_ascii_lowercase(),
            t.to_ascii_lowercase()
        ),
        [cat, rest @ ..] if cat.eq_ignore_ascii_case(SESSION_CATALOG) => {
            let mut out = SESSION_CATALOG.to_string();
            for p in rest {
                out.push('.');
                out.push_str(&p.to_ascii_lowercase());
            }
            out
        }
        _ => parts.join("."),
    }
}

/// The short table name, for display: the name without the session
/// catalog and without the default database, so that two tables never
/// share a short name: `orders` for `spark_catalog.default.orders`,
/// `shop.orders` for `spark_catalog.shop.orders`; a table of another
/// catalog and a path are returned whole.
///
/// ```
/// use graph::tables::short_table;
/// assert_eq!(short_table("spark_catalog.default.orders"), "orders");
/// assert_eq!(short_table("spark_catalog.shop.orders"), "shop.orders");
/// assert_eq!(short_table("glue.sales.orders"), "glue.sales.orders");
/// ```
pub fn short_table(name: &str) -> String {
    if is_path(name) || is_external(name) {
        return name.to_string();
    }
    let parts = split_identifier(name);
    let rest = match parts.as_slice() {
        [cat, rest @ ..] if cat.eq_ignore_ascii_case(SESSION_CATALOG) && !rest.is_empty() => rest,
        all => all,
    };
    let rest = match rest {
        [db, t] if db.eq_ignore_ascii_case(DEFAULT_DATABASE) => std::slice::from_ref(t),
        r => r,
    };
    rest.join(".")
}

/// Whether a scan "table" is really a location (path-based reads).
pub fn is_path(name: &str) -> bool {
    name.contains("://") || name.starts_with("file:") || name.starts_with('/')
}

/// Prefix of scans that read no table (RDDs): `rdd:ParallelCollectionRDD[41]`.
pub const RDD_PREFIX: &str = "rdd:";
/// Prefix of JDBC tables: `jdbc:TBLS`.
pub const JDBC_PREFIX: &str = "jdbc:";

/// Whether a name is a JDBC table or a non-table read, kept as printed.
fn is_external(name: &str) -> bool {
    name.starts_with(RDD_PREFIX) || name.starts_with(JDBC_PREFIX)
}

/// Whether a scan identity is a table the join graph can hold: a catalog
/// table, a path or a JDBC table; not an RDD and not unknown (empty).
pub fn is_table(name: &str) -> bool {
    let n = name.trim();
    !n.is_empty() && !n.starts_with(RDD_PREFIX)
}

/// Split a multi-part identifier on dots outside backquotes; backquotes are
/// removed (a doubled backquote inside a quoted part is one backquote).
fn split_identifier(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' if quoted && chars.peek() == Some(&'`') => {
                chars.next();
                cur.push('`');
            }
            '`' => quoted = !quoted,
            '.' if !quoted => parts.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    parts.push(cur);
    parts.retain(|p| !p.is_empty());
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_catalog_spellings_are_one_table() {
        for n in [
            "orders",
            "default.orders",
            "spark_catalog.default.orders",
            "`spark_catalog`.`default`.`orders`",
            "SPARK_CATALOG.Default.ORDERS",
        ] {
            assert_eq!(canonical_table(n), "spark_catalog.default.orders", "{n}");
        }
        assert_eq!(
            canonical_table("sales.orders"),
            "spark_catalog.sales.orders"
        );
    }

    #[test]
    fn paths_and_v2_names_are_kept() {
        assert_eq!(
            canonical_table("file:/srv/lakehouse/warehouse/part"),
            "file:/srv/lakehouse/warehouse/part"
        );
        assert_eq!(canonical_table("s3://b/Tbl"), "s3://b/Tbl");
        assert_eq!(canonical_table("cat.db.T"), "cat.db.T");
        assert_eq!(canonical_table("`my.cat`.db.t"), "my.cat.db.t");
        assert_eq!(canonical_table(""), "");
    }

    #[test]
    fn short_names() {
        assert_eq!(short_table("spark_catalog.default.orders"), "orders");
        assert_eq!(short_table("default.orders"), "orders");
        assert_eq!(short_table("orders"), "orders");
        assert_eq!(short_table("spark_catalog.shop.orders"), "shop.orders");
        assert_eq!(short_table("cat.db.orders"), "cat.db.orders");
        assert_eq!(short_table("s3://b/t"), "s3://b/t");
        assert_eq!(
            short_table("rdd:ParallelCollectionRDD[41]"),
            "rdd:ParallelCollectionRDD[41]"
        );
    }
}
