//! Domain types of the historic store: which series a sample belongs to, what a sample is, and how it aggregates.
//!
//! A series is one attribute of one entity in one tenant and service path. Its id is a hash of that key, so ingest
//! and queries find a series without a lookup. A value is classified once, at ingest: numbers feed sum, sum2, min and
//! max; other text feeds occurrence counts; booleans, null, blank text, arrays and objects are kept raw only.
//! Nothing here knows JSON field names, HTTP or SQL.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::time::Millis;
use crate::broker::model::EntityId;
use crate::tenancy::{ServicePath, Tenant};

/// Where an entity's history lives: tenant, service path, id and type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntityRef {
    pub tenant: Tenant,
    pub path: ServicePath,
    pub id: EntityId,
    pub entity_type: String,
}

/// An attribute name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AttrName(pub String);

/// One attribute's history: an entity and an attribute name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SeriesKey {
    pub entity: EntityRef,
    pub attr: AttrName,
}

/// The stored id of a series: the first 63 bits of the SHA-256 of its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SeriesId(pub i64);

impl SeriesKey {
    pub fn id(&self) -> SeriesId {
        let e = &self.entity;
        let mut hash = Sha256::new();
        for part in [e.tenant.as_str(), e.path.as_str(), &e.id.0, &e.entity_type, &self.attr.0] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
        let digest = hash.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        SeriesId(i64::from_le_bytes(first) & i64::MAX)
    }
}

/// How a value aggregates.
#[derive(Debug, Clone, PartialEq)]
pub enum Aggregate {
    /// Feeds samples, sum, sum2, min and max.
    Number(f64),
    /// Feeds occurrence counts.
    Text(String),
    /// Kept raw only.
    None,
}

impl Aggregate {
    /// Classifies a notified value. `0` and `"0"` are numbers (STH drops them, a bug we do not copy).
    pub fn of(value: &Value) -> Self {
        match value {
            Value::Number(n) => n.as_f64().filter(|f| f.is_finite()).map_or(Aggregate::None, Aggregate::Number),
            Value::String(s) if s.trim().is_empty() => Aggregate::None,
            Value::String(s) => match s.trim().parse::<f64>() {
                Ok(f) if f.is_finite() && looks_numeric(s.trim()) => Aggregate::Number(f),
                _ => Aggregate::Text(s.clone()),
            },
            _ => Aggregate::None,
        }
    }
}

/// Rust also parses `inf` and `NaN`; only digits, signs, a point and an exponent make a number here.
fn looks_numeric(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
}

/// One attribute change to store.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub series: SeriesKey,
    pub recv_time: Millis,
    pub attr_type: String,
    /// The value exactly as notified.
    pub value: Value,
}

impl Sample {
    pub fn aggregate(&self) -> Aggregate {
        Aggregate::of(&self.value)
    }
}

/// An aggregation method of a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AggrMethod {
    Min,
    Max,
    Sum,
    Sum2,
    Occur,
}

impl AggrMethod {
    /// What `all` expands to, in STH's order.
    pub const ALL: [AggrMethod; 5] =
        [AggrMethod::Min, AggrMethod::Max, AggrMethod::Sum, AggrMethod::Sum2, AggrMethod::Occur];

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == text)
    }

    pub fn name(self) -> &'static str {
        match self {
            AggrMethod::Min => "min",
            AggrMethod::Max => "max",
            AggrMethod::Sum => "sum",
            AggrMethod::Sum2 => "sum2",
            AggrMethod::Occur => "occur",
        }
    }

    pub fn is_numeric(self) -> bool {
        self != AggrMethod::Occur
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_are_classified_as_the_contract_says() {
        assert_eq!(Aggregate::of(&json!("21.5")), Aggregate::Number(21.5));
        assert_eq!(Aggregate::of(&json!("0")), Aggregate::Number(0.0));
        assert_eq!(Aggregate::of(&json!(0)), Aggregate::Number(0.0));
        assert_eq!(Aggregate::of(&json!("1e3")), Aggregate::Number(1000.0));
        assert_eq!(Aggregate::of(&json!("NaN")), Aggregate::Text("NaN".into()));
        assert_eq!(Aggregate::of(&json!("inf")), Aggregate::Text("inf".into()));
        assert_eq!(Aggregate::of(&json!("open")), Aggregate::Text("open".into()));
        for raw in [json!(""), json!("  "), json!(true), json!(null), json!([1]), json!({"a": 1})] {
            assert_eq!(Aggregate::of(&raw), Aggregate::None, "{raw}");
        }
    }

    #[test]
    fn series_ids_differ_by_every_part_and_are_positive() {
        let key = |attr: &str, id: &str| SeriesKey {
            entity: EntityRef {
                tenant: Tenant::default_tenant(),
                path: ServicePath::root(),
                id: EntityId(id.into()),
                entity_type: "Room".into(),
            },
            attr: AttrName(attr.into()),
        };
        assert_ne!(key("ab", "c").id(), key("a", "bc").id());
        assert_eq!(key("t", "R1").id(), key("t", "R1").id());
        assert!(key("t", "R1").id().0 >= 0);
    }
}
