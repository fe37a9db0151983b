//! The service tokens seen on MQTT, kept in memory only: the store holds token hashes, yet a command topic needs the
//! token text (`<token>/<device_id>/cmd`).
//!
//! A token is learnt when a client connects with it as user name (embedded broker) or when an accepted publish
//! carries it in its topic; the last one seen for a service is used. Nothing here is persisted or logged, so after a
//! restart MQTT commands stay PENDING until a device of the service shows up again.

use std::collections::HashMap;
use std::sync::RwLock;

use tokio::sync::mpsc;

use crate::tenancy::Tenant;

/// Service → the last token seen for it; tells a listener when a service's token is first learnt.
#[derive(Debug)]
pub struct TokenBook {
    tokens: RwLock<HashMap<Tenant, String>>,
    learnt: mpsc::UnboundedSender<Tenant>,
}

impl TokenBook {
    /// A book and the receiving end of its "first token of a service" notices.
    pub fn new() -> (Self, mpsc::UnboundedReceiver<Tenant>) {
        let (learnt, notices) = mpsc::unbounded_channel();
        (TokenBook { tokens: RwLock::new(HashMap::new()), learnt }, notices)
    }

    /// Records `token` for `service`; a service seen for the first time is announced.
    pub fn learn(&self, service: &Tenant, token: &str) {
        if self.get(service).as_deref() == Some(token) {
            return;
        }
        let first = self.tokens.write().expect("token book lock").insert(service.clone(), token.to_owned()).is_none();
        if first {
            let _ = self.learnt.send(service.clone());
        }
    }

    pub fn get(&self, service: &Tenant) -> Option<String> {
        self.tokens.read().expect("token book lock").get(service).cloned()
    }
}
