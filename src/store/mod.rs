//! Durable state behind traits: entities, subscriptions, services and hashed tokens, devices, CEP configurations.
//!
//! The API code sees only these traits, whose methods take and return domain types and answer through a [`Reply`]
//! future, so a second backend (PostgreSQL) can be added without touching it. Every write is answered only after the
//! transaction holding it has committed. Update semantics are not decided here: backends load the entity, call the
//! broker's pure `update::apply`, and save what it returns. SQLite (`sqlite`) is the default backend.

pub mod sqlite;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use thiserror::Error;
use tokio::sync::oneshot;

use crate::auth::{Grant, TokenHash};
use crate::broker::model::EntityKey;
use crate::broker::model::{Entity, EntityId};
use crate::broker::query::EntityQuery;
use crate::broker::status::Status;
use crate::broker::subscription::{Subscription, SubscriptionId};
use crate::broker::update::{AttrWrite, ElementWrite, ResultPart, UpdateAction};
use crate::devices::model::{Device, RegisteredDevice};
use crate::tenancy::{ServicePath, Tenant};

/// A store failure: the database refused, or the store is shutting down.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(String),
    #[error("the store is closed")]
    Closed,
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("service {0} already exists")]
    ServiceExists(String),
    #[error("no service named {0}")]
    NoSuchService(String),
    #[error("device {0} is already registered")]
    DuplicateDevice(String),
    #[error("no command {command} was sent to device {device_id}")]
    NoSuchCommand { device_id: String, command: String },
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Database(e.to_string())
    }
}

/// The answer to a store call, resolved when the work (and, for writes, its commit) is done.
#[derive(Debug)]
pub struct Reply<T>(oneshot::Receiver<Result<T, StoreError>>);

impl<T> Reply<T> {
    /// A reply and the sender that completes it.
    pub fn channel() -> (oneshot::Sender<Result<T, StoreError>>, Self) {
        let (tx, rx) = oneshot::channel();
        (tx, Reply(rx))
    }

    /// Blocks the current (non-async) thread until the answer comes; for the command line.
    pub fn wait(self) -> Result<T, StoreError> {
        self.0.blocking_recv().unwrap_or(Err(StoreError::Closed))
    }
}

impl<T> Future for Reply<T> {
    type Output = Result<T, StoreError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx).map(|r| r.unwrap_or(Err(StoreError::Closed)))
    }
}

/// Who caused a write: carried to the notifications it triggers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    pub token: Option<String>,
    pub correlator: String,
}

/// One `updateContext` (or convenience write) for one service path.
#[derive(Debug, Clone)]
pub struct UpdateBatch {
    pub tenant: Tenant,
    pub path: ServicePath,
    pub action: UpdateAction,
    pub elements: Vec<ElementWrite>,
    pub origin: Origin,
}

/// The outcome of one element: the type it resolved to and the response parts.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementResult {
    pub entity_type: String,
    pub parts: Vec<ResultPart>,
}

/// An entity whose attributes were actually modified by a committed write.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityChange {
    /// The entity after the write (for a deleted entity, as it was).
    pub entity: Arc<Entity>,
    pub changed: Vec<String>,
}

/// Told of every committed update, in commit order, before the writers are answered.
pub trait ChangeListener: Send + Sync {
    fn on_commit(&self, origin: &Origin, outcome: &UpdateOutcome);
}

/// A command to queue for a device, decided while an update is applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCommand {
    pub device_id: String,
    pub command: String,
    pub text: String,
}

/// A command in the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedCommand {
    pub id: i64,
    pub tenant: Tenant,
    pub device_id: String,
    pub command: String,
    pub text: String,
}

/// What a rule says of one element before it is applied: refuse it, or add attributes and commands.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Review {
    pub refuse: Option<Status>,
    pub extra: Vec<AttrWrite>,
    pub commands: Vec<NewCommand>,
}

/// Domain rules checked inside the update transaction (trackers' modes, device commands).
pub trait WriteRule: Send + Sync {
    fn review(&self, key: &EntityKey, action: UpdateAction, write: &ElementWrite) -> Review;
}

/// The last state of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandState {
    Pending,
    Delivered,
    Ok,
    Error,
    Expired,
}

impl CommandState {
    pub fn as_str(self) -> &'static str {
        match self {
            CommandState::Pending => "PENDING",
            CommandState::Delivered => "DELIVERED",
            CommandState::Ok => "OK",
            CommandState::Error => "ERROR",
            CommandState::Expired => "EXPIRED",
        }
    }
}

/// A device's report on a command, and what the command becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandReport {
    pub device_id: String,
    pub command: String,
    pub state: CommandState,
    pub info: String,
}

/// A page of a query, with the total number of matches when asked for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueryPage {
    pub entities: Vec<Entity>,
    pub total: usize,
}

/// What a committed update did: the per-element results, the entities actually modified, the commands queued.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UpdateOutcome {
    pub results: Vec<ElementResult>,
    pub changes: Vec<EntityChange>,
    pub commands: Vec<QueuedCommand>,
}

pub trait EntityStore: Send + Sync {
    /// Applies an update atomically per element; changes go to the listener after commit, before the reply.
    fn update(&self, batch: UpdateBatch) -> Reply<UpdateOutcome>;
    /// Entities matching a query, in creation order, paged.
    fn query(&self, query: EntityQuery) -> Reply<QueryPage>;
    /// Every entity with this id in the tenant (all types, all paths), for convenience operations.
    fn entities_by_id(&self, tenant: Tenant, id: EntityId) -> Reply<Vec<Entity>>;
}

pub trait SubscriptionStore: Send + Sync {
    fn put_subscription(&self, subscription: Subscription) -> Reply<()>;
    /// Removes a subscription; answers whether it existed.
    fn delete_subscription(&self, tenant: Tenant, id: SubscriptionId) -> Reply<bool>;
    fn subscriptions(&self) -> Reply<Vec<Subscription>>;
}

pub trait ServiceStore: Send + Sync {
    /// Creates a service with its full-rights token.
    fn add_service(&self, service: Tenant, token: TokenHash) -> Reply<()>;
    /// Adds a (possibly scoped) token to an existing service.
    fn add_token(&self, grant: Grant, token: TokenHash) -> Reply<()>;
    fn find_token(&self, token: TokenHash) -> Reply<Option<Grant>>;
    fn service_count(&self) -> Reply<usize>;
}

pub trait DeviceStore: Send + Sync {
    /// Registers devices, all or none; creates their entities' command attributes.
    fn add_devices(&self, tenant: Tenant, path: ServicePath, devices: Vec<Device>) -> Reply<UpdateOutcome>;
    fn devices(&self) -> Reply<Vec<RegisteredDevice>>;
    /// Replaces a registration (the id cannot change); answers whether it existed.
    fn put_device(&self, tenant: Tenant, device: Device) -> Reply<bool>;
    fn delete_device(&self, tenant: Tenant, device_id: String) -> Reply<bool>;
    /// Applies an observation (measures and command results) atomically; a result for a command never sent fails it.
    fn ingest(
        &self,
        measures: Option<UpdateBatch>,
        tenant: Tenant,
        reports: Vec<CommandReport>,
    ) -> Reply<UpdateOutcome>;
    /// Takes a device's pending commands in queue order and marks them delivered.
    fn take_pending(&self, tenant: Tenant, device_id: String) -> Reply<(Vec<QueuedCommand>, UpdateOutcome)>;
    /// Marks commands queued before `before_ms` and never delivered as expired.
    fn expire_commands(&self, before_ms: i64) -> Reply<UpdateOutcome>;
}

/// A CEP configuration as stored: the tenant (service and service path) it runs for, and its JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCepConfig {
    pub tenant: Tenant,
    pub path: ServicePath,
    pub body: String,
}

pub trait CepStore: Send + Sync {
    /// Stores (or replaces) a tenant's configuration.
    fn put_cep_config(&self, config: StoredCepConfig) -> Reply<()>;
    /// Removes a tenant's configuration; answers whether there was one.
    fn delete_cep_config(&self, tenant: Tenant, path: ServicePath) -> Reply<bool>;
    /// Every stored configuration, to restart them at start-up.
    fn cep_configs(&self) -> Reply<Vec<StoredCepConfig>>;
}

/// Everything the service keeps durably.
pub trait Store: EntityStore + SubscriptionStore + ServiceStore + DeviceStore + CepStore {
    /// Adds a listener to every committed update (the subscription engine, the command dispatcher).
    fn add_listener(&self, listener: Arc<dyn ChangeListener>);
    /// Sets the rules checked inside update transactions.
    fn set_rule(&self, rule: Arc<dyn WriteRule>);
}
