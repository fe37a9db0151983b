//! The client side of `fluxgate bench broker`: keep-alive hyper 1 HTTP/1.1 connections that send `updateContext`
//! bodies back to back for a fixed duration and record each request's latency in an HDR histogram.
//!
//! Connection `c` of `n` sends request numbers `c, c + n, c + 2n, ...`, so the connections walk the entities
//! round-robin without sharing a counter. An answer that is not a 200, or whose NGSI body carries an error code, is
//! counted as an error, never hidden. This module knows nothing about servers; it only talks to an [`Endpoint`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::task::JoinSet;

use super::BenchError;

/// Where requests go: `host:port`, a path prefix, and the `X-Auth-Token` to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub authority: String,
    pub prefix: String,
    pub token: Option<String>,
}

impl Endpoint {
    /// Reads `http://host:port[/prefix]`.
    pub fn parse(url: &str, token: Option<String>) -> Result<Self, BenchError> {
        let bad = || BenchError::Url(url.to_owned());
        let uri: Uri = url.parse().map_err(|_| bad())?;
        if uri.scheme_str().is_some_and(|s| s != "http") {
            return Err(bad());
        }
        let authority = uri.authority().ok_or_else(bad)?.to_string();
        Ok(Endpoint { authority, prefix: uri.path().trim_end_matches('/').to_owned(), token })
    }

    fn request(&self, path: &str, content_type: &str, body: Bytes) -> Result<hyper::Request<Full<Bytes>>, BenchError> {
        let mut builder = hyper::Request::post(format!("{}{path}", self.prefix))
            .header("host", &self.authority)
            .header("content-type", content_type)
            .header("accept", "application/json");
        if let Some(token) = &self.token {
            builder = builder.header("x-auth-token", token);
        }
        builder.body(Full::new(body)).map_err(|e| BenchError::Request(e.to_string()))
    }
}

/// How answers are judged: NGSI (200 and no error code in the body) or plain HTTP 200.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    Ngsi,
    Ok,
}

impl Expect {
    pub fn accepts(self, status: StatusCode, body: &[u8]) -> bool {
        status == StatusCode::OK && (self == Expect::Ok || ngsi_ok(body))
    }
}

/// Every status code in the body is a 200 and there is no `errorCode`.
fn ngsi_ok(body: &[u8]) -> bool {
    let text = String::from_utf8_lossy(body);
    !text.contains("errorCode") && text.matches(r#""code":""#).count() == text.matches(r#""code":"200""#).count()
}

/// One keep-alive connection.
#[derive(Debug)]
pub struct Conn {
    endpoint: Endpoint,
    sender: SendRequest<Full<Bytes>>,
}

impl Conn {
    pub async fn open(endpoint: &Endpoint) -> Result<Self, BenchError> {
        let connect_error = |e: std::io::Error| BenchError::Connect { addr: endpoint.authority.clone(), source: e };
        let stream = TcpStream::connect(&endpoint.authority).await.map_err(connect_error)?;
        stream.set_nodelay(true).map_err(connect_error)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(connection);
        Ok(Conn { endpoint: endpoint.clone(), sender })
    }

    /// A new connection to the same endpoint, after a failure.
    pub async fn reopen(&self) -> Result<Self, BenchError> {
        Conn::open(&self.endpoint).await
    }

    /// Sends one JSON POST and reads the whole answer.
    pub async fn post(&mut self, path: &str, body: Bytes) -> Result<(StatusCode, Bytes), BenchError> {
        self.post_as(path, "application/json", body).await
    }

    /// Sends one POST of `content_type` and reads the whole answer.
    pub async fn post_as(
        &mut self,
        path: &str,
        content_type: &str,
        body: Bytes,
    ) -> Result<(StatusCode, Bytes), BenchError> {
        let request = self.endpoint.request(path, content_type, body)?;
        self.sender.ready().await?;
        let response = self.sender.send_request(request).await?;
        let status = response.status();
        Ok((status, response.into_body().collect().await?.to_bytes()))
    }

    /// Sends one POST and fails unless the answer is accepted.
    pub async fn post_expecting(&mut self, path: &str, body: Bytes, expect: Expect) -> Result<Bytes, BenchError> {
        let (status, answer) = self.post(path, body).await?;
        if !expect.accepts(status, &answer) {
            let body = String::from_utf8_lossy(&answer).into_owned();
            return Err(BenchError::Refused { path: path.to_owned(), status: status.as_u16(), body });
        }
        Ok(answer)
    }
}

/// The shape of a timed run.
#[derive(Debug, Clone)]
pub struct Load<R> {
    pub connections: usize,
    pub duration: Duration,
    pub requests: Arc<R>,
}

/// One timed request: where it goes, and what it carries.
#[derive(Debug, Clone)]
pub struct Request {
    pub path: String,
    pub content_type: &'static str,
    pub body: Bytes,
}

/// What a timed run sends (request `seq` of the run), and which answers count as successes.
pub trait Requests: Send + Sync + 'static {
    fn request(&self, seq: u64) -> Request;
    fn accepts(&self, status: StatusCode, body: &[u8]) -> bool;
}

/// What a timed run measured.
#[derive(Debug, Clone)]
pub struct LoadResult {
    pub requests: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    pub elapsed: Duration,
    /// Microseconds per request.
    pub latency: Histogram<u64>,
}

impl LoadResult {
    pub fn empty() -> Self {
        let latency = Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds");
        LoadResult { requests: 0, errors: 0, first_error: None, elapsed: Duration::ZERO, latency }
    }

    pub fn record(&mut self, started: Instant, error: Option<String>) {
        self.latency.saturating_record(started.elapsed().as_micros() as u64);
        self.requests += 1;
        if let Some(error) = error {
            self.errors += 1;
            self.first_error.get_or_insert(error);
        }
    }

    pub fn absorb(&mut self, other: LoadResult) {
        self.latency.add(&other.latency).expect("histograms share bounds");
        self.requests += other.requests;
        self.errors += other.errors;
        self.first_error = self.first_error.take().or(other.first_error);
    }

    /// Answered requests per second, errors excluded.
    pub fn throughput(&self) -> f64 {
        (self.requests - self.errors) as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn percentile_ms(&self, quantile: f64) -> f64 {
        self.latency.value_at_quantile(quantile) as f64 / 1000.0
    }
}

/// Opens every connection, then sends requests on all of them until the duration is over.
pub async fn run<R: Requests>(endpoint: &Endpoint, load: Load<R>) -> Result<LoadResult, BenchError> {
    let mut conns = Vec::with_capacity(load.connections);
    for _ in 0..load.connections {
        conns.push(Conn::open(endpoint).await?);
    }
    let started = Instant::now();
    let deadline = started + load.duration;
    let step = load.connections as u64;
    let mut tasks = JoinSet::new();
    for (index, conn) in conns.into_iter().enumerate() {
        tasks.spawn(drive(conn, load.requests.clone(), index as u64, step, deadline));
    }
    let mut total = LoadResult::empty();
    while let Some(joined) = tasks.join_next().await {
        total.absorb(joined.map_err(|e| BenchError::Request(e.to_string()))??);
    }
    total.elapsed = started.elapsed();
    Ok(total)
}

/// One connection's loop: requests `first`, `first + step`, ... until the deadline.
async fn drive<R: Requests>(
    mut conn: Conn,
    requests: Arc<R>,
    first: u64,
    step: u64,
    deadline: Instant,
) -> Result<LoadResult, BenchError> {
    let mut result = LoadResult::empty();
    let mut seq = first;
    while Instant::now() < deadline {
        let request = requests.request(seq);
        let started = Instant::now();
        let error = match conn.post_as(&request.path, request.content_type, request.body).await {
            Ok((status, body)) if requests.accepts(status, &body) => None,
            Ok((status, body)) => Some(format!("{status}: {}", String::from_utf8_lossy(&body))),
            Err(e) => {
                conn = conn.reopen().await?;
                Some(e.to_string())
            }
        };
        result.record(started, error);
        seq += step;
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_authority_and_prefix() {
        let endpoint = Endpoint::parse("http://127.0.0.1:8080/", None).unwrap();
        assert_eq!((endpoint.authority.as_str(), endpoint.prefix.as_str()), ("127.0.0.1:8080", ""));
        assert!(Endpoint::parse("https://example.org", None).is_err());
    }

    #[test]
    fn ngsi_errors_in_a_200_body_count() {
        assert!(ngsi_ok(br#"{"contextResponses":[{"statusCode":{"code":"200","reasonPhrase":"OK"}}]}"#));
        assert!(!ngsi_ok(br#"{"contextResponses":[{"statusCode":{"code":"472","reasonPhrase":"x"}}]}"#));
        assert!(!ngsi_ok(br#"{"errorCode":{"code":"404","reasonPhrase":"No context element found"}}"#));
    }
}
