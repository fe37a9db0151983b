//! The timely workers the service owns (`--workers N` threads of one process) and the control channel that drives them.
//! Every command goes to every worker, in one order (the dispatcher's lock), so all workers install, feed and remove
//! the same dataflows identically while other tenants' dataflows stay installed; a feed carries each worker its own
//! share of the events, which it then owns, and every worker the streams whose first event it holds (each worker starts
//! their output clocks with a `Start` record of its own). A command is a round: each worker steps its dataflow past the
//! command's epoch and reports the outputs it collected and its earliest timer. A caller may send a round and collect
//! its reports later ([`Workers::send`], [`Workers::collect`]), so that the workers find the next round queued when
//! they finish one; each worker answers its commands in order on a channel of its own, and a report read for a round
//! whose caller has not come for it yet waits for that caller. Workers block on their channel between rounds, so idle
//! costs nothing. A round may instead carry a [`Source`] from which each worker makes its own share of the events
//! (the bench's generators), numbered and dealt exactly as the feeder would have.
//!
//! A dataflow can be installed as the replacement of another ([`Handover`]): each worker moves the state of the
//! statements both run from the old dataflow's operators to the new one's before the new one first steps. A
//! statement keeps its partitioning across the handover, so each worker hands over exactly its own share.
//!
//! A worker that panics ends the round with [`PoolError::Panicked`]: it says so and stops, its peers stop waiting for
//! it, and the pool restarts with fresh threads. The dataflows of the failed pool are gone, so a later command for
//! one of them, or a round sent to the failed pool after the one that failed, answers [`PoolError::Lost`] and its
//! owner installs it again.
//!
//! The worker threads' side, waiting for commands and obeying them, is the `worker` module.

mod worker;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

use crossbeam_channel::{Receiver, Sender, unbounded};
use thiserror::Error;
use timely::communication::WorkerGuards;
use timely::{CommunicationConfig, Config, WorkerConfig};

use self::worker::{IDLE_SPIN, Shared, Wait, leaves_a_core, receive, serve};
use super::program::{Dealing, Program, route_hash};
use super::reaper::Reaper;
use crate::cep::runtime::{Output, Row, Val};

/// One input event for a dataflow: stream number, arrival position, row.
pub type InputEvent = (u32, u64, Row);

/// The events of one epoch, and the streams whose first event ever is among them: every worker starts those
/// streams' output clocks at this epoch, whichever worker the event itself goes to.
#[derive(Debug, Default)]
pub struct Batch {
    pub epoch: u64,
    pub events: Vec<InputEvent>,
    pub starts: Vec<u32>,
}

/// A batch whose events the workers make themselves ([`Source`]): its epoch, the arrival position of its first event,
/// how many events it has (all of stream `stream`), and the streams whose first event ever is among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub epoch: u64,
    pub first: u64,
    pub events: u64,
    pub stream: u32,
    pub starts: Vec<u32>,
}

/// Makes a round's events on the workers, each worker its own share, instead of a feeder dealing them: the bench's
/// generators (`fluxgate bench geofence --feed workers`), so that each worker's core, not one producer's, makes its
/// rows.
pub trait Source: Send + Sync {
    /// The events of `slot` that [`dealt_to`] gives worker `worker` of `peers`, numbered from `slot.first` in arrival
    /// order.
    fn share(&self, worker: usize, peers: usize, slot: &Slot) -> Vec<InputEvent>;
}

/// Which statements' state a new dataflow takes over from a running one: the running dataflow, and pairs of (its
/// statement number, the new dataflow's statement number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handover {
    pub from: u64,
    pub statements: Vec<(usize, usize)>,
}

enum Command {
    Install {
        id: u64,
        program: Arc<Program>,
        handover: Option<Handover>,
        /// When its new statements were created.
        created_ms: i64,
    },
    Feed {
        id: u64,
        batches: Vec<Batch>,
    },
    Make {
        id: u64,
        slots: Arc<[Slot]>,
        source: Arc<dyn Source>,
    },
    Remove {
        id: u64,
    },
    #[cfg(test)]
    Panic,
}

/// What a worker says after a round.
#[derive(Debug, Default)]
pub struct Report {
    pub outputs: Vec<Output>,
    pub next_timer: Option<u64>,
}

/// Why a command got no report.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PoolError {
    /// A worker panicked during the command; the pool restarted without the dataflows it ran.
    #[error("a CEP worker panicked: {0}")]
    Panicked(String),
    /// The dataflow ran on a pool that has since failed and restarted.
    #[error("the dataflow was lost when the CEP workers restarted")]
    Lost,
}

/// What a worker answers to a command.
type Reply = Result<Report, PoolError>;

/// A round sent to the pool, whose reports [`Workers::collect`] takes.
#[derive(Debug)]
#[must_use = "a round's reports wait for their caller until collected"]
pub struct Ticket {
    /// The pool's generation and the round's number on it; none when the dataflow was lost before the round was sent.
    sent: Option<(u64, u64)>,
}

/// One generation of worker threads.
struct Pool {
    /// Which generation this is: rounds sent to an earlier one are lost.
    generation: u64,
    commands: Vec<Sender<Command>>,
    /// Each worker's replies, in the order of its commands.
    replies: Vec<Receiver<Reply>>,
    /// Rounds sent, and rounds whose replies have been read, on this pool.
    sent: u64,
    read: u64,
    /// Dataflows numbered below this one ran on an earlier pool.
    first_id: u64,
    /// How the feeder polls for the workers' replies.
    wait: Wait,
    /// Joins the threads when the pool is dropped, after the command channels closed (field order).
    _guards: WorkerGuards<()>,
}

struct Dispatch {
    pool: Pool,
    next_id: u64,
    /// How each installed dataflow's events are dealt to the workers.
    dealing: HashMap<u64, Dealing>,
    /// The merged replies of rounds read before their caller came for them, by pool generation and round; they
    /// outlive a failure of the pool after them.
    early: BTreeMap<(u64, u64), Reply>,
}

/// The worker pool.
pub struct Workers {
    peers: usize,
    /// [`Workers::rounds_ahead`], decided once: the machine's cores are looked up, not known.
    rounds_ahead: usize,
    dispatch: Mutex<Dispatch>,
    /// Where the workers queue the rows they are done with (`reaper`): one queue for every generation of the pool,
    /// reached without the dispatcher's lock.
    reaper: Reaper,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workers").field("peers", &self.peers).finish_non_exhaustive()
    }
}

impl Pool {
    /// Starts `peers` worker threads for dataflows numbered from `first_id`.
    fn start(peers: usize, generation: u64, first_id: u64, reaper: Reaper) -> Result<Self, String> {
        let (commands, receivers): (Vec<_>, Vec<_>) = (0..peers).map(|_| unbounded::<Command>()).unzip();
        let (senders, replies): (Vec<_>, Vec<_>) = (0..peers).map(|_| unbounded::<Reply>()).unzip();
        // Each worker takes its ends, so they close when it stops: its peers' and the feeder's reads then end.
        let ends = receivers.into_iter().zip(senders).map(Some).collect::<Vec<_>>();
        let ends = Arc::new(Mutex::new(ends));
        // Set by a worker that panics; its peers stop waiting for it.
        let failed = Arc::new(AtomicBool::new(false));
        let worker = WorkerConfig::default().idle_spin(IDLE_SPIN);
        let config = Config { communication: CommunicationConfig::Process(peers), worker };
        let wait = if leaves_a_core(peers) { Wait::Spin } else { Wait::Yield };
        let guards = timely::execute(config, move |worker| {
            reaper.dig();
            let taken = ends.lock().unwrap_or_else(PoisonError::into_inner)[worker.index()].take();
            if let Some((receiver, replies)) = taken {
                serve(worker, &receiver, wait, &replies, Shared { failed: &failed, reaper: &reaper });
            }
        })?;
        Ok(Pool { generation, commands, replies, sent: 0, read: 0, first_id, wait, _guards: guards })
    }

    /// Sends one command to every worker (the `n`-th command to worker `n`).
    fn send(&mut self, mut command: impl FnMut() -> Command) -> Ticket {
        self.sent += 1;
        for channel in &self.commands {
            // A worker that stopped has closed its channel; reading its reply to this round finds it closed too.
            let _ = channel.send(command());
        }
        Ticket { sent: Some((self.generation, self.sent)) }
    }

    /// Reads every worker's reply to the oldest round not read yet, and merges them; the first panic reported is the
    /// round's error, and a worker that stopped before it replied loses the round.
    fn read_round(&mut self) -> Reply {
        self.read += 1;
        let mut merged: Reply = Ok(Report::default());
        for replies in &self.replies {
            let reply = receive(replies, self.wait).unwrap_or(Err(PoolError::Lost));
            merged = match (merged, reply) {
                (Err(PoolError::Panicked(m)), _) | (_, Err(PoolError::Panicked(m))) => Err(PoolError::Panicked(m)),
                (Err(e), _) | (_, Err(e)) => Err(e),
                (Ok(mut all), Ok(report)) => {
                    all.outputs.extend(report.outputs);
                    all.next_timer = match (all.next_timer, report.next_timer) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    Ok(all)
                }
            };
        }
        merged
    }
}

impl Workers {
    /// Starts `peers` worker threads.
    pub fn start(peers: usize) -> Result<Arc<Self>, String> {
        let peers = peers.max(1);
        let reaper = Reaper::new();
        let pool = Pool::start(peers, 1, 1, reaper.clone())?;
        let dispatch = Mutex::new(Dispatch { pool, next_id: 0, dealing: HashMap::new(), early: BTreeMap::new() });
        let rounds_ahead = usize::from(leaves_a_core(peers));
        Ok(Arc::new(Workers { peers, rounds_ahead, dispatch, reaper }))
    }

    /// How many workers the pool has.
    pub fn peers(&self) -> usize {
        self.peers
    }

    /// How many rounds a feeder leaves running on the pool while it gathers and sends the next: one when the pool
    /// leaves the machine a core, for the threads that feed it; none when the workers take every core, where the
    /// feeder and the threads making rows need the cores the workers would keep busy. With one round ahead, one worker
    /// ran `bench floor` 19.5 to 24.3 % faster than with none in four pairs of runs, and `bench geofence` 1.8 to
    /// 30.3 % faster in four; two workers (two cores) ran the geofence 15.6 to 24.3 % slower in three pairs, and the
    /// floor 8.0 % slower and 0.8 % faster in two (`benches/results/cep.md`, forty-first session).
    pub fn rounds_ahead(&self) -> usize {
        self.rounds_ahead
    }

    /// Drops the rows the workers are done with on the calling thread (`reaper`). Never waits for a round.
    pub fn reap(&self) {
        self.reaper.reap();
    }

    /// Hands the rows the workers are done with to the calling thread, which makes its next rows in their memory
    /// (`cep::runtime::spare`): the threads that make rows call it before they make more. Never waits for a round.
    pub fn recycle(&self) {
        self.reaper.recycle();
    }

    /// Installs `program` on every worker, taking over the state `handover` names; answers the new dataflow's id and
    /// its earliest timer (of the state taken over).
    pub fn install(
        &self,
        program: Arc<Program>,
        handover: Option<Handover>,
        created_ms: i64,
    ) -> Result<(u64, Option<u64>), PoolError> {
        let mut dispatch = self.lock();
        dispatch.next_id += 1;
        let id = dispatch.next_id;
        let first_id = dispatch.pool.first_id;
        let handover = handover.filter(|h| h.from >= first_id);
        let report = self.round(&mut dispatch, || Command::Install {
            id,
            program: program.clone(),
            handover: handover.clone(),
            created_ms,
        })?;
        dispatch.dealing.insert(id, program.dealing());
        Ok((id, report.next_timer))
    }

    /// Sends dataflow `id` a round feeding each batch at its epoch (increasing, and after those of the rounds sent
    /// before; a batch without events only moves time), without waiting for it. The epochs run pipelined, in one
    /// round; the workers take it up when they are done with the rounds sent before.
    pub fn send(&self, id: u64, batches: Vec<Batch>) -> Ticket {
        let mut dispatch = self.lock();
        if id < dispatch.pool.first_id {
            return Ticket { sent: None };
        }
        let mut shares = deal(batches, self.peers, dispatch.dealing.get(&id)).into_iter();
        dispatch.pool.send(|| Command::Feed { id, batches: shares.next().unwrap_or_default() })
    }

    /// Sends dataflow `id` a round as [`Workers::send`] does, whose events each worker makes itself: its share of each
    /// slot, from `source`.
    pub fn send_made(&self, id: u64, slots: Vec<Slot>, source: Arc<dyn Source>) -> Ticket {
        let mut dispatch = self.lock();
        if id < dispatch.pool.first_id {
            return Ticket { sent: None };
        }
        let slots: Arc<[Slot]> = slots.into();
        dispatch.pool.send(|| Command::Make { id, slots: slots.clone(), source: source.clone() })
    }

    /// Waits for a round sent by [`Workers::send`] to pass its last epoch, and answers its reports. When the pool
    /// failed in this round or one before it, the pool restarts before the error is answered.
    pub fn collect(&self, ticket: Ticket) -> Result<Report, PoolError> {
        let mut dispatch = self.lock();
        self.collect_on(&mut dispatch, ticket)
    }

    /// Feeds as [`Workers::send`] does, and waits for the round.
    pub fn feed(&self, id: u64, batches: Vec<Batch>) -> Result<Report, PoolError> {
        let ticket = self.send(id, batches);
        self.collect(ticket)
    }

    /// Whether dataflow `id` is installed on the running pool (it is not when the pool restarted after it was).
    pub fn runs(&self, id: u64) -> bool {
        id >= self.lock().pool.first_id
    }

    /// Removes a dataflow; one lost with a failed pool is gone already.
    pub fn remove(&self, id: u64) {
        let mut dispatch = self.lock();
        dispatch.dealing.remove(&id);
        if id >= dispatch.pool.first_id {
            // A failure is logged and counted by `round`; the dataflow is gone either way.
            let _ = self.round(&mut dispatch, || Command::Remove { id });
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Dispatch> {
        self.dispatch.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One round on the pool, waited for.
    fn round(&self, dispatch: &mut Dispatch, command: impl FnMut() -> Command) -> Reply {
        let ticket = dispatch.pool.send(command);
        self.collect_on(dispatch, ticket)
    }

    /// The reports of a round; when the pool failed in it or in a round before it, the pool restarts before the error
    /// is answered.
    fn collect_on(&self, dispatch: &mut Dispatch, ticket: Ticket) -> Reply {
        let Some(sent) = ticket.sent else {
            return Err(PoolError::Lost);
        };
        if let Some(reply) = dispatch.early.remove(&sent) {
            return reply;
        }
        if sent.0 != dispatch.pool.generation {
            return Err(PoolError::Lost);
        }
        let reply = read_until(dispatch, sent.1);
        if let Err(error) = &reply {
            tracing::error!(%error, "CEP workers failed; restarting them without their dataflows");
            metrics::counter!("fluxgate_cep_worker_restarts_total").increment(1);
            let generation = dispatch.pool.generation + 1;
            match Pool::start(self.peers, generation, dispatch.next_id + 1, self.reaper.clone()) {
                Ok(pool) => {
                    dispatch.pool = pool;
                    let first_id = dispatch.pool.first_id;
                    dispatch.dealing.retain(|id, _| *id >= first_id);
                }
                Err(error) => tracing::error!(%error, "CEP workers did not restart; the next command tries again"),
            }
        }
        reply
    }
}

/// Reads the rounds of the running pool up to `round`, keeping those before it for their callers, and answers its
/// replies; a round before it that failed loses it.
fn read_until(dispatch: &mut Dispatch, round: u64) -> Reply {
    loop {
        let reply = dispatch.pool.read_round();
        if dispatch.pool.read == round {
            return reply;
        }
        let failed = reply.is_err();
        dispatch.early.insert((dispatch.pool.generation, dispatch.pool.read), reply);
        if failed {
            return Err(PoolError::Lost);
        }
    }
}

#[cfg(test)]
impl Workers {
    /// Queues `rows` as if a worker were done with them.
    pub fn queue_dead(&self, rows: Vec<Row>) {
        self.reaper.queue(rows);
    }

    /// As `send`, but worker `culprit` panics instead of taking its share, so its peers wait for it mid-round.
    pub fn send_with_a_panic(&self, id: u64, batches: Vec<Batch>, culprit: usize) -> Ticket {
        let mut dispatch = self.lock();
        let mut shares = deal(batches, self.peers, dispatch.dealing.get(&id)).into_iter().enumerate();
        dispatch.pool.send(|| match shares.next() {
            Some((n, _)) if n == culprit => Command::Panic,
            share => Command::Feed { id, batches: share.map(|(_, b)| b).unwrap_or_default() },
        })
    }
}

/// How many events ahead the dealing starts loading a row's two ends (`Props::load_ends`): the first holds its length
/// and first property, which reading the dealing column reads first. The rows come from the threads that made them,
/// cold in the feeder's cache. Two workers fed by `bench geofence`'s producer ran 2.6–11.4 % more events per second
/// in three interleaved pairs, the floor 4.9–21.7 %, and the feeder's dealing fell from 13.4 % to 6.0 % of the
/// geofence's samples (16 ahead showed no consistent difference from 8; `benches/results/cep.md`, forty-fourth
/// session).
const DEAL_AHEAD: usize = 8;

/// Deals each batch's events to the workers, and every batch's epoch and starts to all of them: an event of a stream
/// with a dealing column to the worker its key's exchange sends it to (the hash of the column's value, as timely's
/// exchange takes it), any other event `i` to worker `i % peers`. Each worker then owns its rows, so a statement that
/// changes its input row (`SELECT *, e AS x`) changes it in place instead of copying it.
fn deal(batches: Vec<Batch>, peers: usize, dealing: Option<&Dealing>) -> Vec<Vec<Batch>> {
    if peers == 1 {
        return vec![batches];
    }
    let mut shares: Vec<Vec<Batch>> = (0..peers).map(|_| Vec::with_capacity(batches.len())).collect();
    for Batch { epoch, events, starts } in batches {
        let mut parts: Vec<Vec<InputEvent>> =
            (0..peers).map(|_| Vec::with_capacity(events.len() / peers + 1)).collect();
        let mut events = events.into_iter();
        let mut i = 0;
        while let Some(event) = events.next() {
            if let Some((_, _, ahead)) = events.as_slice().get(DEAL_AHEAD) {
                ahead.load_ends();
            }
            let (stream, _, row) = &event;
            parts[dealt_to(i, *stream, row, peers, dealing)].push(event);
            i += 1;
        }
        for (share, events) in shares.iter_mut().zip(parts) {
            share.push(Batch { epoch, events, starts: starts.clone() });
        }
    }
    shares
}

/// The worker event `i` of a batch goes to: by the hash of its stream's dealing column, if it has one, else in turn.
pub fn dealt_to(i: usize, stream: u32, row: &Row, peers: usize, dealing: Option<&Dealing>) -> usize {
    match dealing.and_then(|d| d.get(stream as usize)).and_then(Option::as_ref) {
        Some(column) => (route_hash([row.get(column).unwrap_or(&Val::Null)]) % peers as u64) as usize,
        None => i % peers,
    }
}
