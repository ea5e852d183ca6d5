//! `sparkPlanInfo` JSON (the physical plan tree of `SparkListenerSQLExecutionStart`
//! and `SparkListenerSQLAdaptiveExecutionUpdate`) into the plan IR.
//!
//! Each operator has a `nodeName`, a `simpleString` (its one-line `toString`,
//! whose lists may be cut short by `spark.sql.maxToStringFields` with
//! `... N more fields`), `metadata` (scans: Format, Location, PushedFilters,
//! PartitionFilters, DataFilters, ReadSchema) and `metrics` (name,
//! accumulator id, type). Spark's `SparkPlanInfo.fromSparkPlan` lists an
//! operator's subquery plans (`Subquery`, `SubqueryBroadcast`,
//! `ReusedSubquery`) among its children; here they move to
//! [`PlanNode::subqueries`]. A `ReusedExchange` keeps the exchange it reuses as
//! its child, the only way to resolve it without operator ids.
//!
//! ```
//! let json = r#"{"nodeName":"Project","simpleString":"Project [a#1L]","children":[
//!   {"nodeName":"Scan parquet spark_catalog.default.t","simpleString":"FileScan parquet spark_catalog.default.t[a#1L] Batched: true",
//!    "children":[],"metadata":{"Format":"Parquet"},"metrics":[{"name":"number of output rows","accumulatorId":7,"metricType":"sum"}]}],
//!   "metadata":{},"metrics":[]}"#;
//! let plan = parsers::plan::spark_plan_info::parse(json).unwrap();
//! assert_eq!(plan.children[0].metrics[0].accumulator_id, 7);
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::args::{join_info, list};
use super::expr::parse_expr;
use super::formatted::{
    argument_output, attrs_of_list, expand_projections, first_hash_number, generate_kind,
    iceberg_scan, is_python_eval, location_paths, python_eval_list, runtime_filters_in,
    scan_format, scan_table, window_kind,
};
use super::plan_error;
use crate::{Error, Result};
use ::plan::predicate::read_schema;
use ::plan::{
    guard, list::split_top_level, operator, Attr, Family, Level, Metric, NodeKind, Plan, PlanNode,
    ScanInfo,
};

/// One operator of a `sparkPlanInfo` tree, as Spark serialises it. Its
/// texts borrow from the JSON where they have no escapes (most do not), so
/// reading a tree allocates little beyond its nodes.
#[derive(Debug, Deserialize)]
pub struct SparkPlanInfo<'a> {
    /// `nodeName`: `Project`, `Scan parquet spark_catalog.default.orders`,
    /// `WholeStageCodegen (3)`, ...
    #[serde(rename = "nodeName", borrow)]
    pub node_name: Cow<'a, str>,
    /// `simpleString`: the operator's one-line description.
    #[serde(rename = "simpleString", borrow, default)]
    pub simple_string: Cow<'a, str>,
    /// Child operators (subquery plans included, as Spark lists them).
    #[serde(borrow, default)]
    pub children: Vec<SparkPlanInfo<'a>>,
    /// Operator metadata (scans: Format, Location, PushedFilters, ...).
    #[serde(borrow, default)]
    pub metadata: BTreeMap<Cow<'a, str>, Cow<'a, str>>,
    /// The operator's SQL metrics.
    #[serde(borrow, default)]
    pub metrics: Vec<SqlMetricInfo<'a>>,
}

/// One SQL metric declaration of an operator.
#[derive(Clone, Debug, Deserialize)]
pub struct SqlMetricInfo<'a> {
    /// Metric name (`number of output rows`).
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    /// Accumulator id that carries the metric's values.
    #[serde(rename = "accumulatorId")]
    pub accumulator_id: u64,
    /// `sum`, `size`, `timing`, `nsTiming`, `average`.
    #[serde(rename = "metricType", borrow, default)]
    pub metric_type: Cow<'a, str>,
}

impl Drop for SparkPlanInfo<'_> {
    /// Taken apart with an explicit stack: the derived drop recurses once
    /// per level.
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.children);
        while let Some(mut n) = stack.pop() {
            stack.append(&mut n.children);
        }
    }
}

/// Parse the raw `sparkPlanInfo` JSON object text.
///
/// Errors when the JSON is malformed, lacks `nodeName`, or nests operators
/// deeper than [`::plan::DEPTH_BUDGET`]. Each operator nests two JSON levels
/// (object, `children` array), so serde_json's default limit of 128 levels
/// would stop at about 60 operators: the limit is off, and the
/// deserializer runs on a stack that grows on the heap (`serde_stacker`),
/// so any depth parses without a stack overflow.
pub fn parse(json: &str) -> Result<Plan> {
    from_info(&read(json)?)
}

/// The scans of a `sparkPlanInfo` tree, for their metric ids, when another
/// source gave the plan that ran: the same tree as [`parse`] (same shape,
/// operator names, subqueries, errors), but only scans are converted in
/// full (kind, stated output, metrics); every other operator is kept by
/// name as [`NodeKind::Other`], without expressions, metrics or outputs,
/// and no output is derived ([`Plan::stated`]). Scans, their metrics and
/// operator names are all a record reads of it.
pub fn parse_scans(json: &str) -> Result<Plan> {
    if let Some(root) = compact::scans(json) {
        return Ok(Plan::stated(root));
    }
    Ok(Plan::stated(convert(&read(json)?, 0, true)?))
}

/// Deserialise the JSON text of a tree: by [`compact::tree`] when the text
/// is laid out as Spark writes it, else (or when that reader gives up) by
/// serde, which also gives every error.
fn read(json: &str) -> Result<SparkPlanInfo<'_>> {
    if let Some(info) = compact::tree(json) {
        return Ok(info);
    }
    read_serde(json)
}

/// [`read`] by serde alone.
fn read_serde(json: &str) -> Result<SparkPlanInfo<'_>> {
    let bad = |e: serde_json::Error| Error::Plan(format!("sparkPlanInfo: {e}"));
    let mut de = serde_json::Deserializer::from_str(json);
    de.disable_recursion_limit();
    let info =
        SparkPlanInfo::deserialize(serde_stacker::Deserializer::new(&mut de)).map_err(bad)?;
    de.end().map_err(bad)?;
    Ok(info)
}

/// Convert a deserialised [`SparkPlanInfo`] tree. Operators the registry
/// does not know become [`NodeKind::Unknown`]; only a tree deeper than the
/// depth budget is an error.
pub fn from_info(info: &SparkPlanInfo) -> Result<Plan> {
    Ok(Plan::new(convert(info, 0, false)?))
}

fn is_subquery_node(name: &str) -> bool {
    matches!(
        name,
        "Subquery" | "SubqueryBroadcast" | "SubqueryAdaptiveBroadcast" | "ReusedSubquery"
    )
}

/// `scans_only`: see [`parse_scans`].
fn convert(info: &SparkPlanInfo, depth: usize, scans_only: bool) -> Result<PlanNode> {
    ::plan::Error::check_depth(depth).map_err(|e| plan_error("sparkPlanInfo", e))?;
    guard(|| {
        let name = info.node_name.trim().to_string();
        let op = operator(&name, Level::Physical);
        let mut children = Vec::new();
        let mut subqueries = Vec::new();
        for c in &info.children {
            let node = convert(c, depth + 1, scans_only)?;
            // A subquery plan listed among an ordinary operator's children is
            // an expression's plan, not a data-flow input. (Under a
            // `ReusedSubquery` the `Subquery` is the reused plan itself.)
            if is_subquery_node(c.node_name.trim()) && op.family != Family::Reused {
                subqueries.push(node);
            } else {
                children.push(node);
            }
        }
        if scans_only && op.family != Family::Scan {
            let mut node = PlanNode::new(NodeKind::Other, name);
            node.children = children;
            node.subqueries = subqueries;
            return Ok(node);
        }
        let args = args_of(&name, &info.simple_string);
        let kind = kind_of(op.family, &name, info, args);
        let output = stated_output(&kind, info, args);
        let mut node = PlanNode::new(kind, name);
        node.engine = op.engine;
        node.output = output;
        node.metrics = info
            .metrics
            .iter()
            .map(|m| Metric {
                name: m.name.to_string(),
                accumulator_id: m.accumulator_id,
                metric_type: m.metric_type.to_string(),
            })
            .collect();
        node.children = children;
        node.subqueries = subqueries;
        Ok(node)
    })
}

/// The argument part of a `simpleString`: what follows the node name.
fn args_of<'a>(name: &str, simple: &'a str) -> &'a str {
    let s = simple.trim();
    if let Some(rest) = s.strip_prefix(name) {
        return rest.trim();
    }
    // `FileScan parquet t[...]` for node `Scan parquet t`; `HashAggregate(keys=...)`.
    match s.find([' ', '(', '[']) {
        Some(p) => s[p..].trim(),
        None => "",
    }
}

/// `keys=[...]` style named argument of `HashAggregate(keys=[..], functions=[..])`.
fn named_arg<'a>(args: &'a str, key: &str) -> Option<&'a str> {
    let inner = args
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(args);
    split_top_level(inner).find_map(|part| {
        part.strip_prefix(key)
            .and_then(|r| r.trim_start().strip_prefix('='))
            .map(str::trim)
    })
}

/// `Location: InMemoryFileIndex(1 paths)[...]` inside a simpleString.
fn location_in(text: &str) -> Option<String> {
    let at = text.find("Location: ")? + "Location: ".len();
    let rest = &text[at..];
    let open = rest.find('[')?;
    let close = open + rest[open..].find(']')?;
    Some(rest[..=close].to_string())
}

fn kind_of(family: Family, name: &str, info: &SparkPlanInfo, args: &str) -> NodeKind {
    let md = |k: &str| info.metadata.get(k).map(|v| v.to_string());
    match family {
        Family::Scan => {
            // V2 and RAPIDS scans have no metadata: the location is only in
            // the simpleString (`..., Location: InMemoryFileIndex(1
            // paths)[file:/...], ...`).
            let location = md("Location").or_else(|| location_in(args));
            let mut scan = ScanInfo {
                table: scan_table(
                    name,
                    location.as_deref().map(location_paths).as_deref(),
                    args,
                ),
                format: scan_format(name).or_else(|| md("Format").map(|f| f.to_ascii_lowercase())),
                location,
                pushed_filters: md("PushedFilters"),
                partition_filters: md("PartitionFilters"),
                data_filters: md("DataFilters"),
                read_schema: md("ReadSchema")
                    .map(|s| read_schema(&s))
                    .unwrap_or_default(),
                branch: None,
                runtime_filters: runtime_filters_in(args),
            };
            // An Iceberg scan describes itself after its columns.
            if name.starts_with("BatchScan") {
                iceberg_scan(&mut scan, args);
            }
            NodeKind::Scan(scan)
        }
        Family::Filter => NodeKind::Filter {
            condition: parse_expr(args),
        },
        // sparkPlanInfo does not print a UDF node's input: the UDF results.
        Family::Project if is_python_eval(name) => NodeKind::Project {
            list: python_eval_list(args, &[]),
        },
        Family::Project => NodeKind::Project { list: list(args) },
        Family::Aggregate => NodeKind::Aggregate {
            grouping: named_arg(args, "keys").map(list).unwrap_or_default(),
            // The simpleString has the aggregate functions but not the
            // result aliases (those are only in the formatted text).
            results: named_arg(args, "functions").map(list).unwrap_or_default(),
        },
        Family::Join(strategy) => join_info(strategy, args),
        Family::Exchange => NodeKind::Exchange,
        Family::PassThrough => NodeKind::PassThrough,
        Family::Reused => NodeKind::Reused { target: None },
        Family::SubqueryRoot => NodeKind::SubqueryRoot {
            id: first_hash_number(args),
        },
        Family::Sort => NodeKind::Sort {
            order: split_top_level(args).next().map(list).unwrap_or_default(),
        },
        Family::TopK => NodeKind::Limit {
            list: named_arg(args, "output").map(list).unwrap_or_default(),
        },
        Family::Limit => NodeKind::Limit { list: Vec::new() },
        Family::Union => NodeKind::Union,
        Family::Expand => NodeKind::Expand {
            projections: expand_projections(args),
        },
        Family::Generate => generate_kind(args),
        Family::Window => window_kind(args, list),
        Family::Command => NodeKind::Command,
        Family::LocalData => NodeKind::LocalData,
        Family::SubqueryAlias => NodeKind::SubqueryAlias {
            alias: args.to_string(),
        },
        Family::Other => NodeKind::Other,
        Family::Unknown => NodeKind::Unknown,
    }
}

/// Output attributes the operator's own text states: the column list of
/// scans, local data and reused exchanges (`FileScan parquet t[a#1L,b#2]
/// ...`, `LocalTableScan [a#1]`, `ReusedExchange [a#1], BroadcastExchange
/// ...`), the attribute lists in `Expand` and `Generate` arguments. The rest
/// is derived by [`::plan::derive_outputs`].
fn stated_output(kind: &NodeKind, info: &SparkPlanInfo, args: &str) -> Vec<Attr> {
    let leaf = matches!(kind, NodeKind::Scan(_) | NodeKind::LocalData)
        || (matches!(kind, NodeKind::Reused { .. }) && info.node_name.trim() != "ReusedSubquery");
    if leaf {
        let s: &str = &info.simple_string;
        return match (s.find('['), bracket_end(s)) {
            (Some(a), Some(b)) if b > a => attrs_of_list(&s[a..=b]),
            _ => Vec::new(),
        };
    }
    argument_output(kind, args).unwrap_or_default()
}

/// The index of the `]` closing the first `[` of a text.
fn bracket_end(s: &str) -> Option<usize> {
    let start = s.find('[')?;
    let mut depth = 0i32;
    for (i, c) in s[start..].char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(start + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A reader of `sparkPlanInfo` trees in the layout Spark writes (no white
/// space; the five keys of an operator and the three of a metric, each at
/// most once, in any order; metadata strings), several times faster than
/// serde's: one pass, no visitors, strings borrowed when they hold no
/// escape. It accepts only valid JSON that serde reads into the very same
/// tree, and gives up (`None`) on anything else (white space, other keys,
/// a repeated key, a missing `nodeName`, a number serde might read
/// differently, a tree deeper than [`MAX_DEPTH`], bad JSON): the caller
/// then reads the text with serde, which gives the tree or the error.
mod compact {
    use super::{SparkPlanInfo, SqlMetricInfo};
    use ::plan::{operator, Family, Level, NodeKind, PlanNode};
    use std::borrow::Cow;
    use std::collections::BTreeMap;

    /// Operators nested deeper are left to serde (on a growing stack).
    pub(super) const MAX_DEPTH: usize = 48;

    pub(super) fn tree(json: &str) -> Option<SparkPlanInfo<'_>> {
        let mut r = Reader { s: json, at: 0 };
        let node = r.node(0)?;
        (r.at == json.len()).then_some(node)
    }

    /// [`super::parse_scans`]' tree in one pass over a tree laid out as
    /// Spark writes it, `nodeName` first in every operator: an operator
    /// other than a scan is kept by its name and children only (its other
    /// fields read as [`tree`] reads them, and dropped), a scan is read in
    /// full and converted as [`super::convert`] converts it. `None` where
    /// [`tree`] would give up, and where an operator's first key is not
    /// its name (the caller then reads the whole tree).
    pub(super) fn scans(json: &str) -> Option<PlanNode> {
        let mut r = Reader { s: json, at: 0 };
        let (node, _) = r.scan_node(0)?;
        (r.at == json.len()).then_some(node)
    }

    struct Reader<'a> {
        s: &'a str,
        at: usize,
    }

    impl<'a> Reader<'a> {
        #[inline]
        fn peek(&self) -> Option<u8> {
            self.s.as_bytes().get(self.at).copied()
        }

        #[inline]
        fn eat(&mut self, b: u8) -> Option<()> {
            (self.peek()? == b).then(|| self.at += 1)
        }

        /// `,` (more to come: `true`) or the closing byte `close` (`false`).
        #[inline]
        fn next_or_close(&mut self, close: u8) -> Option<bool> {
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    Some(true)
                }
                b if b == close => {
                    self.at += 1;
                    Some(false)
                }
                _ => None,
            }
        }

        /// A JSON string: borrowed when it has no escape, else unescaped by
        /// serde_json (which checks the escapes).
        fn string(&mut self) -> Option<Cow<'a, str>> {
            let bytes = self.s.as_bytes();
            if bytes.get(self.at) != Some(&b'"') {
                return None;
            }
            let from = self.at + 1;
            let mut i = from;
            let mut escaped = false;
            loop {
                i += memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
                if bytes[i] == b'"' {
                    break;
                }
                escaped = true;
                // the escaped byte, whatever it is (serde checks it below)
                i += 2;
            }
            let body = bytes.get(from..i)?;
            // JSON has no raw control byte in a string.
            if crate::has_control_byte(body) {
                return None;
            }
            self.at = i + 1;
            if escaped {
                let literal = self.s.get(from - 1..i + 1)?;
                serde_json::from_str::<String>(literal).ok().map(Cow::Owned)
            } else {
                self.s.get(from..i).map(Cow::Borrowed)
            }
        }

        /// `"key":`, the key as raw bytes (a key with an escape gives up).
        #[inline]
        fn key(&mut self) -> Option<&'a [u8]> {
            let bytes = self.s.as_bytes();
            if bytes.get(self.at) != Some(&b'"') {
                return None;
            }
            let from = self.at + 1;
            let end = from + memchr::memchr2(b'"', b'\\', bytes.get(from..)?)?;
            if bytes[end] != b'"' || bytes.get(end + 1) != Some(&b':') {
                return None;
            }
            self.at = end + 2;
            bytes.get(from..end)
        }

        /// An unsigned integer as serde reads it into a u64; up to 19
        /// digits (longer ones are left to serde).
        fn u64(&mut self) -> Option<u64> {
            let bytes = self.s.as_bytes();
            let digits = bytes
                .get(self.at..)?
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits == 0 || digits > 19 || (digits > 1 && bytes[self.at] == b'0') {
                return None;
            }
            // a fraction or an exponent: serde reads a float, not a u64
            if matches!(bytes.get(self.at + digits), Some(b'.' | b'e' | b'E')) {
                return None;
            }
            let v = self.s.get(self.at..self.at + digits)?.parse().ok()?;
            self.at += digits;
            Some(v)
        }

        fn node(&mut self, depth: usize) -> Option<SparkPlanInfo<'a>> {
            if depth > MAX_DEPTH {
                return None;
            }
            self.eat(b'{')?;
            let mut name = None;
            let mut simple = None;
            let mut children = None;
            let mut metadata = None;
            let mut metrics = None;
            if self.peek()? == b'}' {
                return None; // no nodeName
            }
            loop {
                match self.key()? {
                    b"nodeName" if name.is_none() => name = Some(self.string()?),
                    b"simpleString" if simple.is_none() => simple = Some(self.string()?),
                    b"children" if children.is_none() => children = Some(self.children(depth)?),
                    b"metadata" if metadata.is_none() => metadata = Some(self.metadata()?),
                    b"metrics" if metrics.is_none() => metrics = Some(self.metrics()?),
                    _ => return None,
                }
                if !self.next_or_close(b'}')? {
                    break;
                }
            }
            Some(SparkPlanInfo {
                node_name: name?,
                simple_string: simple.unwrap_or_default(),
                children: children.unwrap_or_default(),
                metadata: metadata.unwrap_or_default(),
                metrics: metrics.unwrap_or_default(),
            })
        }

        fn children(&mut self, depth: usize) -> Option<Vec<SparkPlanInfo<'a>>> {
            self.eat(b'[')?;
            let mut out = Vec::new();
            if self.peek()? == b']' {
                self.at += 1;
                return Some(out);
            }
            loop {
                out.push(self.node(depth + 1)?);
                if !self.next_or_close(b']')? {
                    return Some(out);
                }
            }
        }

        fn metadata(&mut self) -> Option<BTreeMap<Cow<'a, str>, Cow<'a, str>>> {
            let mut out = BTreeMap::new();
            // as serde's map: a repeated key keeps its last value
            self.each_entry(|k, v| {
                out.insert(k, v);
            })?;
            Some(out)
        }

        /// A `metadata` object's entries, each handed to `f`.
        fn each_entry(&mut self, mut f: impl FnMut(Cow<'a, str>, Cow<'a, str>)) -> Option<()> {
            self.eat(b'{')?;
            if self.peek()? == b'}' {
                self.at += 1;
                return Some(());
            }
            loop {
                let k = self.string()?;
                self.eat(b':')?;
                let v = self.string()?;
                f(k, v);
                if !self.next_or_close(b'}')? {
                    return Some(());
                }
            }
        }

        fn metrics(&mut self) -> Option<Vec<SqlMetricInfo<'a>>> {
            let mut out = Vec::new();
            self.each_metric(|m| out.push(m))?;
            Some(out)
        }

        /// A `metrics` array's metrics, each handed to `f`.
        fn each_metric(&mut self, mut f: impl FnMut(SqlMetricInfo<'a>)) -> Option<()> {
            self.eat(b'[')?;
            if self.peek()? == b']' {
                self.at += 1;
                return Some(());
            }
            loop {
                f(self.metric()?);
                if !self.next_or_close(b']')? {
                    return Some(());
                }
            }
        }

        /// An operator for [`scans`], and whether it is a subquery plan
        /// (which its parent lists apart from its children).
        fn scan_node(&mut self, depth: usize) -> Option<(PlanNode, bool)> {
            if depth > MAX_DEPTH {
                return None;
            }
            self.eat(b'{')?;
            if self.key()? != b"nodeName" {
                return None;
            }
            let name = self.string()?;
            let family = operator(name.trim(), Level::Physical).family;
            let scan = family == Family::Scan;
            let mut simple = None;
            let mut children = None;
            let (mut metadata, mut metrics) = (None, None);
            while self.next_or_close(b'}')? {
                match self.key()? {
                    b"simpleString" if simple.is_none() => simple = Some(self.string()?),
                    b"children" if children.is_none() => {
                        children = Some(self.scan_children(depth, family)?)
                    }
                    b"metadata" if metadata.is_none() => {
                        metadata = Some(match scan {
                            true => self.metadata()?,
                            false => self.each_entry(|_, _| {}).map(|()| BTreeMap::new())?,
                        })
                    }
                    b"metrics" if metrics.is_none() => {
                        metrics = Some(match scan {
                            true => self.metrics()?,
                            false => self.each_metric(|_| {}).map(|()| Vec::new())?,
                        })
                    }
                    _ => return None,
                }
            }
            let subquery = super::is_subquery_node(name.trim());
            let (kids, subs) = children.unwrap_or_default();
            let mut node = if scan {
                let info = SparkPlanInfo {
                    node_name: name,
                    simple_string: simple.unwrap_or_default(),
                    children: Vec::new(),
                    metadata: metadata.unwrap_or_default(),
                    metrics: metrics.unwrap_or_default(),
                };
                super::convert(&info, depth, true).ok()?
            } else {
                PlanNode::new(NodeKind::Other, name.trim().to_string())
            };
            node.children = kids;
            node.subqueries = subs;
            Some((node, subquery))
        }

        /// An operator's children for [`scans`], and apart from them the
        /// subquery plans among them (as [`super::convert`] parts them).
        fn scan_children(
            &mut self,
            depth: usize,
            parent: Family,
        ) -> Option<(Vec<PlanNode>, Vec<PlanNode>)> {
            self.eat(b'[')?;
            let (mut kids, mut subs) = (Vec::new(), Vec::new());
            if self.peek()? == b']' {
                self.at += 1;
                return Some((kids, subs));
            }
            loop {
                let (node, subquery) = self.scan_node(depth + 1)?;
                if subquery && parent != Family::Reused {
                    subs.push(node);
                } else {
                    kids.push(node);
                }
                if !self.next_or_close(b']')? {
                    return Some((kids, subs));
                }
            }
        }

        fn metric(&mut self) -> Option<SqlMetricInfo<'a>> {
            self.eat(b'{')?;
            let (mut name, mut id, mut kind) = (None, None, None);
            if self.peek()? == b'}' {
                return None;
            }
            loop {
                match self.key()? {
                    b"name" if name.is_none() => name = Some(self.string()?),
                    b"accumulatorId" if id.is_none() => id = Some(self.u64()?),
                    b"metricType" if kind.is_none() => kind = Some(self.string()?),
                    _ => return None,
                }
                if !self.next_or_close(b'}')? {
                    break;
                }
            }
            Some(SqlMetricInfo {
                name: name?,
                accumulator_id: id?,
                metric_type: kind.unwrap_or_default(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::formatted;
    use crate::plan::formatted::testdata::*;
    use ::plan::predicate::{ColumnType, IntWidth};
    use ::plan::{Expr, JoinType};
    use ::plan::{Recursion, TreeNode};

    /// `strategy type [left keys] = [right keys]` of every join, sorted,
    /// not looking inside reused exchanges and subqueries (the formatted
    /// text prints those once, by reference).
    fn join_sigs(p: &PlanNode) -> Vec<String> {
        let mut v = Vec::new();
        p.apply(|n| match &n.kind {
            NodeKind::Reused { .. } => Recursion::Jump,
            NodeKind::Join(j) => {
                let k = |e: &[Expr]| {
                    e.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                v.push(format!(
                    "{} {} null_aware={} [{}] = [{}]",
                    j.strategy.as_str(),
                    j.join_type,
                    j.null_aware,
                    k(&j.left_keys),
                    k(&j.right_keys)
                ));
                Recursion::Continue
            }
            _ => Recursion::Continue,
        });
        v.sort();
        v
    }

    /// `table [attrs]` of every scan, sorted.
    fn scan_outputs(p: &PlanNode) -> Vec<String> {
        let mut v = Vec::new();
        p.apply(|n| match &n.kind {
            NodeKind::Reused { .. } => Recursion::Jump,
            NodeKind::Scan(s) => {
                let o: Vec<String> = n.output.iter().map(|a| a.to_string()).collect();
                v.push(format!("{} [{}]", s.table, o.join(", ")));
                Recursion::Continue
            }
            _ => Recursion::Continue,
        });
        v.sort();
        v
    }

    /// A node's number and name, and a scan's kind, output and metrics.
    type ScanView = (u32, String, Option<(NodeKind, Vec<Attr>, Vec<Metric>)>);

    /// What a record reads of the tree (see `record::scan_records` and
    /// `record::is_adaptive_final`): every node's number and name, and the
    /// kind, output and metrics of every scan.
    fn scan_view(p: &PlanNode) -> Vec<ScanView> {
        let mut v = Vec::new();
        p.apply(|n| {
            let scan = matches!(n.kind, NodeKind::Scan(_))
                .then(|| (n.kind.clone(), n.output.clone(), n.metrics.clone()));
            v.push((n.id.0, n.name.clone(), scan));
            Recursion::Continue
        });
        v
    }

    /// The scans-only reading gives the same tree shape, names and scans
    /// as the full one on every plan of the real TPC-H log, start and final,
    /// and the same errors.
    #[test]
    fn scans_only_reading_keeps_what_records_read() {
        let mut scans = 0;
        for e in tpch_default() {
            for info in [&e.final_info, &e.start_info] {
                let full = parse(info).unwrap();
                let light = parse_scans(info).unwrap();
                assert_eq!(full.len(), light.len(), "execution {}", e.id);
                let view = scan_view(&full);
                assert_eq!(view, scan_view(&light), "execution {}", e.id);
                scans += view.iter().filter(|(_, _, s)| s.is_some()).count();
            }
        }
        assert!(scans > 100, "{scans}");
        let info = &tpch_default()[10].final_info;
        for bad in [&info[..info.len() / 2], "{\"simpleString\":\"x\"}", "[]"] {
            let (a, b) = (parse(bad).unwrap_err(), parse_scans(bad).unwrap_err());
            assert_eq!(a.to_string(), b.to_string());
        }
        // deeper than the budget: the same error
        let depth = ::plan::DEPTH_BUDGET + 5;
        let deep = format!(
            "{}{}",
            "{\"nodeName\":\"Project\",\"children\":[".repeat(depth),
            "]}".repeat(depth)
        );
        let (a, b) = (parse(&deep).unwrap_err(), parse_scans(&deep).unwrap_err());
        assert_eq!(a.to_string(), b.to_string());
    }

    /// The compact reader gives serde's tree on every plan of the real
    /// logs, as Spark wrote them (raw from the zstd log) and re-serialised
    /// with sorted keys; on anything else it gives up, and `read` gives
    /// serde's tree or serde's error.
    #[test]
    fn compact_reading_gives_serde_s_tree_or_gives_up() {
        #[derive(Deserialize)]
        struct Line<'a> {
            #[serde(rename = "sparkPlanInfo", borrow)]
            info: Option<&'a serde_json::value::RawValue>,
        }
        let same = |json: &str| {
            let fast = compact::tree(json).map(|t| format!("{t:?}"));
            let slow = read_serde(json).map(|t| format!("{t:?}"));
            if let Some(fast) = &fast {
                assert_eq!(Some(fast), slow.as_ref().ok(), "{json}");
            }
            let got = read(json).map(|t| format!("{t:?}"));
            match (got, slow) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                (a, b) => panic!("{json}: {a:?} vs {b:?}"),
            }
            // The one-pass scans reader reads only what the compact reader
            // reads, into the tree the scans-only conversion of serde's
            // tree gives.
            if let Some(light) = compact::scans(json) {
                assert!(fast.is_some(), "{json}");
                let want = convert(&read_serde(json).unwrap(), 0, true).unwrap();
                assert_eq!(format!("{light:?}"), format!("{want:?}"), "{json}");
            }
            fast.is_some()
        };
        let bytes = std::fs::read(testdata::spark_logs(
            "tpch-default/eventlog_v2_local-1796009792357/events_1_local-1796009792357.zstd",
        ))
        .unwrap();
        let text = String::from_utf8(zstd::stream::decode_all(&bytes[..]).unwrap()).unwrap();
        let mut raw = 0;
        for line in text.lines().filter(|l| l.contains("\"sparkPlanInfo\":{")) {
            let info = serde_json::from_str::<Line>(line)
                .unwrap()
                .info
                .unwrap()
                .get();
            assert!(
                same(info),
                "the compact reader gave up on Spark's own layout"
            );
            assert!(
                compact::scans(info).is_some(),
                "the scans reader gave up on Spark's own layout"
            );
            raw += 1;
        }
        assert!(raw > 100, "{raw}");
        let mut sorted = 0;
        for e in tpch_default().iter().chain(weekly()).chain(tpch_smj()) {
            for info in [&e.final_info, &e.start_info] {
                assert!(same(info));
                sorted += 1;
            }
        }
        assert!(sorted > 100, "{sorted}");
        // odd layouts and bad input: serde's tree or error, never another
        let info = &tpch_default()[10].final_info;
        let leaf = r#"{"nodeName":"Scan parquet t","simpleString":"FileScan parquet t[a#1L]","children":[],"metadata":{"Format":"Parquet"},"metrics":[{"name":"number of output rows","accumulatorId":7,"metricType":"sum"}]}"#;
        assert!(same(leaf));
        let deep = |n: usize| {
            format!(
                "{}{leaf}{}",
                r#"{"nodeName":"Project","children":["#.repeat(n),
                "]}".repeat(n)
            )
        };
        assert!(same(&deep(compact::MAX_DEPTH)));
        let odd = [
            leaf.replace("t[a#1L]", r##"t[\"a\"#1L] \u00e9\n"##),
            leaf.replace(r#""metadata""#, r#""extra":1,"metadata""#),
            leaf.replace(r#""Format""#, r#""Format":"x","Format""#),
            leaf.replace(r#""nodeName":"Scan parquet t","#, ""),
            leaf.replace(r#","metricType":"sum""#, ""),
            leaf.replace("7,", "007,"),
            leaf.replace("7,", "-7,"),
            leaf.replace("7,", "7.0,"),
            leaf.replace("7,", "18446744073709551615,"),
            leaf.replace("7,", "18446744073709551616,"),
            leaf.replace("\"children\":[]", "\"children\":[],\"children\":[]"),
            leaf.replace(":[]", ": []"),
            leaf.replace("\"Parquet\"", "null"),
            leaf.replace("\"Parquet\"", "1"),
            leaf.replace("parquet t\"", "parquet\tt\""),
            leaf.replace("7,", "\"7\","),
            format!("{leaf} "),
            format!("{leaf}x"),
            deep(compact::MAX_DEPTH + 1),
            info[..info.len() / 2].to_string(),
            "{}".into(),
            "[]".into(),
            String::new(),
            // what an operator other than a scan holds is read all the same
            r#"{"nodeName":"Project","metadata":{"a":null}}"#.into(),
            r#"{"nodeName":"Project","metrics":[{"name":"x","accumulatorId":-1}]}"#.into(),
            r#"{"nodeName":"Project","metrics":[],"metrics":[]}"#.into(),
            r#"{"nodeName":"Project","nodeName":"Filter"}"#.into(),
        ];
        for json in &odd {
            same(json);
        }
        // the escaped string is read, the reordered metric too
        assert!(same(&odd[0]));
        assert!(same(&leaf.replace(
            r#"{"name":"number of output rows","accumulatorId":7,"metricType":"sum"}"#,
            r#"{"metricType":"sum","accumulatorId":7,"name":"number of output rows"}"#
        )));
    }

    #[test]
    fn every_tpch_default_execution_agrees_with_the_formatted_text_and_the_key() {
        let execs = tpch_default();
        assert_eq!(execs.len(), 30);
        for e in execs {
            for (desc, info) in [
                (&e.final_desc, &e.final_info),
                (&e.start_desc, &e.start_info),
            ] {
                let f = formatted::parse(desc).unwrap();
                let i = parse(info).unwrap();
                assert_eq!(join_sigs(&f), join_sigs(&i), "execution {}", e.id);
                assert_eq!(tables(&f), tables(&i), "execution {}", e.id);
                // Scans match across the two sources by output attributes.
                assert_eq!(scan_outputs(&f), scan_outputs(&i), "execution {}", e.id);
                if e.id >= 8 {
                    let q = query_of("executions/tpch-default.json", e.id).unwrap();
                    assert_eq!(tables(&i), truth_tables(&q), "{q}");
                }
            }
            if e.id >= 8 {
                assert!(e.updates > 0, "AQE updated execution {}", e.id);
                let f = formatted::parse(&e.final_desc).unwrap();
                let gone = initial_only_ids(&e.final_desc);
                assert!(!gone.is_empty());
                assert!(!f.exists(|n| n.op_id.is_some_and(|id| gone.contains(&id))));
            }
        }
    }

    #[test]
    fn smj_log_agrees_with_its_formatted_text() {
        for e in tpch_smj() {
            let f = formatted::parse(&e.final_desc).unwrap();
            let i = parse(&e.final_info).unwrap();
            assert_eq!(join_sigs(&f), join_sigs(&i), "execution {}", e.id);
            assert_eq!(tables(&f), tables(&i), "execution {}", e.id);
        }
    }

    #[test]
    fn weekly_logs_agree_with_their_formatted_text() {
        let execs = weekly();
        assert!(execs.len() > 100, "{}", execs.len());
        for e in execs {
            for (desc, info) in [
                (&e.final_desc, &e.final_info),
                (&e.start_desc, &e.start_info),
            ] {
                let f = formatted::parse(desc).unwrap();
                let i = parse(info).unwrap();
                assert_eq!(join_sigs(&f), join_sigs(&i), "execution {}", e.id);
                assert_eq!(scan_outputs(&f), scan_outputs(&i), "execution {}", e.id);
            }
        }
    }

    #[test]
    fn scans_carry_metadata_metrics_and_output() {
        let p = parse(&default_exec("q22").final_info).unwrap();
        let mut scans = Vec::new();
        p.apply(|n| {
            if matches!(n.kind, NodeKind::Scan(_)) {
                scans.push(n);
            }
            Recursion::Continue
        });
        let orders = scans
            .iter()
            .find(|n| n.name == "Scan parquet spark_catalog.default.orders")
            .unwrap();
        let NodeKind::Scan(s) = &orders.kind else {
            unreachable!()
        };
        assert_eq!(s.table, "spark_catalog.default.orders");
        assert_eq!(s.format.as_deref(), Some("parquet"));
        assert_eq!(
            s.location.as_deref(),
            Some("InMemoryFileIndex(1 paths)[file:/srv/lakehouse/warehouse/orders]")
        );
        assert_eq!(
            s.read_schema,
            [("o_custkey".into(), ColumnType::Integer(IntWidth::Long))]
        );
        assert_eq!(orders.output, [Attr::new("o_custkey", 191, "L")]);
        let names: Vec<&str> = orders.metrics.iter().map(|m| m.name.as_str()).collect();
        assert!(names.contains(&"number of output rows"), "{names:?}");
        assert!(names.contains(&"number of files read"), "{names:?}");
        assert!(orders
            .metrics
            .iter()
            .all(|m| m.accumulator_id > 0 && !m.metric_type.is_empty()));
    }

    #[test]
    fn subquery_children_move_to_subqueries() {
        let p = parse(&default_exec("q22").final_info).unwrap();
        // The Filter hosts `Subquery subquery#714`; the scan hosts the
        // ReusedSubquery (a data filter) whose child is the same plan.
        let mut filter = None;
        let mut scan = None;
        p.apply(|n| {
            if n.name == "Filter" && !n.subqueries.is_empty() {
                filter = Some(n);
            }
            if n.name == "Scan parquet spark_catalog.default.customer" && !n.subqueries.is_empty() {
                scan = Some(n);
            }
            Recursion::Continue
        });
        let filter = filter.unwrap();
        assert_eq!(filter.children.len(), 1);
        assert_eq!(
            filter.subqueries[0].kind,
            NodeKind::SubqueryRoot { id: Some(714) }
        );
        let scan = scan.unwrap();
        assert!(scan.children.is_empty());
        assert_eq!(scan.subqueries[0].kind, NodeKind::Reused { target: None });
        assert_eq!(scan.subqueries[0].children[0].name, "Subquery");
    }

    #[test]
    fn reused_exchange_keeps_the_reused_plan_as_child() {
        let p = parse(&default_exec("q02").final_info).unwrap();
        let mut reused = Vec::new();
        p.apply(|n| {
            if n.name == "ReusedExchange" {
                reused.push(n);
            }
            Recursion::Continue
        });
        assert_eq!(reused.len(), 1);
        assert_eq!(reused[0].output, [Attr::new("r_regionkey", 145, "L")]);
        assert_eq!(reused[0].children[0].name, "BroadcastExchange");
        assert_eq!(
            reused[0].children[0].output,
            [Attr::new("r_regionkey", 171, "L")]
        );
    }

    #[test]
    fn truncated_and_odd_input() {
        assert!(parse("").is_err());
        assert!(parse("[]").is_err());
        assert!(parse(r#"{"simpleString":"x"}"#).is_err());
        let p =
            parse(r#"{"nodeName":"Mystery","simpleString":"Mystery [a#1, ... 5 more fields]"}"#)
                .unwrap();
        assert_eq!(p.kind, NodeKind::Unknown);
        let p = parse(
            r#"{"nodeName":"Project","simpleString":"Project [a#1L, b#2, ... 3 more fields]","children":[]}"#,
        )
        .unwrap();
        assert_eq!(p.output, [Attr::new("a", 1, "L"), Attr::new("b", 2, "")]);
        let p = parse(
            r#"{"nodeName":"SortMergeJoin","simpleString":"SortMergeJoin [a#1L], [b#2L], LeftOuter, (c#3 > d#4), false"}"#,
        )
        .unwrap();
        let NodeKind::Join(j) = &p.kind else { panic!() };
        assert_eq!(j.join_type, JoinType::LeftOuter);
        assert_eq!(
            j.condition.as_ref().map(|c| c.to_string()).as_deref(),
            Some("(c#3 > d#4)")
        );
        assert!(!j.null_aware);
    }

    #[test]
    fn snapshots_of_real_queries() {
        for q in ["q13", "q16", "q22"] {
            let p = parse(&default_exec(q).final_info).unwrap();
            insta::assert_snapshot!(format!("spark_plan_info_{q}"), p.render());
        }
    }
}
