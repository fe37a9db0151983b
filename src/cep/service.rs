//! The CEP as a service: one running configuration per tenant (service and service path), each with its routes
//! and its dataflow, fed by notifications and driven by the engine clock. A configuration is prepared completely
//! (shape, plan, checked program, routes) before it replaces the running one, so a refused configuration leaves the
//! previous one untouched. A replacement that computes the same rows (same statements over the same types: only
//! brokers, output ids or attribute mappings changed) keeps the running dataflow and its state; any other replaces
//! the dataflow. Outputs go to the [`Publisher`]. The HTTP shape of all this is `api`'s business.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use thiserror::Error;

use super::config::CepConfig;
use super::dataflow::{Dataflow, Program, Workers};
use super::explain::{details, plan_config};
use super::ingest::{ElementIn, IngestError, Route, routes, to_event};
use super::publish::{Publisher, targets, to_element};
use super::runtime::{Engine, Output};
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
}

type Key = (Tenant, ServicePath);

/// A configuration ready to run.
#[derive(Debug)]
pub struct Prepared {
    config: CepConfig,
    routes: Vec<Route>,
    program: Arc<Program>,
}

/// A configuration and the dataflow running it.
#[derive(Debug)]
struct Running {
    prepared: Prepared,
    engine: Box<dyn Engine>,
}

/// Every tenant's running configuration, each a dataflow on the shared worker pool.
pub struct CepService {
    running: Mutex<HashMap<Key, Running>>,
    workers: Arc<Workers>,
    clock: Arc<dyn Clock>,
    publisher: Arc<Publisher>,
}

impl std::fmt::Debug for CepService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CepService").finish_non_exhaustive()
    }
}

/// Parses, plans and checks a configuration without touching what runs.
pub fn prepare(mut config: CepConfig, tenant: &Tenant, path: &ServicePath) -> Result<Prepared, ApplyError> {
    let problems = config.validate();
    if !problems.is_empty() {
        return Err(ApplyError::Validation(problems.join(", ")));
    }
    let plan = plan_config(&config, false).map_err(|errors| ApplyError::Apply(details(&errors)))?;
    let routes = routes(&config).map_err(|e| ApplyError::Apply(e.to_string()))?;
    let program = Arc::new(Program::new(&plan).map_err(|e| ApplyError::Apply(e.to_string()))?);
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
    /// Starts `workers` timely workers, restarts the stored configurations and drives their timers; must run inside
    /// a tokio runtime.
    pub async fn start(
        store: &Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        publisher: Arc<Publisher>,
        workers: usize,
    ) -> Result<Arc<Self>, CepStartError> {
        let workers = Workers::start(workers).map_err(CepStartError::Workers)?;
        let service = Arc::new(CepService { running: Mutex::new(HashMap::new()), workers, clock, publisher });
        for stored in store.cep_configs().await? {
            service.restore(stored);
        }
        tokio::spawn(drive(Arc::downgrade(&service)));
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

    /// Replaces the tenant's running configuration, keeping its dataflow when it computes the same rows.
    pub fn install(&self, tenant: Tenant, path: ServicePath, prepared: Prepared) {
        let mut running = self.running.lock().expect("cep lock");
        let key = (tenant, path);
        let same = running.get(&key).is_some_and(|r| r.prepared.program.same_dataflow(&prepared.program));
        let engine: Box<dyn Engine> = match running.remove(&key) {
            Some(previous) if same => previous.engine,
            _ => Box::new(Dataflow::install(self.workers.clone(), prepared.program.clone())),
        };
        running.insert(key, Running { prepared, engine });
    }

    /// Stops the tenant's configuration; answers whether one ran.
    pub fn remove(&self, tenant: &Tenant, path: &ServicePath) -> bool {
        self.running.lock().expect("cep lock").remove(&(tenant.clone(), path.clone())).is_some()
    }

    pub fn config(&self, tenant: &Tenant, path: &ServicePath) -> Option<CepConfig> {
        self.running.lock().expect("cep lock").get(&(tenant.clone(), path.clone())).map(|r| r.prepared.config.clone())
    }

    /// Feeds elements to the configuration of the tenant, or of the nearest ancestor path that has one.
    pub fn notify(&self, tenant: &Tenant, path: &ServicePath, elements: &[ElementIn]) -> Vec<Result<(), NotifyError>> {
        let now = self.clock.now_ms();
        let mut running = self.running.lock().expect("cep lock");
        let Some(key) = ancestors(path).map(|p| (tenant.clone(), p)).find(|k| running.contains_key(k)) else {
            let missing = NotifyError::NoConfiguration(format!("{tenant}{path}"));
            return elements.iter().map(|_| Err(missing.clone())).collect();
        };
        let run = running.get_mut(&key).expect("found above");
        let mut events = Vec::with_capacity(elements.len());
        let results = elements
            .iter()
            .map(|e| to_event(&run.prepared.routes, e).map(|event| events.push(event)).map_err(NotifyError::from))
            .collect();
        metrics::counter!("fluxgate_cep_events_total").increment(events.len() as u64);
        // One batch per notification: one epoch of the dataflow for all its elements.
        let outputs = run.engine.push_batch(now, events);
        self.publish(&key, &run.prepared.config, outputs);
        results
    }

    /// Fires the timers due on every tenant's engine.
    pub fn tick(&self) {
        let now = self.clock.now_ms();
        let mut running = self.running.lock().expect("cep lock");
        for (key, run) in running.iter_mut() {
            if run.engine.next_timer().is_some_and(|t| t <= now) {
                let outputs = run.engine.advance(now);
                self.publish(key, &run.prepared.config, outputs);
            }
        }
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

/// `path`, then each ancestor up to `/`.
fn ancestors(path: &ServicePath) -> impl Iterator<Item = ServicePath> {
    let text = path.as_str().to_owned();
    let mut cuts: Vec<usize> = text.match_indices('/').map(|(i, _)| i).filter(|i| *i > 0).collect();
    cuts.reverse();
    std::iter::once(path.clone())
        .chain(cuts.into_iter().filter_map(move |i| ServicePath::parse(&text[..i]).ok()))
        .chain((path.as_str() != "/").then(ServicePath::root))
}

/// Fires timers about every millisecond while the service lives.
async fn drive(service: Weak<CepService>) {
    let mut interval = tokio::time::interval(Duration::from_millis(2));
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        interval.tick().await;
        match service.upgrade() {
            Some(s) => s.tick(),
            None => return,
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
    if let Some(Err(e @ NotifyError::NoConfiguration(_))) = results.first() {
        return Err(SinkError(e.to_string()));
    }
    for e in results.iter().filter_map(|r| r.as_ref().err()) {
        metrics::counter!("fluxgate_cep_elements_rejected_total").increment(1);
        tracing::warn!(subscription = %n.subscription_id, error = %e, "notification element not processed");
    }
    Ok(())
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
