//! How a worker knows a dataflow has finished an epoch: the operators that end its edges (the edges no statement
//! reads) mirror their input frontiers into one shared antichain, as timely's probe does, but without a probe
//! operator in the middle of every statement's output: each operator costs every epoch. A stateful operator whose
//! rows end in it mirrors its own output frontier instead ([`Mirror`]). An edge that a later statement reads needs no
//! watching, since the frontier downstream of it is never ahead of its own.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

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
        let mut mirror = self.mirror();
        builder.build(move |_capabilities| {
            move |frontiers| {
                input.for_each(|cap, data| {
                    if let Some(epoch) = cap.least().copied() {
                        take(epoch, data);
                    }
                });
                mirror.publish(frontiers[0].frontier().to_owned());
            }
        });
    }

    /// A new watched frontier, for an operator that ends an edge itself; held at the start until the operator
    /// first publishes, so nothing passes meanwhile.
    pub fn mirror(&self) -> Mirror {
        self.frontier.borrow_mut().update_iter([(0, 1)]);
        Mirror { published: Antichain::from_elem(0), shared: Rc::downgrade(&self.frontier) }
    }
}

/// One watched frontier, as its operator last published it.
#[derive(Debug)]
pub struct Mirror {
    published: Antichain<u64>,
    shared: Weak<RefCell<MutableAntichain<u64>>>,
}

impl Mirror {
    /// Replaces the frontier published last by `now`.
    pub fn publish(&mut self, now: Antichain<u64>) {
        if now == self.published {
            return;
        }
        if let Some(shared) = self.shared.upgrade() {
            let retract = self.published.iter().map(|t| (*t, -1));
            shared.borrow_mut().update_iter(retract.chain(now.iter().map(|t| (*t, 1))));
        }
        self.published = now;
    }
}
