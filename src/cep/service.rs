//! The CEP as a service: one running configuration per tenant (service and service path), each with its routes
//! and its dataflow, fed by notifications and driven by the engine clock. A configuration is prepared completely
//! (shape, plan, checked program, routes) before it replaces the running one, so a refused configuration leaves the
//! previous one untouched. A replacement that computes the same rows (same statements over the same types: only
//! brokers, output ids or attribute mappings changed) keeps the running dataflow and its state; any other replaces
//! the dataflow, and the statements the new one shares with the old (same text over the same event types and
//! variables) take their state over (windows, groups, pattern instances and their timers), as Cepheus keeps an
//! unchanged statement. Outputs go to the [`Publisher`]. The HTTP shape of all this is `api`'s business.
//!
//! A notification is converted and queued, stamped with its arrival millisecond, and answered at once; the feeder
//! thread hands everything queued since its last round to the dataflow as one batch per millisecond, then fires the
//! timers due. So notifications that arrive while the workers are busy share the next epoch instead of each waiting
//! for a round of its own, and the tokio threads never wait for the workers. While events keep coming, and the workers
//! leave a core to the threads feeding them, the feeder sends the next round before it waits for the last, so the
//! workers find it queued when they finish; when nothing more waits, it waits for the round it sent, so outputs never
//! wait for later events. The queue is bounded per tenant: a notification that finds it full is refused as a whole
//! (500, or a retry by the in-process subscription sink).
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError, bounded};
use thiserror::Error;

use super::config::CepConfig;
use super::dataflow::{Dataflow, Program, Workers};
use super::explain::{details, plan_config};
use super::ingest::{ElementIn, IngestError, Route, routes, to_event};
use super::publish::{Publisher, targets, to_element};
use super::runtime::{Engine, Incoming, Name, Output, Row};
use crate::broker::notify::{Notification, NotificationSink, SinkError, SinkFuture};
use crate::clock::Clock;
use crate::store::{Store, StoreError, StoredCepConfig};
use crate::tenancy::{ServicePath, Tenant};

/// Why a configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApplyError {
    #[error("{0}")]
    Validation(String),
    #[error("{0}")]
    Apply(String),
}

/// Why the CEP could not start.
#[derive(Debug, Error)]
pub enum CepStartError {
    #[error("the CEP workers did not start: {0}")]
    Workers(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why an element of a notification was not processed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NotifyError {
    #[error("no CEP configuration for service {0}")]
    NoConfiguration(String),
    #[error(transparent)]
    Ingest(#[from] IngestError),
    #[error("the CEP input queue of service {0} is full ({QUEUE_CAPACITY} events): try again later")]
    Overloaded(String),
}

type Key = (Tenant, ServicePath);

/// Events a tenant may have waiting for the workers.
pub const QUEUE_CAPACITY: usize = 100_000;
/// How often the feeder looks at the clock for due timers while configurations run.
const TICK: Duration = Duration::from_millis(1);

/// A configuration ready to run.
#[derive(Debug)]
pub struct Prepared {
    config: CepConfig,
    routes: Vec<Route>,
    program: Arc<Program>,
}

/// An event waiting for the workers: its arrival millisecond, stream and row.
type Queued = (i64, Name, Row);

/// A configuration and the dataflow running it. The engine and its queue are shared with the running configuration
/// that replaces this one when it keeps the dataflow.
#[derive(Debug)]
struct Running {
    prepared: Prepared,
    engine: Arc<Mutex<Dataflow>>,
    queue: Arc<Mutex<Vec<Queued>>>,
}

impl Running {
    /// Sends what is queued as one round of the workers, one batch per arrival millisecond in arrival order, and
    /// answers the outputs of the rounds sent before it but those the workers run ahead ([`Dataflow::rounds_ahead`]).
    /// When no more events wait, it also waits for the rounds in flight, and fires the timers due at `now`.
    fn feed(&self, now: i64) -> Vec<Output> {
        let mut engine = lock(&self.engine);
        self.send_queued(&mut engine);
        let mut outputs = Vec::new();
        while engine.in_flight() > engine.rounds_ahead() {
            outputs.extend(engine.receive().unwrap_or_default());
        }
        if lock(&self.queue).is_empty() {
            // The round in flight too, then the timers due.
            outputs.extend(engine.advance(now));
        }
        outputs
    }

    /// Feeds everything queued and fires the timers due at `now`, leaving no round in flight.
    fn drain(&self, now: i64) -> Vec<Output> {
        let mut engine = lock(&self.engine);
        self.send_queued(&mut engine);
        engine.advance(now)
    }

    /// Sends what is queued as one round, one batch per arrival millisecond in arrival order.
    fn send_queued(&self, engine: &mut Dataflow) {
        let queued = std::mem::take(&mut *lock(&self.queue));
        let mut batches: Vec<(i64, Vec<Incoming>)> = Vec::new();
        for (ms, stream, row) in queued {
            match batches.last_mut() {
                Some((last, events)) if *last == ms => events.push((stream, row)),
                _ => batches.push((ms, vec![(stream, row)])),
            }
        }
        engine.send(batches);
    }
}

/// Every tenant's running configuration, each a dataflow on the shared worker pool.
pub struct CepService {
    running: Mutex<HashMap<Key, Arc<Running>>>,
    workers: Arc<Workers>,
    clock: Arc<dyn Clock>,
    publisher: Arc<Publisher>,
    /// Wakes the feeder: events were queued or a configuration was installed.
    wake: Sender<()>,
}

impl std::fmt::Debug for CepService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CepService").finish_non_exhaustive()
    }
}

fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Parses, plans and checks a configuration without touching what runs.
pub fn prepare(mut config: CepConfig, tenant: &Tenant, path: &ServicePath) -> Result<Prepared, ApplyError> {
    let problems = config.validate();
    if !problems.is_empty() {
        return Err(ApplyError::Validation(problems.join(", ")));
    }
    let plan = plan_config(&config, false).map_err(|errors| ApplyError::Apply(details(&errors)))?;
    let program = Program::new(&plan).map_err(|e| ApplyError::Apply(e.to_string()))?.receiving(config.incoming_types());
    let program = Arc::new(program);
    let routes = routes(&config, |stream| program.room(stream)).map_err(|e| ApplyError::Apply(e.to_string()))?;
    config.service.get_or_insert_with(|| tenant.as_str().to_owned());
    config.service_path.get_or_insert_with(|| path.as_str().to_owned());
    Ok(Prepared { config, routes, program })
}

impl Prepared {
    pub fn config(&self) -> &CepConfig {
        &self.config
    }
}

impl CepService {
    /// Starts `workers` timely workers and the feeder thread, and restarts the stored configurations; must run inside
    /// a tokio runtime (the publisher's deliveries run on it).
    pub async fn start(
        store: &Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        publisher: Arc<Publisher>,
        workers: usize,
    ) -> Result<Arc<Self>, CepStartError> {
        let workers = Workers::start(workers).map_err(CepStartError::Workers)?;
        let (wake, woken) = bounded(1);
        let service = Arc::new(CepService { running: Mutex::new(HashMap::new()), workers, clock, publisher, wake });
        for stored in store.cep_configs().await? {
            service.restore(stored);
        }
        let (weak, runtime) = (Arc::downgrade(&service), tokio::runtime::Handle::current());
        std::thread::Builder::new()
            .name("cep-feeder".into())
            .spawn(move || {
                let _runtime = runtime.enter();
                feeder(&weak, &woken);
            })
            .map_err(|e| CepStartError::Workers(e.to_string()))?;
        Ok(service)
    }

    fn restore(&self, stored: StoredCepConfig) {
        let prepared = serde_json::from_str::<CepConfig>(&stored.body)
            .map_err(|e| ApplyError::Validation(e.to_string()))
            .and_then(|c| prepare(c, &stored.tenant, &stored.path));
        match prepared {
            Ok(p) => self.install(stored.tenant, stored.path, p),
            Err(e) => {
                tracing::error!(tenant = %stored.tenant, path = %stored.path, error = %e, "stored CEP configuration not restarted")
            }
        }
    }

    /// Replaces the tenant's running configuration, keeping its dataflow when it computes the same rows. Events the
    /// replaced dataflow had accepted are fed to it before it goes.
    pub fn install(&self, tenant: Tenant, path: ServicePath, prepared: Prepared) {
        let mut running = lock(&self.running);
        let key = (tenant, path);
        let previous = running.remove(&key);
        let next = match previous {
            Some(p) if p.prepared.program.same_dataflow(&prepared.program) => {
                Running { prepared, engine: p.engine.clone(), queue: p.queue.clone() }
            }
            Some(replaced) => {
                self.publish(&key, &replaced.prepared.config, replaced.drain(self.clock.now_ms()));
                let changed = changed_types(&replaced.prepared.config, &prepared.config);
                let engine = lock(&replaced.engine).replace(prepared.program.clone(), &changed, self.clock.now_ms());
                Running { prepared, engine: Arc::new(Mutex::new(engine)), queue: Arc::default() }
            }
            None => {
                let engine = Dataflow::install(self.workers.clone(), prepared.program.clone(), self.clock.now_ms());
                Running { prepared, engine: Arc::new(Mutex::new(engine)), queue: Arc::default() }
            }
        };
        running.insert(key, Arc::new(next));
        drop(running);
        self.wake_feeder();
    }

    /// Stops the tenant's configuration, dropping what it had not processed yet; answers whether one ran.
    pub fn remove(&self, tenant: &Tenant, path: &ServicePath) -> bool {
        lock(&self.running).remove(&(tenant.clone(), path.clone())).is_some()
    }

    pub fn config(&self, tenant: &Tenant, path: &ServicePath) -> Option<CepConfig> {
        lock(&self.running).get(&(tenant.clone(), path.clone())).map(|r| r.prepared.config.clone())
    }

    /// Queues elements for the configuration of the tenant, or of the nearest ancestor path that has one. The map
    /// stays locked while they are queued, so a replacement cannot miss them.
    pub fn notify(&self, tenant: &Tenant, path: &ServicePath, elements: &[ElementIn]) -> Vec<Result<(), NotifyError>> {
        let running = lock(&self.running);
        // Read under the lock, so the queue is in arrival order.
        let now = self.clock.now_ms();
        let Some(run) = ancestors(path).find_map(|p| running.get(&(tenant.clone(), p))) else {
            let missing = NotifyError::NoConfiguration(format!("{tenant}{path}"));
            return elements.iter().map(|_| Err(missing.clone())).collect();
        };
        let results = enqueue(run, now, elements).unwrap_or_else(|()| {
            metrics::counter!("fluxgate_cep_notifications_refused_total", "reason" => "queue_full").increment(1);
            let full = NotifyError::Overloaded(format!("{tenant}{path}"));
            elements.iter().map(|_| Err(full.clone())).collect()
        });
        drop(running);
        self.wake_feeder();
        // The thread that made rows takes back those the workers are done with, for its next rows, while the feeder
        // runs the next round.
        self.workers.recycle();
        results
    }

    fn wake_feeder(&self) {
        if let Err(TrySendError::Disconnected(())) = self.wake.try_send(()) {
            tracing::error!("the CEP feeder thread is gone");
        }
    }

    /// Feeds every tenant's queued events and fires its due timers; answers whether any configuration runs.
    fn round(&self) -> bool {
        let running: Vec<(Key, Arc<Running>)> =
            lock(&self.running).iter().map(|(k, r)| (k.clone(), r.clone())).collect();
        let now = self.clock.now_ms();
        for (key, run) in &running {
            self.publish(key, &run.prepared.config, run.feed(now));
        }
        !running.is_empty()
    }

    fn publish(&self, (tenant, path): &Key, config: &CepConfig, outputs: Vec<Output>) {
        for output in outputs {
            // As in Cepheus, the last `out` of a type wins.
            let Some(out) = config.outputs.iter().rev().find(|o| o.entity_type == output.stream) else {
                continue;
            };
            let Some(element) = to_element(out, &output.row) else {
                continue;
            };
            for target in targets(config, out, tenant, path) {
                self.publisher.send(&target, element.clone());
            }
        }
    }
}

/// Converts and queues every element that converts, at `now`; `Err` when they do not fit in the queue.
fn enqueue(run: &Running, now: i64, elements: &[ElementIn]) -> Result<Vec<Result<(), NotifyError>>, ()> {
    let mut queue = lock(&run.queue);
    if queue.len() + elements.len() > QUEUE_CAPACITY {
        return Err(());
    }
    let before = queue.len();
    let results = elements
        .iter()
        .map(|e| {
            let (stream, row) = to_event(&run.prepared.routes, e)?;
            queue.push((now, stream, row));
            Ok(())
        })
        .collect();
    metrics::counter!("fluxgate_cep_events_total").increment((queue.len() - before) as u64);
    Ok(results)
}

/// `path`, then each ancestor up to `/`.
fn ancestors(path: &ServicePath) -> impl Iterator<Item = ServicePath> {
    let text = path.as_str().to_owned();
    let mut cuts: Vec<usize> = text.match_indices('/').map(|(i, _)| i).filter(|i| *i > 0).collect();
    cuts.reverse();
    std::iter::once(path.clone())
        .chain(cuts.into_iter().filter_map(move |i| ServicePath::parse(&text[..i]).ok()))
        .chain((path.as_str() != "/").then(ServicePath::root))
}

/// Feeds the dataflows as events arrive, and looks for due timers every [`TICK`] while any configuration runs, until
/// the service is gone. After a tick without notifications, or once nothing runs, it drops the rows the workers are
/// done with itself: no caller came to drop them.
fn feeder(service: &Weak<CepService>, woken: &Receiver<()>) {
    let mut active = false;
    loop {
        let woke = if active { woken.recv_timeout(TICK) } else { woken.recv().map_err(RecvTimeoutError::from) };
        if let Err(RecvTimeoutError::Disconnected) = woke {
            return;
        }
        let Some(cep) = service.upgrade() else {
            return;
        };
        active = cep.round();
        if woke.is_err() || !active {
            cep.workers.reap();
        }
    }
}

/// The in-process receiver registered at `/cep/notify`.
#[derive(Debug)]
pub struct CepSink(pub Weak<CepService>);

impl NotificationSink for CepSink {
    fn deliver(&self, n: Notification) -> SinkFuture {
        let result = match self.0.upgrade() {
            None => Err(SinkError("the CEP is shut down".into())),
            Some(service) => deliver(&service, &n),
        };
        Box::pin(async move { result })
    }
}

fn deliver(service: &CepService, n: &Notification) -> Result<(), SinkError> {
    let elements: Vec<ElementIn> = n.elements.iter().map(element_of).collect();
    let results = service.notify(&n.tenant, &n.path, &elements);
    if let Some(Err(e @ (NotifyError::NoConfiguration(_) | NotifyError::Overloaded(_)))) = results.first() {
        return Err(SinkError(e.to_string()));
    }
    for e in results.iter().filter_map(|r| r.as_ref().err()) {
        metrics::counter!("fluxgate_cep_elements_rejected_total").increment(1);
        tracing::warn!(subscription = %n.subscription_id, error = %e, "notification element not processed");
    }
    Ok(())
}

/// The event types whose `in` declarations differ between two configurations: added, removed, or declared with
/// other ids or attributes (their providers aside).
fn changed_types(old: &CepConfig, new: &CepConfig) -> Vec<String> {
    let declared = |config: &CepConfig, t: &str| -> Vec<_> {
        let of_type = config.inputs.iter().filter(|i| i.entity_type == t);
        of_type.map(|i| (i.id.clone(), i.is_pattern, i.attributes.clone())).collect()
    };
    let mut types: Vec<String> = old.inputs.iter().chain(&new.inputs).map(|i| i.entity_type.clone()).collect();
    types.sort();
    types.dedup();
    types.retain(|t| declared(old, t) != declared(new, t));
    types
}

fn element_of(e: &crate::broker::wire::ContextElementOut) -> ElementIn {
    let attributes = e
        .attributes
        .iter()
        .map(|a| {
            let metas = a.metadatas.iter().map(|m| (m.name.clone(), m.value.clone())).collect();
            (a.name.clone(), a.value.clone(), metas)
        })
        .collect();
    ElementIn { id: e.id.clone(), entity_type: e.entity_type.clone(), attributes }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn floor_average() -> Running {
        let config: CepConfig = serde_json::from_str(include_str!("../../queries/floor-average.json")).expect("seed");
        let tenant = Tenant::parse("building").expect("tenant");
        let prepared = prepare(config, &tenant, &ServicePath::root()).expect("prepares");
        let engine = Dataflow::install(Workers::start(1).expect("workers"), prepared.program.clone(), 0);
        Running { prepared, engine: Arc::new(Mutex::new(engine)), queue: Arc::default() }
    }

    fn room(temperature: f64) -> ElementIn {
        let attributes = vec![
            ("temperature".to_owned(), json!(temperature.to_string()), Vec::new()),
            ("floor".to_owned(), json!("f1"), Vec::new()),
        ];
        ElementIn { id: "Room1".into(), entity_type: "Room".into(), attributes }
    }

    #[test]
    fn a_full_queue_refuses_a_whole_notification_until_the_feeder_drains_it() {
        let run = floor_average();
        let thousand = vec![room(21.0); 1_000];
        for _ in 0..QUEUE_CAPACITY / 1_000 {
            assert!(enqueue(&run, 1_000, &thousand).expect("fits").iter().all(Result::is_ok));
        }
        assert!(enqueue(&run, 1_000, &[room(22.0)]).is_err());
        assert_eq!(lock(&run.queue).len(), QUEUE_CAPACITY, "nothing of the refused notification was queued");
        run.feed(1_000);
        assert!(lock(&run.queue).is_empty());
        assert!(enqueue(&run, 1_001, &[room(22.0)]).expect("fits again").iter().all(Result::is_ok));
    }

    #[tokio::test]
    async fn the_feeder_drops_dead_rows_once_no_notification_comes_for_a_tick() {
        use crate::auth::Authenticator;
        use crate::broker::notify::{DeliveryPolicy, Sinks};
        use crate::clock::ManualClock;
        use crate::store::sqlite::{SqliteOptions, SqliteStore, Synchronous};

        let dir = tempfile::tempdir().expect("a directory");
        let clock = ManualClock::starting_at(1_000);
        let options = SqliteOptions { data_dir: dir.path().to_owned(), readers: 1, synchronous: Synchronous::Normal };
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&options, clock.clone()).expect("the store opens"));
        let auth = Arc::new(Authenticator::new(store.clone(), true));
        let publisher = Publisher::new(store.clone(), auth, Arc::new(Sinks::default()), DeliveryPolicy::default());
        let cep = CepService::start(&store, clock, publisher, 1).await.expect("starts");
        let config: CepConfig = serde_json::from_str(include_str!("../../queries/floor-average.json")).expect("seed");
        let tenant = Tenant::parse("building").expect("tenant");
        let prepared = prepare(config, &tenant, &ServicePath::root()).expect("prepares");
        cep.install(tenant, ServicePath::root(), prepared);
        let (shape, watch) = crate::cep::runtime::value::watched_shape();
        let dead = Row::from([("shape", shape)]);
        cep.workers.queue_dead(vec![dead]);
        cep.wake_feeder();
        let start = std::time::Instant::now();
        while watch.strong_count() > 0 && start.elapsed() < Duration::from_secs(10) {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(watch.strong_count(), 0, "dropped by the feeder, with no caller to drop it");
    }

    #[test]
    fn events_queued_while_rounds_run_are_each_fed_once() {
        let run = floor_average();
        let chunks = 200;
        std::thread::scope(|scope| {
            let producer = scope.spawn(|| {
                for chunk in 0..chunks {
                    let rooms: Vec<ElementIn> = (0..50).map(|i| room(f64::from(chunk * 50 + i))).collect();
                    enqueue(&run, 1_000 + i64::from(chunk), &rooms).expect("fits");
                }
            });
            while !producer.is_finished() {
                assert!(run.feed(1_000).is_empty(), "no output is due before 11 s");
            }
        });
        let outputs = run.feed(11_000);
        assert_eq!(lock(&run.engine).in_flight(), 0, "with nothing queued, no round stays in flight");
        let mean = f64::from(chunks * 50 - 1) / 2.0;
        let got: Vec<_> = outputs.iter().map(|o| (o.time, o.row.get("temperature").cloned())).collect();
        assert_eq!(got, [(11_000, Some(crate::cep::runtime::Val::Double(mean)))]);
    }

    #[test]
    fn queued_events_keep_their_arrival_millisecond() {
        let run = floor_average();
        enqueue(&run, 1_000, &[room(20.0)]).expect("fits");
        enqueue(&run, 2_000, &[room(22.0)]).expect("fits");
        let outputs = run.feed(11_000);
        assert_eq!(outputs.len(), 1, "{outputs:?}");
        assert_eq!(
            (outputs[0].time, outputs[0].row.get("temperature")),
            (11_000, Some(&crate::cep::runtime::Val::Double(21.0)))
        );
    }
}
