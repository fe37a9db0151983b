//! The CEP statement language front end: configuration → statements → checked logical plan.
//!
//! ```text
//! config (wire JSON) ──► parser (pest) ──► ast ──► planner ──► plan ──► Display / explain
//!                                                    ▲
//!                                          catalog (stream types, variables)
//! ```
//!
//! `config` is the Cepheus configuration as it arrives on the wire; `parser` is the only module that
//! knows pest and turns one statement's text into an `ast`; the `planner` resolves names and types
//! through the `catalog` trait (built from the `in`/`out` declarations and grown by each statement)
//! and produces the `plan`, plain data that imports neither pest nor timely and is what the runtime
//! compiles. `printer` writes an AST back as canonical EPL; `error` words and locates every problem;
//! `explain` ties it together for `fluxgate explain` and the CEP API. `runtime` and `reference` run a plan;
//! `ingest`, `publish`, `service` and `api` connect running configurations to the gateway.

pub mod api;
pub mod ast;
pub mod catalog;
pub mod config;
pub mod dataflow;
pub mod error;
pub mod explain;
pub mod ingest;
pub mod parser;
pub mod plan;
pub mod planner;
pub mod printer;
pub mod publish;
pub mod reference;
pub mod runtime;
pub mod service;
