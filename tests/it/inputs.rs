//! Issue 7 section 4: inputs that lost data or misled (codec by magic
//! bytes, `--name`, missing rolling parts, re-serialised JSON).

use crate::common::*;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `lakeaudit ARGS` with `data` on standard input.
fn run_stdin(args: &[&str], data: Vec<u8>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lakeaudit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().unwrap();
    // a reader that stops early (an error) may close the pipe first
    let _ = writer.join().unwrap();
    out
}

/// The one file under `samples/DIR` whose name ends with `suffix`.
fn file_in(dir: &str, suffix: &str) -> String {
    let mut stack = vec![std::path::PathBuf::from(sample(dir))];
    let mut found = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                found.push(p);
            }
        }
    }
    assert_eq!(found.len(), 1, "{dir} *{suffix}: {found:?}");
    found[0].to_string_lossy().into_owned()
}

/// Every codec Spark writes (and gzip) is read from standard input, and
/// `--name` names the input in the records and in errors.
#[test]
fn standard_input_in_any_codec_with_a_name() {
    let want = without_log(&ok(&["queries", &sample("spark4-zstd")]).into_bytes());
    assert_eq!(want.len(), 9);
    for (dir, suffix) in [
        ("spark4-zstd", ".zstd"),
        ("spark4-lz4", ".lz4"),
        ("spark4-snappy", ".snappy"),
        ("spark4-lzf", ".lzf"),
        ("spark4-plain", ".gz"),
        ("spark4-plain", "03630"),
    ] {
        let data = std::fs::read(file_in(dir, suffix)).unwrap();
        let o = run_stdin(&["queries", "--name", "app-from-spark", "-"], data);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{dir}{suffix}: {err}");
        let recs = jsonl(&String::from_utf8_lossy(&o.stdout));
        assert_eq!(recs.len(), 9, "{dir}{suffix}");
        assert!(recs.iter().all(|r| r["log"] == "app-from-spark"));
        if dir == "spark4-zstd" {
            assert_eq!(without_log(&o.stdout), want);
        }
    }
    // a damaged stream is an error naming the input by --name
    let mut data = std::fs::read(file_in("spark4-zstd", ".zstd")).unwrap();
    data.truncate(data.len() / 2);
    let o = run_stdin(&["queries", "--name", "app-from-spark", "-"], data);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("lakeaudit: app-from-spark:") && err.contains("corrupt zstd stream"),
        "{err}"
    );
    // --name without `-` among the paths is a usage error (exit 2)
    let o = run(&["queries", "--name", "x", &sample("spark4-zstd")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--name x"));
}

/// A log whose extension lies is read by its magic bytes, with a warning.
#[test]
fn lying_extensions_are_read_with_a_warning() {
    let dir = tempdir("lying");
    let zstd = format!("{dir}/local-1796017976232.lz4");
    std::fs::copy(file_in("spark4-zstd", ".zstd"), &zstd).unwrap();
    let plain = format!("{dir}/local-1796017603630.zstd");
    std::fs::copy(file_in("spark4-plain", "03630"), &plain).unwrap();
    let o = run(&["queries", &zstd, &plain]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "lakeaudit: warning: {zstd}: the file name says lz4 but the data is zstd data"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "lakeaudit: warning: {plain}: the file name says zstd but the data is \
             uncompressed JSON text"
        )),
        "{err}"
    );
    assert_eq!(jsonl(&String::from_utf8_lossy(&o.stdout)).len(), 18);
}

/// A rolling directory with a missing middle part: every other part is
/// read, the gap is reported naming the index, the execution that ran
/// across it is marked incomplete, and the exit code is 2.
#[test]
fn a_missing_rolling_part_is_reported_and_the_rest_read() {
    let dir = tempdir("gap");
    let src = sample("spark4-rolling-multi");
    let app = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap();
    let copy = format!("{dir}/{}", app.file_name().unwrap().to_string_lossy());
    std::fs::create_dir_all(&copy).unwrap();
    for e in std::fs::read_dir(&app).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("events_2_") {
            std::fs::copy(&p, format!("{copy}/{name}")).unwrap();
        }
    }
    let whole = jsonl(&ok(&["queries", &src]));
    let o = run(&["queries", &copy]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "lakeaudit: {copy}: rolling event-log part 2 is missing"
        )),
        "{err}"
    );
    let recs = jsonl(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(recs.len(), whole.len());
    let incomplete: Vec<u64> = recs
        .iter()
        .filter(|r| !r["incomplete"].is_null())
        .map(|r| r["execution_id"].as_u64().unwrap())
        .collect();
    assert_eq!(incomplete, [9]);
    // the executions after the gap are read as in the whole log
    let joins = |rs: &[serde_json::Value]| -> Vec<String> {
        rs.iter()
            .filter(|r| r["execution_id"].as_u64().unwrap() > 9)
            .map(|r| format!("{} {}", r["execution_id"], r["relationships"]))
            .collect()
    };
    assert_eq!(joins(&recs), joins(&whole));
    assert!(!joins(&recs).is_empty());
}

/// A real log re-serialised with a space after every colon and comma
/// (Python's json.dumps) gives the same records as the original.
#[test]
fn reserialised_json_gives_the_same_records() {
    let text = std::fs::read(file_in("spark4-plain", "03630")).unwrap();
    let mut spaced = Vec::with_capacity(text.len() * 9 / 8);
    let (mut in_str, mut escaped) = (false, false);
    for &b in &text {
        spaced.push(b);
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
        } else if b == b'"' {
            in_str = true;
        } else if b == b':' || b == b',' {
            spaced.push(b' ');
        }
    }
    assert!(spaced.starts_with(br#"{"Event": "SparkListenerLogStart", "#));
    let o = run_stdin(&["queries", "-"], spaced);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let plain = ok(&["queries", &file_in("spark4-plain", "03630")]);
    assert_eq!(without_log(&o.stdout), without_log(plain.as_bytes()));
}

/// A directory search names what it passes over (issue 32.8): a cut lz4
/// log and a `.log` that holds no events each get a warning with the
/// reason, the files that are plainly not logs one line, and the good log
/// is read as alone.
#[test]
fn a_directory_search_names_the_files_it_skips() {
    let dir = std::env::temp_dir().join(format!("lakeaudit-skipped-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let lz4 = std::fs::read(file_in("spark35-lz4", ".lz4")).unwrap();
    std::fs::write(dir.join("trunc.lz4"), &lz4[..lz4.len().min(200)]).unwrap();
    std::fs::write(dir.join("broken.log"), "not an event\n").unwrap();
    std::fs::write(dir.join("README.md"), "# logs\n").unwrap();
    // An empty rolling directory (an application that wrote nothing yet)
    // is no application and no input error (it was "Spark ?", then exit 2).
    let empty = dir.join("eventlog_v2_local-1796017600000");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("appstatus_local-1796017600000.inprogress"), "").unwrap();
    let good = file_in("spark4-plain", "local-1796017603630");
    std::fs::copy(&good, dir.join("local-1796017603630")).unwrap();
    let o = run(&["queries", &dir.display().to_string()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let line = |name: &str| {
        err.lines()
            .find(|l| l.starts_with("lakeaudit: warning: skipped ") && l.contains(name))
            .unwrap_or_else(|| panic!("no warning names {name}:\n{err}"))
            .to_string()
    };
    assert!(line("trunc.lz4").contains("do not decode"), "{err}");
    assert!(line("broken.log").contains("not an event log"), "{err}");
    assert!(
        line("eventlog_v2_local-1796017600000")
            .contains("a rolling event-log directory with no events_<N>_<appId> part"),
        "{err}"
    );
    let apps_file = dir.with_extension("apps.jsonl");
    let apps_path = apps_file.display().to_string();
    ok(&["queries", &dir.display().to_string(), "--apps", &apps_path]);
    let apps = std::fs::read_to_string(&apps_file).unwrap();
    let _ = std::fs::remove_file(&apps_file);
    assert_eq!(apps.lines().count(), 1, "{apps}");
    assert!(!apps.contains("1796017600000"), "{apps}");
    assert!(
        line("README.md").contains("1 file(s) that are not event logs"),
        "{err}"
    );
    assert_eq!(
        without_log(&o.stdout),
        without_log(ok(&["queries", &good]).as_bytes())
    );
    let _ = std::fs::remove_dir_all(&dir);
}
