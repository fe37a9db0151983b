//! STH-Comet wire types: the NGSI v1 notification `/sth/notify` accepts, and the raw, aggregated and CSV answers of
//! `GET /sth/type/{type}/id/{id}/attributes/{attr}`.
//!
//! Notifications are read leniently (unknown fields ignored, values kept as any JSON), since Orion versions differ
//! in what they add. Responses serialize exactly as STH-Comet does; conversions from the domain are functions here.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::model::AggrMethod;
use super::store::{Point, RawValue};
use super::time::{Millis, Resolution};

#[derive(Debug, Clone, Deserialize)]
pub struct NotificationIn {
    #[serde(rename = "subscriptionId", default)]
    pub subscription_id: Option<String>,
    #[serde(rename = "contextResponses", default)]
    pub context_responses: Option<Vec<ContextResponseIn>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ContextResponseIn {
    #[serde(rename = "contextElement")]
    pub context_element: ElementIn,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ElementIn {
    pub id: String,
    #[serde(rename = "type", default)]
    pub entity_type: Option<String>,
    #[serde(default)]
    pub attributes: Vec<AttributeIn>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AttributeIn {
    pub name: String,
    #[serde(rename = "type", default)]
    pub attr_type: Option<String>,
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub metadatas: Vec<MetadataIn>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MetadataIn {
    pub name: String,
    #[serde(default)]
    pub value: Option<Value>,
}

/// `{"code":"200","reasonPhrase":"OK"}`.
#[derive(Debug, Clone, Serialize)]
pub struct StatusOut {
    pub code: &'static str,
    #[serde(rename = "reasonPhrase")]
    pub reason_phrase: &'static str,
}

/// The response: one element, one attribute, its values (raw or aggregated).
#[derive(Debug, Clone, Serialize)]
pub struct HistoryResponse<V> {
    #[serde(rename = "contextResponses")]
    pub context_responses: [ElementResponse<V>; 1],
}

#[derive(Debug, Clone, Serialize)]
pub struct ElementResponse<V> {
    #[serde(rename = "contextElement")]
    pub context_element: ElementOut<V>,
    #[serde(rename = "statusCode")]
    pub status_code: StatusOut,
}

#[derive(Debug, Clone, Serialize)]
pub struct ElementOut<V> {
    pub attributes: [AttributeOut<V>; 1],
    pub id: String,
    #[serde(rename = "isPattern")]
    pub is_pattern: bool,
    #[serde(rename = "type")]
    pub entity_type: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct AttributeOut<V> {
    pub name: String,
    pub values: Vec<V>,
}

/// The entity and attribute a response is about.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    pub entity_type: &'a str,
    pub id: &'a str,
    pub attr: &'a str,
}

impl Subject<'_> {
    pub fn response<V>(&self, values: Vec<V>) -> HistoryResponse<V> {
        let attribute = AttributeOut { name: self.attr.to_owned(), values };
        let element = ElementOut {
            attributes: [attribute],
            id: self.id.to_owned(),
            is_pattern: false,
            entity_type: self.entity_type.to_owned(),
        };
        let status_code = StatusOut { code: "200", reason_phrase: "OK" };
        HistoryResponse { context_responses: [ElementResponse { context_element: element, status_code }] }
    }
}

/// One raw value: `{"recvTime":"...","attrType":"...","attrValue":...}`.
#[derive(Debug, Clone, Serialize)]
pub struct RawValueOut {
    #[serde(rename = "recvTime")]
    pub recv_time: String,
    #[serde(rename = "attrType")]
    pub attr_type: String,
    #[serde(rename = "attrValue")]
    pub attr_value: Value,
}

pub fn raw_values(values: Vec<RawValue>) -> Vec<RawValueOut> {
    values
        .into_iter()
        .map(|v| RawValueOut { recv_time: v.recv_time.to_string(), attr_type: v.attr_type, attr_value: v.value })
        .collect()
}

/// The CSV export: `attrName,attrType,attrValue,recvTime`, values quoted where needed.
pub fn raw_csv(attr: &str, values: &[RawValue]) -> String {
    let mut out = String::from("attrName,attrType,attrValue,recvTime\n");
    for v in values {
        let value = match &v.value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let _ = writeln!(out, "{},{},{},{}", csv_field(attr), csv_field(&v.attr_type), csv_field(&value), v.recv_time);
    }
    out
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_owned() }
}

/// One aggregated document: `{"_id":{"origin","range","resolution"},"points":[...]}`.
#[derive(Debug, Clone, Serialize)]
pub struct AggregatedOut {
    #[serde(rename = "_id")]
    pub id: AggregatedId,
    pub points: Vec<PointOut>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AggregatedId {
    pub origin: String,
    pub range: &'static str,
    pub resolution: &'static str,
}

/// Groups points (sorted by start) into one document per origin, each point showing the requested methods.
pub fn aggregated(points: &[Point], resolution: Resolution, methods: &[AggrMethod]) -> Vec<AggregatedOut> {
    let mut docs: Vec<(Millis, AggregatedOut)> = Vec::new();
    for point in points {
        let Some(rendered) = point_out(point, resolution, methods) else { continue };
        let origin = resolution.origin(point.bucket);
        if docs.last().is_none_or(|(o, _)| *o != origin) {
            let id = AggregatedId {
                origin: origin.to_string(),
                range: resolution.range_name(),
                resolution: resolution.name(),
            };
            docs.push((origin, AggregatedOut { id, points: Vec::new() }));
        }
        if let Some((_, doc)) = docs.last_mut() {
            doc.points.push(rendered);
        }
    }
    docs.into_iter().map(|(_, doc)| doc).collect()
}

/// One point: `{"offset":13,"samples":1,"sum":34.59}`, with only the requested methods.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PointOut {
    pub offset: u32,
    pub samples: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum2: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occur: Option<Map<String, Value>>,
}

/// `None` when the point has nothing the methods read.
fn point_out(point: &Point, resolution: Resolution, methods: &[AggrMethod]) -> Option<PointOut> {
    let numeric = point.numeric.filter(|_| methods.iter().any(|m| m.is_numeric()));
    let text = point.text.as_ref().filter(|_| methods.contains(&AggrMethod::Occur));
    let samples = numeric.map_or(0, |n| n.samples) + text.map_or(0, |t| t.samples);
    if samples == 0 {
        return None;
    }
    let wants = |m: AggrMethod| methods.contains(&m);
    Some(PointOut {
        offset: resolution.offset(point.bucket),
        samples,
        min: numeric.filter(|_| wants(AggrMethod::Min)).map(|n| n.min),
        max: numeric.filter(|_| wants(AggrMethod::Max)).map(|n| n.max),
        sum: numeric.filter(|_| wants(AggrMethod::Sum)).map(|n| n.sum),
        sum2: numeric.filter(|_| wants(AggrMethod::Sum2)).map(|n| n.sum2),
        occur: text.map(|t| t.counts.iter().map(|(v, n)| (v.clone(), Value::from(*n))).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::store::NumericStats;
    use crate::history::time::parse_iso;

    #[test]
    fn aggregated_points_group_by_origin_and_show_the_methods() {
        let at = |t: &str| Resolution::Second.bucket(parse_iso(t).unwrap());
        let stats = |v: f64| Some(NumericStats { samples: 1, sum: v, sum2: v * v, min: v, max: v });
        let points = [
            Point { bucket: at("2016-01-01T02:46:13Z"), numeric: stats(34.59), text: None },
            Point { bucket: at("2016-01-01T02:47:01Z"), numeric: stats(2.0), text: None },
        ];
        let docs = aggregated(&points, Resolution::Second, &[AggrMethod::Sum]);
        let json = serde_json::to_value(&docs).unwrap();
        assert_eq!(
            json,
            serde_json::json!([
                {"_id": {"origin": "2016-01-01T02:46:00.000Z", "range": "minute", "resolution": "second"},
                 "points": [{"offset": 13, "samples": 1, "sum": 34.59}]},
                {"_id": {"origin": "2016-01-01T02:47:00.000Z", "range": "minute", "resolution": "second"},
                 "points": [{"offset": 1, "samples": 1, "sum": 2.0}]}
            ])
        );
        assert!(aggregated(&points, Resolution::Second, &[AggrMethod::Occur]).is_empty());
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let v = RawValue { recv_time: Millis(0), attr_type: "Text".into(), value: Value::String("a,\"b\"".into()) };
        assert_eq!(
            raw_csv("note", &[v]),
            "attrName,attrType,attrValue,recvTime\nnote,Text,\"a,\"\"b\"\"\",1970-01-01T00:00:00.000Z\n"
        );
    }
}
