//! The `fluxgate` command.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "fluxgate", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the plan of a CEP configuration (JSON) or of bare statements; `-` reads stdin.
    Explain { file: PathBuf },
}

fn main() -> anyhow::Result<ExitCode> {
    match Cli::parse().command {
        Command::Explain { file } => explain(&file),
    }
}

fn explain(file: &PathBuf) -> anyhow::Result<ExitCode> {
    let text = if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading stdin")?;
        text
    } else {
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?
    };
    match fluxgate::cep::explain::explain(&text) {
        Ok(plan) => {
            print!("{plan}");
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => {
            eprintln!("{errors}");
            Ok(ExitCode::FAILURE)
        }
    }
}
