//! The in-process receiver of `/sth/notify`: notifications of subscriptions whose reference is this gateway's
//! `/sth/notify` arrive here without HTTP, and are stored exactly as `POST /sth/notify` would store them.
//!
//! The broker already authorized the write that caused the notification, so no token is checked again. A
//! notification that carries no attribute is dropped with a warning rather than retried: it can never succeed.

use std::sync::Arc;

use super::History;
use super::ingest::{self, Arrival};
use super::wire::{AttributeIn, ElementIn, MetadataIn};
use crate::broker::notify::{Notification, NotificationSink, SinkError, SinkFuture};
use crate::broker::wire::{AttributeOut, ContextElementOut};

/// Path under which the sink is registered.
pub const NOTIFY_PATH: &str = "/sth/notify";

/// Stores the notifications it is given.
#[derive(Debug, Clone)]
pub struct HistorySink {
    history: History,
}

impl HistorySink {
    pub fn new(history: History) -> Arc<Self> {
        Arc::new(HistorySink { history })
    }
}

impl NotificationSink for HistorySink {
    fn deliver(&self, notification: Notification) -> SinkFuture {
        let history = self.history.clone();
        Box::pin(async move {
            let arrival = Arrival { tenant: notification.tenant, path: notification.path, now: history.now() };
            let elements = notification.elements.into_iter().map(element_in).collect();
            let samples = match ingest::element_samples(elements, &arrival) {
                Ok(samples) => samples,
                Err(refused) => {
                    tracing::warn!(error = %refused, "history: in-process notification dropped");
                    return Ok(());
                }
            };
            history.store_samples(samples).await.map(drop).map_err(|e| SinkError(e.to_string()))
        })
    }
}

/// The broker's outgoing element as the notification body would carry it.
fn element_in(element: ContextElementOut) -> ElementIn {
    ElementIn {
        id: element.id,
        entity_type: Some(element.entity_type),
        attributes: element.attributes.into_iter().map(attribute_in).collect(),
    }
}

fn attribute_in(attr: AttributeOut) -> AttributeIn {
    AttributeIn {
        name: attr.name,
        attr_type: Some(attr.attr_type),
        value: Some(attr.value),
        metadatas: attr.metadatas.into_iter().map(|m| MetadataIn { name: m.name, value: Some(m.value) }).collect(),
    }
}
