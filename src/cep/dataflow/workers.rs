//! The timely workers the service owns (`--workers N` threads of one process) and the control channel that drives
//! them. Every command goes to every worker, in one order (the dispatcher's lock), so all workers install, feed and
//! remove the same dataflows identically while other tenants' dataflows stay installed; a feed carries each worker
//! its own share of the events, which it then owns. A command is a round: the caller waits until each worker has
//! stepped its dataflow past the command's epoch and reported the outputs it collected and its earliest timer.
//! Workers block on their channel between rounds, so idle costs nothing.
//!
//! A dataflow can be installed as the replacement of another ([`Handover`]): each worker moves the state of the
//! statements both run from the old dataflow's operators to the new one's before the new one first steps. A
//! statement keeps its partitioning across the handover, so each worker hands over exactly its own share.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crossbeam_channel::{Receiver, Sender, unbounded};
use timely::dataflow::InputHandle;
use timely::dataflow::operators::Input;
use timely::{CommunicationConfig, Config, WorkerConfig};

use super::compile::{Built, compile};
use super::operator::State;
use super::program::Program;
use super::record::{Record, Stamp};
use super::watch::Watch;
use crate::cep::runtime::{Output, Row};

/// One input event for a dataflow: stream number, arrival position, row.
pub type InputEvent = (u32, u64, Row);

/// The events of one epoch.
pub type Batch = (u64, Vec<InputEvent>);

/// Which statements' state a new dataflow takes over from a running one: the running dataflow, and pairs of (its
/// statement number, the new dataflow's statement number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handover {
    pub from: u64,
    pub statements: Vec<(usize, usize)>,
}

enum Command {
    Install { id: u64, program: Arc<Program>, handover: Option<Handover> },
    Feed { id: u64, batches: Vec<Batch> },
    Remove { id: u64 },
}

/// What a worker says after a round.
#[derive(Debug, Default)]
pub struct Report {
    pub outputs: Vec<Output>,
    pub next_timer: Option<u64>,
}

struct Dispatch {
    commands: Vec<Sender<Command>>,
    reports: Receiver<Report>,
    next_id: u64,
}

/// The worker pool.
pub struct Workers {
    peers: usize,
    dispatch: Mutex<Dispatch>,
    /// Joins the worker threads when the pool is dropped (after the command channels closed).
    _guards: Mutex<timely::communication::WorkerGuards<()>>,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workers").field("peers", &self.peers).finish_non_exhaustive()
    }
}

impl Workers {
    /// Starts `peers` worker threads.
    pub fn start(peers: usize) -> Result<Arc<Self>, String> {
        let peers = peers.max(1);
        let (commands, receivers): (Vec<_>, Vec<_>) = (0..peers).map(|_| unbounded::<Command>()).unzip();
        let receivers = Arc::new(Mutex::new(receivers.into_iter().map(Some).collect::<Vec<_>>()));
        let (report_tx, reports) = unbounded();
        let config = Config { communication: CommunicationConfig::Process(peers), worker: WorkerConfig::default() };
        let guards = timely::execute(config, move |worker| {
            let taken = receivers.lock().unwrap_or_else(PoisonError::into_inner)[worker.index()].take();
            if let Some(receiver) = taken {
                serve(worker, &receiver, &report_tx);
            }
        })?;
        let dispatch = Mutex::new(Dispatch { commands, reports, next_id: 0 });
        Ok(Arc::new(Workers { peers, dispatch, _guards: Mutex::new(guards) }))
    }

    /// Installs `program` on every worker, taking over the state `handover` names; answers the new dataflow's id and
    /// its earliest timer (of the state taken over).
    pub fn install(&self, program: Arc<Program>, handover: Option<Handover>) -> (u64, Option<u64>) {
        let mut dispatch = self.lock();
        dispatch.next_id += 1;
        let id = dispatch.next_id;
        let report = round(&dispatch, || Command::Install { id, program: program.clone(), handover: handover.clone() });
        (id, report.next_timer)
    }

    /// Feeds each batch at its epoch (increasing; a batch without events only moves time) and waits for the dataflow
    /// to pass the last one. The epochs run pipelined, in one round.
    pub fn feed(&self, id: u64, batches: Vec<Batch>) -> Report {
        let mut shares = deal(batches, self.peers).into_iter();
        round(&self.lock(), || Command::Feed { id, batches: shares.next().unwrap_or_default() })
    }

    pub fn remove(&self, id: u64) {
        round(&self.lock(), || Command::Remove { id });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Dispatch> {
        self.dispatch.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Deals each batch's events to the workers, event `i` to worker `i % peers`, and every batch's epoch to all of
/// them. Each worker then owns its rows, so a statement that changes its input row (`SELECT *, e AS x`) changes it
/// in place instead of copying it.
fn deal(batches: Vec<Batch>, peers: usize) -> Vec<Vec<Batch>> {
    if peers == 1 {
        return vec![batches];
    }
    let mut shares: Vec<Vec<Batch>> = (0..peers).map(|_| Vec::with_capacity(batches.len())).collect();
    for (epoch, events) in batches {
        let mut parts: Vec<Vec<InputEvent>> =
            (0..peers).map(|_| Vec::with_capacity(events.len() / peers + 1)).collect();
        for (i, event) in events.into_iter().enumerate() {
            parts[i % peers].push(event);
        }
        for (share, part) in shares.iter_mut().zip(parts) {
            share.push((epoch, part));
        }
    }
    shares
}

/// Sends one command to every worker (the `n`-th command to worker `n`) and merges their reports.
fn round(dispatch: &Dispatch, mut command: impl FnMut() -> Command) -> Report {
    let sent = dispatch.commands.iter().filter(|c| c.send(command()).is_ok()).count();
    let mut merged = Report::default();
    for report in dispatch.reports.iter().take(sent) {
        merged.outputs.extend(report.outputs);
        merged.next_timer = match (merged.next_timer, report.next_timer) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    merged
}

struct Flow {
    input: InputHandle<u64, timely::container::CapacityContainerBuilder<Vec<Record>>>,
    watch: Watch,
    built: Built,
    dataflow: usize,
}

type Worker = timely::worker::Worker;

fn serve(worker: &mut Worker, commands: &Receiver<Command>, reports: &Sender<Report>) {
    let mut flows: HashMap<u64, Flow> = HashMap::new();
    for command in commands.iter() {
        let report = match command {
            Command::Install { id, program, handover } => {
                let states = handover.map(|h| export(&flows, &h)).unwrap_or_default();
                let flow = install(worker, &program);
                let next_timer = adopt(&flow, states);
                flows.insert(id, flow);
                Report { outputs: Vec::new(), next_timer }
            }
            Command::Feed { id, batches } => match flows.get_mut(&id) {
                Some(flow) => feed(worker, flow, batches),
                None => Report::default(),
            },
            Command::Remove { id } => {
                if let Some(flow) = flows.remove(&id) {
                    remove(worker, flow);
                }
                Report::default()
            }
        };
        if reports.send(report).is_err() {
            return;
        }
    }
}

fn install(worker: &mut Worker, program: &Program) -> Flow {
    let watch = Watch::default();
    let dataflow = worker.next_dataflow_index();
    let (input, built) = worker.dataflow::<u64, _, _>(|scope| {
        let (input, stream) = scope.new_input::<Vec<Record>>();
        let built = compile(scope, program, stream, &watch);
        (input, built)
    });
    Flow { input, watch, built, dataflow }
}

/// Takes the handed-over statements' state out of the running dataflow, by the new statement numbers.
fn export(flows: &HashMap<u64, Flow>, handover: &Handover) -> HashMap<usize, State> {
    let Some(old) = flows.get(&handover.from) else {
        return HashMap::new();
    };
    let mut states = HashMap::new();
    for control in &old.built.controls {
        let new = handover.statements.iter().find(|(from, _)| *from == control.statement).map(|(_, to)| *to);
        if let Some(to) = new
            && let Some(state) = control.export()
        {
            states.insert(to, state);
        }
    }
    states
}

/// Gives a new dataflow's operators the state taken over, before its first step; answers the earliest timer.
fn adopt(flow: &Flow, mut states: HashMap<usize, State>) -> Option<u64> {
    for control in &flow.built.controls {
        if let Some(state) = states.remove(&control.statement) {
            control.adopt(state);
        }
    }
    flow.built.controls.iter().filter_map(|c| c.next_timer.get()).min()
}

/// Feeds this worker's share of the batches (`deal`), then steps until the dataflow has passed the last batch's
/// epoch.
fn feed(worker: &mut Worker, flow: &mut Flow, batches: Vec<Batch>) -> Report {
    let last = batches.last().map_or(0, |(epoch, _)| *epoch);
    for (epoch, events) in batches {
        if epoch > *flow.input.time() {
            flow.input.advance_to(epoch);
        }
        for (stream, position, row) in events {
            flow.input.send(Record::Event { stamp: Stamp::input(position), stream, row });
        }
    }
    let next = (*flow.input.time()).max(last) + 1;
    flow.input.advance_to(next);
    while flow.watch.less_than(&next) {
        worker.step_or_park(Some(std::time::Duration::from_millis(1)));
    }
    let outputs = std::mem::take(&mut *flow.built.outputs.borrow_mut());
    let next_timer = flow.built.controls.iter().filter_map(|c| c.next_timer.get()).min();
    Report { outputs, next_timer }
}

fn remove(worker: &mut Worker, flow: Flow) {
    for control in &flow.built.controls {
        control.stopping.set(true);
    }
    drop(flow.input);
    while !flow.watch.done() {
        worker.step_or_park(Some(std::time::Duration::from_millis(1)));
    }
    worker.drop_dataflow(flow.dataflow);
}
