//! The UltraLight 2.0 codec: measures, command texts and command results, as pure functions over text.
//!
//! A payload is groups separated by `#`; a group is `alias|value` pairs (several allowed), optionally led by an
//! ISO 8601 timestamp (an odd number of fields), or a command result `<device>@<command>|<result>`. Surrounding
//! whitespace and one trailing `#` are tolerated (the C++ agent's MQTT `mul20` documents it as required). There is no
//! escaping: `|`, `#` and `@` cannot occur in aliases or values. Errors name the group (1-based), the field and the
//! text. Nothing here does I/O or knows about devices.

use std::fmt;

use chrono::{DateTime, NaiveDateTime, Utc};
use thiserror::Error;

/// One `alias|value` pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measure {
    pub alias: String,
    pub value: String,
}

/// A group of measures sharing an optional observation time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub timestamp: Option<DateTime<Utc>>,
    pub measures: Vec<Measure>,
}

/// A device's answer to a command: `<device>@<command>|<result>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandResult {
    pub device_id: String,
    pub command: String,
    pub result: String,
}

/// One `#`-separated part of a payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Measures(Group),
    Result(CommandResult),
}

/// What is wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("group {group} (`{text}`): {problem}")]
pub struct UlError {
    /// 1-based index of the group.
    pub group: usize,
    pub text: String,
    pub problem: Problem,
}

/// The kinds of malformed group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    NotText,
    EmptyPayload,
    EmptyGroup,
    EmptyField { field: usize },
    BadTimestamp,
    BadCommandResult,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotText => f.write_str("the payload is not UTF-8 text"),
            Problem::EmptyPayload => f.write_str("the payload is empty"),
            Problem::EmptyGroup => f.write_str("empty group"),
            Problem::EmptyField { field } => write!(f, "field {field} is empty; a group is alias|value pairs"),
            Problem::BadTimestamp => f.write_str(
                "odd number of fields, and the first is not an ISO 8601 timestamp; a group is alias|value pairs, optionally led by a timestamp",
            ),
            Problem::BadCommandResult => f.write_str("a command result is <device>@<command>|<result>"),
        }
    }
}

/// Parses a payload given as bytes; anything but UTF-8 text is refused.
pub fn parse_bytes(payload: &[u8]) -> Result<Vec<Item>, UlError> {
    let text = std::str::from_utf8(payload).map_err(|_| UlError {
        group: 1,
        text: String::new(),
        problem: Problem::NotText,
    })?;
    parse(text)
}

/// Parses a whole payload.
pub fn parse(payload: &str) -> Result<Vec<Item>, UlError> {
    let trimmed = payload.trim();
    let body = trimmed.strip_suffix('#').unwrap_or(trimmed);
    if body.trim().is_empty() {
        return Err(UlError { group: 1, text: String::new(), problem: Problem::EmptyPayload });
    }
    body.split('#').enumerate().map(|(i, text)| parse_group(i + 1, text.trim())).collect()
}

fn parse_group(group: usize, text: &str) -> Result<Item, UlError> {
    let fail = |problem| UlError { group, text: text.to_owned(), problem };
    if text.is_empty() {
        return Err(fail(Problem::EmptyGroup));
    }
    let fields: Vec<&str> = text.split('|').collect();
    if fields[0].contains('@') {
        return parse_result(text).ok_or_else(|| fail(Problem::BadCommandResult)).map(Item::Result);
    }
    if let Some(field) = fields.iter().position(|f| f.is_empty()) {
        return Err(fail(Problem::EmptyField { field: field + 1 }));
    }
    let (timestamp, pairs) = if fields.len() % 2 == 1 {
        (Some(parse_timestamp(fields[0]).ok_or_else(|| fail(Problem::BadTimestamp))?), &fields[1..])
    } else {
        (None, &fields[..])
    };
    let measures = pairs.chunks(2).map(|p| Measure { alias: p[0].to_owned(), value: p[1].to_owned() }).collect();
    Ok(Item::Measures(Group { timestamp, measures }))
}

/// Parses `<device>@<command>|<result>` (the result may be empty, and may contain `|`).
pub fn parse_result(text: &str) -> Option<CommandResult> {
    let (head, result) = text.split_once('|')?;
    let (device_id, command) = head.split_once('@')?;
    if device_id.is_empty() || command.is_empty() {
        return None;
    }
    Some(CommandResult { device_id: device_id.to_owned(), command: command.to_owned(), result: result.to_owned() })
}

/// An ISO 8601 time: with an offset, or without one (taken as UTC).
pub fn parse_timestamp(text: &str) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&Utc));
    }
    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f").ok().map(|t| t.and_utc())
}

/// The text of a command sent to a device: the registration's template with `%s` replaced by the value, or
/// `<device>@<command>|<value>` when the template is empty.
pub fn command_text(device_id: &str, command: &str, template: &str, value: &str) -> String {
    if template.is_empty() { format!("{device_id}@{command}|{value}") } else { template.replace("%s", value) }
}

/// Writes items back as a payload (the inverse of [`parse`] for well-formed items).
pub fn format(items: &[Item]) -> String {
    items.iter().map(format_item).collect::<Vec<_>>().join("#")
}

fn format_item(item: &Item) -> String {
    match item {
        Item::Result(r) => format!("{}@{}|{}", r.device_id, r.command, r.result),
        Item::Measures(g) => {
            let pairs = g.measures.iter().map(|m| format!("{}|{}", m.alias, m.value));
            let time = g.timestamp.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true));
            time.into_iter().chain(pairs).collect::<Vec<_>>().join("|")
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn measures(payload: &str) -> Vec<(String, String)> {
        parse(payload)
            .unwrap()
            .into_iter()
            .flat_map(|i| match i {
                Item::Measures(g) => g.measures.into_iter().map(|m| (m.alias, m.value)).collect(),
                Item::Result(_) => vec![],
            })
            .collect()
    }

    #[test]
    fn groups_pairs_timestamps_and_trailing_hash() {
        assert_eq!(
            measures(" t|15|k|abc#h|40# \n"),
            [("t", "15"), ("k", "abc"), ("h", "40")].map(|(a, b)| (a.into(), b.into()))
        );
        let items = parse("2016-06-13T00:35:30Z|lle|100").unwrap();
        let Item::Measures(group) = &items[0] else { panic!("measures expected") };
        assert_eq!(group.timestamp.unwrap().to_rfc3339(), "2016-06-13T00:35:30+00:00");
    }

    #[test]
    fn errors_name_the_group_and_field() {
        let e = parse("t|1#a|").unwrap_err();
        assert_eq!((e.group, e.problem), (2, Problem::EmptyField { field: 2 }));
        assert_eq!(parse("|b").unwrap_err().problem, Problem::EmptyField { field: 1 });
        assert_eq!(parse("a|1|b").unwrap_err().problem, Problem::BadTimestamp);
        assert_eq!(parse("t|1##h|2").unwrap_err().problem, Problem::EmptyGroup);
        assert_eq!(parse("  ").unwrap_err().problem, Problem::EmptyPayload);
        assert_eq!(parse("dev@|x").unwrap_err().problem, Problem::BadCommandResult);
        assert_eq!(parse_bytes(b"t|\xff\xfe").unwrap_err().problem, Problem::NotText);
        assert_eq!(
            parse("t|1#a|").unwrap_err().to_string(),
            "group 2 (`a|`): field 2 is empty; a group is alias|value pairs"
        );
    }

    #[test]
    fn command_results_and_texts() {
        let items = parse("dev1@ping|pong|extra").unwrap();
        assert_eq!(
            items,
            vec![Item::Result(CommandResult {
                device_id: "dev1".into(),
                command: "ping".into(),
                result: "pong|extra".into()
            })]
        );
        assert_eq!(command_text("t1", "SET_tracking", "t1@SET_tracking|%s", "SLEEP"), "t1@SET_tracking|SLEEP");
        assert_eq!(command_text("t1", "ping", "", "now"), "t1@ping|now");
    }

    fn token() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_.:/ -]{0,8}[A-Za-z0-9_.:/-]".prop_filter("no leading blank", |s| !s.starts_with(' '))
    }

    fn group() -> impl Strategy<Value = Item> {
        let measure = (token(), token()).prop_map(|(alias, value)| Measure { alias, value });
        let time =
            proptest::option::of((0i64..4_000_000_000_000).prop_map(|ms| DateTime::from_timestamp_millis(ms).unwrap()));
        (time, proptest::collection::vec(measure, 1..4))
            .prop_map(|(timestamp, measures)| Item::Measures(Group { timestamp, measures }))
    }

    fn result() -> impl Strategy<Value = Item> {
        (token(), token(), token())
            .prop_map(|(device_id, command, result)| Item::Result(CommandResult { device_id, command, result }))
    }

    proptest! {
        #[test]
        fn format_then_parse_gives_back_the_items(items in proptest::collection::vec(prop_oneof![group(), result()], 1..5)) {
            prop_assert_eq!(parse(&format(&items)).unwrap(), items);
        }

        #[test]
        fn parse_never_panics(text in "\\PC{0,64}") {
            let _ = parse(&text);
        }
    }
}
