//! Integration tests: one binary, one module per API or concern, shared helpers in `support`.

mod bench;
mod broker_convenience;
mod broker_query;
mod broker_subscriptions;
mod broker_update;
mod cep;
mod cli;
mod devices;
mod durability;
mod history;
mod history_input;
mod join_lookup;
mod mqtt;
mod support;
mod tenancy_auth;
mod transport;
mod window;
