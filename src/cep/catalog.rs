//! What the planner may know about streams and variables, behind the [`Catalog`] trait: the types
//! declared by a configuration's `in` and `out` (attributes with their declared types, `id`, and a
//! property `a_m` per metadata `m` of attribute `a`), then those each planned statement defines
//! (`INSERT INTO` select lists, named windows `AS T`, variables). It never parses or plans.

use std::collections::BTreeMap;

use super::ast::View;
use super::config::{Attribute, Broker, CepConfig};
use super::plan::{Column, DataType, OutMapping};

/// Where a stream type comes from, which decides what inserting into it must provide.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// An `in` declaration.
    In,
    /// An `out` declaration, perhaps also declared `in`.
    Out(OutMapping),
    /// Created by the `INSERT INTO` of this statement number.
    Inserted(usize),
    /// A named window created by this statement number, with the columns of `as_type` and the views it keeps its
    /// rows by (planned again where a join looks it up, against the join's name for it).
    NamedWindow { statement: usize, as_type: String, views: Vec<View> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct StreamType {
    pub name: String,
    pub columns: Vec<Column>,
    pub origin: Origin,
}

impl StreamType {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct VariableInfo {
    pub name: String,
    pub ty: DataType,
    pub statement: usize,
}

/// The planner's only view of types.
pub trait Catalog {
    fn stream(&self, name: &str) -> Option<&StreamType>;
    fn stream_names(&self) -> Vec<&str>;
    fn variable(&self, name: &str) -> Option<&VariableInfo>;
    fn define_stream(&mut self, stream: StreamType);
    fn define_variable(&mut self, variable: VariableInfo);
}

/// A catalog held in memory, seeded from a configuration's declarations.
#[derive(Debug, Clone, Default)]
pub struct MemoryCatalog {
    streams: BTreeMap<String, StreamType>,
    variables: BTreeMap<String, VariableInfo>,
}

impl Catalog for MemoryCatalog {
    fn stream(&self, name: &str) -> Option<&StreamType> {
        self.streams.get(name)
    }

    fn stream_names(&self) -> Vec<&str> {
        self.streams.keys().map(String::as_str).collect()
    }

    fn variable(&self, name: &str) -> Option<&VariableInfo> {
        self.variables.get(name)
    }

    fn define_stream(&mut self, stream: StreamType) {
        self.streams.insert(stream.name.clone(), stream);
    }

    fn define_variable(&mut self, variable: VariableInfo) {
        self.variables.insert(variable.name.clone(), variable);
    }
}

/// The declared type of an attribute, from its `type` in `in`/`out`.
pub fn attribute_type(name: &str) -> Option<DataType> {
    Some(match name {
        "double" => DataType::Double,
        "float" => DataType::Float,
        "int" | "integer" => DataType::Int,
        "long" => DataType::Long,
        "string" => DataType::String,
        "boolean" | "bool" => DataType::Boolean,
        "date" => DataType::Date,
        "geo:point" => DataType::Geometry,
        _ => return None,
    })
}

/// A variable's declared type in `CREATE VARIABLE type name`.
pub fn variable_type(name: &str) -> Option<DataType> {
    match name {
        "Geometry" | "geometry" => Some(DataType::Geometry),
        "boolean" | "bool" => Some(DataType::Boolean),
        other => attribute_type(other),
    }
}

impl MemoryCatalog {
    /// The declared types of `config`, or every declaration problem found.
    pub fn from_config(config: &CepConfig) -> Result<Self, Vec<String>> {
        let mut catalog = MemoryCatalog::default();
        let mut problems = Vec::new();
        for input in &config.inputs {
            let columns = declared_columns(&input.entity_type, &input.attributes, &mut problems);
            catalog.declare(&input.entity_type, columns, Origin::In, &mut problems);
        }
        for output in &config.outputs {
            let columns = declared_columns(&output.entity_type, &output.attributes, &mut problems);
            let origin = Origin::Out(OutMapping {
                entity_type: output.entity_type.clone(),
                fallback_id: output.id.clone(),
                attributes: output.attributes.iter().map(out_attribute).collect(),
                brokers: output.brokers.iter().map(broker_url).collect(),
            });
            catalog.declare(&output.entity_type, columns, origin, &mut problems);
        }
        if problems.is_empty() { Ok(catalog) } else { Err(problems) }
    }

    /// Adds a declared type; a second declaration of it must agree on shared columns.
    fn declare(&mut self, name: &str, columns: Vec<Column>, origin: Origin, problems: &mut Vec<String>) {
        let Some(existing) = self.streams.get_mut(name) else {
            self.define_stream(StreamType { name: name.to_string(), columns, origin });
            return;
        };
        for column in columns {
            match existing.column(&column.name) {
                Some(c) if c.ty != column.ty => problems.push(format!(
                    "type `{name}` is declared twice with different types for attribute `{}`: {} and {}",
                    column.name, c.ty, column.ty
                )),
                Some(_) => {}
                None => existing.columns.push(column),
            }
        }
        if matches!(origin, Origin::Out(_)) {
            existing.origin = origin;
        }
    }
}

fn declared_columns(ty: &str, attributes: &[Attribute], problems: &mut Vec<String>) -> Vec<Column> {
    let mut columns = vec![Column { name: "id".to_string(), ty: DataType::String }];
    for a in attributes {
        let Some(data_type) = attribute_type(&a.attr_type) else {
            problems.push(format!(
                "attribute `{}` of type `{ty}` has the unknown type `{}`; expected double, float, int, long, string, boolean, date or geo:point",
                a.name, a.attr_type
            ));
            continue;
        };
        columns.push(Column { name: a.name.clone(), ty: data_type });
        for m in &a.metadata {
            let meta_type = attribute_type(&m.meta_type).unwrap_or(DataType::String);
            columns.push(Column { name: format!("{}_{}", a.name, m.name), ty: meta_type });
        }
    }
    columns
}

fn out_attribute(a: &Attribute) -> (String, String, Vec<String>) {
    let metadata = a.metadata.iter().map(|m| m.name.clone()).collect();
    (a.name.clone(), a.attr_type.clone(), metadata)
}

fn broker_url(b: &Broker) -> String {
    b.url.clone()
}
