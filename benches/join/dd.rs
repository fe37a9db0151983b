//! The lookup in differential dataflow: the last state per shutter arranged from upserts
//! (`arrange_from_upsert`, each state replacing its shutter's last from the next epoch on; a state's value leads with
//! its arrival number, so of two in one epoch the upsert keeps the later, as it keeps the greatest), and the commands a
//! collection, each inserted at its epoch and retracted at the next, joined with it (`join_core`). What a command
//! found is the join's insertion at its epoch; the retraction at the next epoch is the price of a stream in a
//! collection. The join's output is consolidated: unconsolidated, a command whose shutter changed state at the next
//! epoch shows a passing insertion of the new state among the retractions.

use differential_dataflow::input::InputSession;
use differential_dataflow::operators::arrange::upsert::arrange_from_upsert;
use differential_dataflow::trace::implementations::{ValBuilder, ValSpine};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::InputHandle;
use timely::dataflow::operators::Input;
use timely::dataflow::operators::probe::Handle as Probe;
use timely::worker::Worker;

use super::workload::{Event, Found, Sink};

/// A state's arrival number and status: of two upserts of a shutter in one epoch, the greater is kept.
type State = (u64, u8);
/// A shutter, its state and the epoch it holds from.
type Upsert = (u32, Option<State>, u64);

/// The dataflow on one worker, fed one epoch at a time.
pub struct DdJoin {
    states: InputHandle<u64, CapacityContainerBuilder<Vec<Upsert>>>,
    commands: InputSession<u64, (u32, u64), isize>,
    probe: Probe<u64>,
    found: Sink,
    dataflow: usize,
}

impl DdJoin {
    pub fn new(worker: &mut Worker) -> Self {
        let mut states = InputHandle::new();
        let mut commands = InputSession::new();
        let found = Sink::default();
        let sink = found.clone();
        let dataflow = worker.next_dataflow_index();
        let probe = worker.dataflow::<u64, _, _>(|scope| {
            let upserts = scope.input_from(&mut states);
            let last = arrange_from_upsert::<
                ValBuilder<u32, State, u64, isize>,
                ValSpine<u32, State, u64, isize>,
                u32,
                State,
            >(upserts, "LastState");
            commands
                .to_collection(scope)
                .arrange_by_key()
                .join_core(last, |_key, arrival, (_, status)| Some((*arrival, *status)))
                .consolidate()
                .inspect(move |(found, _, diff)| {
                    if *diff > 0 {
                        sink.borrow_mut().push(*found);
                    }
                })
                .probe()
                .0
        });
        DdJoin { states, commands, probe, found, dataflow }
    }

    /// Feeds the events of `epoch`, steps until they are handled, and answers what its commands found.
    pub fn push(&mut self, worker: &mut Worker, epoch: u64, events: &[Event]) -> Vec<Found> {
        self.states.advance_to(epoch);
        self.commands.advance_to(epoch);
        for event in events {
            match *event {
                Event::State { arrival, key, status } => self.states.send((key, Some((arrival, status)), epoch + 1)),
                Event::Cmd { arrival, key } => {
                    self.commands.update((key, arrival), 1);
                    self.commands.update_at((key, arrival), epoch + 1, -1);
                }
            }
        }
        self.states.advance_to(epoch + 1);
        self.commands.advance_to(epoch + 1);
        self.commands.flush();
        worker.step_while(|| self.probe.less_than(&(epoch + 1)));
        std::mem::take(&mut *self.found.borrow_mut())
    }

    pub fn drop_from(self, worker: &mut Worker) {
        worker.drop_dataflow(self.dataflow);
    }
}
