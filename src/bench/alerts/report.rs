//! What `fluxgate bench alerts` prints: a parameter line and a table, or with `--json` one object that starts with
//! the fields every `fluxgate bench` scenario shares (`scenario`, `workers`, `throughput_per_s`, `p50_ms`, `p99_ms`)
//! but has no baseline: the criterion it checks is absolute (p99 within 10 ms at 10,000 positions per second).
//!
//! Rendering and the final verdict on completeness only; the numbers come from `pace` and `outcome` unadjusted.

use std::fmt;

use serde::Serialize;

use super::AlertBenchError;

/// One run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AlertsReport {
    pub scenario: String,
    /// Threads of the started server.
    pub workers: usize,
    /// Accepted positions per second over the paced run.
    pub throughput_per_s: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub min_ms: f64,
    pub target_per_s: f64,
    pub positions: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    pub crossings: usize,
    pub alerts: usize,
    pub missing: usize,
    pub unexpected: usize,
    pub trackers: u32,
    pub connections: usize,
    /// CEP workers of the started server.
    pub cep_workers: usize,
    pub duration_s: f64,
    /// Wall seconds the load ran: longer than `duration_s` when the server fell behind the pace.
    pub load_s: f64,
    /// How the alert's write was seen: always the notification of a subscription, so latencies are upper bounds.
    pub observed: String,
}

impl AlertsReport {
    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("plain struct serializes")
    }

    /// Fails when a crossing got no alert, or an alert came that no crossing explains.
    pub fn complete(&self) -> Result<(), AlertBenchError> {
        match (self.missing, self.unexpected) {
            (0, 0) => Ok(()),
            (missing, unexpected) => {
                Err(AlertBenchError::Incomplete { missing, unexpected, crossings: self.crossings })
            }
        }
    }

    fn cells(&self) -> Vec<String> {
        vec![
            self.scenario.clone(),
            self.workers.to_string(),
            self.cep_workers.to_string(),
            format!("{:.0}", self.throughput_per_s),
            format!("{:.0}", self.target_per_s),
            self.crossings.to_string(),
            self.alerts.to_string(),
            self.missing.to_string(),
            format!("{:.2}", self.p50_ms),
            format!("{:.2}", self.p99_ms),
            format!("{:.2}", self.max_ms),
            self.errors.to_string(),
        ]
    }
}

const HEADER: [&str; 12] = [
    "scenario",
    "workers",
    "cep workers",
    "positions/s",
    "target/s",
    "crossings",
    "alerts",
    "missing",
    "p50 ms",
    "p99 ms",
    "max ms",
    "errors",
];

/// A parameter line, then header and row with aligned columns; latencies are from confirmation end to notification.
impl fmt::Display for AlertsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "# in-process server, {} trackers, {} connections, {:.0} s scheduled, {:.1} s of load, {} positions; latency = {}; min {:.2} ms, {} unexpected",
            self.trackers,
            self.connections,
            self.duration_s,
            self.load_s,
            self.positions,
            self.observed,
            self.min_ms,
            self.unexpected
        )?;
        crate::bench::report::write_table(f, &HEADER, &[self.cells()])?;
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
    fn json_starts_with_the_shared_fields_and_missing_alerts_fail() {
        let report =
            AlertsReport { scenario: "alerts".into(), workers: 2, crossings: 3, missing: 1, ..Default::default() };
        assert!(report.json().starts_with(r#"{"scenario":"alerts","workers":2,"throughput_per_s":0.0,"p50_ms""#));
        assert!(report.complete().is_err());
        assert!(AlertsReport::default().complete().is_ok());
        let text = report.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1].len(), lines[2].len(), "{text}");
    }
}
