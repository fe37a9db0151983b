//! The NGSI v1 context broker (`/cb/v1`), compatible with Orion 1.x clients.
//!
//! Layers, from the edge inwards: `routes` (paths and verbs) and `transport` (HTTP-level checks); `crate::caller`
//! (who is asking, tenancy and permissions); `ops` (one module per family of operations); `wire` (exact JSON shapes) and
//! `error`/`status` (Orion's codes and wrappers); `model`, `update`, `query` and `subscription` (plain domain logic);
//! `matcher`, `notify` and `outbound` (subscriptions turned into delivered notifications). Storage is behind
//! `crate::store`.

pub mod error;
pub mod matcher;
pub mod model;
pub mod notify;
pub mod ops;
pub mod outbound;
pub mod query;
pub mod routes;
pub mod status;
pub mod subscription;
pub mod transport;
pub mod update;
pub mod wire;
