//! Cheap per-line classification of events, before any JSON parsing.
//!
//! Spark writes every event as one JSON object whose first field is
//! `"Event"` (`JsonProtocol.writeEvent`), so the event name can be read off
//! the line's first bytes. Most bytes of a real log are task and AQE-update
//! events; this lets the reader skip the ones it does not need (task starts,
//! stage infos, block updates, ...) without parsing them, and parse the rest
//! into small typed structs.

use crate::error::Reason;

/// The events lakeaudit uses. Everything else is [`EventKind::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// `SparkListenerLogStart`: the Spark version.
    LogStart,
    /// `SparkListenerApplicationStart`: app id, name, user, time.
    ApplicationStart,
    /// `SparkListenerApplicationEnd`.
    ApplicationEnd,
    /// `SparkListenerEnvironmentUpdate`: Spark properties.
    EnvironmentUpdate,
    /// `SparkListenerJobStart`: links stages to a SQL execution.
    JobStart,
    /// `SparkListenerTaskEnd`: run time, CPU time, SQL metric updates.
    TaskEnd,
    /// `SparkListenerSQLExecutionStart`.
    SqlExecutionStart,
    /// `SparkListenerSQLAdaptiveExecutionUpdate`: a whole new plan under AQE.
    SqlAdaptiveExecutionUpdate,
    /// `SparkListenerSQLExecutionEnd`.
    SqlExecutionEnd,
    /// `SparkListenerDriverAccumUpdates`: driver-side SQL metric values.
    DriverAccumUpdates,
    /// A well-formed event lakeaudit does not use.
    Other,
}

impl EventKind {
    /// Every kind, for counters.
    pub const ALL: [EventKind; 11] = [
        EventKind::LogStart,
        EventKind::ApplicationStart,
        EventKind::ApplicationEnd,
        EventKind::EnvironmentUpdate,
        EventKind::JobStart,
        EventKind::TaskEnd,
        EventKind::SqlExecutionStart,
        EventKind::SqlAdaptiveExecutionUpdate,
        EventKind::SqlExecutionEnd,
        EventKind::DriverAccumUpdates,
        EventKind::Other,
    ];

    /// Short name for reports.
    pub fn as_str(&self) -> &'static str {
        match self {
            EventKind::LogStart => "LogStart",
            EventKind::ApplicationStart => "ApplicationStart",
            EventKind::ApplicationEnd => "ApplicationEnd",
            EventKind::EnvironmentUpdate => "EnvironmentUpdate",
            EventKind::JobStart => "JobStart",
            EventKind::TaskEnd => "TaskEnd",
            EventKind::SqlExecutionStart => "SQLExecutionStart",
            EventKind::SqlAdaptiveExecutionUpdate => "SQLAdaptiveExecutionUpdate",
            EventKind::SqlExecutionEnd => "SQLExecutionEnd",
            EventKind::DriverAccumUpdates => "DriverAccumUpdates",
            EventKind::Other => "other",
        }
    }
}

impl EventKind {
    /// The kind [`EventKind::as_str`] names.
    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// Kinds order by their names, so that counts keyed by kind are written in
/// the order they were when keyed by name.
impl Ord for EventKind {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for EventKind {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl serde::Serialize for EventKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for EventKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
        EventKind::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown event kind {name:?}")))
    }
}

const PREFIX: &[u8] = b"{\"Event\":\"";
const SQL_UI: &[u8] = b"org.apache.spark.sql.execution.ui.";

/// Classify a line in Spark's own compact form by its event name (the fast
/// path). `None` means the line does not start like Spark writes an event
/// (`{"Event":"...`); [`classify_any`] then says whether it is an event in
/// another JSON layout.
#[inline]
pub fn classify(line: &[u8]) -> Option<EventKind> {
    let rest = line.strip_prefix(PREFIX)?;
    let end = memchr::memchr(b'"', rest)?;
    Some(kind_of(&rest[..end]))
}

/// How a line was recognised by [`classify_any`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Spark's compact form, `{"Event":"...` with no white space: fields can
    /// be read by key (see `types::skim`).
    Compact,
    /// Any other JSON object with an `"Event"` member (white space after the
    /// colons, members reordered: a log re-serialised by jq or Python):
    /// events are read with a full JSON parse.
    Json,
}

/// The `"Event"` member of a JSON object, found by a full parse.
#[derive(serde::Deserialize)]
struct EventName<'a> {
    #[serde(rename = "Event", borrow)]
    event: std::borrow::Cow<'a, str>,
}

/// Classify any JSON object line: Spark's compact form by its prefix
/// ([`classify`], no parsing), else by the object's `"Event"` member
/// wherever it is. `Err` says why the line is not a JSON event.
#[inline]
pub fn classify_any(line: &[u8]) -> Result<(EventKind, Form), Reason> {
    match classify(line) {
        Some(k) => Ok((k, Form::Compact)),
        None => classify_json(line),
    }
}

/// [`classify_any`] for lines not in Spark's compact form (kept out of line:
/// Spark's own logs never get here).
#[cold]
#[inline(never)]
fn classify_json(line: &[u8]) -> Result<(EventKind, Form), Reason> {
    if let Some(name) = leading_event_name(line) {
        return Ok((kind_of(name), Form::Json));
    }
    match serde_json::from_slice::<EventName>(line) {
        Ok(e) => Ok((kind_of(e.event.as_bytes()), Form::Json)),
        Err(e) if e.is_data() => Err(Reason::NotSparkEvent),
        Err(e) => Err(Reason::NotJsonEvent(e)),
    }
}

/// The event name of a line starting `{ "Event" : "<name>"` with any white
/// space between the tokens, if the name has no escapes.
fn leading_event_name(line: &[u8]) -> Option<&[u8]> {
    let mut rest = line;
    for token in [&b"{"[..], b"\"Event\"", b":", b"\""] {
        let skip = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        rest = rest.get(skip..)?.strip_prefix(token)?;
    }
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    (rest.get(end) == Some(&b'"')).then(|| &rest[..end])
}

/// The kind of an event name (with or without the SQL UI package).
#[inline]
fn kind_of(name: &[u8]) -> EventKind {
    let name = name.strip_prefix(SQL_UI).unwrap_or(name);
    match name {
        b"SparkListenerTaskEnd" => EventKind::TaskEnd,
        b"SparkListenerJobStart" => EventKind::JobStart,
        b"SparkListenerSQLAdaptiveExecutionUpdate" => EventKind::SqlAdaptiveExecutionUpdate,
        b"SparkListenerDriverAccumUpdates" => EventKind::DriverAccumUpdates,
        b"SparkListenerSQLExecutionStart" => EventKind::SqlExecutionStart,
        b"SparkListenerSQLExecutionEnd" => EventKind::SqlExecutionEnd,
        b"SparkListenerLogStart" => EventKind::LogStart,
        b"SparkListenerApplicationStart" => EventKind::ApplicationStart,
        b"SparkListenerApplicationEnd" => EventKind::ApplicationEnd,
        b"SparkListenerEnvironmentUpdate" => EventKind::EnvironmentUpdate,
        _ => EventKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_real_event_prefixes() {
        assert_eq!(
            classify(br#"{"Event":"SparkListenerLogStart","Spark Version":"4.0.1"}"#),
            Some(EventKind::LogStart)
        );
        assert_eq!(
            classify(br#"{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd","executionId":8,"time":1,"errorMessage":""}"#),
            Some(EventKind::SqlExecutionEnd)
        );
        assert_eq!(
            classify(br#"{"Event":"SparkListenerTaskStart","Stage ID":1}"#),
            Some(EventKind::Other)
        );
        assert_eq!(classify(br#"{"event":"x"}"#), None);
        assert_eq!(classify(b"\x00\x01binary"), None);
        assert_eq!(classify(br#"{"Event":"unterminated"#), None);
        assert_eq!(classify(b""), None);
    }
}
