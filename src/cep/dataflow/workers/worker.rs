//! A worker thread of the pool: it waits for its commands, polling before it sleeps, and obeys each in turn,
//! installing, feeding and removing the dataflows it runs and stepping them through each round's epochs.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TryRecvError};
use timely::dataflow::InputHandle;
use timely::dataflow::operators::Input;

use super::{Batch, Command, Handover, PoolError, Reply, Report, Slot, Source};
use crate::cep::dataflow::compile::{Built, compile};
use crate::cep::dataflow::operator::State;
use crate::cep::dataflow::program::Program;
use crate::cep::dataflow::reaper::{self, Reaper};
use crate::cep::dataflow::record::{Record, Stamp, millis};
use crate::cep::dataflow::watch::Watch;

/// Whether a pool of `peers` workers leaves the machine a core, for the threads feeding the workers.
pub(super) fn leaves_a_core(peers: usize) -> bool {
    peers < std::thread::available_parallelism().map_or(1, usize::from)
}

/// How long a worker waiting for its next command, or the feeder waiting for the workers' replies, keeps polling
/// before it sleeps. A round is often followed at once by the next (the feeder runs one per millisecond of events, and
/// replies come a few microseconds after the command), and waking a sleeping thread took about 100 µs on the
/// development VMs (`perf sched`): with this wait `bench floor` ran about 4x the events per second on 1 worker, and on
/// 2 workers it was faster in 3 of 5 pairs of runs, slower in 2 (`benches/results/cep.md`). How it polls is [`Wait`];
/// a spinning worker of `bench geofence` ran 14–19 % slower polling for 300 µs, and no differently for 20 µs
/// (thirty-eighth session).
const POLL_BEFORE_SLEEP: Duration = Duration::from_micros(50);

/// How a thread polls for its next message before it sleeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wait {
    /// Keeps its core: the workers of a pool that leaves the machine a core, and their feeder. A yielding worker gave
    /// its core to another thread (the callers making rows, and then a reaper thread dropping them), and the next
    /// command then waited for it to give the core back. With the worker and the feeder spinning, one worker of `bench
    /// geofence` ran 6.5–9.9 % more events per second than with both yielding in seven of nine pairs of runs, and 3.6
    /// and 6.6 % fewer in two (`benches/results/cep.md`, thirty-eighth session).
    Spin,
    /// Leaves the core to any other thread that has work: in a pool with a worker on every core, the feeder needs a
    /// worker's core to send the next command. Spinning there made two workers run 6.9 and 10.8 % fewer events per
    /// second on the geofence and 12.7 % fewer on the floor.
    Yield,
}

/// How long a worker waiting for its peers within a round (their progress, their records) polls before it parks.
/// Timely's default of 10 µs is shorter than most such waits here, and each park ends in a wake-up that costs far more
/// on these VMs. 50 µs made `bench geofence --workers 2` run about 8 % more events per second than 10 µs (twenty-first
/// session); 200 µs, at the target's 2,000 events a millisecond, made two workers run 3 to 21 % more than 50 µs in
/// eight interleaved pairs, and 1.62–1.93 times one worker in ten runs (1.7 or more in nine), where 50 µs made
/// 1.44–1.64 times in six (`benches/results/cep.md`, thirtieth session). Under light load the spin is CPU the other
/// threads lack: at 10,000 events/s, where each millisecond's round of about ten events leaves the workers waiting on
/// each other, 200 µs used 0.25 and 0.19 CPU per worker where 50 µs used 0.19 and 0.16 (`bench alerts`, one run each).
/// Between rounds, when the workers wait on their command channel instead, it costs nothing.
pub(super) const IDLE_SPIN: Duration = Duration::from_micros(200);

/// The next message, polling for [`POLL_BEFORE_SLEEP`] as `wait` says before blocking; `None` once the senders are
/// gone.
pub(super) fn receive<T>(rx: &Receiver<T>, wait: Wait) -> Option<T> {
    let start = Instant::now();
    while start.elapsed() < POLL_BEFORE_SLEEP {
        match rx.try_recv() {
            Ok(message) => return Some(message),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if wait == Wait::Spin => std::hint::spin_loop(),
            Err(TryRecvError::Empty) => std::thread::yield_now(),
        }
    }
    rx.recv().ok()
}

struct Flow {
    input: InputHandle<u64, timely::container::CapacityContainerBuilder<Vec<Record>>>,
    watch: Watch,
    built: Built,
    dataflow: usize,
}

type Worker = timely::worker::Worker;

/// Obeys `commands`, waiting for each as `wait` says, until the pool lets go of the channel or a worker fails.
pub(super) fn serve(
    worker: &mut Worker,
    commands: &Receiver<Command>,
    wait: Wait,
    replies: &Sender<Reply>,
    pool: Shared,
) {
    let failed = pool.failed;
    let mut flows: HashMap<u64, Flow> = HashMap::new();
    while let Some(command) = receive(commands, wait) {
        let reply =
            catch_unwind(AssertUnwindSafe(|| obey(worker, &mut flows, command, pool))).unwrap_or_else(|panic| {
                failed.store(true, Ordering::Relaxed);
                Err(PoolError::Panicked(panic_message(panic.as_ref())))
            });
        // After a failure this worker's dataflows are out of step with its peers': it serves no more.
        let stop = reply.is_err();
        if replies.send(reply).is_err() || stop {
            break;
        }
        reaper::send();
    }
    // Timely steps a worker's remaining dataflows to completion when its thread ends, which a dataflow whose peers
    // failed never reaches, and whose timers would tick on to the end of time: drop them instead.
    drop(flows);
    for dataflow in worker.installed_dataflows() {
        worker.drop_dataflow(dataflow);
    }
}

/// What a worker shares with its peers.
#[derive(Clone, Copy)]
pub(super) struct Shared<'a> {
    /// Set by a worker that panics.
    pub(super) failed: &'a AtomicBool,
    /// The queue of rows the workers are done with.
    pub(super) reaper: &'a Reaper,
}

fn obey(worker: &mut Worker, flows: &mut HashMap<u64, Flow>, command: Command, pool: Shared) -> Reply {
    let Shared { failed, reaper } = pool;
    match command {
        Command::Install { id, program, handover, created_ms } => {
            let states = handover.map(|h| export(flows, &h)).unwrap_or_default();
            let flow = install(worker, &program, created_ms);
            let next_timer = adopt(&flow, states);
            flows.insert(id, flow);
            Ok(Report { outputs: Vec::new(), next_timer })
        }
        Command::Feed { id, batches } => match flows.get_mut(&id) {
            Some(flow) => feed(worker, flow, batches, failed),
            None => Ok(Report::default()),
        },
        Command::Make { id, slots, source } => match flows.get_mut(&id) {
            Some(flow) => {
                // As every thread making rows, it takes back the rows the workers are done with first; and keeps its
                // own for its next rows rather than queue them.
                reaper.recycle();
                let batches = made(worker, &slots, source.as_ref());
                let reply = feed(worker, flow, batches, failed);
                reaper::keep_own();
                reply
            }
            None => Ok(Report::default()),
        },
        Command::Remove { id } => {
            if let Some(flow) = flows.remove(&id) {
                remove(worker, flow, failed)?;
            }
            Ok(Report::default())
        }
        #[cfg(test)]
        Command::Panic => panic_in_an_operator(worker),
    }
}

/// This worker's share of each slot, made by `source`.
fn made(worker: &Worker, slots: &[Slot], source: &dyn Source) -> Vec<Batch> {
    let (index, peers) = (worker.index(), worker.peers());
    let batch = |slot: &Slot| Batch {
        epoch: slot.epoch,
        events: source.share(index, peers, slot),
        starts: slot.starts.clone(),
    };
    slots.iter().map(batch).collect()
}

/// Runs an operator that panics, inside a step of the worker, as an operator with a bug would.
#[cfg(test)]
fn panic_in_an_operator(worker: &mut Worker) -> Reply {
    use timely::dataflow::operators::{Inspect, ToStream};
    worker.dataflow::<u64, _, _>(|scope| {
        ToStream::<Vec<u64>>::to_stream(0..1u64, scope).inspect(|_| panic!("a worker panic injected by a test"));
    });
    loop {
        worker.step();
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic.downcast_ref::<&str>().copied().or_else(|| panic.downcast_ref::<String>().map(String::as_str));
    text.unwrap_or("a panic without a message").to_owned()
}

/// Steps the worker while `busy`, until a peer fails.
fn step_while(worker: &mut Worker, failed: &AtomicBool, mut busy: impl FnMut() -> bool) -> Result<(), PoolError> {
    while busy() {
        if failed.load(Ordering::Relaxed) {
            return Err(PoolError::Lost);
        }
        worker.step_or_park(Some(Duration::from_millis(1)));
    }
    Ok(())
}

fn install(worker: &mut Worker, program: &Program, created_ms: i64) -> Flow {
    let watch = Watch::default();
    let dataflow = worker.next_dataflow_index();
    let (input, built) = worker.dataflow::<u64, _, _>(|scope| {
        let (input, stream) = scope.new_input::<Vec<Record>>();
        let built = compile(scope, program, stream, &watch, created_ms);
        (input, built)
    });
    Flow { input, watch, built, dataflow }
}

/// Takes the handed-over statements' state out of the running dataflow, by the new statement numbers (and whether
/// the state is a member's, [`Control::carries`](crate::cep::dataflow::operator::Control::carries)).
fn export(flows: &HashMap<u64, Flow>, handover: &Handover) -> HashMap<(usize, bool), State> {
    let Some(old) = flows.get(&handover.from) else {
        return HashMap::new();
    };
    let mut states = HashMap::new();
    for control in &old.built.controls {
        let new = handover.statements.iter().find(|(from, _)| *from == control.statement).map(|(_, to)| *to);
        if let Some(to) = new
            && let Some(state) = control.export()
        {
            states.insert((to, control.carries().1), state);
        }
    }
    states
}

/// Gives a new dataflow's operators the state taken over, before its first step; answers the earliest timer.
fn adopt(flow: &Flow, mut states: HashMap<(usize, bool), State>) -> Option<u64> {
    for control in &flow.built.controls {
        if let Some(state) = states.remove(&control.carries()) {
            control.adopt(state);
        }
    }
    flow.built.controls.iter().filter_map(|c| c.next_timer.get()).min()
}

/// Feeds this worker's share of the batches (`deal`), then steps until the dataflow has passed the last batch's
/// epoch.
fn feed(worker: &mut Worker, flow: &mut Flow, batches: Vec<Batch>, failed: &AtomicBool) -> Reply {
    let last = batches.last().map_or(0, |batch| batch.epoch);
    let worker_index = worker.index() as u32;
    for Batch { epoch, events, starts } in batches {
        if epoch > *flow.input.time() {
            flow.input.advance_to(epoch);
        }
        // The epoch's records go in as one container: sent one by one, they were copied into containers of about a
        // hundred records, each a message of its own. One worker ran `bench floor` 4 to 15 % faster (twenty-eighth
        // session, `benches/results/cep.md`).
        let starts = starts.into_iter().map(|stream| Record::Start { ms: millis(epoch), worker: worker_index, stream });
        let events = events.into_iter().map(|(stream, position, row)| Record::Event {
            stamp: Stamp::input(position),
            stream,
            row,
        });
        flow.input.send_batch(&mut starts.chain(events).collect());
    }
    let next = (*flow.input.time()).max(last) + 1;
    flow.input.advance_to(next);
    step_while(worker, failed, || flow.watch.less_than(&next))?;
    let outputs = std::mem::take(&mut *flow.built.outputs.borrow_mut());
    let next_timer = flow.built.controls.iter().filter_map(|c| c.next_timer.get()).min();
    Ok(Report { outputs, next_timer })
}

fn remove(worker: &mut Worker, flow: Flow, failed: &AtomicBool) -> Result<(), PoolError> {
    for control in &flow.built.controls {
        control.stopping.set(true);
    }
    drop(flow.input);
    step_while(worker, failed, || !flow.watch.done())?;
    worker.drop_dataflow(flow.dataflow);
    Ok(())
}
