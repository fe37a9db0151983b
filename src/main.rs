//! The `fluxgate` command.
fn main() {}
