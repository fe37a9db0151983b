//! Parse + plan speed of the CEP front end: the seed geofence configuration (target < 1 ms; also
//! parsing alone) and a generated configuration of 1,000 statements (target < 1 s).
//! Run: `cargo bench --bench epl -- --warm-up-time 1 --measurement-time 3`; results go to
//! `benches/results/epl.md`.

use criterion::{Criterion, criterion_group, criterion_main};
use fluxgate::cep::config::CepConfig;
use fluxgate::cep::explain::plan_config;

fn geofence() -> CepConfig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/queries/geofence.json");
    let text = std::fs::read_to_string(path).expect("queries/geofence.json");
    serde_json::from_str(&text).expect("valid configuration")
}

/// The floor-average configuration with 1,000 statements of four kinds, chained by dependencies.
fn thousand_statements() -> CepConfig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/queries/floor-average.json");
    let text = std::fs::read_to_string(path).expect("queries/floor-average.json");
    let mut config: CepConfig = serde_json::from_str(&text).expect("valid configuration");
    config.statements = (0..1000).map(statement).collect();
    config
}

fn statement(i: usize) -> String {
    match i % 4 {
        0 => format!(
            "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room.win:time({} sec) GROUP BY floor OUTPUT LAST EVERY 10 sec",
            i + 1
        ),
        1 => format!("INSERT INTO Hot{i} SELECT *, temperature > {i}.5 as hot FROM Room(floor != 'x{i}')"),
        2 => format!(
            "INSERT INTO Cross{i} SELECT a.* FROM pattern [every a=Hot{p} -> (timer:interval(4 sec) and not Hot{p}(id=a.id, hot!=a.hot))]",
            p = i - 1
        ),
        _ => format!(
            "CREATE VARIABLE Geometry fence{i} = polygon({{point(0, 0), point(0, {i}), point({i}, {i}), point(0, 0)}})"
        ),
    }
}

fn bench(c: &mut Criterion) {
    let seed = geofence();
    c.bench_function("parse+plan geofence.json", |b| b.iter(|| plan_config(&seed, true).expect("plans")));
    c.bench_function("parse only geofence.json", |b| {
        b.iter(|| {
            for (i, text) in seed.statements.iter().enumerate() {
                fluxgate::cep::parser::parse_statement(i + 1, text).expect("parses");
            }
        })
    });
    let big = thousand_statements();
    assert!(plan_config(&big, true).is_ok(), "the generated configuration plans");
    c.bench_function("parse+plan 1000 statements", |b| b.iter(|| plan_config(&big, true).expect("plans")));
}

criterion_group!(benches, bench);
criterion_main!(benches);
