//! Tenants (`Platform-Service`) and service paths (`Platform-ServicePath`), with Orion's rules and error texts.
//!
//! This module decides what a header means for every API: the tenant name (validated, lowercased, `default` when
//! absent) and the service-path scope of a request, which depends on its kind (a write names exactly one path; a
//! query up to ten, each optionally ending in `/#`). It knows nothing of tokens or of any wire format: callers render
//! a [`TenancyError`] in their own API's shape.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Header carrying the tenant name.
pub const SERVICE_HEADER: &str = "platform-service";
/// Header carrying the service path(s).
pub const SERVICE_PATH_HEADER: &str = "platform-servicepath";

const MAX_TENANT_LEN: usize = 50;
const MAX_COMPONENT_LEN: usize = 50;
const MAX_LEVELS: usize = 10;
const MAX_QUERY_PATHS: usize = 10;

/// A validated, lowercased tenant (service) name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Tenant(String);

impl Tenant {
    /// The tenant used when a request names none.
    pub fn default_tenant() -> Self {
        Tenant("default".to_owned())
    }

    /// Validates a tenant name and lowercases it.
    pub fn parse(raw: &str) -> Result<Self, TenancyError> {
        if raw.len() > MAX_TENANT_LEN {
            return Err(TenancyError::TenantTooLong);
        }
        if raw.is_empty() || !raw.bytes().all(is_name_byte) {
            return Err(TenancyError::TenantBadCharacter);
        }
        Ok(Tenant(raw.to_ascii_lowercase()))
    }

    /// Reads the tenant from an optional header value.
    pub fn from_header(value: Option<&str>) -> Result<Self, TenancyError> {
        match value.map(str::trim) {
            None | Some("") => Ok(Self::default_tenant()),
            Some(raw) => Self::parse(raw),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Tenant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One concrete service path such as `/` or `/madrid/north` (never containing `#`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ServicePath(String);

impl ServicePath {
    pub fn root() -> Self {
        ServicePath("/".to_owned())
    }

    /// Validates one concrete path (no `#`), stripping a trailing slash.
    pub fn parse(raw: &str) -> Result<Self, TenancyError> {
        let (path, recursive) = parse_entry(raw)?;
        if recursive {
            return Err(TenancyError::HashInWrite);
        }
        Ok(path)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `self` is `ancestor` or lies below it.
    pub fn is_within(&self, ancestor: &ServicePath) -> bool {
        if ancestor.0 == "/" || self.0 == ancestor.0 {
            return true;
        }
        self.0.starts_with(&ancestor.0) && self.0.as_bytes().get(ancestor.0.len()) == Some(&b'/')
    }
}

impl fmt::Display for ServicePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One entry of a query scope: a path, and whether its descendants are included (`/#`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScopeEntry {
    pub path: ServicePath,
    pub recursive: bool,
}

impl ScopeEntry {
    pub fn matches(&self, path: &ServicePath) -> bool {
        if self.recursive { path.is_within(&self.path) } else { *path == self.path }
    }

    /// Renders the entry as the header would carry it (`/a/#` for a recursive entry).
    pub fn to_header(&self) -> String {
        match (self.recursive, self.path.as_str()) {
            (false, p) => p.to_owned(),
            (true, "/") => "/#".to_owned(),
            (true, p) => format!("{p}/#"),
        }
    }
}

/// The set of service paths a query or subscription covers (their union).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathScope(Vec<ScopeEntry>);

impl PathScope {
    /// Everything in the tenant: `/#`.
    pub fn everything() -> Self {
        PathScope(vec![ScopeEntry { path: ServicePath::root(), recursive: true }])
    }

    pub fn single(entry: ScopeEntry) -> Self {
        PathScope(vec![entry])
    }

    pub fn entries(&self) -> &[ScopeEntry] {
        &self.0
    }

    pub fn matches(&self, path: &ServicePath) -> bool {
        self.0.iter().any(|e| e.matches(path))
    }

    /// Whether every path this scope can reach lies within `ancestor`.
    pub fn is_within(&self, ancestor: &ServicePath) -> bool {
        self.0.iter().all(|e| e.path.is_within(ancestor))
    }

    /// Query scope from the header: up to ten comma-separated entries; absent means `/#`.
    pub fn for_query(header: Option<&str>) -> Result<Self, TenancyError> {
        let Some(raw) = header.filter(|h| !h.trim().is_empty()) else {
            return Ok(Self::everything());
        };
        let parts: Vec<&str> = raw.split(',').collect();
        if parts.len() > MAX_QUERY_PATHS {
            return Err(TenancyError::TooManyPaths);
        }
        let entries = parts
            .into_iter()
            .map(|p| parse_entry(p).map(|(path, recursive)| ScopeEntry { path, recursive }))
            .collect::<Result<_, _>>()?;
        Ok(PathScope(entries))
    }

    /// Subscription scope: exactly one entry, `#` allowed; absent means `/#`.
    pub fn for_subscription(header: Option<&str>) -> Result<Self, TenancyError> {
        let Some(raw) = header.filter(|h| !h.trim().is_empty()) else {
            return Ok(Self::everything());
        };
        if raw.contains(',') {
            return Err(TenancyError::OnePathForSubscriptions);
        }
        let (path, recursive) = parse_entry(raw)?;
        Ok(Self::single(ScopeEntry { path, recursive }))
    }
}

/// The path of a write: exactly one path and no `#`; absent means `/`.
pub fn path_for_write(header: Option<&str>) -> Result<ServicePath, TenancyError> {
    let Some(raw) = header.filter(|h| !h.trim().is_empty()) else {
        return Ok(ServicePath::root());
    };
    if raw.contains(',') {
        return Err(TenancyError::OnePathForUpdates);
    }
    if raw.contains('#') {
        return Err(TenancyError::HashInWrite);
    }
    ServicePath::parse(raw)
}

fn parse_entry(raw: &str) -> Result<(ServicePath, bool), TenancyError> {
    let trimmed = raw.trim();
    if !trimmed.starts_with('/') {
        return Err(TenancyError::NotAbsolute);
    }
    let body = trimmed.trim_end_matches('/');
    if body.is_empty() {
        return Ok((ServicePath::root(), false));
    }
    let components: Vec<&str> = body[1..].split('/').collect();
    let (components, recursive) = match components.split_last() {
        Some((&"#", rest)) => (rest.to_vec(), true),
        _ => (components, false),
    };
    check_components(&components)?;
    let path = if components.is_empty() { "/".to_owned() } else { format!("/{}", components.join("/")) };
    Ok((ServicePath(path), recursive))
}

fn check_components(components: &[&str]) -> Result<(), TenancyError> {
    if components.len() > MAX_LEVELS {
        return Err(TenancyError::TooManyComponents);
    }
    for c in components {
        if c.is_empty() {
            return Err(TenancyError::EmptyComponent);
        }
        if c.len() > MAX_COMPONENT_LEN {
            return Err(TenancyError::ComponentTooLong);
        }
        if !c.bytes().all(is_name_byte) {
            return Err(TenancyError::IllegalCharacter);
        }
    }
    Ok(())
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A tenant or service-path header that breaks the rules; the texts are Orion's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TenancyError {
    #[error("bad length - a tenant name can be max 50 characters long")]
    TenantTooLong,
    #[error("bad character in tenant name - only underscore and alphanumeric characters are allowed")]
    TenantBadCharacter,
    #[error("component-name too long in ServicePath")]
    ComponentTooLong,
    #[error("too many components in ServicePath")]
    TooManyComponents,
    #[error("a component of ServicePath contains an illegal character")]
    IllegalCharacter,
    #[error("empty component in ServicePath")]
    EmptyComponent,
    #[error("Only /absolute/ Service Paths allowed [a service path must begin with /]")]
    NotAbsolute,
    #[error("too many service paths - a maximum of ten service paths is allowed")]
    TooManyPaths,
    #[error("more than one service path in context update request")]
    OnePathForUpdates,
    #[error("Bad Character in Service-Path")]
    HashInWrite,
    #[error("max one service-path allowed for subscriptions")]
    OnePathForSubscriptions,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenant_is_lowercased_and_validated() {
        assert_eq!(Tenant::parse("SmartCity_1").unwrap().as_str(), "smartcity_1");
        assert_eq!(Tenant::parse("bad-name"), Err(TenancyError::TenantBadCharacter));
        assert_eq!(Tenant::parse(&"a".repeat(51)), Err(TenancyError::TenantTooLong));
        assert_eq!(Tenant::from_header(None).unwrap(), Tenant::default_tenant());
    }

    #[test]
    fn query_scope_accepts_lists_and_hash() {
        let scope = PathScope::for_query(Some("/a/#, /b/")).unwrap();
        assert!(scope.matches(&ServicePath::parse("/a/x/y").unwrap()));
        assert!(scope.matches(&ServicePath::parse("/b").unwrap()));
        assert!(!scope.matches(&ServicePath::parse("/b/c").unwrap()));
        assert!(!scope.matches(&ServicePath::parse("/ab").unwrap()));
    }

    #[test]
    fn path_errors_use_orion_texts() {
        assert_eq!(PathScope::for_query(Some("a")), Err(TenancyError::NotAbsolute));
        assert_eq!(PathScope::for_query(Some("/a//b")), Err(TenancyError::EmptyComponent));
        assert_eq!(PathScope::for_query(Some("/North#")), Err(TenancyError::IllegalCharacter));
        let eleven = ["/a"; 11].join(",");
        assert_eq!(PathScope::for_query(Some(&eleven)), Err(TenancyError::TooManyPaths));
        let deep = "/a".repeat(11);
        assert_eq!(PathScope::for_query(Some(&deep)), Err(TenancyError::TooManyComponents));
        assert_eq!(path_for_write(Some("/a,/b")), Err(TenancyError::OnePathForUpdates));
        assert_eq!(path_for_write(Some("/#")), Err(TenancyError::HashInWrite));
        assert_eq!(PathScope::for_subscription(Some("/a,/b")), Err(TenancyError::OnePathForSubscriptions));
    }
}
