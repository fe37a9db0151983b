//! What a key's live leaves pinned, per stream: the values the leaves waiting for an event of the stream compare it
//! with (a tracker's side of the fence, for the geofence's `not`). An event that every such value refuses passes no
//! leaf, and this is known without reading each instance's state, a cache miss per live instance: 58 % of
//! `Compact::on_event`'s samples in `bench geofence` (`benches/results/cep.md`, twenty-first session).
//!
//! A stream's list is a superset. A leaf made adds its (slot, pinned values) unless the list has them already; a leaf
//! that dies stays listed until the next event that reads every instance anyway, which writes the list afresh from the
//! leaves it leaves waiting. A list that would hold a leaf whose filter is not pure (it reads more than what it
//! pinned), or more than [`MOST`] entries, is unknown, and every event of its stream reads the instances again.

use smallvec::SmallVec;

use super::{Slot, same};
use crate::cep::reference::pattern::Pinned;

/// The most (slot, pinned values) a stream's list keeps before it gives up.
const MOST: usize = 4;

/// The pinned values of one stream's leaves, or `None` when they are not known.
#[derive(Debug, Clone, Default)]
pub(super) struct Pins(Option<SmallVec<[(Slot, Pinned); 1]>>);

impl Pins {
    /// An empty list: no leaf is waiting.
    pub(super) fn none() -> Self {
        Pins(Some(SmallVec::new()))
    }

    /// Adds a leaf of `slot` that pinned `pinned`, its filter `pure` or not.
    pub(super) fn note(&mut self, slot: Slot, pure: bool, pinned: &Pinned) {
        let Some(list) = self.0.as_mut() else {
            return;
        };
        let listed = list.iter().any(|(s, p)| *s == slot && same(p, pinned));
        if !pure || !listed && list.len() == MOST {
            self.0 = None;
        } else if !listed {
            list.push((slot, pinned.clone()));
        }
    }

    /// The listed (slot, pinned values), if they are known.
    pub(super) fn known(&self) -> Option<&[(Slot, Pinned)]> {
        self.0.as_deref()
    }
}

/// The lists of every stream, by stream index.
#[derive(Debug)]
pub(super) struct Seen(SmallVec<[Pins; 1]>);

impl Seen {
    /// Lists for `streams` streams with no leaf waiting.
    pub(super) fn new(streams: usize) -> Self {
        Seen((0..streams).map(|_| Pins::none()).collect())
    }

    /// Lists for `streams` streams that are not known, for leaves made under another numbering of the streams.
    pub(super) fn unknown(streams: usize) -> Self {
        Seen((0..streams).map(|_| Pins::default()).collect())
    }

    pub(super) fn note(&mut self, stream: u32, slot: Slot, pure: bool, pinned: &Pinned) {
        if let Some(pins) = self.0.get_mut(stream as usize) {
            pins.note(slot, pure, pinned);
        }
    }

    pub(super) fn of(&self, stream: u32) -> Option<&[(Slot, Pinned)]> {
        self.0.get(stream as usize).and_then(Pins::known)
    }

    /// Puts `pins`, written afresh from the live leaves, in place of stream `stream`'s list.
    pub(super) fn set(&mut self, stream: u32, pins: Pins) {
        if let Some(slot) = self.0.get_mut(stream as usize) {
            *slot = pins;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::runtime::Val;

    fn pinned(v: Val) -> Pinned {
        std::iter::once((0, v)).collect()
    }

    #[test]
    fn a_list_keeps_distinct_pins_and_gives_up_past_its_size_or_at_an_impure_filter() {
        let mut pins = Pins::none();
        pins.note(3, true, &pinned(Val::Bool(true)));
        pins.note(3, true, &pinned(Val::Bool(true)));
        pins.note(4, true, &pinned(Val::Bool(true)));
        assert_eq!(pins.known().map(<[_]>::len), Some(2));
        for n in 0..2 {
            pins.note(3, true, &pinned(Val::Int(n)));
        }
        assert_eq!(pins.known().map(<[_]>::len), Some(MOST));
        pins.note(3, true, &pinned(Val::Int(0)));
        assert_eq!(pins.known().map(<[_]>::len), Some(MOST), "a listed pin fits in a full list");
        pins.note(3, true, &pinned(Val::Int(9)));
        assert!(pins.known().is_none());
        pins.note(3, true, &pinned(Val::Bool(true)));
        assert!(pins.known().is_none(), "an unknown list stays unknown until it is written afresh");

        let mut pins = Pins::none();
        pins.note(3, false, &pinned(Val::Bool(true)));
        assert!(pins.known().is_none());
    }

    #[test]
    fn doubles_are_never_the_same_pin_so_they_fill_the_list() {
        let mut pins = Pins::none();
        for _ in 0..=MOST {
            pins.note(3, true, &pinned(Val::Double(0.5)));
        }
        assert!(pins.known().is_none());
    }

    #[test]
    fn seen_keeps_a_list_per_stream() {
        let mut seen = Seen::new(2);
        seen.note(1, 5, true, &pinned(Val::Bool(false)));
        assert_eq!(seen.of(0).map(<[_]>::len), Some(0));
        assert_eq!(seen.of(1).map(<[_]>::len), Some(1));
        seen.set(1, Pins::none());
        assert_eq!(seen.of(1).map(<[_]>::len), Some(0));
        assert!(Seen::unknown(2).of(0).is_none());
        assert!(seen.of(7).is_none(), "a stream the shape does not know");
    }
}
