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

/// `fluxgate bench alerts`, briefly and slowly: every crossing's alert arrives, after its confirmation, within bounds.
#[test]
fn alerts_of_a_short_run_arrive_after_their_confirmation() {
    let options = fluxgate::bench::alerts::AlertsOptions {
        rate: 100.0,
        duration: Duration::from_secs(6),
        trackers: 20,
        crossers: 5,
        connections: 2,
        workers: 1,
        cep_workers: Some(1),
    };
    let report = fluxgate::bench::alerts::run(&options).expect("bench runs");
    assert!(report.complete().is_ok(), "{report}");
    assert_eq!(report.cep_workers, 1, "{report}");
    assert_eq!((report.crossings, report.alerts, report.errors), (5, 5, 0), "{report}");
    assert!(report.throughput_per_s > 0.0, "{report}");
    // Engine time is whole wall-clock milliseconds, so an alert may come up to 1 ms before the deadline counted from
    // the send; anything later than a second would mean the timers or delivery are broken, even in a debug build.
    assert!(report.min_ms > -1.0 && report.max_ms < 1_000.0, "{report}");
}
