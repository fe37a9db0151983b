//! Text → [`ast::Statement`]: the only module that knows pest. It runs the lexical checks, the pest
//! grammar (`grammar/epl.pest`), then builds the typed tree, rejecting here what is wrong in the
//! text itself (time units, negative periods, constructs outside the subset). It resolves no names
//! and checks no types: that is the planner's job.

mod build;
mod build_expr;
mod build_source;
mod lexical;
mod syntax;

use pest::Parser as _;

use super::ast::Statement;
use super::error::CepError;

pub use lexical::{MAX_NESTING, MAX_STATEMENT_BYTES};

/// Deepest expression or pattern tree accepted (operators, including chains such as `a + b + c`).
pub const MAX_TREE_DEPTH: usize = 256;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/epl.pest"]
struct EplParser;

/// Parses the text of statement number `statement` (1-based; used in error positions).
pub fn parse_statement(statement: usize, text: &str) -> Result<Statement, CepError> {
    lexical::check(statement, text)?;
    let mut pairs = EplParser::parse(Rule::statement, text).map_err(|e| syntax::to_error(statement, text, &e))?;
    let root = pairs.next().expect("the statement rule always yields one pair");
    build::Builder::new(statement, text).statement(root)
}
