//! Compaction and row-level delete maintenance, simulated from table
//! metadata the way each engine plans it.
//!
//! * [`summarize`]: one `table_state` record per table.
//! * [`compaction`]: what `OPTIMIZE` (Delta, Fabric) or `rewrite_data_files`
//!   (Iceberg) or Amoro's self-optimizing would rewrite, per partition.
//! * [`deletes`]: per data file with deletes, the deleted ratio, the read
//!   amplification and a verdict with the rule that fired.
//! * [`upkeep`]: the layout plan's reclusters and these steps as one
//!   maintenance plan, ranked by value.
//! * [`audit::audit`]: tables read in parallel by
//!   [`tables::each::read_each`] and judged, each table's failure its own
//!   [`Error`] (its reader's error, or a panic while reading or auditing it).
//!
//! ```
//! use maintenance::{compaction, Policy, Settings};
//! let t = tables::TableState::default();
//! let rows = compaction(&t, Policy::Iceberg, &Settings::for_table(&t, Policy::Iceberg, None));
//! assert!(rows.is_empty());
//! ```

pub mod audit;
mod deletes;
pub mod error;
pub mod inputs;
mod policy;
mod state;
mod upkeep;

pub use deletes::{deletes, DeleteFileRow, DeleteRollup, Verdict};
pub use error::Error;
pub use policy::{
    compaction, grouped_statements, iceberg_call, table_parts, Atoms, CompactionRow, Policy,
    PolicyChoice, Scope, Settings, ICEBERG_CATALOG, PARTITIONS_PER_STATEMENT,
};
pub use state::{summarize, TableStateRow};
pub use upkeep::{upkeep, upkeep_for_plan, Action, TableUpkeep, UpkeepStep, Workload};

/// 1 MiB.
pub const MIB: u64 = 1 << 20;
/// 1 GiB.
pub const GIB: u64 = 1 << 30;
