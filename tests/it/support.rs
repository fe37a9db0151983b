//! Test helpers: a router-level harness over a real SQLite store in a temporary data dir (no socket), a real HTTP
//! receiver for notifications on a loopback port, and a server on a loopback port for end-to-end cases.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use fluxgate::app::{AppOptions, AppState, router};
use fluxgate::broker::notify::DeliveryPolicy;
use fluxgate::clock::ManualClock;
use fluxgate::store::sqlite::{SqliteOptions, Synchronous};
use http_body_util::BodyExt;
use serde_json::Value;
use tempfile::TempDir;
use tokio::sync::mpsc;
use tower::ServiceExt;

/// Options for a test service in `dir`, with delivery limits small enough for tests.
pub fn options(dir: &std::path::Path) -> AppOptions {
    AppOptions {
        store: SqliteOptions { data_dir: dir.to_owned(), readers: 2, synchronous: Synchronous::Normal },
        insecure: false,
        delivery: DeliveryPolicy {
            queue_capacity: 50,
            timeout: Duration::from_millis(500),
            retry_for: Duration::from_millis(600),
            first_backoff: Duration::from_millis(50),
        },
        command_ttl: Duration::from_secs(3600),
        history: fluxgate::history::HistoryOptions::default(),
        mqtt: None,
        cep_workers: 2,
    }
}

/// The router over a real store, driven without sockets.
pub struct Harness {
    pub state: AppState,
    pub token: String,
    pub clock: Arc<ManualClock>,
    router: Router,
    dir: TempDir,
}

/// A response: status, headers, JSON body (`Null` when empty or not JSON).
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Harness {
    pub async fn new() -> Self {
        Self::with_auth(true).await
    }

    /// A harness whose service runs with `--insecure` when `auth` is false.
    pub async fn with_auth(auth: bool) -> Self {
        Self::open(auth, fluxgate::history::HistoryOptions::default()).await
    }

    /// A harness with the given history options (retention, page size).
    pub async fn with_history(history: fluxgate::history::HistoryOptions) -> Self {
        Self::open(true, history).await
    }

    async fn open(auth: bool, history: fluxgate::history::HistoryOptions) -> Self {
        fluxgate::ops::install_recorder();
        let dir = tempfile::tempdir().expect("temp dir");
        let clock = ManualClock::starting_at(1_700_000_000_000);
        let options = AppOptions { insecure: !auth, history, ..options(dir.path()) };
        let state = AppState::open(&options, clock.clone()).await.expect("open state");
        let token = fluxgate::admin::ensure_default_service(state.store.as_ref()).await.unwrap().unwrap();
        let router = router(state.clone());
        Harness { state, token, clock, router, dir }
    }

    /// Opens the service again on the same data dir, as a restart would.
    pub async fn reopen(self) -> Self {
        let Harness { token, clock, dir, .. } = self;
        let state = AppState::open(&options(dir.path()), clock.clone()).await.expect("reopen state");
        let router = router(state.clone());
        Harness { state, token, clock, router, dir }
    }

    /// A text request, as devices send UltraLight.
    pub async fn text(&self, method: Method, path: &str, body: &str) -> Reply {
        self.send(method, path, &[("content-type", "text/plain")], Some(body)).await
    }

    /// Creates another service and returns its token.
    pub async fn service(&self, name: &str) -> String {
        let token = fluxgate::auth::new_token();
        let tenant = fluxgate::tenancy::Tenant::parse(name).unwrap();
        self.state.store.add_service(tenant, fluxgate::auth::TokenHash::of(&token)).await.unwrap();
        token
    }

    /// Adds a scoped token to a service.
    pub async fn scoped(&self, service: &str, path: &str, read_only: bool) -> String {
        let token = fluxgate::auth::new_token();
        let grant = fluxgate::auth::Grant {
            service: fluxgate::tenancy::Tenant::parse(service).unwrap(),
            path: fluxgate::tenancy::ServicePath::parse(path).unwrap(),
            read_only,
        };
        self.state.store.add_token(grant, fluxgate::auth::TokenHash::of(&token)).await.unwrap();
        token
    }

    /// Sends a raw request.
    pub async fn send(&self, method: Method, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Reply {
        let mut builder = Request::builder().method(method).uri(path);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        let body = body.map(str::to_owned).unwrap_or_default();
        if !body.is_empty() && !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("content-length")) {
            builder = builder.header("content-length", body.len().to_string());
        }
        let response = self.router.clone().oneshot(builder.body(Body::from(body)).unwrap()).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Reply { status, headers, body: serde_json::from_slice(&bytes).unwrap_or(Value::Null), text }
    }

    /// A JSON request with the default service's token and extra headers.
    pub async fn json(&self, method: Method, path: &str, extra: &[(&str, &str)], body: Option<Value>) -> Reply {
        let mut headers = vec![("content-type", "application/json"), ("accept", "application/json")];
        headers.push(("x-auth-token", self.token.as_str()));
        headers.extend_from_slice(extra);
        let text = body.map(|b| b.to_string());
        self.send(method, path, &headers, text.as_deref()).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Value {
        let reply = self.json(Method::POST, path, &[], Some(body)).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}: {:?}", reply.body);
        reply.body
    }

    pub async fn get(&self, path: &str) -> Value {
        let reply = self.json(Method::GET, path, &[], None).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}: {:?}", reply.body);
        reply.body
    }

    /// `updateContext` with one element of `(name, type, value)` attributes.
    pub async fn update(&self, action: &str, id: &str, entity_type: &str, attrs: &[(&str, &str, &str)]) -> Value {
        self.post("/cb/v1/updateContext", update_body(action, id, entity_type, attrs)).await
    }
}

pub fn update_body(action: &str, id: &str, entity_type: &str, attrs: &[(&str, &str, &str)]) -> Value {
    let attributes: Vec<Value> =
        attrs.iter().map(|(n, t, v)| serde_json::json!({"name": n, "type": t, "value": v})).collect();
    serde_json::json!({
        "contextElements": [{"type": entity_type, "isPattern": "false", "id": id, "attributes": attributes}],
        "updateAction": action
    })
}

/// A notification as the receiver saw it.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Value,
}

/// A real HTTP server on loopback that records every POST and answers with a fixed status.
pub struct Receiver {
    pub url: String,
    rx: mpsc::UnboundedReceiver<Received>,
}

impl Receiver {
    pub async fn start(status: StatusCode) -> Self {
        Self::answering_after(status, Duration::ZERO).await
    }

    /// A receiver that takes `delay` to answer each notification.
    pub async fn answering_after(status: StatusCode, delay: Duration) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let app = Router::new().fallback(move |headers: HeaderMap, body: axum::body::Bytes| {
            let tx = tx.clone();
            async move {
                tokio::time::sleep(delay).await;
                let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let _ = tx.send(Received { headers, body });
                status
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/notify", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, rx }
    }

    /// The next notification, waiting at most two seconds.
    pub async fn next(&mut self) -> Option<Received> {
        tokio::time::timeout(Duration::from_secs(2), self.rx.recv()).await.ok().flatten()
    }

    /// Asserts nothing arrives within `ms` milliseconds.
    pub async fn expect_none(&mut self, ms: u64) {
        let got = tokio::time::timeout(Duration::from_millis(ms), self.rx.recv()).await;
        assert!(got.is_err(), "unexpected notification: {got:?}");
    }
}

/// The `value` of attribute `name` in the first context element of a body.
pub fn attr_value(element: &Value, name: &str) -> Option<Value> {
    element["attributes"].as_array()?.iter().find(|a| a["name"] == name).map(|a| a["value"].clone())
}

/// A plain HTTP client for end-to-end tests against a real socket.
pub async fn http(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Option<(StatusCode, Value)> {
    use hyper_util::client::legacy::Client;
    let client: Client<_, http_body_util::Full<bytes::Bytes>> =
        Client::builder(hyper_util::rt::TokioExecutor::new()).build_http();
    let mut builder = Request::builder().method(method).uri(url);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    let body = bytes::Bytes::from(body.unwrap_or_default().to_owned());
    let request = builder.body(http_body_util::Full::new(body)).ok()?;
    let response = tokio::time::timeout(Duration::from_secs(5), client.request(request)).await.ok()?.ok()?;
    let status = response.status();
    let bytes = response.into_body().collect().await.ok()?.to_bytes();
    Some((status, serde_json::from_slice(&bytes).unwrap_or(Value::Null)))
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}
