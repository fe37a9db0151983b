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

/// The devices of each entity id, as (tenant, entity type, device id). Keyed by the id alone, so every update looks
/// its entity up by the id it already has, without building an owned key; an id rarely has more than one device.
type ByEntity = HashMap<String, Vec<(Tenant, String, String)>>;

/// Registered devices, for lookups on every observation and every update.
#[derive(Debug, Default)]
pub struct DeviceIndex {
    by_id: RwLock<HashMap<(Tenant, String), Arc<RegisteredDevice>>>,
    by_entity: RwLock<ByEntity>,
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
        let device = &registered.device;
        let entry = (registered.tenant.clone(), device.entity_type.clone(), id.1.clone());
        let mut by_entity = self.by_entity.write().expect("device index lock");
        let devices = by_entity.entry(device.entity_name.clone()).or_default();
        devices.retain(|(tenant, entity_type, _)| (tenant, entity_type) != (&entry.0, &entry.1));
        devices.push(entry);
        drop(by_entity);
        self.by_id.write().expect("device index lock").insert(id, Arc::new(registered));
    }

    pub fn remove(&self, tenant: &Tenant, device_id: &str) {
        let removed = self.by_id.write().expect("device index lock").remove(&(tenant.clone(), device_id.to_owned()));
        let Some(old) = removed else {
            return;
        };
        let mut by_entity = self.by_entity.write().expect("device index lock");
        if let Some(devices) = by_entity.get_mut(&old.device.entity_name) {
            devices.retain(|(t, entity_type, _)| (t, entity_type) != (tenant, &old.device.entity_type));
            if devices.is_empty() {
                by_entity.remove(&old.device.entity_name);
            }
        }
    }

    pub fn get(&self, tenant: &Tenant, device_id: &str) -> Option<Arc<RegisteredDevice>> {
        self.by_id.read().expect("device index lock").get(&(tenant.clone(), device_id.to_owned())).cloned()
    }

    /// The device whose entity this is.
    pub fn of_entity(&self, key: &EntityKey) -> Option<Arc<RegisteredDevice>> {
        let device_id = {
            let by_entity = self.by_entity.read().expect("device index lock");
            let devices = by_entity.get(&key.id.0)?;
            let found = devices.iter().find(|(t, ty, _)| *t == key.tenant && *ty == key.entity_type)?;
            found.2.clone()
        };
        // Never both locks at once: `put` and `remove` take them one after the other too.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::model::EntityId;
    use crate::devices::model::Device;
    use crate::tenancy::ServicePath;

    fn registered(tenant: &Tenant, device_id: &str, entity: (&str, &str)) -> RegisteredDevice {
        let device = Device {
            device_id: device_id.into(),
            entity_name: entity.0.into(),
            entity_type: entity.1.into(),
            protocol: "PDI-IoTA-UltraLight".into(),
            timezone: "UTC".into(),
            endpoint: None,
            attributes: vec![],
            commands: vec![],
            static_attributes: vec![],
        };
        RegisteredDevice { tenant: tenant.clone(), path: ServicePath::root(), device }
    }

    fn owner(index: &DeviceIndex, tenant: &Tenant, entity: (&str, &str)) -> Option<String> {
        let key = EntityKey {
            tenant: tenant.clone(),
            path: ServicePath::root(),
            id: EntityId(entity.0.into()),
            entity_type: entity.1.into(),
        };
        index.of_entity(&key).map(|d| d.device.device_id.clone())
    }

    #[test]
    fn an_entity_finds_its_device_by_tenant_id_and_type_through_moves_and_removals() {
        let (a, b) = (Tenant::default_tenant(), Tenant::parse("other").expect("a tenant"));
        let index = DeviceIndex::new(vec![
            registered(&a, "d1", ("Thing1", "Thing")),
            registered(&b, "d2", ("Thing1", "Thing")),
            registered(&a, "d3", ("Thing1", "Sensor")),
        ]);
        assert_eq!(owner(&index, &a, ("Thing1", "Thing")).as_deref(), Some("d1"));
        assert_eq!(owner(&index, &b, ("Thing1", "Thing")).as_deref(), Some("d2"));
        assert_eq!(owner(&index, &a, ("Thing1", "Sensor")).as_deref(), Some("d3"));
        assert_eq!(owner(&index, &b, ("Thing1", "Sensor")), None);
        // Registered again under another entity, d1 leaves its old one.
        index.put(registered(&a, "d1", ("Thing2", "Thing")));
        assert_eq!(owner(&index, &a, ("Thing1", "Thing")), None);
        assert_eq!(owner(&index, &a, ("Thing2", "Thing")).as_deref(), Some("d1"));
        index.remove(&b, "d2");
        assert_eq!(owner(&index, &b, ("Thing1", "Thing")), None);
        assert_eq!(owner(&index, &a, ("Thing1", "Sensor")).as_deref(), Some("d3"));
    }
}
