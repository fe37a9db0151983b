//! The device gateway: UltraLight 2.0 devices over HTTP and MQTT, their registry and their commands.
//!
//! `ul` is the pure codec.
pub mod api;
pub mod commands;
pub mod ingest;
pub mod model;
pub mod registry;
pub mod tracker;
pub mod ul;
