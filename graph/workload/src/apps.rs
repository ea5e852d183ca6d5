//! A run's application summaries, held compactly: an archive can hold
//! hundreds of thousands of applications, and a summary as Rust values
//! (its properties and event counts in maps) costs over a kilobyte. An
//! [`AppList`] keeps them as JSON lines compressed in blocks, a few dozen
//! bytes each, and gives them back in the order they were pushed.

use parsers::events::AppSummary;

/// Summaries a block holds before it is compressed.
const BLOCK: usize = 256;

/// Application summaries in order, compressed in blocks of 256.
#[derive(Clone, Debug, Default)]
pub struct AppList {
    /// Full blocks, each `BLOCK` summaries as zstd-compressed JSON lines.
    blocks: Vec<Box<[u8]>>,
    /// JSON lines of the summaries pushed since the last full block.
    open: Vec<u8>,
    /// How many summaries in all.
    len: usize,
}

impl AppList {
    /// An empty list.
    pub fn new() -> Self {
        AppList::default()
    }

    /// How many summaries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append a summary.
    pub fn push(&mut self, app: &AppSummary) {
        // A summary is maps of strings and numbers: it always serializes.
        if serde_json::to_writer(&mut self.open, app).is_err() {
            return;
        }
        self.open.push(b'\n');
        self.len += 1;
        if self.len.is_multiple_of(BLOCK) {
            let packed = zstd::bulk::compress(&self.open, 1).unwrap_or_else(|_| self.open.clone());
            self.blocks.push(packed.into_boxed_slice());
            self.open.clear();
        }
    }

    /// Write the summaries as JSON lines (each as `serde_json` writes an
    /// [`AppSummary`]), in order.
    pub fn write_jsonl(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        for b in &self.blocks {
            out.write_all(&zstd::stream::decode_all(&b[..])?)?;
        }
        out.write_all(&self.open)?;
        out.flush()
    }

    /// The summaries, in the order they were pushed.
    pub fn iter(&self) -> impl Iterator<Item = AppSummary> + '_ {
        let full = self.blocks.iter().flat_map(|b| {
            // Each block is `BLOCK` lines of at most what was compressed.
            let text = zstd::stream::decode_all(&b[..]).unwrap_or_default();
            lines(text)
        });
        full.chain(lines(self.open.clone()))
    }
}

/// The summaries of JSON lines this list wrote.
fn lines(text: Vec<u8>) -> impl Iterator<Item = AppSummary> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = text.get(at..).filter(|r| !r.is_empty())?;
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        at += end + 1;
        serde_json::from_slice(&rest[..end]).ok()
    })
}

impl From<Vec<AppSummary>> for AppList {
    fn from(apps: Vec<AppSummary>) -> Self {
        apps.iter().collect()
    }
}

impl<'a> FromIterator<&'a AppSummary> for AppList {
    fn from_iter<I: IntoIterator<Item = &'a AppSummary>>(apps: I) -> Self {
        let mut list = AppList::new();
        for a in apps {
            list.push(a);
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parsers::events::EventKind;

    #[test]
    fn summaries_come_back_whole_and_in_order() {
        let apps: Vec<AppSummary> = (0..BLOCK * 2 + 7)
            .map(|i| AppSummary {
                app_id: format!("app-{i}"),
                app_name: "nightly \"etl\"\n".into(),
                spark_version: Some("4.0.1".into()),
                start_ms: Some(i as i64),
                properties: [("spark.master".to_string(), "local[2]".to_string())].into(),
                event_counts: [(EventKind::TaskEnd, i as u64), (EventKind::Other, 3)].into(),
                unknown_operators: [("GpuScan".to_string(), 2)].into(),
                lines: 10 * i as u64,
                ..AppSummary::default()
            })
            .collect();
        let list = AppList::from(apps.clone());
        assert_eq!(list.len(), apps.len());
        let back: Vec<AppSummary> = list.iter().collect();
        let json = |a: &[AppSummary]| serde_json::to_string(a).unwrap();
        assert_eq!(json(&back), json(&apps));
        assert!(AppList::new().iter().next().is_none());
        // As JSON lines: what a list of the summaries gives.
        let mut lines = Vec::new();
        list.write_jsonl(&mut lines).unwrap();
        let expected: String = apps
            .iter()
            .map(|a| serde_json::to_string(a).unwrap() + "\n")
            .collect();
        assert_eq!(String::from_utf8(lines).unwrap(), expected);
    }
}
