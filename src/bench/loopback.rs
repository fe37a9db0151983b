//! A minimal hyper 1 HTTP/1.1 server on a loopback port, used by `fluxgate bench broker` for its bare baseline and
//! its notification receiver.
//!
//! It reads each request body whole and hands it to a synchronous handler that returns the status and the JSON body
//! of the answer. It has no routing, no middleware and no state of its own; it must stay that bare, since the
//! baseline's point is to measure what hyper and serde_json alone cost.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::BenchError;

/// Turns a request body into the answer's status and body.
pub type Handler = Arc<dyn Fn(&[u8]) -> (StatusCode, Bytes) + Send + Sync>;

/// A running loopback server; dropping it stops accepting.
#[derive(Debug)]
pub struct Loopback {
    pub addr: SocketAddr,
    accept: JoinHandle<()>,
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Binds `127.0.0.1:0` and serves `handler` on the current runtime.
pub async fn start(handler: Handler) -> Result<Loopback, BenchError> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let accept = tokio::spawn(accept_loop(listener, handler));
    Ok(Loopback { addr, accept })
}

async fn accept_loop(listener: TcpListener, handler: Handler) {
    while let Ok((stream, _)) = listener.accept().await {
        tokio::spawn(serve(stream, handler.clone()));
    }
}

async fn serve(stream: TcpStream, handler: Handler) {
    drop(stream.set_nodelay(true));
    let service = service_fn(move |request| answer(request, handler.clone()));
    let served = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
    if let Err(e) = served {
        tracing::debug!(error = %e, "loopback connection ended");
    }
}

async fn answer(request: Request<Incoming>, handler: Handler) -> Result<Response<Full<Bytes>>, hyper::Error> {
    let body = request.into_body().collect().await?.to_bytes();
    let (status, answer) = handler(&body);
    let mut response = Response::new(Full::new(answer));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(response)
}
