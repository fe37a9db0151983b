//! The lookup as the project runs it: the join statement installed on the real `Dataflow` (one worker thread, beside
//! the bench's own timely worker), fed the rows ingest would build. The engine keeps the statement's order within a
//! batch: a command reads the states that arrived before it, those of its own batch included.

use std::sync::Arc;

use fluxgate::cep::config::CepConfig;
use fluxgate::cep::dataflow::{Dataflow, Program, Workers};
use fluxgate::cep::explain::plan_config;
use fluxgate::cep::runtime::{Engine, Incoming, Row, Val};

use super::workload::{Event, Found};

/// Commands and shutter states in, what each command found out, as `Log` rows.
const CONFIG: &str = r#"{"host":"h",
  "in":[{"id":"C.*","type":"Cmd","isPattern":true,
         "attributes":[{"name":"shutter","type":"string"},{"name":"arrival","type":"long"}]},
        {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"int"}]}],
  "out":[{"id":"L","type":"Log","attributes":[{"name":"arrival","type":"long"},{"name":"seen","type":"int"}]}],
  "statements":["INSERT INTO Log SELECT c.shutter as id, c.arrival as arrival, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id"]}"#;

pub struct EngineJoin {
    engine: Dataflow,
}

impl EngineJoin {
    pub fn new() -> Self {
        let config: CepConfig = serde_json::from_str(CONFIG).expect("the join configuration reads");
        let plan = plan_config(&config, false).expect("the join configuration plans");
        let program = Program::new(&plan).expect("the join compiles").receiving(config.incoming_types());
        let workers = Workers::start(1).expect("a timely worker starts");
        // Its events' times start at 0.
        EngineJoin { engine: Dataflow::install(workers, Arc::new(program), 0) }
    }

    /// The rows of `events`, as ingest would build them.
    pub fn rows(events: &[Event]) -> Vec<Incoming> {
        let shutter = |key: u32| Val::String(format!("sh{key}").into());
        let row = |event: &Event| match *event {
            Event::State { key, status, .. } => {
                ("State".into(), [("id", shutter(key)), ("status", Val::Int(i64::from(status)))].into_iter().collect())
            }
            Event::Cmd { arrival, key } => {
                let id = Val::String(format!("c{arrival}").into());
                (
                    "Cmd".into(),
                    [("arrival", Val::Int(arrival as i64)), ("id", id), ("shutter", shutter(key))]
                        .into_iter()
                        .collect(),
                )
            }
        };
        events.iter().map(row).collect()
    }

    /// Runs the rows of `epoch` (as its millisecond) and answers what their commands found.
    pub fn push(&mut self, epoch: u64, rows: Vec<Incoming>) -> Vec<Found> {
        let outputs = self.engine.push_batch(epoch as i64, rows);
        let found = |row: &Row| match (row.get("arrival"), row.get("seen")) {
            (Some(Val::Int(arrival)), Some(Val::Int(seen))) => Some((*arrival as u64, *seen as u8)),
            _ => None,
        };
        outputs.iter().filter_map(|o| found(&o.row)).collect()
    }
}
