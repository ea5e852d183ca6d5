//! Table metadata as a hostile user writes it (issue 16): each case is a
//! copy of a real fixture (`tests/data/tables`, `samples/warehouse`)
//! mutated here, beside an intact copy of `customers`. Each run must exit 2
//! with an error naming the file, print no byte of a secret file the
//! crafted path points at, stay under a memory cap (`ulimit -v`), and still
//! audit `customers` in full.
//!
//! `LAKEAUDIT_BIN` runs another build of the binary (an older one, to see
//! the cases fail).

mod data_files;

use crate::common::{copy_dir, scratch_dir};
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What the crafted paths point at.
const SECRET: &str = "LAKEAUDIT-SECRET-7f3a9c";

/// Virtual memory cap of every run, in KiB (2 GB).
const VMEM_KB: u64 = 2_000_000;

fn bin() -> String {
    std::env::var("LAKEAUDIT_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_lakeaudit").into())
}

/// A scratch directory holding `secret.txt` and `wh/customers` (intact).
struct Case {
    root: PathBuf,
}

impl Case {
    fn new(name: &str) -> Case {
        let root = scratch_dir(&format!("hostile-tables-{name}"));
        fs::create_dir_all(root.join("wh")).unwrap();
        fs::write(root.join("secret.txt"), format!("{SECRET}\n").repeat(64)).unwrap();
        copy_dir(
            &testdata::data("tables/warehouse/customers"),
            &root.join("wh/customers"),
        );
        Case { root }
    }

    fn secret(&self) -> String {
        self.root.join("secret.txt").display().to_string()
    }

    fn wh(&self) -> PathBuf {
        self.root.join("wh")
    }

    /// Copy a fixture table (relative to `tests/data`, or `samples/...`)
    /// into the warehouse as `name`.
    fn table(&self, fixture: &str, name: &str) -> PathBuf {
        let src = if let Some(s) = fixture.strip_prefix("samples/") {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("samples")
                .join(s)
        } else {
            testdata::data(fixture)
        };
        let dst = self.wh().join(name);
        copy_dir(&src, &dst);
        dst
    }

    /// `lakeaudit tables <wh> --out <root>/out` under the memory cap.
    fn run(&self, extra: &[&str]) -> Output {
        let out = self.root.join("out");
        let _ = fs::remove_dir_all(&out);
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(format!("ulimit -v {VMEM_KB}; exec \"$0\" \"$@\""))
            .arg(bin())
            .arg("tables")
            .arg(self.wh())
            .arg("--out")
            .arg(&out)
            .args(extra)
            // As a user runs it: without RUST_BACKTRACE, which asks for
            // Rust's own panic messages.
            .env_remove("RUST_BACKTRACE");
        c.output().expect("run lakeaudit")
    }

    /// Everything the run wrote: stdout, stderr, each output file.
    fn everything(&self, o: &Output) -> String {
        let mut all = String::from_utf8_lossy(&o.stdout).into_owned();
        all.push_str(&String::from_utf8_lossy(&o.stderr));
        if let Ok(rd) = fs::read_dir(self.root.join("out")) {
            for e in rd.flatten() {
                all.push_str(&String::from_utf8_lossy(&fs::read(e.path()).unwrap()));
            }
        }
        all
    }

    /// The table_state records written, by table.
    fn state(&self) -> Vec<Value> {
        fs::read_to_string(self.root.join("out/table_state.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The common assertions: exit 2, an error line naming `file` and
    /// saying `what`, no secret anywhere, customers audited in full.
    fn refused(&self, o: &Output, file: &Path, what: &str) {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        let file = file.display().to_string();
        assert!(
            err.lines()
                .any(|l| l.starts_with("lakeaudit: ") && l.contains(&file) && l.contains(what)),
            "no error naming {file} with {what:?}:\n{err}"
        );
        assert!(
            !self.everything(o).contains(SECRET),
            "secret leaked:\n{err}"
        );
        self.customers_complete();
    }

    fn customers_complete(&self) {
        let state = self.state();
        let c = state
            .iter()
            .find(|r| r["table"] == "customers")
            .unwrap_or_else(|| panic!("customers not audited: {state:?}"));
        // reference.json (deltalake): its files and live rows.
        let refs: Value =
            serde_json::from_str(&testdata::read_to_string("tables/reference.json")).unwrap();
        let r = &refs["customers"];
        assert_eq!(c["files"], r["files"], "{c}");
        assert_eq!(c["rows_live"], r["rows_live"], "{c}");
    }
}

impl Drop for Case {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn commit(t: &Path, v: u64) -> PathBuf {
    t.join(format!("_delta_log/{v:020}.json"))
}

/// Rewrite each JSON line of a Delta commit.
fn edit_lines(path: &Path, f: impl Fn(&mut Value)) {
    let text = fs::read_to_string(path).unwrap();
    let out: Vec<String> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            f(&mut v);
            v.to_string()
        })
        .collect();
    fs::write(path, out.join("\n") + "\n").unwrap();
}

/// The commit of `orders_dv` that adds its file DV (version 2).
fn dv_commit(t: &Path) -> PathBuf {
    let c = commit(t, 2);
    assert!(fs::read_to_string(&c)
        .unwrap()
        .contains("\"storageType\":\"u\""));
    c
}

fn set_dv(c: &Path, f: impl Fn(&mut serde_json::Map<String, Value>)) {
    edit_lines(c, |v| {
        if let Some(dv) = v
            .get_mut("add")
            .and_then(|a| a.get_mut("deletionVector"))
            .and_then(Value::as_object_mut)
        {
            f(dv);
        }
    });
}

#[test]
fn case01_a_dv_path_outside_the_table_is_refused() {
    let k = Case::new("dv-p");
    let t = k.table("tables/warehouse/orders_dv", "orders_dv");
    let secret = k.secret();
    // 16 DVs reading the secret 4 bytes at a time would print it whole in
    // "stored size N": one is enough to show it is never opened.
    set_dv(&dv_commit(&t), |dv| {
        dv.insert("storageType".into(), "p".into());
        dv.insert("pathOrInlineDv".into(), secret.clone().into());
        dv.insert("offset".into(), 0.into());
    });
    let o = k.run(&["--deep"]);
    k.refused(&o, &t, "resolves outside the table");
    // Allowed explicitly, the file is read, but its bytes are not printed.
    let o = k.run(&["--deep", "--allow-outside-table"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!k.everything(&o).contains(SECRET));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("resolves outside"));
}

#[test]
fn case05_a_relative_dv_climbing_out_is_refused_without_deep() {
    let k = Case::new("dv-u");
    let t = k.table("tables/warehouse/orders_dv", "orders_dv");
    set_dv(&dv_commit(&t), |dv| {
        let z = dv["pathOrInlineDv"].as_str().unwrap().to_string();
        let uuid = &z[z.len() - 20..];
        dv.insert("pathOrInlineDv".into(), format!("../..{uuid}").into());
    });
    let o = k.run(&[]);
    k.refused(&o, &t, "resolves outside the table");
}

#[test]
fn case05_a_manifest_list_outside_the_table_is_refused() {
    let k = Case::new("ice-list");
    let t = k.table("tables/thresholds/ice.db/dvs", "dvs");
    let meta = t.join("metadata/00006-d7844bcc-8858-4dd1-9cc6-c8babeed2d36.metadata.json");
    let mut md: Value = serde_json::from_str(&fs::read_to_string(&meta).unwrap()).unwrap();
    let cur = md["current-snapshot-id"].clone();
    for s in md["snapshots"].as_array_mut().unwrap() {
        if s["snapshot-id"] == cur {
            s["manifest-list"] = k.secret().into();
        }
    }
    fs::write(&meta, md.to_string()).unwrap();
    let o = k.run(&[]);
    k.refused(&o, &meta, "manifest list");
}

#[test]
fn case05_a_sidecar_outside_the_table_is_refused() {
    // A v2 checkpoint (JSON form) of orders_dv at version 1: its protocol
    // and metaData, and a sidecar naming the secret.
    let k = Case::new("sidecar");
    let t = k.table("tables/warehouse/orders_dv", "orders_dv");
    let mut lines: Vec<String> = fs::read_to_string(commit(&t, 0))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"protocol\"") || l.contains("\"metaData\""))
        .map(str::to_string)
        .collect();
    lines.push(serde_json::json!({"sidecar": {"path": k.secret(), "sizeInBytes": 1, "modificationTime": 1}}).to_string());
    let cp = t.join(
        "_delta_log/00000000000000000001.checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json",
    );
    fs::write(&cp, lines.join("\n") + "\n").unwrap();
    fs::write(
        t.join("_delta_log/_last_checkpoint"),
        r#"{"version":1,"size":3}"#,
    )
    .unwrap();
    let o = k.run(&[]);
    k.refused(&o, &cp, "sidecar");
}

#[test]
fn case06_sizes_and_row_counts_that_overflow_are_an_error_with_the_line() {
    let k = Case::new("overflow");
    let t = k.table("tables/thresholds/delta_target", "delta_target");
    // Every add of every commit (no checkpoint): i64::MAX bytes and rows.
    for v in 0..=8 {
        edit_lines(&commit(&t, v), |v| {
            if let Some(a) = v.get_mut("add") {
                a["size"] = i64::MAX.into();
                a["stats"] = serde_json::json!({"numRecords": i64::MAX})
                    .to_string()
                    .into();
            }
        });
    }
    let o = k.run(&[]);
    k.refused(&o, &t.join("_delta_log"), "overflows 64 bits");
    // The error names the commit and the line of the add.
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err.lines().find(|l| l.contains("overflows")).unwrap();
    let at = line.split(".json:").nth(1).unwrap();
    assert!(
        at.split(':').next().unwrap().parse::<u64>().is_ok(),
        "{line}"
    );
}

#[test]
fn case07_a_table_linked_into_the_warehouse_is_audited() {
    let k = Case::new("linked");
    let elsewhere = k.root.join("elsewhere");
    copy_dir(
        &testdata::data("tables/warehouse/orders_dv"),
        &elsewhere.join("orders_dv"),
    );
    std::os::unix::fs::symlink(elsewhere.join("orders_dv"), k.wh().join("linked")).unwrap();
    // A link back up the tree is not searched twice.
    std::os::unix::fs::symlink(k.wh(), k.wh().join("loop")).unwrap();
    let o = k.run(&[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let names: Vec<String> = k.state().iter().map(|r| r["table"].to_string()).collect();
    assert_eq!(names, ["\"customers\"", "\"linked\""]);
    k.customers_complete();
}

#[test]
fn case08_a_truncated_checkpoint_falls_back_to_the_commits() {
    let k = Case::new("truncated");
    let t = k.table("samples/warehouse/shop.db/orders", "orders");
    let intact = k.run(&[]);
    assert_eq!(intact.status.code(), Some(0));
    let before = k
        .state()
        .into_iter()
        .find(|r| r["table"] == "orders")
        .unwrap();
    let cp = t.join("_delta_log/00000000000000000029.checkpoint.parquet");
    let bytes = fs::read(&cp).unwrap();
    fs::write(&cp, &bytes[..bytes.len() / 2]).unwrap();
    let o = k.run(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.lines().any(|l| l.starts_with("lakeaudit: warning: ")
            && l.contains(&cp.display().to_string())
            && l.contains("replaying from the commits from version 0")),
        "{err}"
    );
    let after = k
        .state()
        .into_iter()
        .find(|r| r["table"] == "orders")
        .unwrap();
    for f in [
        "files",
        "bytes",
        "rows_live",
        "version_or_snapshot",
        "deletion_vectors",
    ] {
        assert_eq!(after[f], before[f], "{f}");
    }
    assert_eq!(after["commits_since_checkpoint"], 49);
}

#[test]
fn case10_16_a_dv_size_past_the_file_is_refused_before_allocating() {
    let k = Case::new("dv-size");
    let t = k.table("tables/warehouse/orders_dv", "orders_dv");
    let c = dv_commit(&t);
    let dv_file = fs::read_dir(&t)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "bin"))
        .unwrap();
    for size in [i64::MAX, 1 << 40, 1 << 32] {
        set_dv(&c, |dv| {
            dv.insert("sizeInBytes".into(), size.into());
        });
        let o = k.run(&["--deep"]);
        k.refused(&o, &dv_file, "sizeInBytes");
    }
    // A DV file inside the table that is a link to /dev/zero, 4 GiB.
    let zero = t.join("deletion_vector_00000000-0000-0000-0000-000000000000.bin");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    set_dv(&c, |dv| {
        dv.insert("storageType".into(), "p".into());
        dv.insert("pathOrInlineDv".into(), zero.display().to_string().into());
        dv.insert("sizeInBytes".into(), (1i64 << 32).into());
    });
    let o = k.run(&["--deep"]);
    k.refused(&o, &t, "outside the table");
    let o = k.run(&["--deep", "--allow-outside-table"]);
    k.refused(&o, &zero, "not a regular file");
}

/// Zig-zag varint of `v` (Thrift compact and Avro `long`).
fn zigzag(v: i64) -> Vec<u8> {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    let mut out = Vec::new();
    loop {
        let b = (z & 0x7f) as u8;
        z >>= 7;
        if z == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

fn varint_len(b: &[u8]) -> usize {
    b.iter().position(|x| x & 0x80 == 0).unwrap() + 1
}

/// The Parquet file `bytes` with the first column chunk's
/// `total_compressed_size` set to `v`. In the Thrift compact footer,
/// ColumnMetaData fields 4, 5, 6 (num_values, total_uncompressed_size,
/// total_compressed_size) are consecutive i64s: each a `0x16` header and a
/// varint. The footer length is fixed up.
fn lying_footer(bytes: &[u8], v: i64) -> Vec<u8> {
    let n = bytes.len();
    let flen = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let start = n - 8 - flen;
    let footer = &bytes[start..n - 8];
    let mut at = None;
    'scan: for i in 0..footer.len() {
        let mut p = i;
        for _ in 0..3 {
            if footer.get(p) != Some(&0x16) {
                continue 'scan;
            }
            p += 1 + varint_len(&footer[p + 1..]);
        }
        at = Some(i);
        break;
    }
    let i = at.expect("a ColumnMetaData in the footer");
    let f5 = i + 1 + varint_len(&footer[i + 1..]);
    let f6 = f5 + 1 + varint_len(&footer[f5 + 1..]);
    let old = varint_len(&footer[f6 + 1..]);
    let mut out = bytes[..start + f6 + 1].to_vec();
    out.extend(zigzag(v));
    out.extend_from_slice(&footer[f6 + 1 + old..]);
    let new_len = (out.len() - start) as u32;
    out.extend_from_slice(&new_len.to_le_bytes());
    out.extend_from_slice(b"PAR1");
    out
}

#[test]
fn case11_a_checkpoint_with_a_lying_footer_is_a_named_error() {
    let k = Case::new("footer");
    let t = k.table("tables/warehouse/sales", "sales");
    let cp = t.join("_delta_log/00000000000000000023.checkpoint.parquet");
    let good = fs::read(&cp).unwrap();
    // Without the checkpoint's parts the log cannot be replayed (commits
    // before 23 are gone in this copy), so the table fails by name.
    for v in 0..23 {
        let _ = fs::remove_file(commit(&t, v));
    }
    for v in [1i64 << 40, -1] {
        fs::write(&cp, lying_footer(&good, v)).unwrap();
        let o = k.run(&[]);
        k.refused(&o, &cp, "not a readable Parquet checkpoint: ");
    }
}

/// `lakeaudit queries --records FILE` under the memory cap.
fn queries_records_under_cap(file: &Path) -> Output {
    Command::new("sh")
        .arg("-c")
        // CPU seconds capped too: a reader that loops is killed, not waited on.
        .arg(format!(
            "ulimit -v {VMEM_KB}; ulimit -t 120; exec \"$0\" \"$@\""
        ))
        .arg(bin())
        .args(["queries", "--records"])
        .arg(file)
        .output()
        .unwrap()
}

/// `fuzz/regressions/NAME` given as `--records` under the caps: it must be
/// refused with exit 2; returns its standard error.
fn regression_refused(name: &str) -> String {
    let bad = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(name);
    let o = queries_records_under_cap(&bad);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{name}: {err}");
    err
}

/// The fuzzer's records file whose footer's Thrift claims lengths far
/// past its bytes (`fuzz/regressions/records_file-footer-list-alloc`:
/// polars reserved 67 GB for it and the run aborted under a memory cap) is
/// a named error under the cap, exit 2.
#[test]
fn case13_a_records_footer_claiming_lengths_past_its_bytes_is_refused_before_decoding() {
    let err = regression_refused("records_file-footer-list-alloc");
    // Refused by the footer walk: since the walk checks field types too,
    // by the first field of the wrong type (here before the long list).
    assert!(err.contains("footer does not decode: "), "{err}");
    assert!(
        err.contains("a value claims") || err.contains("where Parquet's has"),
        "{err}"
    );
}

/// The `table_data_file` fuzzer's page header whose map claims billions
/// of boolean entries (`fuzz/regressions/table_data_file-page-header-map-of-bools`):
/// the page check stepped over each entry without reading a byte and never
/// ended (a CPU-bound hang in every Parquet reader). Refused at once now.
#[test]
fn case13_a_page_header_map_of_billions_of_booleans_is_refused_at_once() {
    let started = std::time::Instant::now();
    let err = regression_refused("table_data_file-page-header-map-of-bools");
    assert!(
        err.contains("runs past the end of its column chunk"),
        "{err}"
    );
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

/// The `table_data_file` fuzzer's footer with a boolean field of the wrong
/// type (`fuzz/regressions/table_data_file-footer-bool-field-panic`):
/// polars' decoder panicked on it ("thrift bool field"), and the caught
/// panic was reported as an overflow it had not seen. The footer walk now
/// names the field before polars runs.
#[test]
fn case13_a_footer_the_decoder_panics_on_is_a_named_error() {
    let err = regression_refused("table_data_file-footer-bool-field-panic");
    assert!(
        err.contains("footer does not decode: field 7 of Statistics has Thrift type 9"),
        "{err}"
    );
    assert!(!err.contains("offset and size overflow"), "{err}");
}

/// The `table_data_file` fuzzer's 1.4 KB file whose FileMetaData field 4
/// (the row-group list) is a boolean
/// (`fuzz/regressions/table_data_file-footer-field-type-alloc`): polars
/// read the next bytes as the list's header and asked for 49,790,549,120
/// bytes, an abort under a memory cap. Refused before polars decodes it.
#[test]
fn case13_a_footer_field_of_another_type_is_refused_before_decoding() {
    let err = regression_refused("table_data_file-footer-field-type-alloc");
    assert!(
        err.contains("field 4 of FileMetaData has Thrift type 1"),
        "{err}"
    );
}

/// The `table_data_file` fuzzer's footer holding a list of booleans in a
/// field Parquet does not declare
/// (`fuzz/regressions/table_data_file-footer-slow-decode`): polars' decoder
/// skips such elements as no bytes, fell out of step with the footer and
/// looped over a count it then found (12.9 s of CPU for 1.2 KB in the debug
/// binary before "Unexpected struct field type 15"). Refused by the footer
/// walk before polars decodes it.
#[test]
fn case13_a_footer_with_a_list_of_booleans_polars_misreads_is_refused_before_decoding() {
    let err = regression_refused("table_data_file-footer-slow-decode");
    assert!(
        err.contains("booleans in a field Parquet does not declare"),
        "{err}"
    );
    assert!(!err.contains("Unexpected struct field type"), "{err}");
}

#[test]
fn case13_a_records_file_with_a_lying_footer_is_a_named_error() {
    let k = Case::new("records");
    let t = k.table("tables/warehouse/sales", "sales");
    let cp = t.join("_delta_log/00000000000000000023.checkpoint.parquet");
    let bad = k.root.join("records.parquet");
    fs::write(&bad, lying_footer(&fs::read(&cp).unwrap(), -1)).unwrap();
    let o = queries_records_under_cap(&bad);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.lines()
            .any(|l| l.contains(&bad.display().to_string()) && l.contains("footer")),
        "{err}"
    );
}

#[test]
fn case14_special_files_are_never_read() {
    let k = Case::new("special");
    let t = k.table("tables/warehouse/orders_dv", "orders_dv");
    let ice = k.table("tables/thresholds/ice.db/dvs", "dvs");
    // A commit linked to /dev/zero; a metadata.json that is a FIFO.
    let c = commit(&t, 2);
    fs::remove_file(&c).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &c).unwrap();
    let meta = ice.join("metadata/00006-d7844bcc-8858-4dd1-9cc6-c8babeed2d36.metadata.json");
    fs::remove_file(&meta).unwrap();
    assert!(Command::new("mkfifo")
        .arg(&meta)
        .status()
        .unwrap()
        .success());
    let o = k.run(&["--allow-outside-table"]);
    k.refused(&o, &c, "character device");
    k.refused(&o, &meta, "a FIFO");
    // Without the flag /dev/zero is outside the table besides.
    let o = k.run(&[]);
    k.refused(&o, &t, "outside the table");
}

/// An Avro file's metadata: (key, value) pairs.
type AvroMeta = Vec<(Vec<u8>, Vec<u8>)>;

/// The header of the Avro object container file `real`: its metadata
/// pairs, its sync marker, and where its first block starts.
fn avro_header(real: &[u8]) -> (AvroMeta, [u8; 16], usize) {
    let mut p = 4usize;
    let mut meta: AvroMeta = Vec::new();
    loop {
        let n = avro_long(real, &mut p);
        if n == 0 {
            break;
        }
        for _ in 0..n {
            let kl = avro_long(real, &mut p) as usize;
            let k = real[p..p + kl].to_vec();
            p += kl;
            let vl = avro_long(real, &mut p) as usize;
            let v = real[p..p + vl].to_vec();
            p += vl;
            meta.push((k, v));
        }
    }
    let sync: [u8; 16] = real[p..p + 16].try_into().unwrap();
    (meta, sync, p + 16)
}

/// An Avro `long` (zig-zag varint) at `*p`.
fn avro_long(b: &[u8], p: &mut usize) -> i64 {
    let n = varint_len(&b[*p..]);
    let mut z = 0u64;
    for (i, x) in b[*p..*p + n].iter().enumerate() {
        z |= u64::from(x & 0x7f) << (7 * i);
    }
    *p += n;
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// An Avro object container file with the metadata of a real one, its
/// codec set to `codec`, and one block of `block` (already compressed).
fn avro_with_block(real: &[u8], codec: &[u8], block: &[u8]) -> Vec<u8> {
    let (meta, sync, _) = avro_header(real);
    let mut out = b"Obj\x01".to_vec();
    let mut meta: AvroMeta = meta
        .into_iter()
        .filter(|(k, _)| k != b"avro.codec")
        .collect();
    meta.push((b"avro.codec".to_vec(), codec.to_vec()));
    out.extend(zigzag(meta.len() as i64));
    for (key, v) in &meta {
        out.extend(zigzag(key.len() as i64));
        out.extend_from_slice(key);
        out.extend(zigzag(v.len() as i64));
        out.extend_from_slice(v);
    }
    out.extend(zigzag(0));
    out.extend_from_slice(&sync);
    out.extend(zigzag(1));
    out.extend(zigzag(block.len() as i64));
    out.extend_from_slice(block);
    out.extend_from_slice(&sync);
    out
}

/// An Avro object container file with the header of a real one and one
/// zstd block inflating to `size` zeros.
fn avro_bomb(real: &[u8], size: u64) -> Vec<u8> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 19).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..size >> 20 {
        enc.write_all(&zeros).unwrap();
    }
    avro_with_block(real, b"zstandard", &enc.finish().unwrap())
}

/// The real Avro file `real` (deflate blocks, as pyiceberg writes them)
/// with every Avro string `from` in its records replaced by `to`: each
/// block inflated, the string and its length prefix replaced, deflated
/// again. Panics when `from` is not in the file.
fn avro_replace(real: &[u8], from: &str, to: &str) -> Vec<u8> {
    use std::io::Read;
    let (meta, sync, start) = avro_header(real);
    assert!(meta
        .iter()
        .any(|(k, v)| k == b"avro.codec" && v == b"deflate"));
    let mut old = zigzag(from.len() as i64);
    old.extend_from_slice(from.as_bytes());
    let mut new = zigzag(to.len() as i64);
    new.extend_from_slice(to.as_bytes());
    let mut out = real[..start].to_vec();
    let mut p = start;
    let mut found = false;
    while p < real.len() {
        let count = avro_long(real, &mut p);
        let size = avro_long(real, &mut p) as usize;
        let mut plain = Vec::new();
        flate2::read::DeflateDecoder::new(&real[p..p + size])
            .read_to_end(&mut plain)
            .unwrap();
        p += size + 16;
        let mut replaced = Vec::new();
        let mut i = 0;
        while i < plain.len() {
            if plain[i..].starts_with(&old) {
                replaced.extend_from_slice(&new);
                i += old.len();
                found = true;
            } else {
                replaced.push(plain[i]);
                i += 1;
            }
        }
        let mut enc =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&replaced).unwrap();
        let block = enc.finish().unwrap();
        out.extend(zigzag(count));
        out.extend(zigzag(block.len() as i64));
        out.extend_from_slice(&block);
        out.extend_from_slice(&sync);
    }
    assert!(found, "{from} is not in the file");
    out
}

/// Where pyiceberg wrote `ice.db/dvs` and `ice.db/events` (their
/// manifests name absolute paths under it; the reader maps them onto the
/// copy).
const DVS_WRITTEN_AT: &str = "file:///tmp/tmpt1_pheoe/iwh/ice/dvs";
const EVENTS_WRITTEN_AT: &str = "file:///tmp/tmp1l4gzsyc/iwh/ice/events";

/// The current manifest list of `ice.db/dvs`.
const DVS_LIST: &str =
    "metadata/snap-4371257431375131704-0-e8179176-403d-4220-9f2e-45aa7717cfc9.avro";

/// In the copy `t` of `ice.db/dvs`, the Avro file `file` (relative to the
/// table) with the path `from` (relative to the table) replaced by `to`.
fn dvs_point(t: &Path, file: &str, from: &str, to: &str) -> PathBuf {
    point(t, DVS_WRITTEN_AT, file, from, to)
}

/// [`dvs_point`] for a table written at `written_at`.
fn point(t: &Path, written_at: &str, file: &str, from: &str, to: &str) -> PathBuf {
    let f = t.join(file);
    let real = fs::read(&f).unwrap();
    fs::write(&f, avro_replace(&real, &format!("{written_at}/{from}"), to)).unwrap();
    f
}

/// The manifest of `ice.db/events` that lists its position delete files.
const EVENTS_DELETES: &str = "metadata/c5282299-cd5d-40bb-89ee-870bf84f468d-m0.avro";

#[test]
fn case05_a_manifest_outside_the_table_is_refused() {
    let k = Case::new("ice-manifest");
    let t = k.table("tables/thresholds/ice.db/dvs", "dvs");
    let list = dvs_point(
        &t,
        DVS_LIST,
        "metadata/2e603030-aa61-48cd-8cc1-bc3f05d85c24-m1.avro",
        &k.secret(),
    );
    let o = k.run(&[]);
    k.refused(&o, &list, "manifest");
}

#[test]
fn case05_a_delete_file_outside_the_table_is_refused() {
    let k = Case::new("ice-delete");
    let t = k.table("tables/warehouse/ice.db/events", "events");
    let m = point(
        &t,
        EVENTS_WRITTEN_AT,
        EVENTS_DELETES,
        "data/region=us/pos-del-us.parquet",
        &k.secret(),
    );
    let o = k.run(&["--deep"]);
    k.refused(&o, &m, "outside the table");
}

#[test]
fn case01_a_puffin_file_outside_the_table_is_refused() {
    let k = Case::new("ice-puffin");
    let t = k.table("tables/thresholds/ice.db/dvs", "dvs");
    let m = dvs_point(
        &t,
        "metadata/8fab5c20-954e-4eb1-80c1-8492e5cd6cfb-m0.avro",
        "data/36037367-34ff-439f-ad01-ad93c12cd535-deletes.puffin",
        &k.secret(),
    );
    let o = k.run(&["--deep"]);
    k.refused(&o, &m, "outside the table");
}

#[test]
fn case15_deflate_and_snappy_avro_bombs_are_refused() {
    let k = Case::new("bomb-codecs");
    let t = k.table("tables/thresholds/ice.db/dvs", "dvs");
    let list = t.join(DVS_LIST);
    let real = fs::read(&list).unwrap();
    // Deflate: 96 MiB of zeros (over the 64 MiB block cap) in ~100 KB.
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..96 {
        enc.write_all(&zeros).unwrap();
    }
    let deflate = avro_with_block(&real, b"deflate", &enc.finish().unwrap());
    assert!(deflate.len() < 1 << 20, "{}", deflate.len());
    fs::write(&list, &deflate).unwrap();
    let o = k.run(&[]);
    k.refused(&o, &list, "decompresses to more than");
    // Snappy: a real snappy block of 1 MiB whose length header says 3 GiB
    // (apache-avro allocates what the header says), then the CRC.
    let mut block = snap::raw::Encoder::new().compress_vec(&zeros).unwrap();
    let head = block.iter().position(|b| b & 0x80 == 0).unwrap() + 1;
    let mut lie = Vec::new();
    let mut n: u64 = 3 << 30;
    while n >= 0x80 {
        lie.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    lie.push(n as u8);
    block.splice(..head, lie);
    block.extend_from_slice(&crc32_be(&zeros));
    fs::write(&list, avro_with_block(&real, b"snappy", &block)).unwrap();
    let o = k.run(&[]);
    k.refused(&o, &list, "decompresses to more than");
}

/// CRC-32 (IEEE) of `data`, big-endian, as Avro's snappy codec appends it.
fn crc32_be(data: &[u8]) -> [u8; 4] {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    (!crc).to_be_bytes()
}

#[test]
fn case14_a_fifo_as_delete_file_or_sidecar_is_never_read() {
    let k = Case::new("fifo-parts");
    let t = k.table("tables/warehouse/ice.db/events", "events");
    let del = t.join("data/region=us/pos-del-us.parquet");
    fs::remove_file(&del).unwrap();
    let fifo = |p: &Path| {
        assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
    };
    fifo(&del);
    // A v2 checkpoint of orders_dv whose sidecar (inside the table) is a
    // FIFO.
    let d = k.table("tables/warehouse/orders_dv", "orders_dv");
    let mut lines: Vec<String> = fs::read_to_string(commit(&d, 0))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"protocol\"") || l.contains("\"metaData\""))
        .map(str::to_string)
        .collect();
    fs::create_dir_all(d.join("_delta_log/_sidecars")).unwrap();
    let side = d.join("_delta_log/_sidecars/00000000000000000001.side.parquet");
    fifo(&side);
    lines.push(serde_json::json!({"sidecar": {"path": "00000000000000000001.side.parquet", "sizeInBytes": 1, "modificationTime": 1}}).to_string());
    let cp = d.join(
        "_delta_log/00000000000000000001.checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json",
    );
    fs::write(&cp, lines.join("\n") + "\n").unwrap();
    fs::write(
        d.join("_delta_log/_last_checkpoint"),
        r#"{"version":1,"size":3}"#,
    )
    .unwrap();
    let o = k.run(&["--deep"]);
    k.refused(&o, &del, "a FIFO");
    // The checkpoint whose sidecar is refused is replaced by the commits
    // (as a truncated one is, case 8): a warning, and the table audited.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.lines().any(|l| l.starts_with("lakeaudit: warning: ")
            && l.contains(&side.display().to_string())
            && l.contains("is a FIFO, not a regular file; refused")),
        "{err}"
    );
    assert!(k.state().iter().any(|r| r["table"] == "orders_dv"), "{err}");
}

/// A real input that panicked inside a dependency (apache-avro, found by
/// the `table_avro_manifest` fuzz target and kept in `fuzz/regressions`):
/// that table's named error, without Rust's panic message, and the other
/// table audited in full.
#[test]
fn a_real_panicking_manifest_loses_only_its_table() {
    let k = Case::new("real-panic");
    let t = k.table("tables/thresholds/ice.db/dvs", "dvs");
    let crash = fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/regressions/table_avro_manifest-bad-schema-name"),
    )
    .unwrap();
    // The fuzz input's first byte picks the file by name, as the target does.
    let mut avro: Vec<PathBuf> = fs::read_dir(t.join("metadata"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "avro"))
        .collect();
    avro.sort();
    let file = &avro[usize::from(crash[0]) % avro.len()];
    fs::write(file, &crash[1..]).unwrap();
    let o = k.run(&["--deep"]);
    k.refused(&o, file, "cannot be decoded as Avro");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn case15_an_avro_bomb_manifest_list_is_refused() {
    let k = Case::new("bomb");
    let t = k.table("tables/thresholds/ice.db/dvs", "dvs");
    let list =
        t.join("metadata/snap-4371257431375131704-0-e8179176-403d-4220-9f2e-45aa7717cfc9.avro");
    // 3 GiB of zeros: more than the run may hold (2 GB).
    let bomb = avro_bomb(&fs::read(&list).unwrap(), 3 << 30);
    assert!(bomb.len() < 1 << 20, "{}", bomb.len());
    fs::write(&list, bomb).unwrap();
    let o = k.run(&[]);
    k.refused(&o, &list, "decompresses to more than");
}

#[test]
fn case19_a_delete_file_that_is_not_parquet_is_named_for_what_it_is() {
    let k = Case::new("delete-kind");
    let t = k.table("tables/warehouse/ice.db/events", "events");
    let del = walk(&t)
        .into_iter()
        .find(|p| {
            p.to_string_lossy().ends_with("pos-del-us.parquet")
                && p.extension().is_some_and(|e| e == "parquet")
        })
        .expect("the partition-scoped position delete file of events");
    let avro = walk(&t.join("metadata"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "avro"))
        .unwrap();
    fs::copy(avro, &del).unwrap();
    let o = k.run(&["--deep"]);
    k.refused(
        &o,
        &del,
        "position delete file: is an Avro object container file",
    );
}

fn walk(d: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(d).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out.sort();
    out
}

/// Robust by construction: a panic while one table is audited (injected in
/// debug builds through `LAKEAUDIT_TEST_PANIC_ON`, as for logs) is that
/// table's error, exit 2, and the other table is audited in full.
#[test]
fn a_panic_in_one_table_loses_only_that_table() {
    let k = Case::new("panic");
    let t = k.table("tables/warehouse/orders_dv", "panics_here");
    let out = k.root.join("out");
    let o = Command::new(bin())
        .arg("tables")
        .arg(k.wh())
        .arg("--out")
        .arg(&out)
        .env("LAKEAUDIT_TEST_PANIC_ON", "panics_here")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run lakeaudit");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.lines().any(|l| l.starts_with(&format!(
            "lakeaudit: {}: internal error while reading the table",
            t.display()
        ))),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let names: Vec<String> = k.state().iter().map(|r| r["table"].to_string()).collect();
    assert_eq!(names, ["\"customers\""]);
    k.customers_complete();
}
