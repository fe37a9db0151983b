//! Fluxgate: one binary for a FIWARE-style IoT stack.

pub mod cep;
