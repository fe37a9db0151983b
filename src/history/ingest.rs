//! Notifications into samples: every attribute of every element, with its type, its value as notified and its
//! recvTime, in the tenant and service path the notification came with.
//!
//! recvTime (CONTRACT section 5): the attribute's `TimeInstant` metadata when it parses, else the entity's
//! `TimeInstant` attribute when it parses, else the arrival time. A notification is refused whole (nothing written)
//! when `contextResponses` is missing or no element carries an attribute. Pure: the caller supplies the time.

use serde_json::Value;

use super::error::{HistoryError, Source};
use super::model::{AttrName, EntityRef, Sample, SeriesKey};
use super::time::{Millis, parse_iso};
use super::wire::{ElementIn, NotificationIn};
use crate::broker::model::EntityId;
use crate::tenancy::{ServicePath, Tenant};

/// The name of the attribute and metadata that carry an observation time.
const TIME_INSTANT: &str = "TimeInstant";

const NO_ATTRIBUTES: &str = "At least one attribute with an aggregatable value should be included in the notification";

/// Where the samples of a notification go, and when it arrived.
#[derive(Debug, Clone)]
pub struct Arrival {
    pub tenant: Tenant,
    pub path: ServicePath,
    pub now: Millis,
}

/// The samples of a parsed notification body.
pub fn samples(notification: NotificationIn, arrival: &Arrival) -> Result<Vec<Sample>, HistoryError> {
    let responses = notification
        .context_responses
        .ok_or_else(|| HistoryError::field(Source::Payload, "contextResponses", "\"contextResponses\" is required"))?;
    let elements: Vec<ElementIn> = responses.into_iter().map(|r| r.context_element).collect();
    element_samples(elements, arrival)
}

/// The samples of a list of elements; refused when there is no attribute at all.
pub fn element_samples(elements: Vec<ElementIn>, arrival: &Arrival) -> Result<Vec<Sample>, HistoryError> {
    let samples: Vec<Sample> = elements.into_iter().flat_map(|e| element(e, arrival)).collect();
    if samples.is_empty() {
        return Err(HistoryError::invalid(Source::Payload, NO_ATTRIBUTES, &["attributes"]));
    }
    Ok(samples)
}

fn element(element: ElementIn, arrival: &Arrival) -> Vec<Sample> {
    let entity = EntityRef {
        tenant: arrival.tenant.clone(),
        path: arrival.path.clone(),
        id: EntityId(element.id),
        entity_type: element.entity_type.unwrap_or_default(),
    };
    let entity_time =
        element.attributes.iter().find(|a| a.name == TIME_INSTANT).and_then(|a| a.value.as_ref()).and_then(time_of);
    element
        .attributes
        .into_iter()
        .map(|attr| {
            let own_time = attr.metadatas.iter().find(|m| m.name == TIME_INSTANT).and_then(|m| m.value.as_ref());
            Sample {
                recv_time: own_time.and_then(time_of).or(entity_time).unwrap_or(arrival.now),
                series: SeriesKey { entity: entity.clone(), attr: AttrName(attr.name) },
                attr_type: attr.attr_type.unwrap_or_default(),
                value: attr.value.unwrap_or_else(|| Value::String(String::new())),
            }
        })
        .collect()
}

fn time_of(value: &Value) -> Option<Millis> {
    value.as_str().and_then(parse_iso)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn arrival() -> Arrival {
        Arrival { tenant: Tenant::default_tenant(), path: ServicePath::root(), now: Millis(42) }
    }

    fn parse(body: Value) -> Result<Vec<Sample>, HistoryError> {
        samples(serde_json::from_value(body).unwrap(), &arrival())
    }

    #[test]
    fn recv_time_prefers_metadata_then_entity_time_then_arrival() {
        let body = json!({"contextResponses": [{"contextElement": {"id": "R1", "type": "Room", "attributes": [
            {"name": "a", "type": "Number", "value": "1",
             "metadatas": [{"name": "TimeInstant", "type": "ISO8601", "value": "2020-01-01T00:00:01Z"}]},
            {"name": "b", "type": "Number", "value": "2",
             "metadatas": [{"name": "TimeInstant", "type": "ISO8601", "value": "not a date"}]},
            {"name": "TimeInstant", "type": "ISO8601", "value": "2020-01-01T00:00:02Z"}
        ]}, "statusCode": {"code": "200", "reasonPhrase": "OK"}}]});
        let got = parse(body).unwrap();
        let times: Vec<String> = got.iter().map(|s| s.recv_time.to_string()).collect();
        assert_eq!(times, ["2020-01-01T00:00:01.000Z", "2020-01-01T00:00:02.000Z", "2020-01-01T00:00:02.000Z"]);
        let plain = json!({"contextResponses": [{"contextElement": {"id": "R1", "attributes": [
            {"name": "a", "value": 3}]}}]});
        assert_eq!(parse(plain).unwrap()[0].recv_time, Millis(42));
    }

    #[test]
    fn empty_notifications_are_refused() {
        let missing = parse(json!({"subscriptionId": "x"})).unwrap_err();
        assert_eq!(missing.to_string(), "child \"contextResponses\" fails because [\"contextResponses\" is required]");
        let empty = parse(json!({"contextResponses": [{"contextElement": {"id": "R1", "attributes": []}}]}));
        assert_eq!(empty.unwrap_err().to_string(), NO_ATTRIBUTES);
    }
}
