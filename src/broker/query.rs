//! Which entities a query or subscription selects: ids (exact or regular expression), types, service-path scope.
//!
//! Patterns are matched unanchored (substring), as Orion does, with the `regex` crate: linear time, no backtracking,
//! and a compiled-size limit, so a client cannot make a query explode. Matching is pure; the store decides how to
//! find candidates and calls [`EntityQuery::matches`].

use regex::{Regex, RegexBuilder};

use super::error::NgsiError;
use super::model::Entity;
use crate::tenancy::{PathScope, Tenant};

/// Largest compiled pattern accepted, in bytes.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Default and maximum page sizes, as Orion.
pub const DEFAULT_LIMIT: usize = 20;
pub const MAX_LIMIT: usize = 1000;

/// How an entity id is selected.
#[derive(Debug, Clone)]
pub enum IdMatch {
    Exact(String),
    Pattern(Regex),
}

impl IdMatch {
    /// An exact id, or a pattern compiled with the size limit.
    pub fn new(id: &str, is_pattern: bool) -> Result<Self, NgsiError> {
        if !is_pattern {
            return Ok(IdMatch::Exact(id.to_owned()));
        }
        RegexBuilder::new(id)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map(IdMatch::Pattern)
            .map_err(|_| NgsiError::bad_request("invalid regex for entity id pattern"))
    }

    pub fn matches(&self, id: &str) -> bool {
        match self {
            IdMatch::Exact(exact) => exact == id,
            IdMatch::Pattern(re) => re.is_match(id),
        }
    }

    /// The wire form: id text and `isPattern`.
    pub fn to_wire(&self) -> (String, bool) {
        match self {
            IdMatch::Exact(id) => (id.clone(), false),
            IdMatch::Pattern(re) => (re.as_str().to_owned(), true),
        }
    }
}

impl PartialEq for IdMatch {
    fn eq(&self, other: &Self) -> bool {
        self.to_wire() == other.to_wire()
    }
}

/// One selected entity (or family of entities): id match and type (empty: any type).
#[derive(Debug, Clone, PartialEq)]
pub struct EntityFilter {
    pub id: IdMatch,
    pub entity_type: String,
}

impl EntityFilter {
    pub fn matches(&self, entity: &Entity) -> bool {
        (self.entity_type.is_empty() || self.entity_type == entity.key.entity_type) && self.id.matches(&entity.key.id.0)
    }
}

/// A query: which entities, which attributes, which page.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityQuery {
    pub tenant: Tenant,
    pub scope: PathScope,
    /// Empty means every entity of the scope.
    pub filters: Vec<EntityFilter>,
    /// Entities must have at least one of these (when not empty).
    pub attributes: Vec<String>,
    pub limit: usize,
    pub offset: usize,
}

impl EntityQuery {
    pub fn matches(&self, entity: &Entity) -> bool {
        self.scope.matches(&entity.key.path)
            && (self.filters.is_empty() || self.filters.iter().any(|f| f.matches(entity)))
            && (self.attributes.is_empty() || self.attributes.iter().any(|a| entity.attributes.contains_key(a)))
    }

    /// The exact ids asked for, when every filter is exact (lets the store use its index).
    pub fn exact_ids(&self) -> Option<Vec<&str>> {
        if self.filters.is_empty() {
            return None;
        }
        self.filters
            .iter()
            .map(|f| match &f.id {
                IdMatch::Exact(id) => Some(id.as_str()),
                IdMatch::Pattern(_) => None,
            })
            .collect()
    }
}
