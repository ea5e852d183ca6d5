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
//! Each row also says at which [`Level`] the operator exists: physical plan
//! sources (formatted text, `sparkPlanInfo`) print a command's logical
//! arguments too (`Execute CreateViewCommand` over the view's
//! `LogicalRelation`s and `Join`s, which do not run), so a logical-only name
//! met in a physical plan is a known operator lineage does not model
//! ([`Family::Other`]), and the other way round.
//!
//! Other engines' operators map to accelerator-neutral families with their
//! engine: a Databricks Photon or RAPIDS GPU hash join is a hash join with
//! the same keys. `Photon`/`Gpu` + a Spark operator's name
//! (`PhotonBroadcastHashJoin`, `GpuShuffledHashJoin`, `GpuProject`) is that
//! Spark operator run by the accelerator; the names that are not
//! (`PhotonScan`, `PhotonAgg`, `GpuColumnarExchange`, `GpuCoalesceBatches`,
//! ...) have their own rows. Spark 2 prints whole-stage codegen as a `*`
//! before the name (`*BroadcastHashJoin`), which [`operator_word`] strips.

use serde::{Deserialize, Serialize};

/// Physical join operators, plus `Join` for logical plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum JoinStrategy {
    /// `SortMergeJoin`.
    SortMergeJoin,
    /// `BroadcastHashJoin`.
    BroadcastHashJoin,
    /// `ShuffledHashJoin`.
    ShuffledHashJoin,
    /// `BroadcastNestedLoopJoin`.
    BroadcastNestedLoopJoin,
    /// `CartesianProduct`.
    CartesianProduct,
    /// A logical `Join` (extended-mode logical plans, TreeNode JSON).
    Join,
}

impl JoinStrategy {
    /// The operator name as Spark prints it.
    pub fn as_str(&self) -> &'static str {
        match self {
            JoinStrategy::SortMergeJoin => "SortMergeJoin",
            JoinStrategy::BroadcastHashJoin => "BroadcastHashJoin",
            JoinStrategy::ShuffledHashJoin => "ShuffledHashJoin",
            JoinStrategy::BroadcastNestedLoopJoin => "BroadcastNestedLoopJoin",
            JoinStrategy::CartesianProduct => "CartesianProduct",
            JoinStrategy::Join => "Join",
        }
    }
}

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

/// The runtime that runs an operator (not a file-skipping model:
/// `skipping::Engine`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Runtime {
    /// Apache Spark's own operators.
    #[default]
    Spark,
    /// Databricks Photon (`Photon*` operators).
    Photon,
    /// RAPIDS Accelerator for Apache Spark (`Gpu*` operators).
    Gpu,
}

impl Runtime {
    /// The engine as records spell it: `spark`, `photon`, `gpu`.
    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::Spark => "spark",
            Runtime::Photon => "photon",
            Runtime::Gpu => "gpu",
        }
    }
}

/// At which level of a plan an operator exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Level {
    /// Executed plans: formatted text, `sparkPlanInfo`, the physical section
    /// of extended text.
    Physical,
    /// Logical plans (parsed, analyzed, optimized).
    Logical,
    /// Both, or a source that mixes them (extended text as a whole).
    Any,
}

/// What the registry says about one operator name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Operator {
    /// The kind of node.
    pub family: Family,
    /// Who runs it.
    pub engine: Runtime,
}

/// Known operators by operator word, sorted by name (byte order): family,
/// engine, and the plan level the operator exists at.
const OPERATORS: &[(&str, Family, Runtime, Level)] = &[
    (
        "AQEShuffleRead",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "AdaptiveSparkPlan",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "Aggregate",
        Family::Aggregate,
        Runtime::Spark,
        Level::Logical,
    ),
    ("AppendData", Family::Command, Runtime::Spark, Level::Any),
    // Python UDFs: the input rows plus one computed column per UDF
    // (`Arguments: [norm_key(o_custkey#34L)#514L], [pythonUDF0#515L]`).
    (
        "ArrowEvalPython",
        Family::Project,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "BatchEvalPython",
        Family::Project,
        Runtime::Spark,
        Level::Physical,
    ),
    ("BatchScan", Family::Scan, Runtime::Spark, Level::Physical),
    (
        "BroadcastExchange",
        Family::Exchange,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "BroadcastHashJoin",
        Family::Join(JoinStrategy::BroadcastHashJoin),
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "BroadcastNestedLoopJoin",
        Family::Join(JoinStrategy::BroadcastNestedLoopJoin),
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "BroadcastQueryStage",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    ("CTE", Family::PassThrough, Runtime::Spark, Level::Logical),
    (
        "CTERelationDef",
        Family::SubqueryRoot,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "CTERelationRef",
        Family::Reused,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "CartesianProduct",
        Family::Join(JoinStrategy::CartesianProduct),
        Runtime::Spark,
        Level::Physical,
    ),
    ("Coalesce", Family::Exchange, Runtime::Spark, Level::Any),
    (
        "CoalesceExec",
        Family::Exchange,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "CollectLimit",
        Family::Limit,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "CollectTail",
        Family::Limit,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "ColumnarToRow",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    // The result rows of an eagerly run command (`spark.sql("INSERT ...")`
    // then `.collect()`): its tree repeats the command's, which ran before.
    ("CommandResult", Family::Command, Runtime::Spark, Level::Any),
    (
        "ContinuousScan",
        Family::Scan,
        Runtime::Spark,
        Level::Physical,
    ),
    // V2 namespace commands (`CREATE DATABASE`, `DROP DATABASE`): the
    // physical and logical plans print the same name.
    (
        "CreateNamespace",
        Family::Command,
        Runtime::Spark,
        Level::Any,
    ),
    (
        "CreateTable",
        Family::Command,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "CustomShuffleReader",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "DataSourceV2Relation",
        Family::Scan,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "DataSourceV2ScanRelation",
        Family::Scan,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "Deduplicate",
        Family::PassThrough,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "DeduplicateWithinWatermark",
        Family::PassThrough,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "Distinct",
        Family::PassThrough,
        Runtime::Spark,
        Level::Logical,
    ),
    ("DropNamespace", Family::Command, Runtime::Spark, Level::Any),
    ("DropTable", Family::Command, Runtime::Spark, Level::Any),
    (
        "EmptyRelation",
        Family::LocalData,
        Runtime::Spark,
        Level::Physical,
    ),
    ("Except", Family::Other, Runtime::Spark, Level::Logical),
    (
        "Exchange",
        Family::Exchange,
        Runtime::Spark,
        Level::Physical,
    ),
    ("Execute", Family::Command, Runtime::Spark, Level::Physical),
    ("Expand", Family::Expand, Runtime::Spark, Level::Any),
    ("FileScan", Family::Scan, Runtime::Spark, Level::Physical),
    ("Filter", Family::Filter, Runtime::Spark, Level::Any),
    ("Generate", Family::Generate, Runtime::Spark, Level::Any),
    ("GlobalLimit", Family::Limit, Runtime::Spark, Level::Any),
    (
        "GlobalLimitExec",
        Family::Limit,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "HashAggregate",
        Family::Aggregate,
        Runtime::Spark,
        Level::Physical,
    ),
    ("Hint", Family::PassThrough, Runtime::Spark, Level::Logical),
    (
        "HiveTableRelation",
        Family::Scan,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "HiveTableScan",
        Family::Scan,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "InMemoryRelation",
        Family::Other,
        Runtime::Spark,
        Level::Any,
    ),
    (
        "InMemoryTableScan",
        Family::Other,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "InputAdapter",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    ("Intersect", Family::Other, Runtime::Spark, Level::Logical),
    (
        "Join",
        Family::Join(JoinStrategy::Join),
        Runtime::Spark,
        Level::Logical,
    ),
    ("Limit", Family::Limit, Runtime::Spark, Level::Logical),
    ("LocalLimit", Family::Limit, Runtime::Spark, Level::Any),
    (
        "LocalLimitExec",
        Family::Limit,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "LocalRelation",
        Family::LocalData,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "LocalTableScan",
        Family::LocalData,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "LogicalRDD",
        Family::LocalData,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "LogicalRelation",
        Family::Scan,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "MergingSessionAggregate",
        Family::Aggregate,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "MicroBatchScan",
        Family::Scan,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "ObjectHashAggregate",
        Family::Aggregate,
        Runtime::Spark,
        Level::Physical,
    ),
    ("Offset", Family::Limit, Runtime::Spark, Level::Logical),
    (
        "OneRowRelation",
        Family::LocalData,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "OverwriteByExpression",
        Family::Command,
        Runtime::Spark,
        Level::Any,
    ),
    (
        "OverwritePartitionsDynamic",
        Family::Command,
        Runtime::Spark,
        Level::Any,
    ),
    ("Project", Family::Project, Runtime::Spark, Level::Any),
    ("Range", Family::LocalData, Runtime::Spark, Level::Any),
    (
        "RangeExec",
        Family::LocalData,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "RebalancePartitions",
        Family::Exchange,
        Runtime::Spark,
        Level::Logical,
    ),
    ("Relation", Family::Scan, Runtime::Spark, Level::Logical),
    ("RelationV2", Family::Scan, Runtime::Spark, Level::Logical),
    (
        "Repartition",
        Family::Exchange,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "RepartitionByExpression",
        Family::Exchange,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "ReplaceTableAsSelect",
        Family::Command,
        Runtime::Spark,
        Level::Any,
    ),
    (
        "ResolvedHint",
        Family::PassThrough,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "ResultQueryStage",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "ReturnAnswer",
        Family::PassThrough,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "ReusedExchange",
        Family::Reused,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "ReusedSubquery",
        Family::Reused,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "RowToColumnar",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    ("Sample", Family::Other, Runtime::Spark, Level::Any),
    ("Scan", Family::Scan, Runtime::Spark, Level::Physical),
    (
        "SetCatalogAndNamespace",
        Family::Command,
        Runtime::Spark,
        Level::Any,
    ),
    (
        "ShuffleExchange",
        Family::Exchange,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "ShuffleQueryStage",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "ShuffledHashJoin",
        Family::Join(JoinStrategy::ShuffledHashJoin),
        Runtime::Spark,
        Level::Physical,
    ),
    ("Sort", Family::Sort, Runtime::Spark, Level::Any),
    (
        "SortAggregate",
        Family::Aggregate,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "SortMergeJoin",
        Family::Join(JoinStrategy::SortMergeJoin),
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "StreamingRelation",
        Family::Scan,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "StreamingRelationV2",
        Family::Scan,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "Subquery",
        Family::SubqueryRoot,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "SubqueryAdaptiveBroadcast",
        Family::SubqueryRoot,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "SubqueryAlias",
        Family::SubqueryAlias,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "SubqueryBroadcast",
        Family::SubqueryRoot,
        Runtime::Spark,
        Level::Physical,
    ),
    (
        "TableCacheQueryStage",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    ("Tail", Family::Limit, Runtime::Spark, Level::Logical),
    (
        "TakeOrderedAndProject",
        Family::TopK,
        Runtime::Spark,
        Level::Physical,
    ),
    ("Union", Family::Union, Runtime::Spark, Level::Any),
    ("UnionExec", Family::Union, Runtime::Spark, Level::Physical),
    (
        "UnresolvedHaving",
        Family::Filter,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "UnresolvedHint",
        Family::PassThrough,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "UnresolvedRelation",
        Family::Scan,
        Runtime::Spark,
        Level::Logical,
    ),
    (
        "UpdatingSessionAggregate",
        Family::Aggregate,
        Runtime::Spark,
        Level::Physical,
    ),
    ("View", Family::PassThrough, Runtime::Spark, Level::Logical),
    (
        "WholeStageCodegen",
        Family::PassThrough,
        Runtime::Spark,
        Level::Physical,
    ),
    ("Window", Family::Window, Runtime::Spark, Level::Any),
    (
        "WithCTE",
        Family::PassThrough,
        Runtime::Spark,
        Level::Logical,
    ),
    // Hands its input rows unchanged to the write command above it: the key
    // columns of an INSERT's joins pass through it.
    (
        "WriteFiles",
        Family::PassThrough,
        Runtime::Spark,
        Level::Any,
    ),
];

/// Accelerator operators whose names are not `Photon`/`Gpu` + a Spark
/// operator's name, with the accelerator-neutral family they map to.
/// (`PhotonBroadcastHashJoin`, `GpuProject`, ... are found through the
/// Spark row of the name after the prefix; see [`operator`].) Sorted.
const ACCELERATED: &[(&str, Family, Runtime)] = &[
    ("GpuBringBackToHost", Family::PassThrough, Runtime::Gpu),
    ("GpuCoalesceBatches", Family::PassThrough, Runtime::Gpu),
    ("GpuColumnarExchange", Family::Exchange, Runtime::Gpu),
    ("GpuColumnarToRow", Family::PassThrough, Runtime::Gpu),
    ("GpuFileGpuScan", Family::Scan, Runtime::Gpu),
    ("GpuFileSourceScanExec", Family::Scan, Runtime::Gpu),
    ("GpuRowToColumnar", Family::PassThrough, Runtime::Gpu),
    ("GpuScan", Family::Scan, Runtime::Gpu),
    ("GpuShuffleCoalesce", Family::PassThrough, Runtime::Gpu),
    ("GpuSubqueryBroadcast", Family::Exchange, Runtime::Gpu),
    ("GpuTopN", Family::TopK, Runtime::Gpu),
    ("PhotonAgg", Family::Aggregate, Runtime::Photon),
    ("PhotonGroupingAgg", Family::Aggregate, Runtime::Photon),
    ("PhotonResultStage", Family::PassThrough, Runtime::Photon),
    ("PhotonScan", Family::Scan, Runtime::Photon),
    (
        "PhotonShuffleExchangeSink",
        Family::Exchange,
        Runtime::Photon,
    ),
    (
        "PhotonShuffleExchangeSource",
        Family::Exchange,
        Runtime::Photon,
    ),
    (
        "PhotonShuffleMapStage",
        Family::PassThrough,
        Runtime::Photon,
    ),
    ("PhotonTopK", Family::TopK, Runtime::Photon),
];

/// Words after `Scan` that name a scan of no table (`Scan OneRowRelation[]`,
/// `Scan ExistingRDD[a#1]`): local data.
const LOCAL_SCANS: &[&str] = &["ExistingRDD", "OneRowRelation"];

/// The operator word of a node name or operator text: what comes before
/// the first space, `(` or `[` (`Scan` of `Scan parquet t`,
/// `WholeStageCodegen` of `WholeStageCodegen (3)`, `HashAggregate` of
/// `HashAggregate(keys=[...])`).
pub fn operator_word(name: &str) -> &str {
    let t = name.trim_start();
    // Spark 2 marks whole-stage-codegen'd operators with a bare `*`
    // (`*BroadcastHashJoin`), where Spark 3 prints `*(1) `.
    let t = match t.strip_prefix('*') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_alphabetic()) => rest,
        _ => t,
    };
    let end = t.find([' ', '(', '[']).unwrap_or(t.len());
    &t[..end]
}

/// What an operator is, by its name as a plan source of the given level
/// prints it: a node name (`Scan parquet spark_catalog.default.orders`,
/// `WholeStageCodegen (3)`, `Execute CreateDataSourceTableCommand`), an
/// operator word of plan text (`HashAggregate`), or a TreeNode class's
/// short name (`LogicalRelation`).
pub fn operator(name: &str, level: Level) -> Operator {
    let word = operator_word(name);
    let spark = |family| Operator {
        family,
        engine: Runtime::Spark,
    };
    if word == "Scan" && level != Level::Logical {
        let rest = name.trim_start()[4..].trim_start();
        if LOCAL_SCANS.iter().any(|w| rest.starts_with(w)) {
            return spark(Family::LocalData);
        }
    }
    if let Ok(i) = OPERATORS.binary_search_by(|(n, ..)| (*n).cmp(word)) {
        let (_, family, engine, at) = OPERATORS[i];
        let family = match (at, level) {
            (Level::Physical, Level::Logical) | (Level::Logical, Level::Physical) => Family::Other,
            (Level::Any, _)
            | (_, Level::Any)
            | (Level::Physical, Level::Physical)
            | (Level::Logical, Level::Logical) => family,
        };
        return Operator { family, engine };
    }
    if let Ok(i) = ACCELERATED.binary_search_by(|(n, ..)| (*n).cmp(word)) {
        let (_, family, engine) = ACCELERATED[i];
        return Operator { family, engine };
    }
    // `PhotonBroadcastHashJoin`, `GpuShuffledHashJoin`, `GpuProject`: the
    // Spark operator of the same name, run by the accelerator.
    for (prefix, engine) in [("Photon", Runtime::Photon), ("Gpu", Runtime::Gpu)] {
        if let Some(rest) = word.strip_prefix(prefix) {
            let base = operator(rest, level);
            if base.family != Family::Unknown && base.engine == Runtime::Spark {
                return Operator {
                    family: base.family,
                    engine,
                };
            }
        }
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
        for w in ACCELERATED.windows(2) {
            assert!(w[0].0 < w[1].0, "{} before {}", w[0].0, w[1].0);
        }
    }

    #[test]
    fn photon_gpu_and_spark2_operators_map_to_neutral_families() {
        let op = |n| operator(n, Level::Physical);
        let join = |s| Family::Join(s);
        // Names as the public Databricks 13.3 Photon and RAPIDS logs print them.
        for (name, family, engine) in [
            (
                "PhotonBroadcastHashJoin",
                join(JoinStrategy::BroadcastHashJoin),
                Runtime::Photon,
            ),
            (
                "PhotonShuffledHashJoin",
                join(JoinStrategy::ShuffledHashJoin),
                Runtime::Photon,
            ),
            (
                "PhotonBroadcastNestedLoopJoin",
                join(JoinStrategy::BroadcastNestedLoopJoin),
                Runtime::Photon,
            ),
            ("PhotonScan parquet ", Family::Scan, Runtime::Photon),
            ("PhotonProject", Family::Project, Runtime::Photon),
            ("PhotonAgg", Family::Aggregate, Runtime::Photon),
            (
                "PhotonShuffleExchangeSource",
                Family::Exchange,
                Runtime::Photon,
            ),
            (
                "GpuShuffledHashJoin",
                join(JoinStrategy::ShuffledHashJoin),
                Runtime::Gpu,
            ),
            (
                "GpuBroadcastHashJoin",
                join(JoinStrategy::BroadcastHashJoin),
                Runtime::Gpu,
            ),
            ("GpuScan parquet ", Family::Scan, Runtime::Gpu),
            ("GpuProject", Family::Project, Runtime::Gpu),
            ("GpuColumnarExchange", Family::Exchange, Runtime::Gpu),
            ("GpuHashAggregate", Family::Aggregate, Runtime::Gpu),
            (
                "*BroadcastHashJoin",
                join(JoinStrategy::BroadcastHashJoin),
                Runtime::Spark,
            ),
            ("*FileScan csv", Family::Scan, Runtime::Spark),
            ("*Project", Family::Project, Runtime::Spark),
        ] {
            assert_eq!(op(name), Operator { family, engine }, "{name}");
        }
        assert_eq!(op("PhotonNoSuchThing").family, Family::Unknown);
        assert_eq!(op("CommandResult").family, Family::Command);
    }

    #[test]
    fn names_from_every_source_resolve() {
        let f = |n: &str| operator(n, Level::Any).family;
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
        // Spark 2's codegen marker is stripped.
        assert_eq!(
            f("*BroadcastHashJoin"),
            Family::Join(JoinStrategy::BroadcastHashJoin)
        );
        assert_eq!(f("Join"), Family::Join(JoinStrategy::Join));
        // Known to one parser's table only before the registry existed.
        assert_eq!(f("SubqueryAdaptiveBroadcast"), Family::SubqueryRoot);
        assert_eq!(f("EmptyRelation"), Family::LocalData);
        assert_eq!(f("Mystery"), Family::Unknown);
        assert_eq!(operator("Project", Level::Physical).engine, Runtime::Spark);
        assert_eq!(operator_word("  Project [a#1]"), "Project");
    }

    #[test]
    fn operators_of_the_other_plan_level_are_known_but_not_modelled() {
        // A command's logical arguments in a physical plan (formatted
        // `Execute CreateViewCommand` over the view's plan).
        let p = |n: &str| operator(n, Level::Physical).family;
        assert_eq!(p("LogicalRelation"), Family::Other);
        assert_eq!(p("Join"), Family::Other);
        assert_eq!(p("SubqueryAlias"), Family::Other);
        assert_eq!(p("Project"), Family::Project);
        let l = |n: &str| operator(n, Level::Logical).family;
        assert_eq!(l("HashAggregate"), Family::Other);
        assert_eq!(l("Join"), Family::Join(JoinStrategy::Join));
        assert_eq!(l("Mystery"), Family::Unknown);
    }
}
