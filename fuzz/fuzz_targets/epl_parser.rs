//! Fuzzes the EPL parser and printer: any text must parse or fail with an error (never panic), and
//! whatever parses must print to text that parses to the same tree.
//! Run: `cargo fuzz run epl_parser` in `fuzz/`.

#![no_main]

use fluxgate::cep::parser::parse_statement;
use fluxgate::cep::printer::print;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(ast) = parse_statement(1, text) {
        let printed = print(&ast);
        let again = parse_statement(1, &printed).expect("printed statements parse");
        assert_eq!(again, ast);
    }
});
