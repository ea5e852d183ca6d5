//! Where results go and in which format: the `tabular` crate's, named here
//! once for the commands.

pub use tabular::files::{open_out, OutDir};
pub use tabular::{write_columns, write_records, Format};

/// Write one output with `f` and finish it (as [`tabular::write_to`]).
pub fn write_to(
    path: Option<&std::path::Path>,
    f: impl FnOnce(&mut dyn std::io::Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut out = open_out(path)?;
    f(&mut out)?;
    Ok(out.finish()?)
}
