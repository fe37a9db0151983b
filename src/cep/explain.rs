//! The front end in one call: a whole CEP configuration (JSON) or bare statements in, the printed
//! plan or every error out. Used by `fluxgate explain` and by the CEP API, which sends
//! [`details`] as the `details` of its 400. It composes the other modules and decides nothing itself.

use super::catalog::MemoryCatalog;
use super::config::CepConfig;
use super::error::{CepError, render_errors};
use super::parser::parse_statement;
use super::plan::Plan;
use super::planner::{Parsed, plan};

/// Reads `text` as a configuration when it starts with `{`, else as statements separated by `;`
/// (or one per line when there is no `;`). Lines starting with `--` are annotations and skipped.
pub fn read_input(text: &str) -> Result<CepConfig, CepError> {
    if text.trim_start().starts_with('{') {
        return serde_json::from_str(text).map_err(|e| CepError::Json { message: e.to_string() });
    }
    let kept: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("--")).collect();
    let body = kept.join("\n");
    let pieces = split_statements(&body);
    let statements = if pieces.len() > 1 { pieces } else { kept.iter().map(|l| l.to_string()).collect() };
    let statements = statements.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    Ok(CepConfig { statements, ..CepConfig::default() })
}

/// Splits at `;` outside quotes and comments.
fn split_statements(text: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        current.push(c);
        match (quote, c) {
            (Some('`'), '`') | (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some(q), '\\') if q != '`' => current.extend(chars.next()),
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '/') if chars.peek() == Some(&'/') => {
                while let Some(&n) = chars.peek().filter(|n| **n != '\n') {
                    current.push(n);
                    chars.next();
                }
            }
            (None, ';') => {
                current.pop();
                pieces.push(std::mem::take(&mut current));
            }
            _ => {}
        }
    }
    pieces.push(current);
    pieces
}

/// Parses and plans a configuration; all syntax errors at once, else every statement's planning error.
pub fn plan_config(config: &CepConfig, check_shape: bool) -> Result<Plan, Vec<CepError>> {
    if check_shape {
        let problems = config.validate();
        if !problems.is_empty() {
            return Err(problems.into_iter().map(|message| CepError::Config { message }).collect());
        }
    }
    let mut catalog = MemoryCatalog::from_config(config)
        .map_err(|problems| problems.into_iter().map(|message| CepError::Config { message }).collect::<Vec<_>>())?;
    let mut parsed = Vec::with_capacity(config.statements.len());
    let mut errors = Vec::new();
    for (i, text) in config.statements.iter().enumerate() {
        match parse_statement(i + 1, text) {
            Ok(ast) => parsed.push(Parsed { number: i + 1, text: text.clone(), ast }),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    plan(&parsed, &mut catalog)
}

/// The printed plan of `text` (a configuration or bare statements), or the rendered errors.
pub fn explain(text: &str) -> Result<String, String> {
    let config = read_input(text).map_err(|e| e.render())?;
    let is_json = text.trim_start().starts_with('{');
    plan_config(&config, is_json).map(|p| p.to_string()).map_err(|errors| details(&errors))
}

/// Errors as one string: the `details` of the CEP API's 400 and what `fluxgate explain` prints.
pub fn details(errors: &[CepError]) -> String {
    render_errors(errors)
}
