//! `fluxgate bench broker` end to end, kept short: its own server, a few connections, one second of load per side.

use std::time::Duration;

use fluxgate::bench::workload::Workload;
use fluxgate::bench::{BrokerOptions, broker};

fn options(subscriptions: usize) -> BrokerOptions {
    BrokerOptions {
        url: None,
        token: None,
        connections: 4,
        duration: Duration::from_secs(1),
        workload: Workload { entities: 50, attributes: 3, subscriptions },
        synchronous: Some("normal".to_owned()),
        workers: 2,
    }
}

#[test]
fn a_short_run_has_no_errors_and_delivers_notifications() {
    let report = broker(&options(5)).expect("bench runs");
    assert_eq!(report.errors, 0, "{report}");
    assert_eq!(report.baseline_errors, 0, "{report}");
    assert!(report.throughput_per_s > 0.0 && report.baseline_per_s > 0.0, "{report}");
    // Delivery may drop under load by design (bounded queues), so only the bounds are checked here.
    let (received, expected) = (report.notifications.unwrap_or(0), report.notifications_expected.unwrap_or(0));
    assert!(received > 0 && received <= expected, "{report}");
}
