//! Fuzz the event layer in memory: bytes -> lines -> `classify` -> the typed
//! event parse the reader does for that kind -> (for plan events) the plan
//! parsers and record builders that run when an execution ends.
//! Must never panic, whatever the bytes.
#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use parsers::events::types::*;
use parsers::events::{classify, EventKind};
use parsers::record;

fn plans(text: Option<&str>, info: Option<&str>) {
    let (set, _err) = record::parse_plans(text, info);
    if let Some(best) = set.best() {
        let _ = record::join_records(best);
        let _ = record::root_operator(best);
    }
    let _ = record::scan_records(&set, &HashMap::new());
    let _ = record::is_adaptive_final(text, &set);
}

fn line(l: &[u8]) {
    let Some(kind) = classify(l) else {
        return;
    };
    match kind {
        EventKind::TaskEnd => {
            if let Ok(t) = serde_json::from_slice::<TaskEnd>(l) {
                let _ = t.info.map(|i| i.accumulables.len());
            }
        }
        EventKind::JobStart => {
            if let Ok(j) = serde_json::from_slice::<JobStart>(l) {
                let _ = j
                    .properties
                    .and_then(|p| p.execution_id)
                    .and_then(|s| s.trim().parse::<u64>().ok());
            }
        }
        EventKind::SqlExecutionStart => {
            if let Ok(s) = serde_json::from_slice::<SqlExecutionStart>(l) {
                plans(
                    s.physical_plan_description.as_deref(),
                    s.spark_plan_info.map(|r| r.get()),
                );
            }
        }
        EventKind::SqlAdaptiveExecutionUpdate => {
            if let Ok(u) = serde_json::from_slice::<SqlAdaptiveExecutionUpdate>(l) {
                plans(
                    u.physical_plan_description.as_deref(),
                    u.spark_plan_info.map(|r| r.get()),
                );
            }
        }
        EventKind::SqlExecutionEnd => {
            let _ = serde_json::from_slice::<SqlExecutionEnd>(l);
        }
        EventKind::DriverAccumUpdates => {
            let _ = serde_json::from_slice::<DriverAccumUpdates>(l);
        }
        EventKind::LogStart => {
            let _ = serde_json::from_slice::<LogStart>(l);
        }
        EventKind::ApplicationStart => {
            let _ = serde_json::from_slice::<ApplicationStart>(l);
        }
        EventKind::ApplicationEnd => {
            let _ = serde_json::from_slice::<ApplicationEnd>(l);
        }
        EventKind::EnvironmentUpdate => {
            let _ = serde_json::from_slice::<EnvironmentUpdate>(l);
        }
        EventKind::Other => {}
    }
}

fuzz_target!(|data: &[u8]| {
    for l in data.split(|&b| b == b'\n') {
        line(l);
    }
});
