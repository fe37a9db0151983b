//! The broker's operations, one module per family: updates, queries, subscriptions, convenience forms.
//!
//! Each takes the shared state, the caller and the raw body, and returns a wire value or an `NgsiError`; rendering
//! is left to `routes`.

pub mod convenience;
pub mod query;
pub mod subscribe;
pub mod update;
