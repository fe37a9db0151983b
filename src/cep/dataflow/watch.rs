//! How a worker knows a dataflow has finished an epoch: the operators that end its edges (the edges no statement
//! reads) mirror their input frontiers into one shared antichain, as timely's probe does, but without a probe
//! operator in the middle of every statement's output: each operator costs every epoch. An edge that a later
//! statement reads needs no watching, since the frontier downstream of it is never ahead of its own.

use std::cell::RefCell;
use std::rc::Rc;

use timely::dataflow::Stream;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::builder_rc::OperatorBuilder;
use timely::progress::frontier::{Antichain, MutableAntichain};

use super::record::Record;

/// The frontier of every watched edge of one dataflow, together.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    frontier: Rc<RefCell<MutableAntichain<u64>>>,
}

impl Watch {
    /// Whether some watched edge may still carry records before `epoch`.
    pub fn less_than(&self, epoch: &u64) -> bool {
        self.frontier.borrow().less_than(epoch)
    }

    /// Whether every watched edge is closed.
    pub fn done(&self) -> bool {
        self.frontier.borrow().is_empty()
    }

    /// Ends `edge` in an operator that hands each container to `take` with its epoch, and mirrors the edge's
    /// frontier.
    pub fn end<'s>(
        &self,
        edge: Stream<'s, u64, Vec<Record>>,
        name: &str,
        mut take: impl FnMut(u64, &mut Vec<Record>) + 'static,
    ) {
        let mut builder = OperatorBuilder::new(name.to_owned(), edge.scope());
        let mut input = builder.new_input(edge, Pipeline);
        // Held at the start until the operator first runs and sees its frontier, so nothing passes meanwhile.
        let mut published = Antichain::from_elem(0);
        self.frontier.borrow_mut().update_iter([(0, 1)]);
        let shared = Rc::downgrade(&self.frontier);
        builder.build(move |_capabilities| {
            move |frontiers| {
                input.for_each(|cap, data| {
                    if let Some(epoch) = cap.least().copied() {
                        take(epoch, data);
                    }
                });
                let now = frontiers[0].frontier().to_owned();
                if now != published {
                    if let Some(shared) = shared.upgrade() {
                        let retract = published.iter().map(|t| (*t, -1));
                        shared.borrow_mut().update_iter(retract.chain(now.iter().map(|t| (*t, 1))));
                    }
                    published = now;
                }
            }
        });
    }
}
