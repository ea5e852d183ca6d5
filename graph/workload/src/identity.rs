//! Table identity across the input: one identity per table, whatever
//! location or name a scan or an audited table gives it.
//!
//! A path read of a directory that is a catalog table's location is that
//! catalog table ([`Locations`]); names go through
//! [`graph::tables::canonical_table`].

use graph::tables::{canonical_table, is_path, is_table, JDBC_PREFIX};

/// One identity per location: a path read of a directory that is a catalog
/// table's location is that catalog table.
///
/// Formatted plans print a catalog scan's `Location` (`InMemoryFileIndex
/// [file:/w/orders]`); [`Locations::observe`] every scan of the input (and
/// every location table metadata gives), then [`Locations::identity`] maps
/// a path read of `file:/w/orders` to `spark_catalog.default.orders`. A
/// path no catalog table has stays the identity.
///
/// ```
/// use workload::identity::Locations;
/// let mut l = Locations::default();
/// l.observe("spark_catalog.default.orders", Some("file:/w/orders"));
/// assert_eq!(l.identity("file:/w/orders/"), "spark_catalog.default.orders");
/// assert_eq!(l.identity("file:/w/lineitem"), "file:/w/lineitem");
/// assert_eq!(l.identity("orders"), "spark_catalog.default.orders");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Locations {
    /// Normalised location -> canonical catalog names found there.
    by_path: std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
    /// Normalised location -> the identity of a path read of it (the path
    /// as the scan prints it).
    path_reads: std::collections::BTreeMap<String, String>,
}

impl Locations {
    /// Record that `table` (as a scan names it) reads `location` (one
    /// path, as [`single_path`] gives it). Only catalog tables with a
    /// single-directory location are recorded: a partitioned table's
    /// location lists partition directories.
    pub fn observe(&mut self, table: &str, location: Option<&str>) {
        if is_path(table) {
            if let Some(p) = single_path(table) {
                self.path_reads
                    .entry(normalise(p))
                    .or_insert_with(|| canonical_table(table));
            }
        }
        let Some(loc) = location.and_then(single_path) else {
            return;
        };
        if is_path(table) || !is_table(table) || table.starts_with(JDBC_PREFIX) {
            return;
        }
        self.by_path
            .entry(normalise(loc))
            .or_default()
            .insert(canonical_table(table));
    }

    /// The identity of a scan's table: the catalog table at its location
    /// when it is a path read of exactly one catalog table's location,
    /// else its canonical name.
    pub fn identity(&self, table: &str) -> String {
        let t = table.trim();
        if is_path(t) {
            if let Some(names) = self.by_path.get(&normalise(t)) {
                if names.len() == 1 {
                    if let Some(n) = names.iter().next() {
                        return n.clone();
                    }
                }
            }
        }
        canonical_table(t)
    }

    /// The identity of a table known by another name and location (a
    /// Delta or Iceberg table found on disk): the one catalog table the
    /// logs saw reading `location` (`file:/w/orders`, any trailing `/`),
    /// else the canonical form of `name`.
    ///
    /// ```
    /// use workload::identity::Locations;
    /// let mut l = Locations::default();
    /// l.observe("sales.orders", Some("file:/w/orders"));
    /// assert_eq!(l.identify("orders", Some("file:///w/orders/")), "spark_catalog.sales.orders");
    /// assert_eq!(l.identify("orders", Some("file:/elsewhere")), "spark_catalog.default.orders");
    /// ```
    pub fn identify(&self, name: &str, location: Option<&str>) -> String {
        self.at_location(location)
            .unwrap_or_else(|| canonical_table(name))
    }

    /// The identity the logs give the table at `location`: the one catalog
    /// table they saw reading it, else the path they read it by; `None`
    /// when they never read it there.
    fn at_location(&self, location: Option<&str>) -> Option<String> {
        let at = normalise(location?);
        if let Some(names) = self.by_path.get(&at) {
            if names.len() == 1 {
                if let Some(n) = names.iter().next() {
                    return Some(n.clone());
                }
            }
        }
        // A table the logs read by its path (`spark.read.load(path)`).
        self.path_reads.get(&at).cloned()
    }

    /// The identity of a table found at `root` (a Delta or Iceberg table
    /// directory, or its object-store URL) and named `name` by its
    /// metadata: [`Locations::identify`] with the directory's canonical
    /// `file:` path, or the URL.
    pub fn identify_root(&self, name: &str, root: &std::path::Path) -> String {
        self.resolve_root(name, root).id
    }

    /// [`Locations::identify_root`], saying whether the logs' locations
    /// gave the identity, and the location it was looked up by.
    fn resolve_root(&self, name: &str, root: &std::path::Path) -> Resolved {
        let location = root_location(root);
        match self.at_location(location.as_deref()) {
            Some(id) => Resolved {
                id,
                by_location: true,
                location,
            },
            None => Resolved {
                id: canonical_table(name),
                by_location: false,
                location,
            },
        }
    }

    /// Whether no location is known.
    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// Every location the logs read a table at, normalised (`file:/w/t`,
    /// `s3://b/t`), with the names the logs give it: catalog tables at
    /// their one printed location or where the log's catalog settings put
    /// them, and the directories read by path.
    pub fn observed(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        let mut out: std::collections::BTreeMap<String, Vec<String>> = self
            .by_path
            .iter()
            .map(|(l, names)| (l.clone(), names.iter().cloned().collect()))
            .collect();
        for (l, name) in &self.path_reads {
            out.entry(l.clone()).or_insert_with(|| vec![name.clone()]);
        }
        out
    }
}

/// The location an audited table's root is looked up by: an
/// object-store URL as given, a directory as its canonical `file:` path
/// (`None` when it cannot be made canonical).
fn root_location(root: &std::path::Path) -> Option<String> {
    let text = root.to_string_lossy();
    if text.contains("://") && !text.starts_with("file:") {
        Some(text.into_owned())
    } else {
        std::fs::canonicalize(root)
            .ok()
            .map(|p| format!("file:{}", p.display()))
    }
}

/// An audited table's identity, with how it was found.
struct Resolved {
    id: String,
    /// The logs read the table at its location (rather than the identity
    /// being its own name).
    by_location: bool,
    location: Option<String>,
}

/// A table's one identity in a run: the catalog name the logs give it
/// (`spark_catalog.sales.orders`), or the path or URL it is read at. Two
/// tables of a run never share one.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableId(String);

impl TableId {
    /// The identity as text (as outputs print it).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for TableId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::borrow::Borrow<str> for TableId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<TableId> for String {
    fn from(id: TableId) -> String {
        id.0
    }
}

/// Every table's one identity, resolved once for the run: the logs'
/// locations and catalog names ([`Locations`]) and each audited table
/// found on disk or on a store, matched by its root
/// ([`Locations::identify_root`]) and keyed by that root, so that two
/// audited tables of one name stay two tables.
///
/// Two audited tables that would get one identity (both named `orders`
/// in two warehouses) are told apart: one the logs read at its location
/// keeps the identity, and the others are known by their location, each
/// with a warning ([`TableIndex::warnings`]).
///
/// ```
/// use std::path::Path;
/// use workload::identity::{Locations, TableIndex};
/// let mut l = Locations::default();
/// l.observe("orders", Some("s3://lake/orders"));
/// let index = TableIndex::resolve(
///     l,
///     [
///         ("orders", Path::new("s3://lake/orders")),
///         ("orders", Path::new("s3://old/orders")),
///         ("lineitem", Path::new("s3://lake/lineitem")),
///     ],
/// );
/// let id = |root: &str| index.audited(Path::new(root)).map(|id| id.as_str());
/// assert_eq!(id("s3://lake/orders"), Some("spark_catalog.default.orders"));
/// assert_eq!(id("s3://old/orders"), Some("s3://old/orders"));
/// assert_eq!(id("s3://lake/lineitem"), Some("spark_catalog.default.lineitem"));
/// assert_eq!(id("s3://lake/part"), None);
/// assert_eq!(index.warnings().len(), 1);
/// assert_eq!(index.scan("s3://lake/orders/"), "spark_catalog.default.orders");
/// ```
#[derive(Clone, Debug, Default)]
pub struct TableIndex {
    locations: Locations,
    /// Audited table, by its root as given (its directory or URL) ->
    /// identity.
    audited: std::collections::BTreeMap<std::path::PathBuf, TableId>,
    warnings: Vec<String>,
}

impl TableIndex {
    /// The index of the logs' locations, without audited tables.
    pub fn new(locations: Locations) -> TableIndex {
        TableIndex {
            locations,
            ..TableIndex::default()
        }
    }

    /// Resolve every audited table, `(name as its metadata gives it,
    /// root)`, once, in the order given (a root given twice is one table).
    pub fn resolve<'a>(
        locations: Locations,
        tables: impl IntoIterator<Item = (&'a str, &'a std::path::Path)>,
    ) -> TableIndex {
        let mut index = TableIndex::new(locations);
        let mut found: Vec<(&'a str, &'a std::path::Path, Resolved)> = Vec::new();
        let mut roots = std::collections::BTreeSet::new();
        for (name, root) in tables {
            if !roots.insert(root) {
                continue;
            }
            let r = index.locations.resolve_root(name, root);
            found.push((name, root, r));
        }
        // Per identity: how many tables would have it, and the root of one
        // the logs read at its location.
        let mut by_id: std::collections::BTreeMap<&str, (usize, Option<&std::path::Path>)> =
            std::collections::BTreeMap::new();
        for (_, root, r) in &found {
            let e = by_id.entry(r.id.as_str()).or_default();
            e.0 += 1;
            if r.by_location && e.1.is_none() {
                e.1 = Some(*root);
            }
        }
        for (name, root, r) in &found {
            let (same, keeper) = by_id.get(r.id.as_str()).copied().unwrap_or((1, None));
            let keeps = same == 1 || r.by_location;
            let id = if keeps {
                r.id.clone()
            } else {
                let own = r
                    .location
                    .clone()
                    .unwrap_or_else(|| root.display().to_string());
                index.warnings.push(match keeper {
                    Some(k) => format!(
                        "{}: audited table `{name}` is known by its location, {own}: the logs read `{}` at {}, another audited table",
                        root.display(),
                        r.id,
                        k.display()
                    ),
                    None => format!(
                        "{}: audited table `{name}` is known by its location, {own}: {} audited tables would be `{}` by their names, and the logs read none of them at its location",
                        root.display(),
                        same,
                        r.id
                    ),
                });
                own
            };
            index.audited.insert(root.to_path_buf(), TableId(id));
        }
        index
    }

    /// The identity of the audited table at `root` (`None`: not audited).
    pub fn audited(&self, root: &std::path::Path) -> Option<&TableId> {
        self.audited.get(root)
    }

    /// What resolving made the audited tables known by, to be printed as
    /// `lakeaudit: warning: ...` lines.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The identity of a scan's table ([`Locations::identity`]).
    pub fn scan(&self, table: &str) -> String {
        self.locations.identity(table)
    }
}

/// The one path of a location as scans print it (`InMemoryFileIndex
/// [file:/a]`, `InMemoryFileIndex(1 paths)[file:/a]`, or the bare path);
/// `None` for a list of several paths or partition directories.
pub fn single_path(location: &str) -> Option<&str> {
    let l = location.trim();
    let l = match (l.find('['), l.rfind(']')) {
        (Some(a), Some(b)) if b > a => l[a + 1..b].trim(),
        _ => l,
    };
    let partition_dir = l.rsplit('/').next().is_some_and(|last| last.contains('='));
    (!l.is_empty() && !l.contains(", ") && !partition_dir && is_path(l)).then_some(l)
}

/// `file:///a/b/` and `file:/a/b` are one location; so are `s3a://b/t`
/// (Hadoop's name), `s3n://b/t` and `s3://b/t`, and `abfs://` and
/// `abfss://` (the same store without and with TLS).
pub(crate) fn normalise(path: &str) -> String {
    let p = path.trim().trim_end_matches('/');
    if let Some(rest) = p.strip_prefix("file:///") {
        return format!("file:/{rest}");
    }
    for (from, to) in [
        ("s3a://", "s3://"),
        ("s3n://", "s3://"),
        ("abfs://", "abfss://"),
    ] {
        if let Some(rest) = p
            .get(..from.len())
            .filter(|s| s.eq_ignore_ascii_case(from))
            .and_then(|_| p.get(from.len()..))
        {
            return format!("{to}{rest}");
        }
    }
    p.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_on_a_store_is_the_one_the_logs_read_there() {
        let mut l = Locations::default();
        // A catalog table whose location Hadoop names with s3a://.
        l.observe("sales.orders", Some("InMemoryFileIndex[s3a://b/wh/orders]"));
        // A table read by its path.
        l.observe("s3a://b/raw/events", Some("s3a://b/raw/events"));
        let root = std::path::Path::new("s3://b/wh/orders/");
        assert_eq!(
            l.identify_root("orders", root),
            "spark_catalog.sales.orders"
        );
        let root = std::path::Path::new("s3://b/raw/events");
        assert_eq!(l.identify_root("events", root), "s3a://b/raw/events");
        let root = std::path::Path::new("s3://b/elsewhere");
        assert_eq!(l.identify_root("x", root), "spark_catalog.default.x");
        // A local table read by its path.
        let dir = std::env::temp_dir();
        let canon = std::fs::canonicalize(&dir).unwrap();
        let printed = format!("file:{}", canon.display());
        l.observe(&printed, Some(&printed));
        assert_eq!(l.identify_root("t", &dir), printed);
    }

    #[test]
    fn path_reads_of_a_catalog_location_are_the_catalog_table() {
        let mut l = Locations::default();
        // Spark 4.0.1, tests/data/lineage: the catalog scan prints its
        // location; the V1 path read prints only the location, the V2 one
        // `BatchScan parquet file:/...` (named by its path).
        l.observe(
            "spark_catalog.default.orders",
            Some("InMemoryFileIndex [file:/tmp/lakeaudit-lineage/warehouse/orders]"),
        );
        l.observe(
            "spark_catalog.default.sales",
            Some("InMemoryFileIndex [file:/w/sales/sa_month=199606, ... 77 entries]"),
        );
        l.observe("file:/w/customer", Some("file:/w/customer"));
        assert_eq!(
            l.identity("file:/tmp/lakeaudit-lineage/warehouse/orders"),
            "spark_catalog.default.orders"
        );
        assert_eq!(
            l.identity("file:///tmp/lakeaudit-lineage/warehouse/orders/"),
            "spark_catalog.default.orders"
        );
        assert_eq!(l.identity("file:/w/customer"), "file:/w/customer");
        assert_eq!(l.identity("file:/w/sales"), "file:/w/sales");
        assert_eq!(
            l.identity("rdd:ParallelCollectionRDD[41]"),
            "rdd:ParallelCollectionRDD[41]"
        );
        assert_eq!(l.identity("jdbc:TBLS"), "jdbc:TBLS");
        assert!(!graph::tables::is_table("rdd:ParallelCollectionRDD[41]"));
        assert!(!graph::tables::is_table(""));
        assert!(graph::tables::is_table("jdbc:TBLS"));
        // Two catalog tables at one location: ambiguous, the path stays.
        l.observe("t1", Some("file:/w/x"));
        l.observe("t2", Some("file:/w/x"));
        assert_eq!(l.identity("file:/w/x"), "file:/w/x");
    }

    #[test]
    fn two_audited_tables_of_one_name_stay_two_tables() {
        use std::path::Path;
        let mut l = Locations::default();
        l.observe("spark_catalog.default.lineitem", Some("s3://lake/lineitem"));
        let index = TableIndex::resolve(
            l,
            [
                ("orders", Path::new("s3://a/orders")),
                ("orders", Path::new("s3://b/orders")),
                // The same root again is the same table.
                ("orders", Path::new("s3://a/orders")),
                ("lineitem", Path::new("s3://lake/lineitem")),
                ("lineitem", Path::new("s3://old/lineitem")),
            ],
        );
        let id = |root: &str| index.audited(Path::new(root)).map(TableId::as_str);
        // Neither is read at its location: both are known by it.
        assert_eq!(id("s3://a/orders"), Some("s3://a/orders"));
        assert_eq!(id("s3://b/orders"), Some("s3://b/orders"));
        // The one the logs read at its location keeps the name.
        assert_eq!(
            id("s3://lake/lineitem"),
            Some("spark_catalog.default.lineitem")
        );
        assert_eq!(id("s3://old/lineitem"), Some("s3://old/lineitem"));
        assert_eq!(
            index.warnings(),
            [
                "s3://a/orders: audited table `orders` is known by its location, s3://a/orders: 2 audited tables would be `spark_catalog.default.orders` by their names, and the logs read none of them at its location",
                "s3://b/orders: audited table `orders` is known by its location, s3://b/orders: 2 audited tables would be `spark_catalog.default.orders` by their names, and the logs read none of them at its location",
                "s3://old/lineitem: audited table `lineitem` is known by its location, s3://old/lineitem: the logs read `spark_catalog.default.lineitem` at s3://lake/lineitem, another audited table",
            ]
        );
        // One table of a name keeps it, as before.
        let one = TableIndex::resolve(
            Locations::default(),
            [("orders", Path::new("s3://a/orders"))],
        );
        assert_eq!(
            one.audited(Path::new("s3://a/orders")).map(TableId::as_str),
            Some("spark_catalog.default.orders")
        );
        assert!(one.warnings().is_empty());
    }

    #[test]
    fn an_audited_directory_is_the_catalog_table_the_logs_read_there() {
        let dir = std::env::temp_dir().join(format!("lakeaudit-identity-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("orders")).unwrap();
        let root = std::fs::canonicalize(dir.join("orders")).unwrap();
        let mut l = Locations::default();
        l.observe(
            "shop.orders",
            Some(&format!("InMemoryFileIndex [file:{}]", root.display())),
        );
        // Through a path that is not canonical (`..`), as `--tables` may give it.
        let given = dir.join("orders").join("..").join("orders");
        assert_eq!(
            l.identify_root("orders", &given),
            "spark_catalog.shop.orders"
        );
        // A directory the logs never read keeps its own name.
        assert_eq!(
            l.identify_root("lineitem", &dir.join("missing")),
            "spark_catalog.default.lineitem"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
