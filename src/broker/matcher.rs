//! Matches committed changes against subscriptions and hands the notifications to the dispatcher.
//!
//! The store is the source of truth for subscriptions; this index holds them compiled (patterns built once) per
//! tenant, loaded at start and kept in step by the subscription operations after each commit. It is called by the
//! store's writer thread in commit order, so per-subscription order follows commit order. It never blocks.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use super::notify::{Dispatcher, Notification};
use super::query::EntityFilter;
use super::subscription::{Subscription, SubscriptionId};
use super::wire;
use crate::clock::Clock;
use crate::store::{ChangeListener, EntityChange, Origin, UpdateOutcome};
use crate::tenancy::Tenant;

struct Compiled {
    subscription: Subscription,
    filters: Vec<EntityFilter>,
}

/// The live subscription index.
pub struct SubscriptionIndex {
    /// Copied on write, so that matching (on the writer thread, after every commit) takes one reference count
    /// instead of one per subscription of the tenant.
    by_tenant: RwLock<HashMap<Tenant, Arc<Vec<Arc<Compiled>>>>>,
    dispatcher: Dispatcher,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for SubscriptionIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubscriptionIndex").field("dispatcher", &self.dispatcher).finish_non_exhaustive()
    }
}

impl SubscriptionIndex {
    pub fn new(dispatcher: Dispatcher, clock: Arc<dyn Clock>, initial: Vec<Subscription>) -> Self {
        let index = SubscriptionIndex { by_tenant: RwLock::new(HashMap::new()), dispatcher, clock };
        initial.into_iter().for_each(|s| index.put(s));
        index
    }

    /// Adds or replaces a subscription.
    pub fn put(&self, subscription: Subscription) {
        self.dispatcher.forget(&subscription.id);
        let filters = subscription.filters();
        let compiled = Arc::new(Compiled { subscription, filters });
        let mut map = self.by_tenant.write().expect("subscription index lock");
        let list = Arc::make_mut(map.entry(compiled.subscription.tenant.clone()).or_default());
        list.retain(|c| c.subscription.id != compiled.subscription.id);
        list.push(compiled);
    }

    pub fn remove(&self, tenant: &Tenant, id: &SubscriptionId) {
        self.dispatcher.forget(id);
        if let Some(list) = self.by_tenant.write().expect("subscription index lock").get_mut(tenant) {
            Arc::make_mut(list).retain(|c| c.subscription.id != *id);
        }
    }

    /// A subscription by id within a tenant, as stored.
    pub fn get(&self, tenant: &Tenant, id: &SubscriptionId) -> Option<Subscription> {
        let map = self.by_tenant.read().expect("subscription index lock");
        map.get(tenant)?.iter().find(|c| c.subscription.id == *id).map(|c| c.subscription.clone())
    }

    fn tenant_list(&self, tenant: &Tenant) -> Arc<Vec<Arc<Compiled>>> {
        self.by_tenant.read().expect("subscription index lock").get(tenant).cloned().unwrap_or_default()
    }

    fn notify_one(&self, compiled: &Compiled, change: &EntityChange, origin: &Origin) {
        let sub = &compiled.subscription;
        let entity = &change.entity;
        if !compiled.filters.iter().any(|f| f.matches(entity)) || !sub.triggered_by(entity, &change.changed) {
            return;
        }
        let notification = Notification {
            subscription_id: sub.id.clone(),
            tenant: entity.key.tenant.clone(),
            path: entity.key.path.clone(),
            elements: vec![wire::element_out(entity, &sub.attributes)],
            origin: origin.clone(),
        };
        self.dispatcher.enqueue(sub, notification);
    }
}

impl ChangeListener for SubscriptionIndex {
    fn on_commit(&self, origin: &Origin, outcome: &UpdateOutcome) {
        let changes = &outcome.changes;
        let now = self.clock.now_ms();
        let Some(first) = changes.first() else { return };
        let list = self.tenant_list(&first.entity.key.tenant);
        let active: Vec<&Compiled> = list.iter().map(Arc::as_ref).filter(|c| c.subscription.is_active(now)).collect();
        for change in changes {
            for compiled in &active {
                self.notify_one(compiled, change, origin);
            }
        }
    }
}
