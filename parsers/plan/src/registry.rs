//! The one operator registry: which operator names are which kind of
//! node, and which engine runs them.
//!
//! Every plan parser (formatted text, extended text, `sparkPlanInfo`,
//! TreeNode JSON) asks [`operator`] what an operator is and only then
//! reads that operator's arguments its own way; no parser keeps its own
//! name table. A name the registry does not know is
//! [`Family::Unknown`]: parsers build [`crate::NodeKind::Unknown`] for it
//! and the report counts it per input ([`crate::Plan::unknown_operators`]).
//!
//! Supporting another engine's operators is a table edit: a Databricks
//! Photon or RAPIDS GPU hash join is a hash join with the same keys, so its
//! row names the accelerator-neutral family and the engine, e.g.
//! `("PhotonBroadcastHashJoin", Family::Join(JoinStrategy::BroadcastHashJoin),
//! Engine::Photon)`. Spark 2's `*` codegen marker (`*Project`) is ignored by
//! [`operator_word`].

use serde::Serialize;

use crate::node::JoinStrategy;

/// What kind of operator a name is: the [`crate::NodeKind`] a parser
/// builds for it, without the arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Family {
    /// Reads a table or files: [`crate::NodeKind::Scan`].
    Scan,
    /// Local rows, ranges, RDDs: [`crate::NodeKind::LocalData`].
    LocalData,
    /// [`crate::NodeKind::Project`].
    Project,
    /// [`crate::NodeKind::Filter`].
    Filter,
    /// [`crate::NodeKind::Join`] with this strategy.
    Join(JoinStrategy),
    /// [`crate::NodeKind::Aggregate`].
    Aggregate,
    /// [`crate::NodeKind::Window`].
    Window,
    /// [`crate::NodeKind::Expand`].
    Expand,
    /// [`crate::NodeKind::Generate`].
    Generate,
    /// [`crate::NodeKind::Union`].
    Union,
    /// [`crate::NodeKind::Sort`].
    Sort,
    /// [`crate::NodeKind::Limit`] without a project list.
    Limit,
    /// `TakeOrderedAndProject`: [`crate::NodeKind::Limit`] with its project list.
    TopK,
    /// [`crate::NodeKind::Exchange`].
    Exchange,
    /// [`crate::NodeKind::SubqueryAlias`].
    SubqueryAlias,
    /// [`crate::NodeKind::Reused`].
    Reused,
    /// [`crate::NodeKind::SubqueryRoot`].
    SubqueryRoot,
    /// [`crate::NodeKind::PassThrough`].
    PassThrough,
    /// [`crate::NodeKind::Command`].
    Command,
    /// A known operator lineage does not model: [`crate::NodeKind::Other`].
    Other,
    /// Not in the registry: [`crate::NodeKind::Unknown`].
    Unknown,
}

/// The engine that runs an operator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// Apache Spark's own operators.
    #[default]
    Spark,
    /// Databricks Photon (`Photon*` operators).
    Photon,
    /// RAPIDS Accelerator for Apache Spark (`Gpu*` operators).
    Gpu,
}

/// What the registry says about one operator name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Operator {
    /// The kind of node.
    pub family: Family,
    /// Who runs it.
    pub engine: Engine,
}

/// Known operators by operator word, sorted by name (byte order).
const OPERATORS: &[(&str, Family, Engine)] = &[
    ("AQEShuffleRead", Family::PassThrough, Engine::Spark),
    ("AdaptiveSparkPlan", Family::PassThrough, Engine::Spark),
    ("Aggregate", Family::Aggregate, Engine::Spark),
    ("AppendData", Family::Command, Engine::Spark),
    ("BatchScan", Family::Scan, Engine::Spark),
    ("BroadcastExchange", Family::Exchange, Engine::Spark),
    (
        "BroadcastHashJoin",
        Family::Join(JoinStrategy::BroadcastHashJoin),
        Engine::Spark,
    ),
    (
        "BroadcastNestedLoopJoin",
        Family::Join(JoinStrategy::BroadcastNestedLoopJoin),
        Engine::Spark,
    ),
    ("BroadcastQueryStage", Family::PassThrough, Engine::Spark),
    ("CTE", Family::PassThrough, Engine::Spark),
    ("CTERelationDef", Family::SubqueryRoot, Engine::Spark),
    ("CTERelationRef", Family::Reused, Engine::Spark),
    (
        "CartesianProduct",
        Family::Join(JoinStrategy::CartesianProduct),
        Engine::Spark,
    ),
    ("Coalesce", Family::Exchange, Engine::Spark),
    ("CoalesceExec", Family::Exchange, Engine::Spark),
    ("CollectLimit", Family::Limit, Engine::Spark),
    ("CollectTail", Family::Limit, Engine::Spark),
    ("ColumnarToRow", Family::PassThrough, Engine::Spark),
    ("ContinuousScan", Family::Scan, Engine::Spark),
    ("CreateTable", Family::Command, Engine::Spark),
    ("CustomShuffleReader", Family::PassThrough, Engine::Spark),
    ("DataSourceV2Relation", Family::Scan, Engine::Spark),
    ("DataSourceV2ScanRelation", Family::Scan, Engine::Spark),
    ("Deduplicate", Family::PassThrough, Engine::Spark),
    (
        "DeduplicateWithinWatermark",
        Family::PassThrough,
        Engine::Spark,
    ),
    ("Distinct", Family::PassThrough, Engine::Spark),
    ("DropTable", Family::Command, Engine::Spark),
    ("EmptyRelation", Family::LocalData, Engine::Spark),
    ("Except", Family::Other, Engine::Spark),
    ("Exchange", Family::Exchange, Engine::Spark),
    ("Execute", Family::Command, Engine::Spark),
    ("Expand", Family::Expand, Engine::Spark),
    ("FileScan", Family::Scan, Engine::Spark),
    ("Filter", Family::Filter, Engine::Spark),
    ("Generate", Family::Generate, Engine::Spark),
    ("GlobalLimit", Family::Limit, Engine::Spark),
    ("GlobalLimitExec", Family::Limit, Engine::Spark),
    ("HashAggregate", Family::Aggregate, Engine::Spark),
    ("Hint", Family::PassThrough, Engine::Spark),
    ("HiveTableRelation", Family::Scan, Engine::Spark),
    ("HiveTableScan", Family::Scan, Engine::Spark),
    ("InMemoryRelation", Family::Other, Engine::Spark),
    ("InMemoryTableScan", Family::Other, Engine::Spark),
    ("InputAdapter", Family::PassThrough, Engine::Spark),
    ("Intersect", Family::Other, Engine::Spark),
    ("Join", Family::Join(JoinStrategy::Join), Engine::Spark),
    ("Limit", Family::Limit, Engine::Spark),
    ("LocalLimit", Family::Limit, Engine::Spark),
    ("LocalLimitExec", Family::Limit, Engine::Spark),
    ("LocalRelation", Family::LocalData, Engine::Spark),
    ("LocalTableScan", Family::LocalData, Engine::Spark),
    ("LogicalRDD", Family::LocalData, Engine::Spark),
    ("LogicalRelation", Family::Scan, Engine::Spark),
    ("MergingSessionAggregate", Family::Aggregate, Engine::Spark),
    ("MicroBatchScan", Family::Scan, Engine::Spark),
    ("ObjectHashAggregate", Family::Aggregate, Engine::Spark),
    ("Offset", Family::Limit, Engine::Spark),
    ("OneRowRelation", Family::LocalData, Engine::Spark),
    ("OverwriteByExpression", Family::Command, Engine::Spark),
    ("OverwritePartitionsDynamic", Family::Command, Engine::Spark),
    ("Project", Family::Project, Engine::Spark),
    ("Range", Family::LocalData, Engine::Spark),
    ("RangeExec", Family::LocalData, Engine::Spark),
    ("RebalancePartitions", Family::Exchange, Engine::Spark),
    ("Relation", Family::Scan, Engine::Spark),
    ("RelationV2", Family::Scan, Engine::Spark),
    ("Repartition", Family::Exchange, Engine::Spark),
    ("RepartitionByExpression", Family::Exchange, Engine::Spark),
    ("ReplaceTableAsSelect", Family::Command, Engine::Spark),
    ("ResolvedHint", Family::PassThrough, Engine::Spark),
    ("ResultQueryStage", Family::PassThrough, Engine::Spark),
    ("ReturnAnswer", Family::PassThrough, Engine::Spark),
    ("ReusedExchange", Family::Reused, Engine::Spark),
    ("ReusedSubquery", Family::Reused, Engine::Spark),
    ("RowToColumnar", Family::PassThrough, Engine::Spark),
    ("Sample", Family::Other, Engine::Spark),
    ("Scan", Family::Scan, Engine::Spark),
    ("SetCatalogAndNamespace", Family::Command, Engine::Spark),
    ("ShuffleExchange", Family::Exchange, Engine::Spark),
    ("ShuffleQueryStage", Family::PassThrough, Engine::Spark),
    (
        "ShuffledHashJoin",
        Family::Join(JoinStrategy::ShuffledHashJoin),
        Engine::Spark,
    ),
    ("Sort", Family::Sort, Engine::Spark),
    ("SortAggregate", Family::Aggregate, Engine::Spark),
    (
        "SortMergeJoin",
        Family::Join(JoinStrategy::SortMergeJoin),
        Engine::Spark,
    ),
    ("StreamingRelation", Family::Scan, Engine::Spark),
    ("StreamingRelationV2", Family::Scan, Engine::Spark),
    ("Subquery", Family::SubqueryRoot, Engine::Spark),
    (
        "SubqueryAdaptiveBroadcast",
        Family::SubqueryRoot,
        Engine::Spark,
    ),
    ("SubqueryAlias", Family::SubqueryAlias, Engine::Spark),
    ("SubqueryBroadcast", Family::SubqueryRoot, Engine::Spark),
    ("TableCacheQueryStage", Family::PassThrough, Engine::Spark),
    ("Tail", Family::Limit, Engine::Spark),
    ("TakeOrderedAndProject", Family::TopK, Engine::Spark),
    ("Union", Family::Union, Engine::Spark),
    ("UnionExec", Family::Union, Engine::Spark),
    ("UnresolvedHaving", Family::Filter, Engine::Spark),
    ("UnresolvedHint", Family::PassThrough, Engine::Spark),
    ("UnresolvedRelation", Family::Scan, Engine::Spark),
    ("UpdatingSessionAggregate", Family::Aggregate, Engine::Spark),
    ("View", Family::PassThrough, Engine::Spark),
    ("WholeStageCodegen", Family::PassThrough, Engine::Spark),
    ("Window", Family::Window, Engine::Spark),
    ("WithCTE", Family::PassThrough, Engine::Spark),
    ("WriteFiles", Family::Command, Engine::Spark),
];

/// Words after `Scan` that name a scan of no table (`Scan OneRowRelation[]`,
/// `Scan ExistingRDD[a#1]`): local data.
const LOCAL_SCANS: &[&str] = &["ExistingRDD", "OneRowRelation"];

/// The operator word of a node name or operator text: what comes before
/// the first space, `(` or `[`, without Spark 2's `*` codegen marker
/// (`Scan` of `Scan parquet t`, `WholeStageCodegen` of `WholeStageCodegen
/// (3)`, `HashAggregate` of `HashAggregate(keys=[...])`).
pub fn operator_word(name: &str) -> &str {
    let t = name.trim_start();
    let t = t.strip_prefix('*').unwrap_or(t);
    let end = t.find([' ', '(', '[']).unwrap_or(t.len());
    &t[..end]
}

/// What an operator is, by its name as any plan source prints it: a node
/// name (`Scan parquet spark_catalog.default.orders`, `WholeStageCodegen
/// (3)`, `Execute CreateDataSourceTableCommand`), an operator word of plan
/// text (`HashAggregate`), or a TreeNode class's short name
/// (`LogicalRelation`).
pub fn operator(name: &str) -> Operator {
    let word = operator_word(name);
    let spark = |family| Operator {
        family,
        engine: Engine::Spark,
    };
    if word == "Scan" {
        let rest = name.trim_start().trim_start_matches('*')[4..].trim_start();
        if LOCAL_SCANS.iter().any(|w| rest.starts_with(w)) {
            return spark(Family::LocalData);
        }
    }
    if let Ok(i) = OPERATORS.binary_search_by(|(n, _, _)| (*n).cmp(word)) {
        let (_, family, engine) = OPERATORS[i];
        return Operator { family, engine };
    }
    // Families whose members share a naming pattern.
    if word.ends_with("Command")
        || word.starts_with("WriteFiles")
        || word.starts_with("CreateTable")
        || word.starts_with("InsertInto")
    {
        return spark(Family::Command);
    }
    if word.starts_with("WholeStageCodegen") {
        return spark(Family::PassThrough);
    }
    spark(Family::Unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_has_no_duplicates() {
        for w in OPERATORS.windows(2) {
            assert!(w[0].0 < w[1].0, "{} before {}", w[0].0, w[1].0);
        }
    }

    #[test]
    fn names_from_every_source_resolve() {
        let f = |n: &str| operator(n).family;
        assert_eq!(f("Scan parquet spark_catalog.default.orders"), Family::Scan);
        assert_eq!(f("Scan OneRowRelation"), Family::LocalData);
        assert_eq!(f("Scan ExistingRDD[a#1]"), Family::LocalData);
        assert_eq!(f("WholeStageCodegen (3)"), Family::PassThrough);
        assert_eq!(
            f("HashAggregate(keys=[a#1], functions=[])"),
            Family::Aggregate
        );
        assert_eq!(f("Execute CreateDataSourceTableCommand"), Family::Command);
        assert_eq!(f("InsertIntoHadoopFsRelationCommand"), Family::Command);
        assert_eq!(f("CreateTableAsSelect"), Family::Command);
        assert_eq!(f("LogicalRelation"), Family::Scan);
        assert_eq!(
            f("*BroadcastHashJoin"),
            Family::Join(JoinStrategy::BroadcastHashJoin)
        );
        assert_eq!(f("Join"), Family::Join(JoinStrategy::Join));
        // Known to one parser's table only before the registry existed.
        assert_eq!(f("SubqueryAdaptiveBroadcast"), Family::SubqueryRoot);
        assert_eq!(f("EmptyRelation"), Family::LocalData);
        assert_eq!(f("Mystery"), Family::Unknown);
        assert_eq!(operator("Project").engine, Engine::Spark);
        assert_eq!(operator_word("  *Project [a#1]"), "Project");
    }
}
