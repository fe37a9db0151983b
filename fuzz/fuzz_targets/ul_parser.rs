//! Fuzzes the UltraLight 2.0 parser: any bytes must parse or fail with an error (never panic), and whatever parses
//! must format to text that parses to the same items.
//! Run: `cargo fuzz run ul_parser` in `fuzz/`.

#![no_main]

use fluxgate::devices::ul::{format, parse, parse_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(items) = parse_bytes(data) {
        let again = parse(&format(&items)).expect("formatted payloads parse");
        assert_eq!(again, items);
    }
});
