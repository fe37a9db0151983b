//! Subscriptions as the broker keeps them: what they watch, where they notify, how long and how often.
//!
//! A subscription belongs to a tenant; its service-path scope only selects entities. Durations and throttling are
//! ISO 8601 (`P[n]Y[n]M[n]DT[n]H[n]M[n]S`, weeks refused as Orion does), kept both as
//! the text the client sent (echoed back) and in milliseconds. Matching an update against subscriptions is in
//! `matcher`; delivery in `notify`.

use std::fmt;
use std::sync::LazyLock;

use rand::RngCore;
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::model::Entity;
use super::query::{EntityFilter, IdMatch};
use crate::tenancy::{PathScope, Tenant};

/// Default subscription lifetime (Orion's `DEFAULT_DURATION`).
pub const DEFAULT_DURATION: &str = "PT24H";

/// A 24-hex-digit subscription id, like Orion's Mongo ObjectIds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SubscriptionId(pub String);

impl SubscriptionId {
    pub fn generate() -> Self {
        let mut bytes = [0u8; 12];
        rand::rng().fill_bytes(&mut bytes);
        SubscriptionId(hex::encode(bytes))
    }
}

impl fmt::Display for SubscriptionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One watched entity as the client wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchedEntity {
    pub id: String,
    pub is_pattern: bool,
    pub entity_type: String,
}

/// A subscription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subscription {
    pub id: SubscriptionId,
    pub tenant: Tenant,
    pub scope: PathScope,
    pub entities: Vec<WatchedEntity>,
    /// Attributes carried by notifications; empty means all.
    pub attributes: Vec<String>,
    /// ONCHANGE condition attributes; empty means any attribute.
    pub conditions: Vec<String>,
    pub reference: String,
    pub duration: String,
    /// Expiry, in milliseconds since the epoch.
    pub expires_at_ms: i64,
    pub throttling: Option<String>,
    pub throttling_ms: u64,
}

impl Subscription {
    /// The compiled entity filters (patterns were validated when the subscription was accepted).
    pub fn filters(&self) -> Vec<EntityFilter> {
        self.entities
            .iter()
            .filter_map(|w| {
                let id = IdMatch::new(&w.id, w.is_pattern).ok()?;
                Some(EntityFilter { id, entity_type: w.entity_type.clone() })
            })
            .collect()
    }

    pub fn is_active(&self, now_ms: i64) -> bool {
        now_ms < self.expires_at_ms
    }

    /// Whether a change of `changed` attributes of `entity` triggers this subscription (entity filters aside).
    pub fn triggered_by(&self, entity: &Entity, changed: &[String]) -> bool {
        let condition = self.conditions.is_empty() || changed.iter().any(|c| self.conditions.contains(c));
        let projected = self.attributes.is_empty() || self.attributes.iter().any(|a| entity.attributes.contains_key(a));
        condition && projected && self.scope.matches(&entity.key.path)
    }
}

/// Orion's duration grammar, `P[n]Y[n]M[n]DT[n]H[n]M[n]S`, fraction on seconds only.
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d{1,3})\d*)?S)?)?$")
        .expect("duration pattern")
});

/// Parses an ISO 8601 duration into milliseconds (a year is 365 days, a month 30); `None` when malformed.
pub fn parse_duration_ms(text: &str) -> Option<u64> {
    let caps = DURATION.captures(text)?;
    let has_part = (1..=6).any(|i| caps.get(i).is_some());
    if !has_part || text.ends_with('T') {
        return None;
    }
    let n = |i: usize| caps.get(i).map_or(Some(0), |m| m.as_str().parse::<u64>().ok());
    let days = n(1)?.checked_mul(365)? + n(2)?.checked_mul(30)? + n(3)?;
    let seconds = ((days.checked_mul(24)? + n(4)?).checked_mul(60)? + n(5)?).checked_mul(60)? + n(6)?;
    let millis = caps.get(7).map_or(0, |m| format!("{:0<3}", m.as_str()).parse::<u64>().unwrap_or(0));
    seconds.checked_mul(1000)?.checked_add(millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_follow_orion_format() {
        assert_eq!(parse_duration_ms("PT24H"), Some(86_400_000));
        assert_eq!(parse_duration_ms("PT5S"), Some(5_000));
        assert_eq!(parse_duration_ms("P1M"), Some(30 * 86_400_000));
        assert_eq!(parse_duration_ms("PT0.5S"), Some(500));
        assert_eq!(parse_duration_ms("PT99Y"), None);
        assert_eq!(parse_duration_ms("PY99"), None);
        assert_eq!(parse_duration_ms("P2W"), None);
        assert_eq!(parse_duration_ms("soon"), None);
        assert_eq!(parse_duration_ms("P"), None);
        assert_eq!(parse_duration_ms("P1DT"), None);
        assert_eq!(parse_duration_ms("P1DT2H3M4.25S"), Some(((24 + 2) * 3600 + 3 * 60 + 4) * 1000 + 250));
    }

    #[test]
    fn ids_are_24_hex() {
        let id = SubscriptionId::generate();
        assert_eq!(id.0.len(), 24);
        assert!(id.0.bytes().all(|b| b.is_ascii_hexdigit()));
    }
}
