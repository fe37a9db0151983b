//! The command line: services and tokens on a data dir, configuration layering and its error report.

use std::process::Command;

fn fluxgate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fluxgate"))
        .args(args)
        .env_remove("FLUXGATE_LISTEN")
        .output()
        .expect("run fluxgate")
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn service_add_prints_a_token_and_refuses_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let out = fluxgate(&["service", "add", "smartcity", "--data-dir", data]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out).len(), 64);
    let given = fluxgate(&["service", "add", "fleet", "--token", "provisioned-token", "--data-dir", data]);
    assert_eq!(stdout(&given), "provisioned-token");
    let again = fluxgate(&["service", "add", "smartcity", "--data-dir", data]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("service smartcity already exists"));
    let scoped = fluxgate(&["service", "token", "smartcity", "--path", "/north", "--read-only", "--data-dir", data]);
    assert!(scoped.status.success(), "{scoped:?}");
    let missing = fluxgate(&["service", "token", "nobody", "--data-dir", data]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no service named nobody"));
}

#[test]
fn print_config_layers_file_environment_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fluxgate.toml");
    std::fs::write(&file, "listen = \"127.0.0.1:9000\"\nworkers = 3\nsynchronous = \"normal\"\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fluxgate"))
        .args(["--config", file.to_str().unwrap(), "print-config", "--workers", "5"])
        .env("FLUXGATE_MQTT_LISTEN", "127.0.0.1:1999")
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.contains("listen = \"127.0.0.1:9000\""), "{text}");
    assert!(text.contains("mqtt-listen = \"127.0.0.1:1999\""), "{text}");
    assert!(text.contains("workers = 5"), "{text}");
    assert!(text.contains("synchronous = \"normal\""), "{text}");
}

#[test]
fn every_configuration_problem_is_reported_at_once() {
    let out = fluxgate(&["print-config", "--listen", "nowhere", "--workers", "0", "--synchronous", "maybe"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("3 problem(s)"), "{err}");
    assert!(err.contains("listen: \"nowhere\""), "{err}");
    assert!(err.contains("workers: must be at least 1"), "{err}");
    assert!(err.contains("synchronous: \"maybe\""), "{err}");
}
