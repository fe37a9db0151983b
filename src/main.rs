//! The `fluxgate` command: parse flags, load the configuration, start tracing, call the library.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use fluxgate::config::{self, Settings};
use fluxgate::history::bench as history_bench;
use fluxgate::{admin, server};

#[derive(Debug, Parser)]
#[command(name = "fluxgate", version, about = "IoT event-processing gateway: NGSI v1 broker, devices, history, CEP")]
struct Cli {
    /// TOML file with settings (flags and FLUXGATE_* variables win over it).
    #[arg(long, global = true, env = "FLUXGATE_CONFIG")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the service.
    Serve(Settings),
    /// Manage services (tenants) and their tokens.
    #[command(subcommand)]
    Service(ServiceCommand),
    /// Print the configuration that `serve` would use.
    PrintConfig(Settings),
    /// Load generators that measure the service.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Ingest rate of /sth/notify and latency of raw and aggregated history queries.
    History(history_bench::BenchArgs),
}

#[derive(Debug, Subcommand)]
enum ServiceCommand {
    /// Create a service and print its full-rights token.
    Add {
        name: String,
        /// Use this token instead of a random one (provisioning scripts).
        #[arg(long)]
        token: Option<String>,
        #[command(flatten)]
        settings: Settings,
    },
    /// Print a new token of a service, limited to a service-path subtree and possibly read-only.
    Token {
        name: String,
        #[arg(long, default_value = "/")]
        path: String,
        #[arg(long)]
        read_only: bool,
        #[command(flatten)]
        settings: Settings,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fluxgate: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let file = cli.config.as_deref();
    match cli.command {
        Command::Serve(settings) => {
            let config = config::load(settings, file)?;
            let runtime = tokio::runtime::Runtime::new().context("start the runtime")?;
            runtime.block_on(server::serve(config))?;
        }
        Command::PrintConfig(settings) => {
            let config = config::load(settings, file)?;
            print!("{}", toml::to_string(&config).context("render the configuration")?);
        }
        Command::Service(ServiceCommand::Add { name, token, settings }) => {
            let config = config::load(settings, file)?;
            println!("{}", admin::add_service(&config.data_dir, &name, token)?);
        }
        Command::Service(ServiceCommand::Token { name, path, read_only, settings }) => {
            let config = config::load(settings, file)?;
            println!("{}", admin::scoped_token(&config.data_dir, &name, &path, read_only)?);
        }
        Command::Bench(BenchCommand::History(args)) => bench_history(&args)?,
    }
    Ok(())
}

/// Prints each run as it ends (one JSON object per line with `--json`), then the table.
fn bench_history(args: &history_bench::BenchArgs) -> anyhow::Result<()> {
    let print_json = |report: &history_bench::Report| {
        if args.json {
            println!("{}", serde_json::to_string(report).unwrap_or_default());
        }
    };
    let reports = history_bench::run(args, print_json).context("bench history")?;
    if !args.json {
        print!("{}", history_bench::Table(&reports));
    }
    Ok(())
}
