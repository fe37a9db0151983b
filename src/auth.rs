//! Tokens and permissions: who may read or write what, decided in one place for every API.
//!
//! A token belongs to one service (tenant) and may be limited to a service-path subtree and to reading. Tokens are
//! random, shown once at creation, and stored only as SHA-256 hashes. [`Authenticator`] turns a presented token into a
//! [`Grant`] (401 when missing or unknown, 403 for another service); the grant then decides each read or write (403
//! when out of scope or read-only). The token text never reaches a log line: [`TokenHash`] is what travels.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, RwLock};

use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::store::{Store, StoreError};
use crate::tenancy::{PathScope, ScopeEntry, ServicePath, Tenant};

/// The SHA-256 of a token, hex encoded: what the store keeps and what may be logged.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TokenHash(String);

impl TokenHash {
    pub fn of(token: &str) -> Self {
        TokenHash(hex::encode(Sha256::digest(token.as_bytes())))
    }

    pub fn from_stored(hex: String) -> Self {
        TokenHash(hex)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TokenHash({}…)", &self.0[..8.min(self.0.len())])
    }
}

/// A new random token: 32 bytes, hex encoded.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// What a token allows: one service, a service-path subtree, and possibly only reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub service: Tenant,
    pub path: ServicePath,
    pub read_only: bool,
}

impl Grant {
    /// All rights in a service: the token printed at creation.
    pub fn full(service: Tenant) -> Self {
        Grant { service, path: ServicePath::root(), read_only: false }
    }

    /// May this grant write at `path`?
    pub fn check_write(&self, path: &ServicePath) -> Result<(), AuthError> {
        if self.read_only {
            return Err(AuthError::ReadOnly);
        }
        self.check_path(path)
    }

    /// May this grant reach `path` at all?
    pub fn check_path(&self, path: &ServicePath) -> Result<(), AuthError> {
        if path.is_within(&self.path) { Ok(()) } else { Err(AuthError::OutOfScope(path.to_string())) }
    }

    /// The scope a read may use: the token's subtree when the request named none, else the request's if covered.
    pub fn read_scope(&self, requested: Option<PathScope>) -> Result<PathScope, AuthError> {
        match requested {
            None => Ok(PathScope::single(ScopeEntry { path: self.path.clone(), recursive: true })),
            Some(scope) if scope.is_within(&self.path) => Ok(scope),
            Some(scope) => {
                let paths: Vec<String> = scope.entries().iter().map(ScopeEntry::to_header).collect();
                Err(AuthError::OutOfScope(paths.join(",")))
            }
        }
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AuthError {
    #[error("no token given: send X-Auth-Token")]
    MissingToken,
    #[error("the token is not valid")]
    UnknownToken,
    #[error("the token does not belong to service {0}")]
    OtherService(String),
    #[error("the token is read-only")]
    ReadOnly,
    #[error("the token does not cover service path {0}")]
    OutOfScope(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Resolves presented tokens to grants, caching what the store answered.
pub struct Authenticator {
    store: Arc<dyn Store>,
    insecure: bool,
    cache: RwLock<HashMap<TokenHash, Grant>>,
}

impl fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authenticator").field("insecure", &self.insecure).finish_non_exhaustive()
    }
}

impl Authenticator {
    pub fn new(store: Arc<dyn Store>, insecure: bool) -> Self {
        Authenticator { store, insecure, cache: RwLock::new(HashMap::new()) }
    }

    pub fn is_insecure(&self) -> bool {
        self.insecure
    }

    /// The grant of `token` for a request to `tenant`.
    pub async fn authenticate(&self, tenant: &Tenant, token: Option<&str>) -> Result<Grant, AuthError> {
        if self.insecure {
            return Ok(Grant::full(tenant.clone()));
        }
        let token = token.filter(|t| !t.is_empty()).ok_or(AuthError::MissingToken)?;
        let grant = self.lookup(TokenHash::of(token)).await?.ok_or(AuthError::UnknownToken)?;
        if grant.service != *tenant {
            return Err(AuthError::OtherService(tenant.to_string()));
        }
        Ok(grant)
    }

    /// The grant of a token whatever the tenant: the token names the service (UltraLight `k`, MQTT user name).
    pub async fn grant_of(&self, token: &str) -> Result<Grant, AuthError> {
        self.lookup(TokenHash::of(token)).await?.ok_or(AuthError::UnknownToken)
    }

    async fn lookup(&self, hash: TokenHash) -> Result<Option<Grant>, StoreError> {
        if let Some(grant) = self.cache.read().expect("token cache lock").get(&hash) {
            return Ok(Some(grant.clone()));
        }
        let found = self.store.find_token(hash.clone()).await?;
        if let Some(grant) = &found {
            self.cache.write().expect("token cache lock").insert(hash, grant.clone());
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scoped_grant_refuses_other_paths() {
        let grant =
            Grant { service: Tenant::default_tenant(), path: ServicePath::parse("/a").unwrap(), read_only: false };
        assert!(grant.check_write(&ServicePath::parse("/a/b").unwrap()).is_ok());
        assert_eq!(grant.check_write(&ServicePath::parse("/b").unwrap()), Err(AuthError::OutOfScope("/b".into())));
        let narrowed = grant.read_scope(None).unwrap();
        assert!(!narrowed.matches(&ServicePath::parse("/b").unwrap()));
    }

    #[test]
    fn read_only_grant_cannot_write() {
        let grant = Grant { read_only: true, ..Grant::full(Tenant::default_tenant()) };
        assert_eq!(grant.check_write(&ServicePath::root()), Err(AuthError::ReadOnly));
    }

    #[test]
    fn hash_debug_hides_the_token() {
        let hash = TokenHash::of("secret");
        assert!(!format!("{hash:?}").contains("secret"));
        assert_eq!(hash.as_str().len(), 64);
    }
}
