//! Device topics: `<token>/<device_id>/<attr>`, `<token>/<device_id>/mul20`, `.../cmd` and `.../cmdexe`, as pure
//! parsing with no I/O.
//!
//! Exactly three non-empty levels; anything else is not a device topic. `cmd` is the topic Fluxgate itself publishes
//! commands on, so it is never an attribute name.

/// What a device topic carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind<'a> {
    /// One value of one attribute (alias).
    Measure(&'a str),
    /// An UltraLight 2.0 payload.
    Mul20,
    /// A command sent to the device (published by Fluxgate).
    Command,
    /// A command result from the device.
    CommandResult,
}

/// A parsed device topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceTopic<'a> {
    pub token: &'a str,
    pub device_id: &'a str,
    pub kind: Kind<'a>,
}

/// Parses a device topic; `None` when it has not exactly three non-empty levels.
pub fn parse(topic: &str) -> Option<DeviceTopic<'_>> {
    let mut levels = topic.split('/');
    let (token, device_id, last) = (levels.next()?, levels.next()?, levels.next()?);
    if levels.next().is_some() || [token, device_id, last].iter().any(|l| l.is_empty()) {
        return None;
    }
    let kind = match last {
        "mul20" => Kind::Mul20,
        "cmd" => Kind::Command,
        "cmdexe" => Kind::CommandResult,
        attr => Kind::Measure(attr),
    };
    Some(DeviceTopic { token, device_id, kind })
}

/// The topic a device's commands are published on.
pub fn command_topic(token: &str, device_id: &str) -> String {
    format!("{token}/{device_id}/cmd")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_topics_parse() {
        let t = parse("k1/t1/temp").unwrap();
        assert_eq!((t.token, t.device_id, t.kind), ("k1", "t1", Kind::Measure("temp")));
        assert_eq!(parse("k1/t1/mul20").unwrap().kind, Kind::Mul20);
        assert_eq!(parse("k1/t1/cmdexe").unwrap().kind, Kind::CommandResult);
        assert_eq!(parse(&command_topic("k1", "t1")).unwrap().kind, Kind::Command);
    }

    #[test]
    fn other_shapes_are_not_device_topics() {
        for bad in ["k1/t1", "k1/t1/a/b", "/k1/t1", "k1//a", "", "k1/t1/"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
