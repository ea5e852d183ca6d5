//! Fuzz the whole per-application reader from a file: codec framing
//! (lz4-java blocks, snappy-java stream, LZF chunks, zstd, gzip), line
//! splitting, dispatch, typed events and the plan parsing done when an
//! execution ends. The first byte picks the codec (and whether the log is
//! in progress); the rest is the file. Must never panic.
#![no_main]

use std::io::Write;
use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use parsers::events::{read_records, ReadOptions};
use parsers::io::{Codec, LogInput, Part};

const CODECS: [Codec; 6] = [
    Codec::None,
    Codec::Zstd,
    Codec::Lz4,
    Codec::Snappy,
    Codec::Lzf,
    Codec::Gzip,
];

fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("lakeaudit-fuzz-read-app-{}", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let codec = CODECS[usize::from(sel & 0x7) % CODECS.len()];
    let path = scratch();
    let Ok(mut f) = std::fs::File::create(&path) else {
        return;
    };
    if f.write_all(body).is_err() {
        return;
    }
    drop(f);
    let input = LogInput {
        display: "fuzz".into(),
        parts: vec![Part::file(path, codec)],
        in_progress: sel & 0x80 != 0,
    };
    // A small line cap keeps decompression bombs from exhausting memory
    // (the default cap is 512 MiB, bounded per line by design).
    let opts = ReadOptions {
        max_line: 1 << 20,
        ..ReadOptions::default()
    };
    let app = read_records(&input, &opts);
    let _ = app.records.len();
});
