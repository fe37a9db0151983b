//! Operations endpoints: `GET /version` and `GET /metrics` (Prometheus text).
//!
//! The Prometheus recorder is process-wide and installed once, with the metrics `meters` describes; every part of the
//! service records through the `metrics` facade and this module only renders.

use std::sync::OnceLock;
use std::time::Instant;

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use serde_json::json;

use crate::app::AppState;

static RECORDER: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
static STARTED: OnceLock<Instant> = OnceLock::new();

/// Installs the process-wide metrics recorder (idempotent).
pub fn install_recorder() -> Option<&'static PrometheusHandle> {
    STARTED.get_or_init(Instant::now);
    let installed = || {
        let handle = PrometheusBuilder::new().install_recorder().ok()?;
        crate::meters::register();
        Some(handle)
    };
    RECORDER.get_or_init(installed).as_ref()
}

pub fn router() -> Router<AppState> {
    Router::new().route("/version", get(version)).route("/metrics", get(metrics)).route_layer(crate::http::MetricsLayer)
}

async fn version() -> impl IntoResponse {
    let uptime = STARTED.get_or_init(Instant::now).elapsed().as_secs();
    axum::Json(json!({
        "orion": { "version": "1.15.1", "uptime": format_uptime(uptime), "compiled_by": "fluxgate" },
        "fluxgate": { "version": env!("CARGO_PKG_VERSION") }
    }))
}

fn format_uptime(seconds: u64) -> String {
    let (d, h, m, s) = (seconds / 86_400, seconds / 3_600 % 24, seconds / 60 % 60, seconds % 60);
    format!("{d} d, {h} h, {m} m, {s} s")
}

async fn metrics() -> impl IntoResponse {
    let text = install_recorder().map(PrometheusHandle::render).unwrap_or_default();
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text)
}
