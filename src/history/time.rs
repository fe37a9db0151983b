//! The time model of the historic store: instants in milliseconds since the epoch (UTC), their ISO 8601 text, and
//! the five resolutions with STH-Comet's origins and offsets.
//!
//! A rollup row is keyed by the start of its point (its "bucket"); the origin and offset a response shows are derived
//! from that start here, so storage never needs to know how STH groups points into documents. Pure functions only.

use std::fmt;

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use serde::{Deserialize, Serialize};

/// An instant: milliseconds since the Unix epoch, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Millis(pub i64);

impl Millis {
    pub const MIN: Millis = Millis(i64::MIN);
    pub const MAX: Millis = Millis(i64::MAX);

    fn datetime(self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0).single().unwrap_or_default()
    }
}

/// Renders as STH does: `2016-01-14T13:43:33.306Z`.
impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.datetime().format("%Y-%m-%dT%H:%M:%S%.3fZ"))
    }
}

/// Parses an ISO 8601 timestamp: with an offset or `Z`, or without one (read as UTC), or a bare date.
pub fn parse_iso(text: &str) -> Option<Millis> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(Millis(t.timestamp_millis()));
    }
    let naive = ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
        .or_else(|| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0)))?;
    Some(Millis(naive.and_utc().timestamp_millis()))
}

/// Parses a query date: ISO 8601, or milliseconds since the epoch (as joi's `date()` accepts).
pub fn parse_query_date(text: &str) -> Option<Millis> {
    match text.trim().parse::<i64>() {
        Ok(ms) => Some(Millis(ms)),
        Err(_) => parse_iso(text),
    }
}

/// The aggregation resolutions, finest first; the discriminant is the stored code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resolution {
    Second = 0,
    Minute = 1,
    Hour = 2,
    Day = 3,
    Month = 4,
}

impl Resolution {
    pub const ALL: [Resolution; 5] =
        [Resolution::Second, Resolution::Minute, Resolution::Hour, Resolution::Day, Resolution::Month];

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == text)
    }

    pub fn name(self) -> &'static str {
        match self {
            Resolution::Second => "second",
            Resolution::Minute => "minute",
            Resolution::Hour => "hour",
            Resolution::Day => "day",
            Resolution::Month => "month",
        }
    }

    /// The name of the range a point of this resolution sits in (STH's `range`).
    pub fn range_name(self) -> &'static str {
        match self {
            Resolution::Second => "minute",
            Resolution::Minute => "hour",
            Resolution::Hour => "day",
            Resolution::Day => "month",
            Resolution::Month => "year",
        }
    }

    pub fn code(self) -> i64 {
        self as i64
    }

    /// The start of the point holding `t`.
    pub fn bucket(self, t: Millis) -> Millis {
        match self.fixed_len() {
            Some(len) => Millis(t.0 - t.0.rem_euclid(len)),
            None => month_start(t),
        }
    }

    /// The start of the range holding the point `bucket` (the response's `origin`).
    pub fn origin(self, bucket: Millis) -> Millis {
        match self {
            Resolution::Second => Resolution::Minute.bucket(bucket),
            Resolution::Minute => Resolution::Hour.bucket(bucket),
            Resolution::Hour => Resolution::Day.bucket(bucket),
            Resolution::Day => month_start(bucket),
            Resolution::Month => year_start(bucket),
        }
    }

    /// The position of the point inside its range: seconds 0-59, minutes 0-59, hours 0-23, days 1-31, months 1-12.
    pub fn offset(self, bucket: Millis) -> u32 {
        let t = bucket.datetime();
        match self {
            Resolution::Second => t.second(),
            Resolution::Minute => t.minute(),
            Resolution::Hour => t.hour(),
            Resolution::Day => t.day(),
            Resolution::Month => t.month(),
        }
    }

    fn fixed_len(self) -> Option<i64> {
        match self {
            Resolution::Second => Some(1_000),
            Resolution::Minute => Some(60_000),
            Resolution::Hour => Some(3_600_000),
            Resolution::Day => Some(86_400_000),
            Resolution::Month => None,
        }
    }
}

fn month_start(t: Millis) -> Millis {
    let d = t.datetime();
    start_of(d.year(), d.month())
}

fn year_start(t: Millis) -> Millis {
    start_of(t.datetime().year(), 1)
}

fn start_of(year: i32, month: u32) -> Millis {
    let date = NaiveDate::from_ymd_opt(year, month, 1).unwrap_or_default();
    Millis(date.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc().timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Millis {
        parse_iso(text).unwrap()
    }

    #[test]
    fn renders_and_parses_sth_timestamps() {
        let t = at("2016-01-14T13:43:33.306Z");
        assert_eq!(t.to_string(), "2016-01-14T13:43:33.306Z");
        assert_eq!(at("2016-01-14T14:43:33.306+01:00"), t);
        assert_eq!(at("2016-01-14T13:43:33.306"), t);
        assert_eq!(parse_query_date("1452779013306"), Some(t));
        assert_eq!(parse_iso("yesterday"), None);
    }

    #[test]
    fn origins_and_offsets_follow_sth() {
        let t = at("2016-03-14T13:43:33.306Z");
        let cases = [
            (Resolution::Second, "2016-03-14T13:43:00.000Z", 33),
            (Resolution::Minute, "2016-03-14T13:00:00.000Z", 43),
            (Resolution::Hour, "2016-03-14T00:00:00.000Z", 13),
            (Resolution::Day, "2016-03-01T00:00:00.000Z", 14),
            (Resolution::Month, "2016-01-01T00:00:00.000Z", 3),
        ];
        for (resolution, origin, offset) in cases {
            let bucket = resolution.bucket(t);
            assert_eq!(resolution.origin(bucket).to_string(), origin, "{resolution:?}");
            assert_eq!(resolution.offset(bucket), offset, "{resolution:?}");
        }
    }

    #[test]
    fn buckets_before_the_epoch_round_down() {
        assert_eq!(Resolution::Second.bucket(Millis(-1)), Millis(-1000));
    }
}
