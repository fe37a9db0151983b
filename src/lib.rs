//! Fluxgate: one binary for a FIWARE-style IoT stack.
//!
//! Devices send UltraLight 2.0 observations over HTTP or MQTT; they become entity updates in the NGSI v1 context
//! broker; subscriptions push changes to the historic store and to the CEP, whose results are written back to the
//! broker as entities. Everything durable lives in one SQLite file behind the `store` traits.
//!
//! ```text
//!  device ──UL/HTTP, MQTT──▶ devices ──updateContext──▶ broker ──notifications──▶ { history, cep }
//!                                                        ▲                               │
//!                                                        └────────── output entities ────┘
//! ```
//!
//! Modules: `config` (settings), `server` (listeners), `app` (shared state and routers), `tenancy` and `auth`
//! (who may do what), `store` (durable state), `broker` (context data), `devices` (device gateway), `cep` (statement language), `history` (the historic store, `/sth`),
//! `ops` (version and metrics), `meters` (the metrics described), `bench` (load generators), `clock` (time).

pub mod admin;
pub mod app;
pub mod auth;
pub mod bench;
pub mod broker;
pub mod caller;
pub mod cep;
pub mod clock;
pub mod config;
pub mod devices;
pub mod history;
pub mod http;
mod meters;
pub mod mqtt;
pub mod ops;
pub mod server;
pub mod store;
pub mod tenancy;
