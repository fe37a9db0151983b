//! Entities in, events out: routes an NGSI context element to the stream its `in` declaration names (by type, and
//! by id, a regex fully matched when `isPattern`) and converts each declared attribute's text by its declared type
//! (CONTRACT section 6). Metadata `m` of attribute `a` becomes property `a_m`; `id` is the entity id; declared
//! attributes the element lacks read as null. It decides nothing about what statements do with the event.

use regex::Regex;
use serde_json::Value;
use smallvec::SmallVec;
use thiserror::Error;

use super::config::{CepConfig, EventTypeIn};
use super::runtime::props::{INLINE, name_order};
use super::runtime::value::Name;
use super::runtime::{Incoming, Row, Val};

/// An attribute as a notification carries it: name, value, and metadata as (name, value).
pub type AttributeIn = (String, Value, Vec<(String, Value)>);

/// A context element as a notification carries it, from either the HTTP body or the in-process sink.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementIn {
    pub id: String,
    pub entity_type: String,
    pub attributes: Vec<AttributeIn>,
}

/// Why an element did not become an event.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IngestError {
    #[error("no `in` declaration has type {0}")]
    UnknownType(String),
    #[error("entity id {id} does not match the `in` declarations of type {entity_type}")]
    IdMismatch { id: String, entity_type: String },
    #[error("Failed to parse value {value} for attribute {name}: not a valid {ty}")]
    Convert { name: String, value: String, ty: String },
    #[error("invalid id pattern {pattern}: {message}")]
    Pattern { pattern: String, message: String },
}

#[derive(Debug, Clone)]
enum IdMatch {
    Exact(String),
    Pattern(Regex),
}

/// One `in` declaration, ready to route.
#[derive(Debug, Clone)]
pub struct Route {
    entity_type: String,
    /// The stream its events go to, the declared type as an interned name.
    stream: Name,
    id: IdMatch,
    declaration: EventTypeIn,
    /// The property names of each declared attribute and of its metadata, made once, so the rows of this route
    /// share them.
    names: Vec<(Name, Vec<Name>)>,
    /// Where each value goes in a row: the names above, each attribute's metadata then itself, then `id`, sorted
    /// once ([`name_order`]).
    order: Vec<(Name, usize)>,
    /// Spare room in each row for the columns the statements add to it ([`crate::cep::dataflow::Program::room`]).
    room: usize,
}

/// The routes of a configuration's `in` declarations, their rows built with `room(type)` spare properties; a bad id
/// pattern refuses the configuration.
pub fn routes(config: &CepConfig, room: impl Fn(&str) -> usize) -> Result<Vec<Route>, IngestError> {
    config.inputs.iter().map(|declaration| route(declaration, room(&declaration.entity_type))).collect()
}

fn route(declaration: &EventTypeIn, room: usize) -> Result<Route, IngestError> {
    let id = if declaration.is_pattern {
        let anchored = format!("^(?:{})$", declaration.id);
        let regex = Regex::new(&anchored)
            .map_err(|e| IngestError::Pattern { pattern: declaration.id.clone(), message: e.to_string() })?;
        IdMatch::Pattern(regex)
    } else {
        IdMatch::Exact(declaration.id.clone())
    };
    let names: Vec<(Name, Vec<Name>)> = (declaration.attributes.iter())
        .map(|a| (a.name.as_str().into(), a.metadata.iter().map(|m| format!("{}_{}", a.name, m.name).into()).collect()))
        .collect();
    let mut given: Vec<Name> = names.iter().flat_map(|(name, metas)| metas.iter().chain([name]).cloned()).collect();
    given.push("id".into());
    Ok(Route {
        entity_type: declaration.entity_type.clone(),
        stream: declaration.entity_type.as_str().into(),
        id,
        declaration: declaration.clone(),
        names,
        order: name_order(&given),
        room,
    })
}

impl Route {
    fn accepts(&self, id: &str) -> bool {
        match &self.id {
            IdMatch::Exact(wanted) => wanted == id,
            IdMatch::Pattern(regex) => regex.is_match(id),
        }
    }
}

/// The stream and event an element becomes.
pub fn to_event(routes: &[Route], element: &ElementIn) -> Result<Incoming, IngestError> {
    let typed: Vec<&Route> = routes.iter().filter(|r| r.entity_type == element.entity_type).collect();
    if typed.is_empty() {
        return Err(IngestError::UnknownType(element.entity_type.clone()));
    }
    let route = typed
        .into_iter()
        .find(|r| r.accepts(&element.id))
        .ok_or_else(|| IngestError::IdMismatch { id: element.id.clone(), entity_type: element.entity_type.clone() })?;
    let mut values: SmallVec<[Val; INLINE]> = SmallVec::with_capacity(route.order.len());
    for (attribute, (name, meta_names)) in route.declaration.attributes.iter().zip(&route.names) {
        let given = element.attributes.iter().find(|(name, _, _)| *name == attribute.name);
        for (meta, property) in attribute.metadata.iter().zip(meta_names) {
            let value = given.and_then(|(_, _, metas)| metas.iter().find(|(m, _)| *m == meta.name));
            values.push(convert(property, value.map(|(_, v)| v), &meta.meta_type)?);
        }
        values.push(convert(name, given.map(|(_, v, _)| v), &attribute.attr_type)?);
    }
    values.push(Val::String(element.id.as_str().into()));
    let pairs = route.order.iter().map(|(name, i)| (name.clone(), std::mem::take(&mut values[*i])));
    Ok((route.stream.clone(), Row::sorted(pairs, route.room)))
}

/// Converts a value by its declared type; absent is null.
pub fn convert(name: &str, value: Option<&Value>, ty: &str) -> Result<Val, IngestError> {
    let fail = |v: &Value| IngestError::Convert {
        name: name.to_owned(),
        value: v.as_str().map_or_else(|| v.to_string(), str::to_owned),
        ty: ty.to_owned(),
    };
    let Some(value) = value else {
        return Ok(Val::Null);
    };
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => return Ok(Val::Null),
        other if ty == "string" => other.to_string(),
        other => return Err(fail(other)),
    };
    from_text(&text, ty).ok_or_else(|| fail(value))
}

fn from_text(text: &str, ty: &str) -> Option<Val> {
    let t = text.trim();
    Some(match ty {
        "double" | "float" => Val::Double(t.parse().ok()?),
        "int" | "integer" => Val::Int(i64::from(t.strip_prefix('+').unwrap_or(t).parse::<i32>().ok()?)),
        "long" => Val::Int(t.strip_prefix('+').unwrap_or(t).parse().ok()?),
        "boolean" | "bool" => Val::Bool(t.eq_ignore_ascii_case("true")),
        "date" => Val::Date(parse_date(t)?),
        "geo:point" => parse_point(t)?,
        _ => Val::String(text.into()),
    })
}

fn parse_date(t: &str) -> Option<i64> {
    if let Ok(d) = chrono::DateTime::parse_from_rfc3339(t) {
        return Some(d.timestamp_millis());
    }
    let naive = chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
    Some(naive.and_utc().timestamp_millis())
}

/// `"lat, lon"`, kept in input order.
fn parse_point(t: &str) -> Option<Val> {
    let (x, y) = t.split_once(',')?;
    Some(Val::Point(x.trim().parse().ok()?, y.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn converts_by_declared_type() {
        assert_eq!(convert("t", Some(&json!(" 21.5")), "double"), Ok(Val::Double(21.5)));
        assert_eq!(convert("n", Some(&json!("+3")), "int"), Ok(Val::Int(3)));
        assert!(convert("n", Some(&json!("3.0")), "int").is_err());
        assert_eq!(convert("b", Some(&json!("yes")), "boolean"), Ok(Val::Bool(false)));
        assert_eq!(convert("p", Some(&json!("43.6, 1.44")), "geo:point"), Ok(Val::Point(43.6, 1.44)));
        assert_eq!(convert("d", Some(&json!("2015-10-26T22:47:09Z")), "date"), Ok(Val::Date(1_445_899_629_000)));
        assert_eq!(convert("x", None, "double"), Ok(Val::Null));
        let error = convert("temperature", Some(&json!("warm")), "double").unwrap_err();
        assert_eq!(error.to_string(), "Failed to parse value warm for attribute temperature: not a valid double");
    }

    /// The routes of the seed geofence configuration, leaving `room` spare properties in each row.
    fn seed_routes(room: usize) -> Vec<Route> {
        let config: CepConfig = serde_json::from_str(include_str!("../../queries/geofence.json")).expect("seed");
        routes(&config, |_| room).expect("routes")
    }

    fn tracker(id: &str, attributes: Vec<AttributeIn>) -> ElementIn {
        ElementIn { id: id.into(), entity_type: "tracker".into(), attributes }
    }

    #[test]
    fn an_element_becomes_a_row_in_name_order_with_metadata_and_its_id() {
        let element = tracker(
            "Tracker7",
            vec![
                ("temperature".into(), json!("21.5"), Vec::new()),
                ("position".into(), json!("43.6, 1.44"), vec![("location".into(), json!("WGS84"))]),
                ("id".into(), json!("not the entity id"), Vec::new()),
            ],
        );
        let (stream, row) = to_event(&seed_routes(1), &element).expect("converts");
        assert_eq!(&*stream, "tracker");
        let props: Vec<(&str, &Val)> = row.iter().map(|(k, v)| (&**k, v)).collect();
        assert_eq!(
            props,
            [
                ("id", &Val::String("Tracker7".into())),
                ("levelBattery", &Val::Null),
                ("position", &Val::Point(43.6, 1.44)),
                ("position_location", &Val::String("WGS84".into())),
                ("temperature", &Val::Double(21.5)),
                ("time", &Val::Null),
            ]
        );
    }

    #[test]
    fn the_first_value_that_does_not_convert_is_the_error_in_declaration_order() {
        // `temperature` is declared before `levelBattery`, though it comes after it in name order.
        let attributes =
            vec![("levelBattery".into(), json!("full"), Vec::new()), ("temperature".into(), json!("warm"), Vec::new())];
        let error = to_event(&seed_routes(0), &tracker("Tracker7", attributes)).unwrap_err();
        assert_eq!(error.to_string(), "Failed to parse value warm for attribute temperature: not a valid double");
    }

    #[test]
    fn rows_leave_the_room_their_statements_add_columns_in() {
        let element = tracker("Tracker1", vec![("position".into(), json!("43.6, 1.44"), Vec::new())]);
        for room in [0, 1, 3] {
            let (stream, row) = to_event(&seed_routes(room), &element).expect("converts");
            assert_eq!((&*stream, row.get("position")), ("tracker", Some(&Val::Point(43.6, 1.44))));
            assert!(row.spare() >= room, "{} spare for room {room}", row.spare());
        }
    }
}
