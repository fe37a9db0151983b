//! The `--history-retention` setting (`30d`, `12h`, `90m`, `3600s`, `2w`) and the periodic purge it drives.
//!
//! Samples older than the retention, and rollup points that ended before it, are removed by a background task every
//! few minutes (one writer job per pass, so ingest keeps going). Time comes from the service clock, so tests can move
//! it; the pass interval is real time.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Serialize, Serializer};
use thiserror::Error;

use super::History;
use super::time::Millis;

/// How long history is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention(Duration);

/// A retention that does not read as `<number><s|m|h|d|w>`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("history-retention: {0:?} is not a duration like 30d, 12h, 90m, 3600s or 2w (at least 1s)")]
pub struct RetentionError(pub String);

impl Retention {
    pub fn duration(self) -> Duration {
        self.0
    }

    /// The oldest instant still kept at `now`.
    pub fn cutoff(self, now: Millis) -> Millis {
        Millis(now.0.saturating_sub(i64::try_from(self.0.as_millis()).unwrap_or(i64::MAX)))
    }

    /// Time between purge passes: a tenth of the retention, between one second and ten minutes.
    pub fn pass_interval(self) -> Duration {
        (self.0 / 10).clamp(Duration::from_secs(1), Duration::from_secs(600))
    }
}

impl FromStr for Retention {
    type Err = RetentionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || RetentionError(text.to_owned());
        let text = text.trim();
        let unit = text.chars().last().ok_or_else(bad)?;
        let seconds: u64 = match unit {
            's' => 1,
            'm' => 60,
            'h' => 3_600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return Err(bad()),
        };
        let count: u64 = text[..text.len() - 1].parse().map_err(|_| bad())?;
        let total = count.checked_mul(seconds).filter(|s| *s > 0).ok_or_else(bad)?;
        Ok(Retention(Duration::from_secs(total)))
    }
}

impl fmt::Display for Retention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0.as_secs();
        let (count, unit) = [(604_800, 'w'), (86_400, 'd'), (3_600, 'h'), (60, 'm')]
            .into_iter()
            .find(|(len, _)| secs.is_multiple_of(*len))
            .map_or((secs, 's'), |(len, unit)| (secs / len, unit));
        write!(f, "{count}{unit}")
    }
}

impl Serialize for Retention {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Starts the periodic purge on the current runtime, when a retention is set.
pub fn spawn_purge(history: History) {
    let Some(retention) = history.options.retention else { return };
    tokio::spawn(async move {
        let mut every = tokio::time::interval(retention.pass_interval());
        loop {
            every.tick().await;
            match history.purge_expired().await {
                Ok(0) => {}
                Ok(rows) => tracing::info!(rows, "history retention purged old rows"),
                Err(e) => tracing::warn!(error = %e, "history retention purge failed"),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retention_reads_and_prints_units() {
        let r: Retention = "30d".parse().unwrap();
        assert_eq!(r.duration(), Duration::from_secs(30 * 86_400));
        assert_eq!(r.to_string(), "30d");
        assert_eq!("90m".parse::<Retention>().unwrap().to_string(), "90m");
        assert_eq!("14d".parse::<Retention>().unwrap().to_string(), "2w");
        for bad in ["", "d", "30", "0d", "-1d", "3x", "1.5d"] {
            assert!(bad.parse::<Retention>().is_err(), "{bad}");
        }
        assert_eq!(r.cutoff(Millis(30 * 86_400_000 + 5)), Millis(5));
    }
}
