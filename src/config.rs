//! Settings from a TOML file, the environment (`FLUXGATE_*`) and flags, merged and validated into a typed [`Config`].
//!
//! Precedence: flag, then environment (clap reads both into [`Settings`]), then the file, then the defaults. All
//! problems are collected and reported together, so an operator fixes a configuration in one pass.

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::broker::notify::DeliveryPolicy;
use crate::history::HistoryOptions;
use crate::history::retention::{Retention, RetentionError};
use crate::store::sqlite::Synchronous;

/// Raw settings: every field optional, from any one source.
#[derive(Debug, Clone, Default, Args, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Settings {
    /// HTTP listen address [default: 127.0.0.1:8080].
    #[arg(long, env = "FLUXGATE_LISTEN")]
    pub listen: Option<String>,
    /// MQTT listen address of the embedded broker [default: 127.0.0.1:1883].
    #[arg(long, env = "FLUXGATE_MQTT_LISTEN")]
    pub mqtt_listen: Option<String>,
    /// External MQTT broker to use instead of the embedded one, as mqtt://host:port [default: none, embed one].
    #[arg(long, env = "FLUXGATE_MQTT_BROKER")]
    pub mqtt_broker: Option<String>,
    /// Directory of the SQLite store [default: ./fluxgate-data].
    #[arg(long, env = "FLUXGATE_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// CEP worker threads [default: number of cores less one, at least one].
    #[arg(long, env = "FLUXGATE_WORKERS")]
    pub workers: Option<usize>,
    /// Turn authentication off (local experiments only).
    #[arg(long, env = "FLUXGATE_INSECURE")]
    #[serde(default)]
    pub insecure: Option<bool>,
    /// SQLite synchronous mode: normal (acknowledged writes survive a killed process) or full (they also survive
    /// power loss, at the cost of a disk flush per commit) [default: normal].
    #[arg(long, env = "FLUXGATE_SYNCHRONOUS")]
    pub synchronous: Option<String>,
    /// Notifications queued per subscription before new ones are dropped [default: 1000].
    #[arg(long, env = "FLUXGATE_NOTIFY_QUEUE")]
    pub notify_queue: Option<usize>,
    /// Seconds a failing notification is retried before it is dropped [default: 30].
    #[arg(long, env = "FLUXGATE_NOTIFY_RETRY_SECS")]
    pub notify_retry_secs: Option<u64>,
    /// Milliseconds allowed for one notification attempt or command push [default: 5000].
    #[arg(long, env = "FLUXGATE_NOTIFY_TIMEOUT_MS")]
    pub notify_timeout_ms: Option<u64>,
    /// Seconds after which an undelivered command expires [default: 3600].
    #[arg(long, env = "FLUXGATE_COMMAND_TTL_SECS")]
    pub command_ttl_secs: Option<u64>,
    /// How long history is kept, e.g. 30d, 12h, 90m [default: forever].
    #[arg(long, env = "FLUXGATE_HISTORY_RETENTION")]
    pub history_retention: Option<String>,
    /// Largest lastN and hLimit of a history query [default: 1000].
    #[arg(long, env = "FLUXGATE_HISTORY_MAX_PAGE")]
    pub history_max_page: Option<u32>,
}

impl Settings {
    /// Fields set here win over those of `lower`.
    pub fn over(self, lower: Settings) -> Settings {
        Settings {
            listen: self.listen.or(lower.listen),
            mqtt_listen: self.mqtt_listen.or(lower.mqtt_listen),
            mqtt_broker: self.mqtt_broker.or(lower.mqtt_broker),
            data_dir: self.data_dir.or(lower.data_dir),
            workers: self.workers.or(lower.workers),
            insecure: self.insecure.or(lower.insecure),
            synchronous: self.synchronous.or(lower.synchronous),
            notify_queue: self.notify_queue.or(lower.notify_queue),
            notify_retry_secs: self.notify_retry_secs.or(lower.notify_retry_secs),
            notify_timeout_ms: self.notify_timeout_ms.or(lower.notify_timeout_ms),
            command_ttl_secs: self.command_ttl_secs.or(lower.command_ttl_secs),
            history_retention: self.history_retention.or(lower.history_retention),
            history_max_page: self.history_max_page.or(lower.history_max_page),
        }
    }
}

/// The validated configuration.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Config {
    pub listen: SocketAddr,
    pub mqtt_listen: SocketAddr,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mqtt_broker: Option<BrokerUrl>,
    pub data_dir: PathBuf,
    pub workers: usize,
    pub insecure: bool,
    pub synchronous: Synchronous,
    pub notify_queue: usize,
    pub notify_retry_secs: u64,
    pub notify_timeout_ms: u64,
    pub command_ttl_secs: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_retention: Option<Retention>,
    pub history_max_page: u32,
}

impl Config {
    pub fn history(&self) -> HistoryOptions {
        HistoryOptions { retention: self.history_retention, max_page: self.history_max_page }
    }

    pub fn delivery(&self) -> DeliveryPolicy {
        DeliveryPolicy {
            queue_capacity: self.notify_queue,
            timeout: Duration::from_millis(self.notify_timeout_ms),
            retry_for: Duration::from_secs(self.notify_retry_secs),
            ..DeliveryPolicy::default()
        }
    }
}

/// One thing wrong with the settings.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigProblem {
    #[error("cannot read config file {path}: {reason}")]
    File { path: String, reason: String },
    #[error("{setting}: {value:?} is not an address like 127.0.0.1:8080")]
    Address { setting: &'static str, value: String },
    #[error("{setting}: must be at least 1")]
    Zero { setting: &'static str },
    #[error("synchronous: {0:?} is not one of full, normal")]
    Synchronous(String),
    #[error("mqtt-broker: {0:?} is not an address like mqtt://127.0.0.1:1883")]
    BrokerUrl(String),
    #[error("listen and mqtt-listen are both {0}")]
    SameAddress(SocketAddr),
    #[error(transparent)]
    Retention(#[from] RetentionError),
}

/// Every problem found, reported at once.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct ConfigErrors(pub Vec<ConfigProblem>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "the configuration has {} problem(s):", self.0.len())?;
        self.0.iter().try_for_each(|p| writeln!(f, "  - {p}"))
    }
}

/// Reads the file (if any), layers flags and environment over it, and validates.
pub fn load(flags: Settings, file: Option<&Path>) -> Result<Config, ConfigErrors> {
    let from_file = match file {
        None => Ok(Settings::default()),
        Some(path) => read_file(path),
    };
    match from_file {
        Ok(from_file) => validate(flags.over(from_file)),
        Err(problem) => Err(ConfigErrors(vec![problem])),
    }
}

fn read_file(path: &Path) -> Result<Settings, ConfigProblem> {
    let problem = |reason: String| ConfigProblem::File { path: path.display().to_string(), reason };
    let text = std::fs::read_to_string(path).map_err(|e| problem(e.to_string()))?;
    toml::from_str(&text).map_err(|e| problem(e.message().to_owned()))
}

/// Checks every setting, collecting all problems.
pub fn validate(s: Settings) -> Result<Config, ConfigErrors> {
    let mut problems = Vec::new();
    let listen = address(&mut problems, "listen", s.listen.as_deref().unwrap_or("127.0.0.1:8080"));
    let mqtt_listen = address(&mut problems, "mqtt-listen", s.mqtt_listen.as_deref().unwrap_or("127.0.0.1:1883"));
    let mqtt_broker = s.mqtt_broker.as_deref().and_then(|url| broker_url(&mut problems, url));
    let workers = at_least_one(&mut problems, "workers", s.workers.unwrap_or_else(default_workers));
    let notify_queue = at_least_one(&mut problems, "notify-queue", s.notify_queue.unwrap_or(1000));
    let notify_timeout_ms =
        at_least_one(&mut problems, "notify-timeout-ms", s.notify_timeout_ms.unwrap_or(5000) as usize);
    let command_ttl_secs = at_least_one(&mut problems, "command-ttl-secs", s.command_ttl_secs.unwrap_or(3600) as usize);
    let synchronous = match s.synchronous.as_deref().unwrap_or("normal") {
        "full" => Synchronous::Full,
        "normal" => Synchronous::Normal,
        other => {
            problems.push(ConfigProblem::Synchronous(other.to_owned()));
            Synchronous::Full
        }
    };
    let history_max_page = at_least_one(&mut problems, "history-max-page", s.history_max_page.unwrap_or(1000) as usize);
    let history_retention = match s.history_retention.as_deref().map(str::parse::<Retention>).transpose() {
        Ok(retention) => retention,
        Err(e) => {
            problems.push(e.into());
            None
        }
    };
    if let (Some(a), Some(b)) = (listen, mqtt_listen)
        && a == b
        && a.port() != 0
    {
        problems.push(ConfigProblem::SameAddress(a));
    }
    if !problems.is_empty() {
        return Err(ConfigErrors(problems));
    }
    Ok(Config {
        listen: listen.expect("checked"),
        mqtt_listen: mqtt_listen.expect("checked"),
        mqtt_broker,
        data_dir: s.data_dir.unwrap_or_else(|| PathBuf::from("fluxgate-data")),
        workers,
        insecure: s.insecure.unwrap_or(false),
        synchronous,
        notify_queue,
        notify_retry_secs: s.notify_retry_secs.unwrap_or(30),
        notify_timeout_ms: notify_timeout_ms as u64,
        command_ttl_secs: command_ttl_secs as u64,
        history_retention,
        history_max_page: history_max_page as u32,
    })
}

fn address(problems: &mut Vec<ConfigProblem>, setting: &'static str, value: &str) -> Option<SocketAddr> {
    let parsed = value.parse().ok();
    if parsed.is_none() {
        problems.push(ConfigProblem::Address { setting, value: value.to_owned() });
    }
    parsed
}

/// An external MQTT broker: `mqtt://host:port`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub struct BrokerUrl {
    pub host: String,
    pub port: u16,
}

impl fmt::Display for BrokerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mqtt://{}:{}", self.host, self.port)
    }
}

impl From<BrokerUrl> for String {
    fn from(url: BrokerUrl) -> String {
        url.to_string()
    }
}

impl BrokerUrl {
    /// `mqtt://host:port`, host non-empty and without `/`, port 1..=65535.
    pub fn parse(text: &str) -> Option<BrokerUrl> {
        let rest = text.strip_prefix("mqtt://")?;
        let (host, port) = rest.rsplit_once(':')?;
        let port: u16 = port.parse().ok().filter(|p| *p != 0)?;
        let valid_host = !host.is_empty() && !host.contains(['/', '@', ' ', '?', '#']);
        valid_host.then(|| BrokerUrl { host: host.to_owned(), port })
    }
}

fn broker_url(problems: &mut Vec<ConfigProblem>, value: &str) -> Option<BrokerUrl> {
    let parsed = BrokerUrl::parse(value);
    if parsed.is_none() {
        problems.push(ConfigProblem::BrokerUrl(value.to_owned()));
    }
    parsed
}

fn at_least_one(problems: &mut Vec<ConfigProblem>, setting: &'static str, value: usize) -> usize {
    if value == 0 {
        problems.push(ConfigProblem::Zero { setting });
    }
    value
}

/// CEP workers when none are configured: a core is left to the threads that feed them (HTTP, ingest, the feeder).
/// On the two-core development VM, `bench alerts --workers 2` with one CEP worker instead of two (the server's two
/// runtime threads either way) sustained 57,793 and 60,895 positions/s of 80,000 offered, against 52,549 and 52,606;
/// at 40,000/s its p99 was 2.01 and 2.32 ms, against 3.51 and 5.94 (`benches/results/cep.md`, forty-second session).
fn default_workers() -> usize {
    let cores = std::thread::available_parallelism().map(usize::from).unwrap_or(1);
    cores.saturating_sub(1).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_reported_at_once() {
        let settings = Settings {
            listen: Some("nowhere".into()),
            workers: Some(0),
            synchronous: Some("sometimes".into()),
            history_retention: Some("forever".into()),
            ..Settings::default()
        };
        let errors = validate(settings).unwrap_err();
        assert_eq!(errors.0.len(), 4, "{errors}");
    }

    #[test]
    fn the_cep_leaves_a_core_to_the_threads_feeding_it_unless_there_is_one() {
        let cores = std::thread::available_parallelism().map(usize::from).unwrap_or(1);
        let config = validate(Settings::default()).unwrap();
        assert_eq!(config.workers, if cores > 1 { cores - 1 } else { 1 }, "{cores} cores");
    }

    #[test]
    fn the_two_listeners_need_two_addresses_unless_each_port_is_chosen() {
        let listen = |http: &str, mqtt: &str| {
            validate(Settings { listen: Some(http.into()), mqtt_listen: Some(mqtt.into()), ..Settings::default() })
        };
        let errors = listen("127.0.0.1:1883", "127.0.0.1:1883").unwrap_err();
        assert_eq!(
            errors.to_string(),
            "the configuration has 1 problem(s):\n  - listen and mqtt-listen are both 127.0.0.1:1883\n"
        );
        assert!(listen("127.0.0.1:0", "127.0.0.1:0").is_ok(), "port 0 lets the system choose each port");
    }

    #[test]
    fn flags_win_over_the_file() {
        let file = Settings { listen: Some("127.0.0.1:9000".into()), workers: Some(3), ..Settings::default() };
        let flags = Settings { listen: Some("127.0.0.1:9001".into()), ..Settings::default() };
        let config = validate(flags.over(file)).unwrap();
        assert_eq!(config.listen.port(), 9001);
        assert_eq!(config.workers, 3);
    }

    #[test]
    fn history_retention_is_read_and_printed() {
        let settings = Settings { history_retention: Some("30d".into()), ..Settings::default() };
        let config = validate(settings).unwrap();
        assert_eq!(config.history().retention.map(|r| r.to_string()), Some("30d".to_owned()));
        assert!(toml::to_string(&config).unwrap().contains("history-retention = \"30d\""));
    }

    #[test]
    fn broker_urls_are_validated() {
        assert_eq!(BrokerUrl::parse("mqtt://127.0.0.1:1883"), Some(BrokerUrl { host: "127.0.0.1".into(), port: 1883 }));
        for bad in ["127.0.0.1:1883", "mqtt://:1883", "mqtt://host", "mqtt://host:0", "mqtt://host:x", "mqtt://a/b:1"] {
            assert_eq!(BrokerUrl::parse(bad), None, "{bad}");
        }
        let settings = Settings { mqtt_broker: Some("http://x:1".into()), ..Settings::default() };
        assert_eq!(validate(settings).unwrap_err().0, vec![ConfigProblem::BrokerUrl("http://x:1".into())]);
    }
}
