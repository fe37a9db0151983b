//! The service's metrics, described once and, for counters, registered at zero when the recorder is installed.
//!
//! A counter that appears in `/metrics` only after its first increment hides the rate a dashboard or alert rule
//! would compute across that first event (Prometheus's advice is to export every known series from the start). The
//! counters whose labels name a fixed set of outcomes are registered with each outcome; HTTP request counters are
//! labelled by the route and status seen, so they are only described here.

/// A counter: its name, help text and the series it has from the start.
struct Counter {
    name: &'static str,
    help: &'static str,
    series: Series,
}

enum Series {
    /// One series without labels.
    One,
    /// A series for each value of one label.
    Each(&'static str, &'static [&'static str]),
    /// Labels only known as requests come (routes and statuses): described, with no series until then.
    Seen,
}

const fn plain(name: &'static str, help: &'static str) -> Counter {
    Counter { name, help, series: Series::One }
}

const fn labelled(
    name: &'static str,
    help: &'static str,
    label: &'static str,
    values: &'static [&'static str],
) -> Counter {
    Counter { name, help, series: Series::Each(label, values) }
}

const COUNTERS: &[Counter] = &[
    Counter {
        name: "fluxgate_http_requests_total",
        help: "HTTP requests answered, by route, method and status.",
        series: Series::Seen,
    },
    plain("fluxgate_notifications_sent_total", "Subscription notifications delivered."),
    plain("fluxgate_notifications_coalesced_total", "Notifications merged into one still waiting to be sent."),
    plain("fluxgate_notifications_failed_total", "Notification attempts that failed."),
    plain("fluxgate_notifications_retried_total", "Notification attempts scheduled again after a failure."),
    labelled(
        "fluxgate_notifications_dropped_total",
        "Notifications given up, by reason.",
        "reason",
        &["queue_full", "delivery_stopped", "retries_exhausted"],
    ),
    labelled(
        "fluxgate_history_samples_total",
        "Historic samples offered, by outcome.",
        "outcome",
        &["stored", "duplicate"],
    ),
    plain("fluxgate_mqtt_accepted_total", "MQTT publishes handled (observations, command results)."),
    labelled(
        "fluxgate_mqtt_refused_total",
        "MQTT publishes and connections refused, by reason.",
        "reason",
        &["bad_user", "bad_topic", "unknown_token", "unregistered_device", "malformed_payload", "rejected"],
    ),
    labelled(
        "fluxgate_mqtt_commands_total",
        "Commands published to devices over MQTT, by outcome.",
        "state",
        &["published", "failed"],
    ),
    labelled(
        "fluxgate_commands_pushed_total",
        "Commands pushed to HTTP devices, by the state they end in.",
        "state",
        &["OK", "ERROR"],
    ),
    plain("fluxgate_cep_events_total", "Events handed to the CEP workers."),
    plain("fluxgate_cep_elements_rejected_total", "Notified context elements the CEP could not take as events."),
    labelled(
        "fluxgate_cep_notifications_refused_total",
        "CEP notifications refused, by reason.",
        "reason",
        &["queue_full"],
    ),
    plain("fluxgate_cep_updates_sent_total", "CEP output updates written to a broker."),
    plain("fluxgate_cep_updates_failed_total", "CEP output update attempts that failed."),
    plain("fluxgate_cep_updates_retried_total", "CEP output updates scheduled again after a failure."),
    labelled(
        "fluxgate_cep_updates_dropped_total",
        "CEP output updates given up, by reason.",
        "reason",
        &["queue_full", "retries_exhausted"],
    ),
    plain("fluxgate_cep_worker_restarts_total", "CEP worker pools started again after a worker stopped."),
    plain("fluxgate_cep_dataflows_reinstalled_total", "Tenant dataflows installed again on a restarted pool."),
];

/// Describes every metric and registers each counter's known series at zero. Called once, by
/// `ops::install_recorder`, right after the recorder is installed.
pub(crate) fn register() {
    for c in COUNTERS {
        metrics::describe_counter!(c.name, c.help);
        match c.series {
            Series::One => metrics::counter!(c.name).absolute(0),
            Series::Each(label, values) => {
                values.iter().for_each(|v| metrics::counter!(c.name, label => *v).absolute(0))
            }
            Series::Seen => {}
        }
    }
    metrics::describe_gauge!("fluxgate_notification_queue_depth", "Notifications queued for delivery.");
    metrics::describe_histogram!("fluxgate_http_request_seconds", "HTTP request durations, by route.");
    metrics::describe_histogram!("fluxgate_history_merge_seconds", "Durations of historic aggregate merges.");
    metrics::describe_histogram!("fluxgate_store_commit_batch_size", "Writes committed per store transaction.");
    metrics::describe_histogram!("fluxgate_store_commit_seconds", "Durations of store transactions.");
}

#[cfg(test)]
mod tests {
    use metrics_exporter_prometheus::PrometheusBuilder;

    use super::*;

    #[test]
    fn every_known_series_is_exported_at_zero_with_its_help() {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, register);
        let text = handle.render();
        let lines: Vec<&str> = text.lines().collect();
        for c in COUNTERS {
            let series: Vec<String> = match c.series {
                Series::One => vec![format!("{} 0", c.name)],
                Series::Each(label, values) => {
                    values.iter().map(|v| format!("{}{{{label}=\"{v}\"}} 0", c.name)).collect()
                }
                // The exporter writes a metric's help with its first series.
                Series::Seen => continue,
            };
            assert!(lines.contains(&format!("# HELP {} {}", c.name, c.help).as_str()), "{text}");
            series.iter().for_each(|s| assert!(lines.contains(&s.as_str()), "{s} in {text}"));
        }
        assert!(!text.contains("fluxgate_http_requests_total{"), "{text}");
    }
}
