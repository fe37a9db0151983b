//! A subscription's connection to its HTTP receiver: one keep-alive HTTP/1.1 connection, owned by the subscription's
//! delivery task and driven inside it, so a notification goes out and its answer comes back with no connection pool
//! and no connection task in between. hyper's pooled client took a pool lock twice and woke a second task twice
//! per notification (`benches/results/broker.md`, twenty-first session).
//!
//! The connection is opened on first use and again after any failure. A connection the receiver closed while it was
//! idle is found closed before anything is written on it, and replaced at once; once a request is written, a failure
//! is the caller's to retry, since the receiver may have taken it. Timeouts and retries belong to `notify`: a dropped
//! [`Outbound::post`] drops its connection with it, so a half-finished exchange is never reused.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::{Body, Incoming};
use hyper::client::conn::http1::{self, Connection, SendRequest};
use hyper::header::{HOST, HeaderValue};
use hyper::{Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// Why a notification did not reach its receiver.
#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    #[error("reference {reference} is not an http URL: {why}")]
    Reference { reference: String, why: String },
    #[error("cannot connect to {authority}: {source}")]
    Connect { authority: String, source: std::io::Error },
    #[error("the receiver closed the connection")]
    Closed,
    #[error(transparent)]
    Http(#[from] hyper::Error),
}

/// Where a reference points: the `host:port` to connect to, the `Host` header (the reference's authority as
/// written) and the request target.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    authority: String,
    host: HeaderValue,
    path: Uri,
}

impl Target {
    /// Reads `http://host[:port][/path]`; a reference without a scheme is taken as `http://`.
    fn parse(reference: &str) -> Result<Self, OutboundError> {
        let bad = |why: &str| OutboundError::Reference { reference: reference.to_owned(), why: why.to_owned() };
        let url = if reference.contains("://") { reference.to_owned() } else { format!("http://{reference}") };
        let uri: Uri = url.parse().map_err(|e: hyper::http::uri::InvalidUri| bad(&e.to_string()))?;
        if uri.scheme_str() != Some("http") {
            return Err(bad("only http is supported"));
        }
        let authority = uri.authority().ok_or_else(|| bad("no host"))?;
        let port = authority.port_u16().unwrap_or(80);
        let host = HeaderValue::from_str(authority.as_str()).map_err(|_| bad("bad host"))?;
        let path = uri.path_and_query().map_or("/", |p| p.as_str()).parse().map_err(|_| bad("bad path"))?;
        Ok(Target { authority: format!("{}:{port}", authority.host()), host, path })
    }
}

/// The connection's driver: hyper's connection future, polled by whoever waits on the connection, and never again
/// once it has ended.
struct Driver(Option<Pin<Box<HttpConnection>>>);

type HttpConnection = Connection<TokioIo<TcpStream>, Full<Bytes>>;

impl Driver {
    /// Moves the connection's reads and writes on; `Ready` once it has ended (closed or failed).
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(connection) = self.0.as_mut() else {
            return Poll::Ready(());
        };
        if connection.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        self.0 = None;
        Poll::Ready(())
    }

    fn ended(&self) -> bool {
        self.0.is_none()
    }
}

struct Open {
    sender: SendRequest<Full<Bytes>>,
    driver: Driver,
}

/// One subscription's connection to its receiver.
pub struct Outbound {
    reference: String,
    /// The reference read once; `None` when it is not an http URL.
    target: Option<Target>,
    open: Option<Open>,
}

impl std::fmt::Debug for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbound").field("reference", &self.reference).field("open", &self.open.is_some()).finish()
    }
}

impl Outbound {
    /// A connection to `reference`, opened on first use.
    pub fn new(reference: &str) -> Self {
        Outbound { reference: reference.to_owned(), target: Target::parse(reference).ok(), open: None }
    }

    /// Posts `body` with `headers` to the reference and answers the receiver's status, once its answer has been read
    /// whole.
    pub async fn post(&mut self, headers: hyper::HeaderMap, body: Bytes) -> Result<StatusCode, OutboundError> {
        let Some(target) = &self.target else {
            return Err(Target::parse(&self.reference).expect_err("a reference that did not parse"));
        };
        let kept = match self.open.take() {
            Some(open) => usable(open).await,
            None => None,
        };
        let mut open = match kept {
            Some(open) => open,
            None => connect(&target.authority).await?,
        };
        let request = request(target, headers, body);
        let status = exchange(&mut open, request).await?;
        if !open.driver.ended() {
            self.open = Some(open);
        }
        Ok(status)
    }
}

async fn connect(authority: &str) -> Result<Open, OutboundError> {
    let failed = |source| OutboundError::Connect { authority: authority.to_owned(), source };
    let stream = TcpStream::connect(authority).await.map_err(failed)?;
    stream.set_nodelay(true).map_err(failed)?;
    let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
    let mut open = Open { sender, driver: Driver(Some(Box::pin(connection))) };
    ready(&mut open).await?;
    Ok(open)
}

/// A kept connection, if it can still take a request: the receiver may have closed it while it was idle.
async fn usable(mut open: Open) -> Option<Open> {
    ready(&mut open).await.ok().map(|()| open)
}

fn request(target: &Target, headers: hyper::HeaderMap, body: Bytes) -> Request<Full<Bytes>> {
    let mut request = Request::post(target.path.clone()).body(Full::new(body)).expect("a known method and path");
    *request.headers_mut() = headers;
    request.headers_mut().insert(HOST, target.host.clone());
    request
}

/// Waits until the connection can take a request, driving it meanwhile; an error when it has ended.
async fn ready(open: &mut Open) -> Result<(), OutboundError> {
    let Open { sender, driver } = open;
    poll_fn(|cx| {
        if driver.poll(cx).is_ready() {
            return Poll::Ready(Err(OutboundError::Closed));
        }
        sender.poll_ready(cx).map_err(OutboundError::from)
    })
    .await
}

/// Sends `request` and reads the answer to its end, driving the connection meanwhile.
async fn exchange(open: &mut Open, request: Request<Full<Bytes>>) -> Result<StatusCode, OutboundError> {
    let Open { sender, driver } = open;
    let mut answer = pin!(sender.send_request(request));
    let response = poll_fn(|cx| {
        let ended = driver.poll(cx).is_ready();
        match answer.as_mut().poll(cx) {
            Poll::Ready(result) => Poll::Ready(result.map_err(OutboundError::from)),
            Poll::Pending if ended => Poll::Ready(Err(OutboundError::Closed)),
            Poll::Pending => Poll::Pending,
        }
    })
    .await?;
    let status = response.status();
    drain(driver, response.into_body()).await?;
    Ok(status)
}

/// Reads an answer's body to its end, so the connection can carry the next request.
async fn drain(driver: &mut Driver, body: Incoming) -> Result<(), OutboundError> {
    let mut body = pin!(body);
    poll_fn(|cx| {
        loop {
            let ended = driver.poll(cx).is_ready();
            match body.as_mut().poll_frame(cx) {
                Poll::Ready(None) => return Poll::Ready(Ok(())),
                Poll::Ready(Some(Ok(_))) => continue,
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e.into())),
                Poll::Pending if ended => return Poll::Ready(Err(OutboundError::Closed)),
                Poll::Pending => return Poll::Pending,
            }
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    #[test]
    fn references_name_a_host_port_and_an_origin_form_target() {
        let t = Target::parse("http://127.0.0.1:1028/accumulate?x=1").unwrap();
        assert_eq!((t.authority.as_str(), t.path.to_string().as_str()), ("127.0.0.1:1028", "/accumulate?x=1"));
        assert_eq!(t.host, "127.0.0.1:1028");
        let t = Target::parse("localhost/notify").unwrap();
        assert_eq!((t.authority.as_str(), t.path.to_string().as_str()), ("localhost:80", "/notify"));
        assert_eq!(t.host, "localhost");
        assert_eq!(Target::parse("http://[::1]:1028/n").unwrap().authority, "[::1]:1028");
        assert_eq!(Target::parse("http://example.org").unwrap().path.to_string(), "/");
        assert!(matches!(Target::parse("https://example.org/x"), Err(OutboundError::Reference { .. })));
        assert!(matches!(Target::parse("http://"), Err(OutboundError::Reference { .. })));
    }

    /// How the test receiver treats a connection after its answer.
    #[derive(Clone, Copy)]
    enum After {
        KeepAlive,
        /// Closes the socket a little after answering, without saying so, as a receiver whose idle timeout ran out
        /// does.
        Close,
    }

    /// A receiver on loopback that reads whole requests, answers `204`, and records the connections it accepted and
    /// the head of each request it answered.
    async fn receiver(after: After) -> (String, Arc<AtomicUsize>, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/notify", listener.local_addr().unwrap());
        let (connections, heads) = (Arc::new(AtomicUsize::new(0)), Arc::new(Mutex::new(Vec::new())));
        let (c, h) = (connections.clone(), heads.clone());
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                c.fetch_add(1, Ordering::SeqCst);
                let h = h.clone();
                tokio::spawn(async move {
                    while let Some(head) = read_request(&mut socket).await {
                        h.lock().unwrap().push(head);
                        let answer = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n";
                        socket.write_all(answer).await.unwrap();
                        if let After::Close = after {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                            return;
                        }
                    }
                });
            }
        });
        (url, connections, heads)
    }

    /// Reads one request (head and `content-length` body) and answers its head; `None` at the end of the connection.
    async fn read_request(socket: &mut TcpStream) -> Option<String> {
        let mut seen = Vec::new();
        let mut byte = [0u8; 1];
        while !seen.ends_with(b"\r\n\r\n") {
            if socket.read(&mut byte).await.unwrap_or(0) == 0 {
                return None;
            }
            seen.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&seen).to_ascii_lowercase();
        let length =
            head.lines().find_map(|l| l.strip_prefix("content-length:")).map_or(0, |v| v.trim().parse().unwrap());
        let mut body = vec![0u8; length];
        socket.read_exact(&mut body).await.ok().map(|_| head)
    }

    fn headers() -> hyper::HeaderMap {
        let mut headers = hyper::HeaderMap::new();
        headers.insert("content-type", "application/json".parse().unwrap());
        headers
    }

    /// Posts a small body and requires the receiver's `204`.
    async fn post_ok(outbound: &mut Outbound) {
        let status = outbound.post(headers(), Bytes::from_static(b"{}")).await.unwrap();
        assert_eq!(status, StatusCode::NO_CONTENT);
    }

    #[tokio::test]
    async fn one_kept_connection_carries_every_notification() {
        let (url, connections, heads) = receiver(After::KeepAlive).await;
        let mut outbound = Outbound::new(&url);
        for _ in 0..5 {
            post_ok(&mut outbound).await;
        }
        assert_eq!((connections.load(Ordering::SeqCst), heads.lock().unwrap().len()), (1, 5));
        let head = heads.lock().unwrap()[0].clone();
        assert!(head.starts_with("post /notify http/1.1\r\n"), "{head}");
        let authority = url.trim_start_matches("http://").trim_end_matches("/notify");
        assert!(head.contains(&format!("\r\nhost: {authority}\r\n")), "{head}");
        assert!(head.contains("\r\ncontent-type: application/json\r\n"), "{head}");
    }

    #[tokio::test]
    async fn a_connection_the_receiver_closed_while_idle_is_replaced_before_anything_is_written() {
        let (url, connections, heads) = receiver(After::Close).await;
        let mut outbound = Outbound::new(&url);
        for _ in 0..3 {
            post_ok(&mut outbound).await;
            // The receiver closes the connection while it is idle on this side.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!((connections.load(Ordering::SeqCst), heads.lock().unwrap().len()), (3, 3));
    }

    #[tokio::test]
    async fn an_unreachable_receiver_and_a_bad_reference_are_errors_that_say_why() {
        let port = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap().port();
        let mut outbound = Outbound::new(&format!("http://127.0.0.1:{port}/notify"));
        let error = outbound.post(headers(), Bytes::new()).await.unwrap_err();
        assert!(matches!(error, OutboundError::Connect { .. }), "{error}");
        assert!(error.to_string().contains(&format!("127.0.0.1:{port}")), "{error}");
        let error = Outbound::new("ftp://host/x").post(headers(), Bytes::new()).await.unwrap_err();
        assert_eq!(error.to_string(), "reference ftp://host/x is not an http URL: only http is supported");
    }
}
