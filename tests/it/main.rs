//! Integration tests: one binary, one module per API.
