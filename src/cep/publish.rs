//! Events out, entities in brokers: an `out` row becomes an APPEND of one entity (CONTRACT section 6 mapping) sent
//! to every broker of its `out` declaration. Brokers that are this gateway's `/cb` are written in-process through
//! the store; others get `POST {url}/v1/updateContext` with the entry's tenant headers and token. Each broker has
//! a bounded queue and one task that retries with backoff for a bounded time; everything is counted in `/metrics`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::config::{CepConfig, EventTypeOut};
use super::runtime::Row;
use crate::auth::Authenticator;
use crate::broker::model::{EntityId, Metadata};
use crate::broker::notify::{DeliveryPolicy, Sinks};
use crate::broker::update::{AttrWrite, ElementWrite, UpdateAction};
use crate::store::{Origin, Store, UpdateBatch};
use crate::tenancy::{ServicePath, Tenant};

/// Where one broker entry writes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    pub url: String,
    pub tenant: Tenant,
    pub path: ServicePath,
    pub token: Option<String>,
    /// The tenant that owns the configuration: it may write its own service without a token.
    pub owner: Tenant,
}

/// The entity an `out` row becomes, or `None` when no declared attribute is non-null.
pub fn to_element(out: &EventTypeOut, row: &Row) -> Option<ElementWrite> {
    let id = match row.get("id").and_then(|v| v.to_ngsi()) {
        Some(id) if !id.is_empty() => id,
        _ => out.id.clone(),
    };
    let attributes: Vec<AttrWrite> = out.attributes.iter().filter_map(|a| attribute(a, row)).collect();
    (!attributes.is_empty()).then(|| ElementWrite {
        id: EntityId(id),
        entity_type: Some(out.entity_type.clone()),
        attributes,
    })
}

fn attribute(a: &super::config::Attribute, row: &Row) -> Option<AttrWrite> {
    let value = row.get(&a.name)?.to_ngsi()?;
    let metadatas = a
        .metadata
        .iter()
        .filter_map(|m| {
            let v = row.get(&format!("{}_{}", a.name, m.name))?.to_ngsi()?;
            Some((m.name.clone(), Metadata { metadata_type: m.meta_type.clone(), value: Value::String(v) }))
        })
        .collect();
    Some(AttrWrite {
        name: a.name.clone(),
        attr_type: Some(a.attr_type.clone()),
        value: Some(Value::String(value)),
        metadatas,
    })
}

/// The brokers of `out`, with the configuration's tenant as the default headers.
pub fn targets(config: &CepConfig, out: &EventTypeOut, owner: &Tenant, owner_path: &ServicePath) -> Vec<Target> {
    out.brokers
        .iter()
        .map(|b| {
            let tenant = b.service_name.as_deref().or(config.service.as_deref()).and_then(|s| Tenant::parse(s).ok());
            let path =
                b.service_path.as_deref().or(config.service_path.as_deref()).and_then(|p| ServicePath::parse(p).ok());
            Target {
                url: b.url.trim_end_matches('/').to_owned(),
                tenant: tenant.unwrap_or_else(|| owner.clone()),
                path: path.unwrap_or_else(|| owner_path.clone()),
                token: b.auth_token.clone(),
                owner: owner.clone(),
            }
        })
        .collect()
}

type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// Sends entity updates to brokers, one queue and task per broker target.
pub struct Publisher {
    store: Arc<dyn Store>,
    auth: Arc<Authenticator>,
    sinks: Arc<Sinks>,
    client: HttpClient,
    policy: DeliveryPolicy,
    queues: Mutex<HashMap<Target, mpsc::Sender<ElementWrite>>>,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher").field("policy", &self.policy).finish_non_exhaustive()
    }
}

impl Publisher {
    /// A publisher whose tasks run on the current tokio runtime.
    pub fn new(
        store: Arc<dyn Store>,
        auth: Arc<Authenticator>,
        sinks: Arc<Sinks>,
        policy: DeliveryPolicy,
    ) -> Arc<Self> {
        let client = Client::builder(TokioExecutor::new()).build_http();
        Arc::new(Publisher { store, auth, sinks, client, policy, queues: Mutex::new(HashMap::new()) })
    }

    /// Queues an update without waiting; a full queue drops it and counts it.
    pub fn send(self: &Arc<Self>, target: &Target, element: ElementWrite) {
        let mut queues = self.queues.lock().expect("publisher lock");
        let sender = queues.entry(target.clone()).or_insert_with(|| self.spawn(target.clone()));
        if sender.try_send(element).is_err() {
            metrics::counter!("fluxgate_cep_updates_dropped_total", "reason" => "queue_full").increment(1);
            tracing::warn!(url = %target.url, "CEP output queue full: update dropped");
        }
    }

    fn spawn(self: &Arc<Self>, target: Target) -> mpsc::Sender<ElementWrite> {
        let (tx, mut rx) = mpsc::channel(self.policy.queue_capacity.max(1));
        let me = self.clone();
        tokio::spawn(async move {
            while let Some(element) = rx.recv().await {
                me.deliver(&target, element).await;
            }
        });
        tx
    }

    async fn deliver(&self, target: &Target, element: ElementWrite) {
        let give_up = Instant::now() + self.policy.retry_for;
        let mut backoff = self.policy.first_backoff;
        loop {
            let reason = match self.attempt(target, &element).await {
                Ok(()) => return metrics::counter!("fluxgate_cep_updates_sent_total").increment(1),
                Err(reason) => reason,
            };
            metrics::counter!("fluxgate_cep_updates_failed_total").increment(1);
            tracing::debug!(url = %target.url, %reason, "CEP output attempt failed");
            if Instant::now() + backoff > give_up {
                metrics::counter!("fluxgate_cep_updates_dropped_total", "reason" => "retries_exhausted").increment(1);
                let service = target.tenant.as_str();
                return tracing::warn!(url = %target.url, service, %reason, "broker kept failing: CEP update dropped");
            }
            metrics::counter!("fluxgate_cep_updates_retried_total").increment(1);
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    }

    async fn attempt(&self, target: &Target, element: &ElementWrite) -> Result<(), String> {
        match self.sinks.own_path(&target.url) {
            Some(path) if matches!(path.trim_end_matches('/'), "/cb" | "/cb/v1") => {
                self.in_process(target, element).await
            }
            _ => self.over_http(target, element).await,
        }
    }

    async fn in_process(&self, target: &Target, element: &ElementWrite) -> Result<(), String> {
        if target.tenant != target.owner || target.token.is_some() {
            let grant =
                self.auth.authenticate(&target.tenant, target.token.as_deref()).await.map_err(|e| e.to_string())?;
            grant.check_write(&target.path).map_err(|e| e.to_string())?;
        }
        let origin = Origin { token: target.token.clone(), correlator: uuid::Uuid::new_v4().to_string() };
        let batch = UpdateBatch {
            tenant: target.tenant.clone(),
            path: target.path.clone(),
            action: UpdateAction::Append,
            elements: vec![element.clone()],
            origin,
        };
        self.store.update(batch).await.map(|_| ()).map_err(|e| e.to_string())
    }

    async fn over_http(&self, target: &Target, element: &ElementWrite) -> Result<(), String> {
        let mut builder = hyper::Request::post(format!("{}/v1/updateContext", target.url))
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .header("platform-service", target.tenant.as_str())
            .header("platform-servicepath", target.path.as_str());
        if let Some(token) = &target.token {
            builder = builder.header("x-auth-token", token.as_str());
        }
        let body = Bytes::from(body(element).to_string());
        let request = builder.body(Full::new(body)).map_err(|e| e.to_string())?;
        match tokio::time::timeout(self.policy.timeout, self.client.request(request)).await {
            Err(_) => Err("timed out".to_owned()),
            Ok(Err(e)) => Err(e.to_string()),
            Ok(Ok(response)) if response.status().is_success() => Ok(()),
            Ok(Ok(response)) => Err(format!("broker answered {}", response.status())),
        }
    }
}

/// The `updateContext` APPEND body of one element.
fn body(element: &ElementWrite) -> Value {
    let attributes: Vec<Value> = element
        .attributes
        .iter()
        .map(|a| {
            let mut attr = json!({"name": a.name, "type": a.attr_type, "value": a.value});
            let metas: Vec<Value> = a
                .metadatas
                .iter()
                .map(|(n, m)| json!({"name": n, "type": m.metadata_type, "value": m.value}))
                .collect();
            if !metas.is_empty() {
                attr["metadatas"] = Value::Array(metas);
            }
            attr
        })
        .collect();
    let element =
        json!({"id": element.id.0, "type": element.entity_type, "isPattern": "false", "attributes": attributes});
    json!({"contextElements": [element], "updateAction": "APPEND"})
}
