//! Notification delivery: off the request path, in order per subscription, throttled, retried, bounded, counted.
//!
//! Each subscription with something to send gets one delivery task fed by a bounded queue. The update path (the
//! store's writer thread, after the commit) hands notifications to one router task, in commit order, and never
//! waits; the router only `try_send`s them on, so its own channel empties as fast as the runtime runs it, and a full
//! subscription queue drops the notification and counts it. The task sends one notification at a time (so a
//! subscription's notifications arrive in order), retrying a failing receiver with exponential backoff for a bounded
//! time. With throttling, changes arriving within the interval are held, the latest per entity, and sent
//! together when the interval ends, so the receiver always ends on the current state (Orion drops them instead).
//! References naming this gateway's `/cep/notify` or `/sth/notify` go to an in-process [`NotificationSink`].

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, LazyLock, RwLock};
use std::time::Duration;

use bytes::Bytes;
use hyper::HeaderMap;
use hyper::header::{self, HeaderValue};
use metrics::{Counter, Gauge};
use serde::Serialize;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::outbound::Outbound;
use super::status::Status;
use super::subscription::{Subscription, SubscriptionId};
use super::wire::ContextElementOut;
use crate::store::Origin;
use crate::tenancy::{ServicePath, Tenant};

/// One notification on its way: which subscription, whose entities, caused by which request.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub subscription_id: SubscriptionId,
    pub tenant: Tenant,
    pub path: ServicePath,
    pub elements: Vec<ContextElementOut>,
    pub origin: Origin,
}

/// The notification body, in Orion's key order; it borrows the notification's elements.
#[derive(Debug, Serialize)]
pub struct NotifyContextRequest<'a> {
    #[serde(rename = "subscriptionId")]
    pub subscription_id: &'a str,
    pub originator: &'static str,
    #[serde(rename = "contextResponses")]
    pub context_responses: Vec<NotifiedElement<'a>>,
}

/// One `contextResponses` entry of a notification: an element, always with status 200.
#[derive(Debug, Serialize)]
pub struct NotifiedElement<'a> {
    #[serde(rename = "contextElement")]
    pub context_element: &'a ContextElementOut,
    #[serde(rename = "statusCode")]
    pub status_code: &'a Status,
}

/// The status every notified element carries.
static OK: LazyLock<Status> = LazyLock::new(Status::ok);

impl Notification {
    pub fn body(&self) -> NotifyContextRequest<'_> {
        let context_responses =
            self.elements.iter().map(|e| NotifiedElement { context_element: e, status_code: &OK }).collect();
        NotifyContextRequest { subscription_id: &self.subscription_id.0, originator: "localhost", context_responses }
    }

    /// Folds a later notification in: the latest state of each entity wins, first-seen order kept.
    fn absorb(&mut self, later: Notification) {
        for element in later.elements {
            match self.elements.iter_mut().find(|e| e.id == element.id && e.entity_type == element.entity_type) {
                Some(slot) => *slot = element,
                None => self.elements.push(element),
            }
        }
        self.path = later.path;
        self.origin = later.origin;
    }
}

/// Why an in-process receiver refused a notification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SinkError(pub String);

/// The future an in-process receiver answers with.
pub type SinkFuture = Pin<Box<dyn Future<Output = Result<(), SinkError>> + Send>>;

/// An in-process receiver of notifications (the CEP's `/cep/notify`, the historic `/sth/notify`).
pub trait NotificationSink: Send + Sync {
    fn deliver(&self, notification: Notification) -> SinkFuture;
}

/// Limits of delivery.
#[derive(Debug, Clone)]
pub struct DeliveryPolicy {
    /// Notifications waiting per subscription before new ones are dropped.
    pub queue_capacity: usize,
    /// Time allowed for one HTTP attempt.
    pub timeout: Duration,
    /// How long a failing notification is retried before it is dropped.
    pub retry_for: Duration,
    pub first_backoff: Duration,
}

impl Default for DeliveryPolicy {
    fn default() -> Self {
        DeliveryPolicy {
            queue_capacity: 1000,
            timeout: Duration::from_secs(5),
            retry_for: Duration::from_secs(30),
            first_backoff: Duration::from_millis(100),
        }
    }
}

/// In-process receivers by path, and the authorities (`host:port`) under which this gateway is reached.
#[derive(Default)]
pub struct Sinks {
    by_path: RwLock<HashMap<String, Arc<dyn NotificationSink>>>,
    own_authorities: RwLock<Vec<String>>,
}

impl std::fmt::Debug for Sinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let paths: Vec<String> = self.by_path.read().expect("sinks lock").keys().cloned().collect();
        f.debug_struct("Sinks").field("paths", &paths).finish()
    }
}

impl Sinks {
    pub fn register(&self, path: &str, sink: Arc<dyn NotificationSink>) {
        self.by_path.write().expect("sinks lock").insert(path.to_owned(), sink);
    }

    /// Declares the listener address, so that full URLs naming it are recognised as this gateway.
    pub fn set_listener(&self, addr: std::net::SocketAddr) {
        let port = addr.port();
        let mut names = vec![format!("{addr}"), format!("localhost:{port}"), format!("127.0.0.1:{port}")];
        names.push(format!("[::1]:{port}"));
        *self.own_authorities.write().expect("sinks lock") = names;
    }

    /// The in-process receiver a reference points at, if any.
    pub fn resolve(&self, reference: &str) -> Option<Arc<dyn NotificationSink>> {
        let path = self.own_path(reference)?;
        self.by_path.read().expect("sinks lock").get(path).cloned()
    }

    /// The path of a reference naming this gateway (a bare path, or a URL with one of its authorities).
    pub fn own_path<'a>(&self, reference: &'a str) -> Option<&'a str> {
        if reference.starts_with('/') {
            return Some(reference);
        }
        let rest = reference.strip_prefix("http://").unwrap_or(reference);
        let (authority, path) = rest.split_at(rest.find('/')?);
        let own = self.own_authorities.read().expect("sinks lock");
        own.iter().any(|a| a == authority).then_some(path)
    }
}

/// Where and how a subscription's notifications go: what its delivery task is started with.
#[derive(Debug)]
struct Target {
    id: SubscriptionId,
    reference: String,
    throttle: Duration,
}

impl Target {
    fn of(subscription: &Subscription) -> Self {
        Target {
            id: subscription.id.clone(),
            reference: subscription.reference.clone(),
            throttle: Duration::from_millis(subscription.throttling_ms),
        }
    }
}

/// What the router is asked to do, in the order the writer asked.
enum Routed {
    Notify(Target, Notification),
    Forget(SubscriptionId),
}

/// Owns the router: the writer thread hands it every notification through one channel, so a commit that notifies
/// many subscriptions wakes one task from outside the runtime instead of one per subscription (each such wake takes
/// the runtime's injection lock and may write to its event fd); the router then wakes the delivery tasks from
/// inside the runtime.
pub struct Dispatcher {
    inbox: mpsc::UnboundedSender<Routed>,
    meters: Arc<Meters>,
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher").finish_non_exhaustive()
    }
}

impl Dispatcher {
    /// A dispatcher whose router and delivery tasks run on the current tokio runtime.
    pub fn new(sinks: Arc<Sinks>, policy: DeliveryPolicy) -> Self {
        let (inbox, requests) = mpsc::unbounded_channel();
        let meters = Arc::new(Meters::new());
        let router = Router { sinks, policy, meters: meters.clone(), queues: HashMap::new() };
        tokio::spawn(router.run(requests));
        Dispatcher { inbox, meters }
    }

    /// Queues a notification without waiting; a full queue drops it and counts it.
    pub fn enqueue(&self, subscription: &Subscription, notification: Notification) {
        self.meters.moved(1);
        if self.inbox.send(Routed::Notify(Target::of(subscription), notification)).is_err() {
            self.meters.moved(-1);
            tracing::warn!(subscription = %subscription.id, "notification router stopped: notification dropped");
        }
    }

    /// Stops delivering for a subscription (removed or changed); what is queued is still sent.
    pub fn forget(&self, id: &SubscriptionId) {
        let _ = self.inbox.send(Routed::Forget(id.clone()));
    }
}

/// The router task: one bounded queue and delivery task per subscription.
struct Router {
    sinks: Arc<Sinks>,
    policy: DeliveryPolicy,
    meters: Arc<Meters>,
    queues: HashMap<SubscriptionId, mpsc::Sender<Notification>>,
}

impl Router {
    async fn run(mut self, mut requests: mpsc::UnboundedReceiver<Routed>) {
        while let Some(request) = requests.recv().await {
            match request {
                Routed::Notify(target, notification) => self.route(target, notification),
                Routed::Forget(id) => {
                    self.queues.remove(&id);
                }
            }
        }
    }

    fn route(&mut self, target: Target, notification: Notification) {
        let id = &target.id;
        if self.queues.get(id).is_none_or(mpsc::Sender::is_closed) {
            let sender = self.spawn(&target);
            self.queues.insert(id.clone(), sender);
        }
        let reason = match self.queues[id].try_send(notification) {
            Ok(()) => return,
            Err(mpsc::error::TrySendError::Full(_)) => "queue_full",
            Err(mpsc::error::TrySendError::Closed(_)) => "delivery_stopped",
        };
        self.meters.moved(-1);
        metrics::counter!("fluxgate_notifications_dropped_total", "reason" => reason).increment(1);
        tracing::warn!(subscription = %id, reason, "notification dropped");
    }

    fn spawn(&self, target: &Target) -> mpsc::Sender<Notification> {
        let (tx, rx) = mpsc::channel(self.policy.queue_capacity.max(1));
        let task = Delivery {
            outbound: Outbound::new(&target.reference),
            reference: target.reference.clone(),
            throttle: target.throttle,
            sinks: self.sinks.clone(),
            policy: self.policy.clone(),
            meters: self.meters.clone(),
        };
        tokio::spawn(task.run(rx));
        tx
    }
}

/// The metric handles delivery touches for every notification, registered once: registering a metric builds and
/// hashes its key each time. Counters of failures and drops stay registered on first use.
struct Meters {
    depth: AtomicI64,
    depth_gauge: Gauge,
    sent: Counter,
}

impl Meters {
    fn new() -> Self {
        // Handles taken before the recorder exists would count nowhere.
        crate::ops::install_recorder();
        Meters {
            depth: AtomicI64::new(0),
            depth_gauge: metrics::gauge!("fluxgate_notification_queue_depth"),
            sent: metrics::counter!("fluxgate_notifications_sent_total"),
        }
    }

    /// Notifications entered (`delta > 0`) or left the queues.
    fn moved(&self, delta: i64) {
        let now = self.depth.fetch_add(delta, Ordering::Relaxed) + delta;
        self.depth_gauge.set(now as f64);
    }
}

/// One subscription's delivery task.
struct Delivery {
    reference: String,
    /// The connection to an HTTP receiver, opened on the first notification that goes there.
    outbound: Outbound,
    throttle: Duration,
    sinks: Arc<Sinks>,
    policy: DeliveryPolicy,
    meters: Arc<Meters>,
}

impl Delivery {
    async fn run(mut self, mut queue: mpsc::Receiver<Notification>) {
        let mut last_sent: Option<Instant> = None;
        while let Some(first) = queue.recv().await {
            self.meters.moved(-1);
            let mut pending = first;
            if let Some(last) = last_sent {
                self.hold_until(last + self.throttle, &mut queue, &mut pending).await;
            }
            self.deliver(&pending).await;
            last_sent = Some(Instant::now());
        }
    }

    /// Until `deadline`, folds arriving notifications into `pending` (the latest change per entity wins).
    async fn hold_until(
        &self,
        deadline: Instant,
        queue: &mut mpsc::Receiver<Notification>,
        pending: &mut Notification,
    ) {
        while Instant::now() < deadline {
            match tokio::time::timeout_at(deadline, queue.recv()).await {
                Ok(Some(later)) => {
                    self.meters.moved(-1);
                    metrics::counter!("fluxgate_notifications_coalesced_total").increment(1);
                    pending.absorb(later);
                }
                Ok(None) | Err(_) => return,
            }
        }
    }

    /// Sends with retries and backoff until it succeeds or the retry time is spent.
    async fn deliver(&mut self, notification: &Notification) {
        let give_up = Instant::now() + self.policy.retry_for;
        let mut backoff = self.policy.first_backoff;
        loop {
            let reason = match self.attempt(notification).await {
                Ok(()) => {
                    self.meters.sent.increment(1);
                    return;
                }
                Err(reason) => reason,
            };
            metrics::counter!("fluxgate_notifications_failed_total").increment(1);
            tracing::debug!(subscription = %notification.subscription_id, %reason, "notification attempt failed");
            if Instant::now() + backoff > give_up {
                metrics::counter!("fluxgate_notifications_dropped_total", "reason" => "retries_exhausted").increment(1);
                tracing::warn!(subscription = %notification.subscription_id, reference = %self.reference, %reason,
                    "receiver kept failing: notification dropped");
                return;
            }
            metrics::counter!("fluxgate_notifications_retried_total").increment(1);
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    }

    async fn attempt(&mut self, notification: &Notification) -> Result<(), String> {
        if let Some(sink) = self.sinks.resolve(&self.reference) {
            return sink.deliver(notification.clone()).await.map_err(|e| e.0);
        }
        let (headers, body) = http_parts(notification)?;
        let sent = tokio::time::timeout(self.policy.timeout, self.outbound.post(headers, body)).await;
        match sent {
            Err(_) => Err("timed out".to_owned()),
            Ok(Err(e)) => Err(e.to_string()),
            Ok(Ok(status)) if status.is_success() => Ok(()),
            Ok(Ok(status)) => Err(format!("receiver answered {status}")),
        }
    }
}

/// The headers and body of a notification's POST.
fn http_parts(n: &Notification) -> Result<(HeaderMap, Bytes), String> {
    let body = serde_json::to_vec(&n.body()).map_err(|e| e.to_string())?;
    let text = |value: &str| HeaderValue::from_str(value).map_err(|e| e.to_string());
    let mut headers = HeaderMap::with_capacity(8);
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json; charset=utf-8"));
    headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
    headers.insert(header::USER_AGENT, HeaderValue::from_static(concat!("fluxgate/", env!("CARGO_PKG_VERSION"))));
    headers.insert("platform-service", text(n.tenant.as_str())?);
    headers.insert("platform-servicepath", text(n.path.as_str())?);
    headers.insert("platform-correlator", text(&n.origin.correlator)?);
    if let Some(token) = &n.origin.token {
        headers.insert("x-auth-token", text(token.as_str())?);
    }
    Ok((headers, Bytes::from(body)))
}
