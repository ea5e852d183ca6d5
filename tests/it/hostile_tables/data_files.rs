//! Data files as a hostile user writes them (issue 29.1, 29.2): `whatif`
//! reads the rows of a table's data files to simulate layouts, and
//! `--records`/`--aggregates` read Parquet files, through polars. Each case
//! takes a real data file of the skipping fixture (TPC-H `orders` and
//! `lineitem` by deltalake) apart ([`crate::common::parquet`]), changes
//! one value and puts it back; the run must exit 2 with an error naming
//! the file, stay under the memory cap (`ulimit -v`), and still simulate
//! `lineitem` and the other `orders` files.

use super::{bin, VMEM_KB};
use crate::common::parquet::{rle_run_header, Parquet};
use crate::common::{copy_dir, scratch_dir};
use polars_parquet_format::{Encoding, PageType, Type};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch copy of the skipping fixture's random-layout tables.
struct Tables {
    root: PathBuf,
}

impl Tables {
    fn new(name: &str) -> Tables {
        let root = scratch_dir(&format!("hostile-data-{name}"));
        copy_dir(&testdata::data("skipping/delta/random"), &root.join("wh"));
        Tables { root }
    }

    /// The first data file of `table`, by name.
    fn first_file(&self, table: &str) -> PathBuf {
        let mut files: Vec<PathBuf> = fs::read_dir(self.root.join("wh").join(table))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .collect();
        files.sort();
        files.remove(0)
    }

    /// Replace `file` by `f` of its parts.
    fn craft(&self, file: &Path, f: impl FnOnce(&mut Parquet)) {
        let mut p = Parquet::parse(&fs::read(file).unwrap());
        p.decompress();
        f(&mut p);
        fs::write(file, p.write()).unwrap();
    }

    /// `whatif` of the fixture's log on the copy, with a layout for each
    /// table, under the memory cap.
    fn whatif(&self) -> Output {
        self.whatif_env(&[])
    }

    /// [`Tables::whatif`] with `env` set.
    fn whatif_env(&self, env: &[(&str, &str)]) -> Output {
        self.whatif_env_args(env, &[])
    }

    /// [`Tables::whatif`] with `env` set and `extra` flags.
    fn whatif_env_args(&self, env: &[(&str, &str)], extra: &[&str]) -> Output {
        Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v {VMEM_KB}; exec \"$0\" \"$@\""))
            .arg(bin())
            .arg("whatif")
            .arg(testdata::data("skipping/spark-events"))
            .arg("--tables")
            .arg(self.root.join("wh"))
            .args([
                "--layout",
                "lineitem=l_shipdate;orders=o_orderdate",
                "--engine",
                "minmax",
                "--format",
                "jsonl",
            ])
            .args(extra)
            .env_remove("RUST_BACKTRACE")
            .envs(env.iter().copied())
            .output()
            .expect("run lakeaudit")
    }

    /// The common assertions: exit 2, an error naming `file` and saying
    /// `what`, and both tables simulated (lineitem in full; orders from
    /// its other files).
    fn refused(&self, o: &Output, file: &Path, what: &str) {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        let name = file.display().to_string();
        assert!(
            err.lines()
                .any(|l| l.starts_with("lakeaudit: ") && l.contains(&name) && l.contains(what)),
            "no error naming {name} with {what:?}:\n{err}"
        );
        let rows: Vec<Value> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for (table, layout) in [("lineitem", "l_shipdate"), ("orders", "o_orderdate")] {
            assert!(
                rows.iter()
                    .any(|r| r["table"] == table && r["layout"] == layout),
                "no {table} {layout} rows:\n{err}"
            );
        }
    }
}

impl Drop for Tables {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// The index of `column` among the chunks of a row group.
fn column(p: &Parquet, name: &str) -> usize {
    p.meta.row_groups[0]
        .columns
        .iter()
        .position(|c| c.meta_data.as_ref().unwrap().path_in_schema == [name])
        .unwrap_or_else(|| panic!("no column {name}"))
}

/// The first data page of chunk `c` of the first row group.
fn first_data_page(p: &mut Parquet, c: usize) -> &mut crate::common::parquet::Page {
    p.chunks[0][c]
        .iter_mut()
        .find(|pg| pg.header.type_ != PageType::DICTIONARY_PAGE)
        .unwrap()
}

#[test]
fn a_footer_claiming_a_trillion_rows_is_refused_before_reading() {
    let t = Tables::new("rows");
    let f = t.first_file("orders");
    t.craft(&f, |p| {
        p.meta.num_rows = 1_000_000_000_000;
        p.meta.row_groups[0].num_rows = 1_000_000_000_000;
    });
    let o = t.whatif();
    t.refused(&o, &f, "rows");
}

#[test]
fn a_page_claiming_more_values_than_its_chunk_is_refused() {
    let t = Tables::new("values");
    let f = t.first_file("orders");
    t.craft(&f, |p| {
        let c = column(p, "o_orderdate");
        let page = first_data_page(p, c);
        if let Some(h) = page.header.data_page_header.as_mut() {
            h.num_values = i32::MAX;
        }
        if let Some(h) = page.header.data_page_header_v2.as_mut() {
            h.num_values = i32::MAX;
            h.num_rows = i32::MAX;
        }
    });
    let o = t.whatif();
    t.refused(&o, &f, "values");
}

#[test]
fn a_dictionary_claiming_two_billion_entries_is_refused() {
    let t = Tables::new("dict");
    let f = t.first_file("orders");
    t.craft(&f, |p| {
        let c = column(p, "o_orderdate");
        let dict = p.chunks[0][c]
            .iter_mut()
            .find(|pg| pg.header.type_ == PageType::DICTIONARY_PAGE)
            .expect("deltalake writes a dictionary page");
        dict.header
            .dictionary_page_header
            .as_mut()
            .unwrap()
            .num_values = i32::MAX;
    });
    let o = t.whatif();
    t.refused(&o, &f, "dictionary");
}

#[test]
fn an_rle_run_longer_than_its_page_is_refused() {
    let t = Tables::new("rle");
    let f = t.first_file("orders");
    t.craft(&f, |p| {
        let c = column(p, "o_orderdate");
        let page = first_data_page(p, c);
        // deltalake writes the column REQUIRED (no levels) and dictionary
        // encoded: the page is the indices' bit width, then their
        // RLE/bit-packed runs. One RLE run of 2^31 - 1 indices replaces
        // them.
        let v1 = page
            .header
            .data_page_header
            .as_ref()
            .expect("a v1 data page");
        assert_eq!(v1.encoding, Encoding::RLE_DICTIONARY);
        let width = page.body[0];
        let mut body = vec![width];
        body.extend(rle_run_header(i32::MAX as u64));
        body.extend(vec![0u8; usize::from(width).div_ceil(8)]);
        page.header.uncompressed_page_size = body.len() as i32;
        page.header.compressed_page_size = body.len() as i32;
        page.body = body;
    });
    let o = t.whatif();
    t.refused(&o, &f, "run");
}

#[test]
fn a_page_whose_body_outgrows_its_header_is_refused() {
    let t = Tables::new("bomb");
    let f = t.first_file("orders");
    t.craft(&f, |p| {
        let c = column(p, "o_orderdate");
        let m = p.meta.row_groups[0].columns[c].meta_data.as_mut().unwrap();
        assert_eq!(m.type_, Type::INT32);
        m.codec = polars_parquet_format::CompressionCodec::ZSTD;
        m.total_uncompressed_size = 1 << 29;
        for page in &mut p.chunks[0][c] {
            // 512 MiB of zeros behind a header that says so: zstd packs
            // them into a few KiB.
            let plain = vec![0u8; 1 << 29];
            page.body = zstd::bulk::compress(&plain, 3).unwrap();
            page.header.uncompressed_page_size = 1 << 29;
            page.header.compressed_page_size = page.body.len() as i32;
        }
    });
    let o = t.whatif();
    t.refused(&o, &f, "uncompressed");
}

#[test]
fn delta_row_counts_that_lie_read_no_more_than_the_file_holds() {
    // `numRecords: 1` on a file whose footer holds 200 million rows.
    let t = Tables::new("numrecords");
    let f = t.first_file("orders");
    t.craft(&f, |p| {
        p.meta.num_rows = 200_000_000;
        p.meta.row_groups[0].num_rows = 200_000_000;
    });
    let log = t
        .root
        .join("wh/orders/_delta_log/00000000000000000000.json");
    let name = f.file_name().unwrap().to_string_lossy().into_owned();
    let text: String = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["add"]["path"].as_str() == Some(&name) {
                let stats: Value =
                    serde_json::from_str(v["add"]["stats"].as_str().unwrap()).unwrap();
                let mut stats = stats.as_object().unwrap().clone();
                stats.insert("numRecords".into(), 1.into());
                v["add"]["stats"] = Value::String(Value::Object(stats).to_string());
            }
            v.to_string() + "\n"
        })
        .collect();
    fs::write(&log, text).unwrap();
    let o = t.whatif();
    t.refused(&o, &f, "rows");
}

/// A panic while one table's data files are read (a dependency's bug on
/// some file, injected here in debug builds) costs that table's simulated
/// layouts, named as an error; the other table is simulated and every
/// row is written (issue 29.2: a footer claiming 2^40 bytes panicked
/// inside polars and nothing was written).
#[test]
#[cfg(debug_assertions)]
fn a_panic_reading_one_table_costs_that_table_only() {
    let t = Tables::new("panic");
    let f = t.first_file("orders");
    let name = f.file_name().unwrap().to_string_lossy().into_owned();
    let o = t.whatif_env(&[("LAKEAUDIT_TEST_PANIC_ON", &name)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let orders = t.root.join("wh/orders").display().to_string();
    assert!(
        err.lines().any(|l| l.starts_with("lakeaudit: ")
            && l.contains(&orders)
            && l.contains("layout simulation failed")),
        "{err}"
    );
    assert!(!err.contains("internal error"), "{err}");
    let rows: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(rows
        .iter()
        .any(|r| r["table"] == "lineitem" && r["layout"] == "l_shipdate"));
    assert!(rows
        .iter()
        .any(|r| r["table"] == "orders" && r["layout"] == "current"));
    assert!(!rows
        .iter()
        .any(|r| r["table"] == "orders" && r["layout"] == "o_orderdate"));
}

/// `--allow-outside-table` lets `whatif` read a data file the metadata
/// names outside the table, as it lets the audit read metadata there; it
/// was ignored (issue 29, "Also seen").
#[test]
fn whatif_honours_allow_outside_table() {
    let t = Tables::new("outside");
    let f = t.first_file("orders");
    let name = f.file_name().unwrap().to_string_lossy().into_owned();
    let elsewhere = t.root.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let moved = elsewhere.join(&name);
    fs::rename(&f, &moved).unwrap();
    let log = t
        .root
        .join("wh/orders/_delta_log/00000000000000000000.json");
    let uri = format!("file://{}", moved.canonicalize().unwrap().display());
    let text: String = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["add"]["path"].as_str() == Some(&name) {
                v["add"]["path"] = Value::String(uri.clone());
            }
            v.to_string() + "\n"
        })
        .collect();
    fs::write(&log, text).unwrap();
    let sampled = |o: &Output| -> u64 {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|r| r["table"] == "orders" && r["layout"] == "o_orderdate")
            .map(|r| r["sample_rows"].as_u64().unwrap())
            .max()
            .expect("orders simulated")
    };
    let without = t.whatif();
    let err = String::from_utf8_lossy(&without.stderr);
    assert!(
        err.lines()
            .any(|l| l.contains(&name) && l.contains("outside")),
        "{err}"
    );
    let with = t.whatif_env_args(&[], &["--allow-outside-table"]);
    let err = String::from_utf8_lossy(&with.stderr);
    assert!(!err.contains("outside"), "{err}");
    assert!(sampled(&with) > sampled(&without), "{err}");
}
