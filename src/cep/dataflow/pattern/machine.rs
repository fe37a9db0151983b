//! The automaton of one key's instances, in whichever of its three forms the pattern runs on (the tree interpreter
//! of `cep::reference::pattern`, the compact automaton or its queue), and the timers it sets, one type for all three.

use super::{Ctx, Out, Row, Set, TimerOrder};
use crate::cep::dataflow::automaton::{Compact, Matches, Queue, Wake};
use crate::cep::reference::TimerKind;
use crate::cep::reference::pattern::PatternQuery;
use crate::cep::runtime::prefetch;

/// What a timer fires: a leaf of the tree interpreter, or a slot of the compact automaton or of a queue.
#[derive(Debug, Clone, Copy)]
pub(super) enum Alarm {
    Tree(TimerKind),
    Compact(Wake),
}

/// The automaton of one key's instances. The tree interpreter's state is boxed: inline it made every key's automaton
/// (a slab entry) 312 bytes rather than 184, though few patterns run on it.
#[derive(Debug)]
pub(super) enum Machine {
    Tree(Box<PatternQuery>),
    Compact(Compact),
    Queue(Queue),
}

impl Machine {
    /// The matches `row` (at `set`) completes; a compact automaton or a queue leaves the timers it sets in `out`. A
    /// queue keeps the row it is handed for the instance it begins rather than a new reference to it: two locked
    /// instructions on the row's count fewer an event.
    pub(super) fn on_event(
        &mut self,
        ctx: &mut Ctx<'_>,
        out: &mut Out,
        (stream, label): (u32, &str),
        row: Row,
        set: Set,
    ) -> Matches {
        match self {
            Machine::Tree(query) => Matches::from_vec(query.matches_on_event(ctx, label, &row)),
            Machine::Compact(compact) => {
                compact.on_event(ctx, out, stream, label, &row);
                out.take_matches()
            }
            Machine::Queue(queue) => {
                queue.on_event(ctx, out, (stream, label), row, set);
                out.take_matches()
            }
        }
    }

    pub(super) fn on_timer(&mut self, ctx: &mut Ctx<'_>, out: &mut Out, alarm: Alarm) -> Matches {
        match (self, alarm) {
            (Machine::Tree(query), Alarm::Tree(kind)) => Matches::from_vec(query.matches_on_timer(ctx, kind)),
            (Machine::Compact(compact), Alarm::Compact(wake)) => {
                compact.on_timer(ctx, out, wake);
                out.take_matches()
            }
            (Machine::Queue(queue), Alarm::Compact(wake)) => {
                queue.on_timer(out, wake);
                out.take_matches()
            }
            _ => Matches::new(),
        }
    }

    /// Starts loading the machine's own fields.
    pub(super) fn load(&self) {
        match self {
            Machine::Tree(query) => prefetch::load(&**query),
            Machine::Compact(compact) => prefetch::load(compact),
            Machine::Queue(queue) => queue.load(),
        }
    }

    /// Starts loading what the machine's fields point to that an event reads: loaded itself by now.
    pub(super) fn load_state(&self) {
        if let Machine::Queue(queue) = self {
            queue.load_state();
        }
    }

    pub(super) fn is_idle(&self) -> bool {
        match self {
            Machine::Tree(query) => query.is_idle(),
            Machine::Compact(compact) => compact.is_idle(),
            Machine::Queue(queue) => queue.is_idle(),
        }
    }

    /// Whether firing `alarm` may still do something: not for a timer of an instance that has ended, or of a leaf
    /// that is gone. The tree's timers are all fired.
    pub(super) fn waits(&self, alarm: Alarm) -> bool {
        match (self, alarm) {
            (Machine::Compact(compact), Alarm::Compact(wake)) => compact.waits(wake),
            (Machine::Queue(queue), Alarm::Compact(wake)) => queue.waits(wake),
            _ => true,
        }
    }

    /// Hands `set` each timer set since the last call (a compact automaton's or a queue's are in `out`), as (due,
    /// order, what, when it was set if not now), in the order they were set: taken where they are, not gathered into
    /// a list first.
    pub(super) fn alarms(
        &self,
        ctx: &mut Ctx<'_>,
        out: &mut Out,
        mut set: impl FnMut(i64, TimerOrder, Alarm, Option<Set>),
    ) {
        match self {
            Machine::Tree(_) => {
                ctx.take_timers().into_iter().for_each(|(at, o, kind)| set(at, o, Alarm::Tree(kind), None));
            }
            Machine::Compact(_) | Machine::Queue(_) => {
                let order = TimerOrder::Pattern;
                out.drain_wakes().for_each(|(at, wake, from)| set(at, order, Alarm::Compact(wake), from));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key's automaton holds a machine: the tree interpreter's, boxed, does not set its size.
    #[test]
    fn a_machine_is_the_size_of_its_compact_forms() {
        assert!(size_of::<Machine>() <= size_of::<Compact>().max(size_of::<Queue>()) + 8, "{}", size_of::<Machine>());
    }
}
