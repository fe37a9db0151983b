//! The live index of registered devices, by service and device id and by entity, loaded from the store at start and
//! kept in step by the registry API after each commit.
//!
//! It is also the store's [`WriteRule`]: inside an update transaction it refuses bad tracker modes and, for an
//! entity that belongs to a device with commands, turns a written command attribute into a queued command (status
//! PENDING) in the same transaction.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use super::model::RegisteredDevice;
use super::tracker;
use super::ul::command_text;
use crate::broker::model::EntityKey;
use crate::broker::update::{ElementWrite, UpdateAction};
use crate::store::sqlite::text_attr;
use crate::store::{NewCommand, Review, WriteRule};
use crate::tenancy::Tenant;

type EntityRef = (Tenant, String, String);

/// Registered devices, for lookups on every observation and every update.
#[derive(Debug, Default)]
pub struct DeviceIndex {
    by_id: RwLock<HashMap<(Tenant, String), Arc<RegisteredDevice>>>,
    by_entity: RwLock<HashMap<EntityRef, String>>,
}

impl DeviceIndex {
    pub fn new(initial: Vec<RegisteredDevice>) -> Self {
        let index = DeviceIndex::default();
        initial.into_iter().for_each(|d| index.put(d));
        index
    }

    pub fn put(&self, registered: RegisteredDevice) {
        let id = (registered.tenant.clone(), registered.device.device_id.clone());
        self.remove(&id.0, &id.1);
        let entity =
            (registered.tenant.clone(), registered.device.entity_name.clone(), registered.device.entity_type.clone());
        self.by_entity.write().expect("device index lock").insert(entity, id.1.clone());
        self.by_id.write().expect("device index lock").insert(id, Arc::new(registered));
    }

    pub fn remove(&self, tenant: &Tenant, device_id: &str) {
        let removed = self.by_id.write().expect("device index lock").remove(&(tenant.clone(), device_id.to_owned()));
        if let Some(old) = removed {
            let entity = (tenant.clone(), old.device.entity_name.clone(), old.device.entity_type.clone());
            self.by_entity.write().expect("device index lock").remove(&entity);
        }
    }

    pub fn get(&self, tenant: &Tenant, device_id: &str) -> Option<Arc<RegisteredDevice>> {
        self.by_id.read().expect("device index lock").get(&(tenant.clone(), device_id.to_owned())).cloned()
    }

    /// The device whose entity this is.
    pub fn of_entity(&self, key: &EntityKey) -> Option<Arc<RegisteredDevice>> {
        let entity = (key.tenant.clone(), key.id.0.clone(), key.entity_type.clone());
        let device_id = self.by_entity.read().expect("device index lock").get(&entity).cloned()?;
        self.get(&key.tenant, &device_id)
    }

    /// A service's devices, in registration-independent but stable (id) order.
    pub fn of_tenant(&self, tenant: &Tenant) -> Vec<Arc<RegisteredDevice>> {
        let mut list: Vec<_> =
            self.by_id.read().expect("device index lock").values().filter(|d| d.tenant == *tenant).cloned().collect();
        list.sort_by(|a, b| a.device.device_id.cmp(&b.device.device_id));
        list
    }
}

impl WriteRule for DeviceIndex {
    fn review(&self, key: &EntityKey, action: UpdateAction, write: &ElementWrite) -> Review {
        if matches!(action, UpdateAction::Delete) {
            return Review::default();
        }
        let mut review = Review::default();
        match tracker::review(&key.entity_type, write) {
            Err(status) => return Review { refuse: Some(status), ..Review::default() },
            Ok(extra) => review.extra.extend(extra),
        }
        if let Some(registered) = self.of_entity(key).filter(|d| d.tenant == key.tenant && d.path == key.path) {
            add_commands(&registered, write, &mut review);
        }
        review
    }
}

fn add_commands(registered: &RegisteredDevice, write: &ElementWrite, review: &mut Review) {
    let device = &registered.device;
    for attr in &write.attributes {
        let (Some(spec), Some(value)) = (device.command(&attr.name), attr.value.as_ref()) else { continue };
        let value = value.as_str().map_or_else(|| value.to_string(), str::to_owned);
        let text = command_text(&device.device_id, &spec.name, &spec.value, &value);
        review.commands.push(NewCommand { device_id: device.device_id.clone(), command: spec.name.clone(), text });
        review.extra.push(text_attr(&format!("{}_status", spec.name), "commandStatus", "PENDING"));
    }
}
