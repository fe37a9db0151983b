//! The lookup with a hash map of the last state per shutter, on typed events: one timely operator that stashes each
//! epoch's events until the frontier passes it, then answers each command from the map and applies the epoch's
//! states after them: the bare form of the project's join operator (`src/cep/dataflow/join.rs`, one timely operator
//! whose views, `cep::reference::join::LookupView`, are hash-indexed too), without its rows of named properties.

use std::collections::{BTreeMap, HashMap};

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::probe::Handle as Probe;
use timely::dataflow::operators::{Input, Probe as _};
use timely::dataflow::{InputHandle, Stream};
use timely::worker::Worker;

use super::workload::{Event, Found, Sink};

/// The operator on one worker, fed one epoch at a time.
pub struct HandJoin {
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Event>>>,
    probe: Probe<u64>,
    found: Sink,
    dataflow: usize,
}

impl HandJoin {
    pub fn new(worker: &mut Worker) -> Self {
        let mut input = InputHandle::new();
        let found = Sink::default();
        let sink = found.clone();
        let dataflow = worker.next_dataflow_index();
        let probe = worker.dataflow::<u64, _, _>(|scope| {
            let events: Stream<'_, u64, Vec<Event>> = scope.input_from(&mut input);
            lookup(events, sink).probe().0
        });
        HandJoin { input, probe, found, dataflow }
    }

    /// Feeds the events of `epoch`, steps until they are handled, and answers what its commands found.
    pub fn push(&mut self, worker: &mut Worker, epoch: u64, events: &[Event]) -> Vec<Found> {
        self.input.advance_to(epoch);
        self.input.send_batch(&mut events.to_vec());
        self.input.advance_to(epoch + 1);
        worker.step_while(|| self.probe.less_than(&(epoch + 1)));
        std::mem::take(&mut *self.found.borrow_mut())
    }

    pub fn drop_from(self, worker: &mut Worker) {
        worker.drop_dataflow(self.dataflow);
    }
}

/// The operator: per epoch, the commands read the states of the epochs before, then its states replace them.
fn lookup<'scope>(events: Stream<'scope, u64, Vec<Event>>, found: Sink) -> Stream<'scope, u64, Vec<()>> {
    let mut stash: BTreeMap<u64, Vec<Event>> = BTreeMap::new();
    let mut last: HashMap<u32, u8> = HashMap::new();
    events.unary_frontier::<CapacityContainerBuilder<Vec<()>>, _, _, _>(Pipeline, "Lookup", |_, _| {
        move |(input, frontier), _output| {
            input.for_each(|cap, data| {
                if let Some(time) = cap.least() {
                    stash.entry(*time).or_default().append(data);
                }
            });
            while let Some(entry) = stash.first_entry().filter(|e| !frontier.less_equal(e.key())) {
                let events = entry.remove();
                let mut found = found.borrow_mut();
                for event in &events {
                    if let Event::Cmd { arrival, key } = event {
                        found.extend(last.get(key).map(|status| (*arrival, *status)));
                    }
                }
                for event in events {
                    if let Event::State { key, status, .. } = event {
                        last.insert(key, status);
                    }
                }
            }
        }
    })
}
