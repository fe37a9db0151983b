//! CEP front end: plan and error snapshots over `queries/`, every bad-input case of issue 3, and
//! the print/parse round trip; the runtime wired into the gateway (`flows`).

mod bad_input;
mod corpus;
mod faults;
mod flows;
mod roundtrip;
