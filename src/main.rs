//! The `fluxgate` command: parse flags, load the configuration, start tracing, call the library.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use fluxgate::bench::workload::Workload;
use fluxgate::config::{self, Settings};
use fluxgate::history::bench as history_bench;
use fluxgate::{admin, bench, server};

/// mimalloc instead of glibc malloc: the request path allocates a lot of small strings, and profiles of
/// `fluxgate bench broker` showed a quarter of the server's CPU in glibc's malloc and free. Built with `no_thp`, so it
/// does not ask for transparent huge pages: with them, a growing CEP state faulted in 2 MiB pages, each zeroed whole,
/// and `bench geofence` spent up to a third of its samples in the kernel's `clear_page_erms`, with p99 5.8-7.2 ms
/// against 2.1-2.6 ms without (`benches/results/cep.md`, fourteenth session). Built without it again (the fortieth
/// session; 1.18 of 1.20 GB of the geofence's memory then in huge pages), one worker ran 0–10 % fewer events a
/// second. On a later machine (forty-seventh session), the geofence ran 1–10 % more, the floor 1.5–10 % fewer, and the
/// floor's plain baseline, which grows its window through this allocator, 29–39 % fewer.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Print the plan of a CEP configuration (JSON) or of bare statements; `-` reads stdin.
    Explain { file: PathBuf },
    /// Load generators that measure the service.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Drive the NGSI v1 broker with updateContext requests, next to a bare hyper baseline.
    Broker(BrokerArgs),
    /// Ingest rate of /sth/notify and latency of raw and aggregated history queries.
    History(history_bench::BenchArgs),
    /// UltraLight observations over keep-alive HTTP, next to the same bare hyper baseline.
    UlHttp(DeviceArgs),
    /// UltraLight `mul20` publishes from many MQTT clients, next to the embedded broker's raw rate.
    Mqtt(DeviceArgs),
    /// The geofence configuration fed directly by 100,000 moving trackers, next to a plain Rust baseline.
    Geofence(CepArgs),
    /// The floor-average configuration fed directly by rooms on floors, next to a plain Rust baseline.
    Floor(CepArgs),
    /// End to end over HTTP: time from a geofence crossing's 4 s confirmation to its alert's notification.
    Alerts(AlertsArgs),
}

#[derive(Debug, clap::Args)]
struct AlertsArgs {
    /// Positions per second posted to /cep/notify, all trackers together.
    #[arg(long, default_value_t = 10_000.0)]
    rate: f64,
    /// Seconds of paced load (after an untimed warm-up of about 5 s); more than 5.
    #[arg(long, default_value_t = 20)]
    duration: u64,
    /// Trackers reporting round-robin.
    #[arg(long, default_value_t = 1_000)]
    trackers: u32,
    /// Trackers that cross the fence edge once during the run (each owes one alert).
    #[arg(long, default_value_t = 200)]
    crossers: u32,
    /// Keep-alive HTTP connections.
    #[arg(long, default_value_t = 16)]
    connections: usize,
    /// Threads of the started server [default: number of cores].
    #[arg(long)]
    workers: Option<usize>,
    /// CEP workers of the started server [default: the service's, as `serve` runs: one fewer than the cores, at
    /// least one].
    #[arg(long)]
    cep_workers: Option<usize>,
    /// One JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

impl AlertsArgs {
    fn options(&self) -> bench::alerts::AlertsOptions {
        let cores = std::thread::available_parallelism().map(usize::from).unwrap_or(1);
        bench::alerts::AlertsOptions {
            rate: self.rate,
            duration: std::time::Duration::from_secs(self.duration),
            trackers: self.trackers.max(1),
            crossers: self.crossers,
            connections: self.connections.max(1),
            workers: self.workers.unwrap_or(cores),
            cep_workers: self.cep_workers,
        }
    }
}

#[derive(Debug, clap::Args)]
struct CepArgs {
    /// Worker counts to run, e.g. 1,2: each gets its own pool of timely workers.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    workers: Vec<usize>,
    /// Seconds of load, for the engine and again for the baseline.
    #[arg(long, default_value_t = 5)]
    duration: u64,
    /// Trackers (geofence) or rooms (floor) [default: 100000 or 10000].
    #[arg(long)]
    keys: Option<u32>,
    /// Events per millisecond of the synthetic clock, pushed as one batch [default: 100 for geofence, 10 for floor].
    #[arg(long)]
    per_ms: Option<u32>,
    /// Synthetic milliseconds handed to the workers per round, their batches run as pipelined epochs, as the
    /// service's feeder hands over what queued up while the workers were busy.
    #[arg(long, default_value_t = 1)]
    ms_per_round: u32,
    /// Rounds the feeder leaves running on the workers while it gathers and sends the next, as the service's feeder
    /// does while events keep coming; 0 waits for each round before it gathers the next [default: 1 when the workers
    /// leave the machine a core, else 0; with `--feed workers`, 1].
    #[arg(long)]
    rounds_ahead: Option<u32>,
    /// Stop each side after this many events, even before `--duration`: the same work every run, for profiling
    /// (instruction counts under callgrind compare exactly).
    #[arg(long)]
    events: Option<u64>,
    /// Who makes the engine's rows: a producer thread, which the feeder deals them from as the service's does, or
    /// each worker its own share on its own thread, so that every core the engine uses is a worker's.
    #[arg(long, value_enum, default_value_t = bench::cep::Feed::Producer)]
    feed: bench::cep::Feed,
    /// One JSON object per run instead of a table.
    #[arg(long)]
    json: bool,
}

impl CepArgs {
    fn options(&self, scenario: bench::cep_workload::Scenario) -> bench::cep::CepOptions {
        let geofence = scenario == bench::cep_workload::Scenario::Geofence;
        bench::cep::CepOptions {
            scenario,
            workers: self.workers.clone(),
            duration: std::time::Duration::from_secs(self.duration),
            keys: self.keys.unwrap_or(if geofence { 100_000 } else { 10_000 }),
            per_ms: self.per_ms.unwrap_or(if geofence { 100 } else { 10 }),
            ms_per_round: self.ms_per_round.max(1),
            rounds_ahead: self.rounds_ahead,
            events: self.events,
            feed: self.feed,
        }
    }
}

#[derive(Debug, clap::Args)]
struct DeviceArgs {
    /// Keep-alive HTTP connections, or MQTT clients.
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// Devices observed round-robin.
    #[arg(long, default_value_t = 10_000)]
    devices: usize,
    /// Measures per observation.
    #[arg(long, default_value_t = 3)]
    measures: usize,
    /// Seconds of load, for Fluxgate and again for the baseline.
    #[arg(long, default_value_t = 10)]
    duration: u64,
    /// MQTT: messages sent and not yet committed before the clients wait.
    #[arg(long, default_value_t = 512)]
    window: usize,
    /// Threads of the started server and of the baseline [default: number of cores].
    #[arg(long)]
    workers: Option<usize>,
    /// One JSON object per run instead of a table.
    #[arg(long)]
    json: bool,
}

impl DeviceArgs {
    fn options(&self) -> bench::devices::DeviceOptions {
        let cores = std::thread::available_parallelism().map(usize::from).unwrap_or(1);
        bench::devices::DeviceOptions {
            connections: self.connections.max(1),
            devices: self.devices.max(1),
            measures: self.measures.max(1),
            duration: std::time::Duration::from_secs(self.duration),
            workers: self.workers.unwrap_or(cores),
            window: self.window.max(1),
        }
    }
}

#[derive(Debug, clap::Args)]
struct BrokerArgs {
    /// A running server, e.g. http://127.0.0.1:8080; without it the bench starts its own on a temporary data dir.
    #[arg(long)]
    url: Option<String>,
    /// Service token sent as X-Auth-Token (with --url).
    #[arg(long)]
    token: Option<String>,
    /// Concurrent keep-alive connections.
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// Seconds of load, for Fluxgate and again for the baseline.
    #[arg(long, default_value_t = 10)]
    duration: u64,
    /// Entities updated round-robin (created before timing starts).
    #[arg(long, default_value_t = 10_000)]
    entities: usize,
    /// Attributes per update.
    #[arg(long, default_value_t = 3)]
    attributes: usize,
    /// Subscriptions matching the updated entities, notifying a local receiver.
    #[arg(long, default_value_t = 0)]
    subscriptions: usize,
    /// SQLite synchronous mode of the started server: full or normal.
    #[arg(long)]
    synchronous: Option<String>,
    /// Threads of the started server and of the baseline [default: number of cores].
    #[arg(long)]
    workers: Option<usize>,
    /// One JSON object per run instead of a table.
    #[arg(long)]
    json: bool,
}

impl BrokerArgs {
    fn options(&self) -> bench::BrokerOptions {
        let cores = std::thread::available_parallelism().map(usize::from).unwrap_or(1);
        bench::BrokerOptions {
            url: self.url.clone(),
            token: self.token.clone(),
            connections: self.connections.max(1),
            duration: std::time::Duration::from_secs(self.duration),
            workload: Workload {
                entities: self.entities.max(1),
                attributes: self.attributes,
                subscriptions: self.subscriptions,
            },
            synchronous: self.synchronous.clone(),
            workers: self.workers.unwrap_or(cores),
        }
    }
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

/// The log filter when `RUST_LOG` is not set; rumqttd logs every MQTT connection at info level.
const DEFAULT_LOG: &str = "info,rumqttd=warn";

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fluxgate: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs to stderr (coloured only on a terminal), filtered by `RUST_LOG`, else by [`DEFAULT_LOG`], and never with
/// rumqttd's false errors about connections that ended normally.
fn init_logging() {
    use tracing_subscriber::filter::FilterExt;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::{EnvFilter, Layer};

    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let output = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(colour);
    let chosen = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_LOG));
    tracing_subscriber::registry().with(output.with_filter(chosen.and(quiet_mqtt_connections()))).init();
}

/// rumqttd (pinned at 0.20.0) logs the normal end of an MQTT connection at error level: inside its `remote_link`
/// span, every end, even a client's clean DISCONNECT (`router-drop`) and the start-up probe's bare TCP connect; and in
/// its router, the races of a connection that has already gone (a DISCONNECT followed by the socket's close, as
/// `mosquitto_pub` does). Fluxgate counts and logs the refusals that matter itself (`mqtt::ingest::Refusal`). This
/// leaves those errors out, and keeps every other rumqttd event.
fn quiet_mqtt_connections<S>() -> tracing_subscriber::filter::DynFilterFn<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    /// The router's events about a connection that has already gone: "no-connection id {} is already gone" and
    /// "Connection is already disconnected".
    const GONE: [u32; 4] = [416, 436, 539, 1006];
    tracing_subscriber::filter::DynFilterFn::new(|meta, cx| {
        let in_link = || cx.lookup_current().is_some_and(|span| span.name() == "remote_link");
        let link_end = meta.target() == "rumqttd::server::broker" && in_link();
        let gone = meta.target() == "rumqttd::router::routing"
            && meta.file().is_some_and(|f| f.ends_with("routing.rs"))
            && meta.line().is_some_and(|line| GONE.contains(&line));
        !(meta.is_event() && *meta.level() == tracing::Level::ERROR && (link_end || gone))
    })
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let file = cli.config.as_deref();
    match cli.command {
        Command::Explain { file } => return explain(&file),
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
        Command::Bench(BenchCommand::Broker(args)) => {
            let report = bench::broker(&args.options()).context("bench broker")?;
            if args.json { println!("{}", report.json()) } else { print!("{report}") }
        }
        Command::Bench(BenchCommand::History(args)) => bench_history(&args)?,
        Command::Bench(BenchCommand::Geofence(args)) => bench_cep(&args, bench::cep_workload::Scenario::Geofence)?,
        Command::Bench(BenchCommand::Floor(args)) => bench_cep(&args, bench::cep_workload::Scenario::Floor)?,
        Command::Bench(BenchCommand::Alerts(args)) => {
            let report = bench::alerts::run(&args.options()).context("bench alerts")?;
            if args.json {
                println!("{}", report.json())
            } else {
                print!("{report}")
            }
            report.complete().context("bench alerts")?;
        }
        Command::Bench(BenchCommand::UlHttp(args)) => {
            let report = bench::devices::ul_http(&args.options()).context("bench ul-http")?;
            if args.json { println!("{}", report.json()) } else { print!("{report}") }
        }
        Command::Bench(BenchCommand::Mqtt(args)) => {
            let report = bench::mqtt::mqtt(&args.options()).context("bench mqtt")?;
            if args.json { println!("{}", report.json()) } else { print!("{report}") }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `fluxgate explain`: the plan on stdout, or the errors on stderr and a failing exit.
fn explain(file: &Path) -> anyhow::Result<ExitCode> {
    let text = if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("reading stdin")?;
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

/// Prints each measured run (a JSON object per line with `--json`).
fn bench_cep(args: &CepArgs, scenario: bench::cep_workload::Scenario) -> anyhow::Result<()> {
    let reports = bench::cep::run(&args.options(scenario)).with_context(|| format!("bench {}", scenario.name()))?;
    for report in &reports {
        if args.json { println!("{}", report.json()) } else { print!("{report}") }
    }
    Ok(())
}
