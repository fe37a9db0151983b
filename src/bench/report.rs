//! What `fluxgate bench broker` prints: a table, or with `--json` one JSON object per run with the fields every
//! `fluxgate bench` scenario shares (`scenario`, `workers`, `throughput_per_s`, `p50_ms`, `p99_ms`, `baseline_per_s`,
//! `ratio`) followed by this scenario's own.
//!
//! Rendering only: the numbers are computed by the load and the orchestration, never adjusted here.

use std::fmt;

use serde::Serialize;

use super::load::LoadResult;

/// One run, Fluxgate and its baseline side by side.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    pub scenario: String,
    pub workers: usize,
    pub throughput_per_s: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub baseline_per_s: f64,
    pub ratio: f64,
    pub errors: u64,
    pub requests: u64,
    pub first_error: Option<String>,
    pub baseline_p50_ms: f64,
    pub baseline_p99_ms: f64,
    pub baseline_errors: u64,
    pub connections: usize,
    pub duration_s: f64,
    pub entities: usize,
    pub attributes: usize,
    pub subscriptions: usize,
    /// Notifications the receiver counted, and how many the successful updates should have caused.
    pub notifications: Option<u64>,
    pub notifications_expected: Option<u64>,
    pub synchronous: String,
    pub server: String,
}

/// The measurements a [`Report`] is made of.
#[derive(Debug)]
pub struct Measured<'a> {
    pub fluxgate: &'a LoadResult,
    pub baseline: &'a LoadResult,
    pub notifications: Option<u64>,
}

impl Report {
    /// Fills the measured fields; the caller sets the scenario's parameters.
    pub fn measured(m: Measured<'_>) -> Report {
        let (ours, base) = (m.fluxgate, m.baseline);
        Report {
            scenario: "broker".to_owned(),
            throughput_per_s: round(ours.throughput(), 1),
            p50_ms: round(ours.percentile_ms(0.5), 3),
            p99_ms: round(ours.percentile_ms(0.99), 3),
            baseline_per_s: round(base.throughput(), 1),
            ratio: round(ours.throughput() / base.throughput().max(1e-9), 3),
            errors: ours.errors,
            requests: ours.requests,
            first_error: ours.first_error.clone(),
            baseline_p50_ms: round(base.percentile_ms(0.5), 3),
            baseline_p99_ms: round(base.percentile_ms(0.99), 3),
            baseline_errors: base.errors,
            notifications: m.notifications,
            notifications_expected: m.notifications.map(|_| ours.requests - ours.errors),
            ..Report::default()
        }
    }

    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("plain struct serializes")
    }
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

const HEADER: [&str; 9] =
    ["scenario", "workers", "throughput/s", "p50 ms", "p99 ms", "baseline/s", "ratio", "errors", "notifications"];

impl Report {
    fn cells(&self) -> [String; 9] {
        let notifications = match (self.notifications, self.notifications_expected) {
            (Some(got), Some(expected)) => format!("{got}/{expected}"),
            _ => "-".to_owned(),
        };
        [
            self.scenario.clone(),
            self.workers.to_string(),
            format!("{:.0}", self.throughput_per_s),
            format!("{:.2}", self.p50_ms),
            format!("{:.2}", self.p99_ms),
            format!("{:.0}", self.baseline_per_s),
            format!("{:.2}", self.ratio),
            self.errors.to_string(),
            notifications,
        ]
    }
}

/// Writes a header and rows as right-aligned columns, two spaces apart; every `fluxgate bench` table uses it.
pub fn write_table<R: AsRef<str>>(f: &mut fmt::Formatter<'_>, header: &[&str], rows: &[Vec<R>]) -> fmt::Result {
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter().filter_map(|r| r.get(i)).map(|c| c.as_ref().len()).chain([header[i].len()]).max().unwrap_or(0)
        })
        .collect();
    let line =
        |cells: Vec<&str>| cells.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect::<Vec<_>>().join("  ");
    writeln!(f, "{}", line(header.to_vec()))?;
    rows.iter().try_for_each(|r| writeln!(f, "{}", line(r.iter().map(AsRef::as_ref).collect())))
}

/// The table: a parameter line, then header and row with aligned columns.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "# {} server, {} connections, {:.0} s, {} entities, {} attributes/update, {} subscriptions, synchronous={}",
            self.server,
            self.connections,
            self.duration_s,
            self.entities,
            self.attributes,
            self.subscriptions,
            self.synchronous
        )?;
        write_table(f, &HEADER, &[self.cells().to_vec()])?;
        if let Some(error) = &self.first_error {
            writeln!(f, "first error: {error}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_starts_with_the_shared_fields() {
        let report = Report { scenario: "broker".into(), workers: 2, ratio: 0.5, ..Report::default() };
        let json = report.json();
        assert!(json.starts_with(r#"{"scenario":"broker","workers":2,"throughput_per_s":0.0,"p50_ms""#), "{json}");
        assert!(json.contains(r#""ratio":0.5"#), "{json}");
    }

    #[test]
    fn the_table_aligns_header_and_row() {
        let text = Report { scenario: "broker".into(), ..Report::default() }.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1].len(), lines[2].len(), "{text}");
    }
}
