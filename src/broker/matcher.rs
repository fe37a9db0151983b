//! Matches committed changes against subscriptions and hands the notifications to the dispatcher.
//!
//! The store is the source of truth for subscriptions; this index holds them compiled (patterns built once) per
//! tenant, loaded at start and kept in step by the subscription operations after each commit. It is called by the
//! store's writer thread in commit order, so per-subscription order follows commit order. It never blocks.
//!
//! Within a tenant, subscriptions are also indexed by the entity types their filters name, so that a change is
//! checked against the subscriptions of its entity's type and those that watch any type, not against all of them.

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

impl Compiled {
    /// The types this subscription's filters name, or `None` when one of them takes any type.
    fn types(&self) -> Option<Vec<&str>> {
        let mut types: Vec<&str> = Vec::new();
        for filter in &self.filters {
            if filter.entity_type.is_empty() {
                return None;
            }
            if !types.contains(&filter.entity_type.as_str()) {
                types.push(&filter.entity_type);
            }
        }
        Some(types)
    }
}

/// One tenant's subscriptions: all of them, and the same by the entity type they watch.
#[derive(Clone, Default)]
struct TenantSubscriptions {
    all: Vec<Arc<Compiled>>,
    by_type: HashMap<String, Vec<Arc<Compiled>>>,
    any_type: Vec<Arc<Compiled>>,
}

impl TenantSubscriptions {
    fn insert(&mut self, compiled: Arc<Compiled>) {
        match compiled.types() {
            None => self.any_type.push(compiled.clone()),
            Some(types) => {
                for t in types {
                    self.by_type.entry(t.to_owned()).or_default().push(compiled.clone());
                }
            }
        }
        self.all.push(compiled);
    }

    fn remove(&mut self, id: &SubscriptionId) {
        let keep = |c: &Arc<Compiled>| c.subscription.id != *id;
        self.all.retain(keep);
        self.any_type.retain(keep);
        self.by_type.retain(|_, list| {
            list.retain(keep);
            !list.is_empty()
        });
    }

    /// The subscriptions that may match an entity of `entity_type`.
    fn candidates<'a>(&'a self, entity_type: &str) -> impl Iterator<Item = &'a Compiled> {
        let typed = self.by_type.get(entity_type).into_iter().flatten();
        typed.chain(&self.any_type).map(Arc::as_ref)
    }
}

/// The live subscription index.
pub struct SubscriptionIndex {
    /// Copied on write, so that matching (on the writer thread, after every commit) takes one reference count
    /// instead of one per subscription of the tenant.
    by_tenant: RwLock<HashMap<Tenant, Arc<TenantSubscriptions>>>,
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
        list.remove(&compiled.subscription.id);
        list.insert(compiled);
    }

    pub fn remove(&self, tenant: &Tenant, id: &SubscriptionId) {
        self.dispatcher.forget(id);
        if let Some(list) = self.by_tenant.write().expect("subscription index lock").get_mut(tenant) {
            Arc::make_mut(list).remove(id);
        }
    }

    /// A subscription by id within a tenant, as stored.
    pub fn get(&self, tenant: &Tenant, id: &SubscriptionId) -> Option<Subscription> {
        let map = self.by_tenant.read().expect("subscription index lock");
        map.get(tenant)?.all.iter().find(|c| c.subscription.id == *id).map(|c| c.subscription.clone())
    }

    /// The tenant's subscriptions, if it has any (a tenant without them costs no allocation per commit).
    fn tenant_list(&self, tenant: &Tenant) -> Option<Arc<TenantSubscriptions>> {
        self.by_tenant.read().expect("subscription index lock").get(tenant).cloned()
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
        let Some(list) = self.tenant_list(&first.entity.key.tenant) else { return };
        for change in changes {
            for compiled in list.candidates(&change.entity.key.entity_type) {
                if compiled.subscription.is_active(now) {
                    self.notify_one(compiled, change, origin);
                }
            }
        }
    }
}
