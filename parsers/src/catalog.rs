//! Where a catalog table lives, from the log's own environment.
//!
//! An Iceberg scan prints its table's name (`lake.tpch.lineitem`) but no
//! location. The application's `SparkListenerEnvironmentUpdate` names its
//! catalogs, and for some the location follows from the name alone:
//!
//! - an Iceberg Hadoop catalog (`spark.sql.catalog.lake.type=hadoop`, or
//!   `catalog-impl` `org.apache.iceberg.hadoop.HadoopCatalog`) keeps table
//!   `lake.a.b.t` at `<spark.sql.catalog.lake.warehouse>/a/b/t`;
//! - Spark's session catalog (`spark_catalog`, and names without a
//!   catalog) keeps a managed table `db.t` at
//!   `<spark.sql.warehouse.dir>/db.db/t`, and `default.t` at
//!   `<spark.sql.warehouse.dir>/t`.
//!
//! Catalogs that keep locations elsewhere (Hive metastore tables created
//! with a `LOCATION`, REST, Glue, JDBC, Nessie) cannot be resolved from the
//! log: [`locate`] says so.
//!
//! ```
//! use parsers::catalog::{locate, Located};
//! use std::collections::BTreeMap;
//!
//! let props: BTreeMap<String, String> = [
//!     ("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog"),
//!     ("spark.sql.catalog.lake.type", "hadoop"),
//!     ("spark.sql.catalog.lake.warehouse", "s3://bucket/wh"),
//!     ("spark.sql.warehouse.dir", "file:/data/spark-warehouse"),
//! ].into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
//! assert_eq!(
//!     locate("lake.tpch.lineitem", &props).ok(),
//!     Some(Located { location: "s3://bucket/wh/tpch/lineitem".into(), setting: "spark.sql.catalog.lake.warehouse".into() })
//! );
//! assert_eq!(locate("sales.orders", &props).unwrap().location, "file:/data/spark-warehouse/sales.db/orders");
//! // Iceberg's metadata tables are no table of their own.
//! assert!(locate("lake.tpch.lineitem.snapshots", &props).is_err());
//! assert!(locate("other.db.t", &props).is_err());
//! ```

use crate::error::Reason;
use std::collections::BTreeMap;

/// Whether a Spark property is one [`locate`] reads (kept from the
/// environment for it).
pub fn is_catalog_property(key: &str) -> bool {
    key == "spark.sql.warehouse.dir"
        || key.strip_prefix("spark.sql.catalog.").is_some_and(|rest| {
            !rest.is_empty()
                && match rest.split_once('.') {
                    None => true,
                    Some((_, k)) => matches!(k, "type" | "warehouse" | "catalog-impl"),
                }
        })
}

/// A table's location as the log's catalog settings give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The location: the setting's value followed by the table's path
    /// (`file:/w/tpch/lineitem`, `s3://bucket/w/tpch/lineitem`); a bare
    /// absolute path gets `file:`, as Spark prints local locations.
    pub location: String,
    /// The setting it came from (`spark.sql.catalog.lake.warehouse`).
    pub setting: String,
}

/// Iceberg's Hadoop catalog class.
const HADOOP_CATALOG: &str = "org.apache.iceberg.hadoop.HadoopCatalog";

/// Iceberg's metadata tables (`lake.db.t.snapshots`): read through their
/// table, never a table of their own (`MetadataTableType` in
/// apache/iceberg `core/src/main/java/org/apache/iceberg/MetadataTableType.java`).
const METADATA_TABLES: &[&str] = &[
    "all_data_files",
    "all_delete_files",
    "all_entries",
    "all_files",
    "all_manifests",
    "data_files",
    "delete_files",
    "entries",
    "files",
    "history",
    "manifests",
    "metadata_log_entries",
    "partitions",
    "position_deletes",
    "refs",
    "snapshots",
];

/// Where `table` (as a scan prints it) lives under the catalog settings
/// `props` (the application's Spark properties); why not, when the
/// settings do not say.
pub fn locate(table: &str, props: &BTreeMap<String, String>) -> Result<Located, Reason> {
    let t = table.trim();
    let not_plain = || Reason::NotPlainName {
        name: t.to_string(),
    };
    if t.contains(['`', '/', ':', '\\']) || t.is_empty() {
        return Err(not_plain());
    }
    let parts: Vec<&str> = t.split('.').collect();
    if parts.iter().any(|p| p.is_empty() || *p == "..") {
        return Err(not_plain());
    }
    let get = |k: String| props.get(&k).map(|v| v.trim()).filter(|v| !v.is_empty());
    let catalog = parts[0];
    let key = format!("spark.sql.catalog.{catalog}");
    if parts.len() >= 3 && catalog != "spark_catalog" && get(key.clone()).is_some() {
        let ty = get(format!("{key}.type"));
        let imp = get(format!("{key}.catalog-impl"));
        let hadoop =
            ty.is_some_and(|t| t.eq_ignore_ascii_case("hadoop")) || imp == Some(HADOOP_CATALOG);
        if !hadoop {
            let kind = ty.or(imp).unwrap_or("its default (hive)");
            return Err(Reason::CatalogElsewhere {
                catalog: catalog.to_string(),
                kind: kind.to_string(),
            });
        }
        if parts.len() >= 4 && METADATA_TABLES.contains(&parts[parts.len() - 1]) {
            return Err(Reason::MetadataTable {
                name: t.to_string(),
            });
        }
        let setting = format!("{key}.warehouse");
        let wh = get(setting.clone()).ok_or_else(|| Reason::NoWarehouse {
            catalog: catalog.to_string(),
            setting: setting.clone(),
        })?;
        return Ok(Located {
            location: join(wh, &parts[1..]),
            setting,
        });
    }
    // The session catalog: `spark_catalog.db.t`, `db.t`, `t`.
    let rest = match parts.as_slice() {
        ["spark_catalog", rest @ ..] => rest,
        rest => rest,
    };
    let (db, name) = match rest {
        [name] => ("default", *name),
        [db, name] => (*db, *name),
        _ => {
            return Err(Reason::CatalogNotConfigured {
                catalog: catalog.to_string(),
            })
        }
    };
    const WAREHOUSE_DIR: &str = "spark.sql.warehouse.dir";
    let setting = WAREHOUSE_DIR.to_string();
    let wh = get(setting.clone()).ok_or(Reason::NoWarehouseDir {
        setting: WAREHOUSE_DIR,
    })?;
    let location = if db.eq_ignore_ascii_case("default") {
        join(wh, &[name])
    } else {
        join(wh, &[&format!("{db}.db"), name])
    };
    Ok(Located { location, setting })
}

/// `base` + `/` + the parts (`file:` before a bare absolute path).
fn join(base: &str, parts: &[&str]) -> String {
    let base = base.trim_end_matches('/');
    let mut s = if base.starts_with('/') {
        format!("file:{base}")
    } else {
        base.to_string()
    };
    for p in parts {
        s.push('/');
        s.push_str(p);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn why_not(p: &BTreeMap<String, String>, t: &str) -> String {
        locate(t, p).unwrap_err().to_string()
    }

    #[test]
    fn hadoop_catalogs_and_the_session_catalog() {
        let p = props(&[
            (
                "spark.sql.catalog.lake",
                "org.apache.iceberg.spark.SparkCatalog",
            ),
            ("spark.sql.catalog.lake.type", "hadoop"),
            ("spark.sql.catalog.lake.warehouse", "/w/lake/"),
            (
                "spark.sql.catalog.impl",
                "org.apache.iceberg.spark.SparkCatalog",
            ),
            ("spark.sql.catalog.impl.catalog-impl", HADOOP_CATALOG),
            ("spark.sql.catalog.impl.warehouse", "hdfs://nn/wh"),
            (
                "spark.sql.catalog.rest",
                "org.apache.iceberg.spark.SparkCatalog",
            ),
            ("spark.sql.catalog.rest.type", "rest"),
            (
                "spark.sql.catalog.nowh",
                "org.apache.iceberg.spark.SparkCatalog",
            ),
            ("spark.sql.catalog.nowh.type", "hadoop"),
            ("spark.sql.warehouse.dir", "file:/w/spark-warehouse"),
        ]);
        let at = |t: &str| locate(t, &p).map(|l| l.location).map_err(|e| e.to_string());
        assert_eq!(
            at("lake.tpch.lineitem").as_deref(),
            Ok("file:/w/lake/tpch/lineitem")
        );
        assert_eq!(at("lake.a.b.t").as_deref(), Ok("file:/w/lake/a/b/t"));
        assert!(why_not(&p, "lake.tpch.lineitem.files").contains("metadata table"));
        assert_eq!(at("impl.db.t").as_deref(), Ok("hdfs://nn/wh/db/t"));
        assert_eq!(
            at("spark_catalog.sales.orders").as_deref(),
            Ok("file:/w/spark-warehouse/sales.db/orders")
        );
        assert_eq!(at("default.t").as_deref(), Ok("file:/w/spark-warehouse/t"));
        assert_eq!(at("t").as_deref(), Ok("file:/w/spark-warehouse/t"));
        let why = |t: &str| locate(t, &p).unwrap_err().to_string();
        assert!(why("rest.db.t").contains("is rest"), "{}", why("rest.db.t"));
        assert!(why("nowh.db.t").contains("no warehouse"));
        assert!(why("nope.db.t").contains("not configured"));
        for odd in [
            "lake.tpch.`a.b`",
            "lake..t",
            "file:/x",
            "lake.tpch.../x",
            "",
        ] {
            assert!(locate(odd, &p).is_err(), "{odd}");
        }
        assert!(locate("t", &props(&[]))
            .unwrap_err()
            .to_string()
            .contains("spark.sql.warehouse.dir"));
    }

    #[test]
    fn the_properties_kept() {
        for k in [
            "spark.sql.warehouse.dir",
            "spark.sql.catalog.lake",
            "spark.sql.catalog.lake.type",
            "spark.sql.catalog.lake.warehouse",
            "spark.sql.catalog.lake.catalog-impl",
        ] {
            assert!(is_catalog_property(k), "{k}");
        }
        for k in [
            "spark.sql.catalog.lake.s3.secret-access-key",
            "spark.sql.catalog.lake.uri",
            "spark.sql.catalog.",
            "spark.sql.catalogImplementation",
        ] {
            assert!(!is_catalog_property(k), "{k}");
        }
    }
}
