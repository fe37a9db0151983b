//! What a statement reads of the events before the one arriving: `prior` (`runtime::prior`) and `prev` and its kin
//! (`runtime::previous`), together ([`History`]), so that a statement reading neither pays one test an event.
//!
//! The previous-event functions read the view's window, whose panes keep no events, so the statement keeps its own
//! copy of the window's events ([`PrevWindow`]), by `std:groupwin` key (the one empty key without it): the last `n`
//! of a length window, all of a keep-all window, and of a time window those that arrived in its last `d`. A time
//! window's events leave in arrival order, across keys, at the view's timers, which let the view's go (so nothing
//! outlives the last one), and as an arrival finds them due (it comes after the timers of its millisecond): what an
//! arrival reads is what the view holds. Of `win:ext_timed`, the events each arrival leaves in: it pushes out those
//! stamped before its [`expires_before`], as the view's does. Of `win:time_accum`, a key's events all leave at the
//! view's timer once the key was quiet for its period. Batch windows read their batches (`batch`).

use std::collections::{HashMap, VecDeque};

use foldhash::fast::RandomState;

use crate::cep::plan::{StreamInput, WindowSpec};
use crate::cep::reference::query::expires_before;
use crate::cep::runtime::Row;
use crate::cep::runtime::key::Key;
use crate::cep::runtime::previous::Prevs;
use crate::cep::runtime::prior::PriorBuffer;

/// The `prior` values of the events the view posts, and the events the previous-event functions read, as the view's
/// window holds them: of a statement that reads either.
#[derive(Debug)]
pub(super) struct History {
    priors: Option<PriorBuffer>,
    prevs: Option<PrevWindow>,
}

impl History {
    /// What a statement over `input` reads of the events before; `None` when it reads nothing.
    pub fn of(input: &StreamInput) -> Option<Self> {
        let (priors, prevs) = (PriorBuffer::of(input), PrevWindow::of(input));
        (priors.is_some() || prevs.is_some()).then_some(History { priors, prevs })
    }

    /// `row` arriving at `now`, in the view's window of the key `key` reads: answers it as the statement reads it
    /// (with its priors and the previous-event functions set) and as the view keeps it (those null). Kept out of the
    /// arrival path it branches from, which most statements take without it: inlined, the floor's worker ran 5
    /// instructions more an event (`benches/results/cep.md`, seventy-seventh session).
    #[inline(never)]
    pub fn post(&mut self, (now, stamp): (i64, Option<i64>), key: impl FnOnce(&Row) -> Key, row: &Row) -> (Row, Row) {
        let posted = match self.priors.as_mut() {
            Some(priors) => priors.post(row),
            None => row.clone(),
        };
        match self.prevs.as_mut() {
            Some(window) => window.arrive((now, stamp), key(&posted), &posted),
            None => (posted.clone(), posted),
        }
    }

    /// How many events the previous-event functions' window holds, over every key.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.prevs.as_ref().map_or(0, |w| w.keys.values().map(VecDeque::len).sum())
    }

    /// At the view's timer at `now`: a time window's events due by then leave, as the view's do.
    pub fn expire(&mut self, now: i64) {
        if let Some(window) = self.prevs.as_mut() {
            window.expire(now);
        }
    }
}

/// How long the window keeps an event.
#[derive(Debug, Clone, Copy)]
enum Keeps {
    Last(usize),
    Millis(i64),
    /// `win:ext_timed`'s period.
    Stamped(u64),
    /// `win:time_accum`'s: a key's events all leave once it passes without an arrival of the key.
    Quiet(i64),
    All,
}

#[derive(Debug)]
struct PrevWindow {
    prevs: Prevs,
    keeps: Keeps,
    /// Each key's events in the window, oldest first.
    keys: HashMap<Key, VecDeque<Row>, RandomState>,
    /// A time window's events, as the millisecond each arrived and its key, oldest first.
    arrivals: VecDeque<(i64, Key)>,
    /// `win:ext_timed`: each key's events' timestamps, in step with `keys`.
    stamps: HashMap<Key, VecDeque<i64>, RandomState>,
    /// `win:time_accum`: the millisecond of each key's latest arrival.
    latest: HashMap<Key, i64, RandomState>,
}

fn keeps(window: &WindowSpec) -> Option<Keeps> {
    Some(match window {
        WindowSpec::Length { count } => Keeps::Last((*count).max(1) as usize),
        WindowSpec::Time { millis } => Keeps::Millis(*millis as i64),
        WindowSpec::ExtTimed { millis, .. } => Keeps::Stamped(*millis),
        WindowSpec::TimeAccum { millis } => Keeps::Quiet(*millis as i64),
        WindowSpec::KeepAll => Keeps::All,
        WindowSpec::Grouped { inner, .. } => keeps(inner)?,
        _ => return None,
    })
}

impl PrevWindow {
    /// The window of a statement over `input` that reads the previous-event functions off a window of events
    /// arriving one by one; `None` for any other.
    pub fn of(input: &StreamInput) -> Option<Self> {
        let keeps = keeps(input.window.as_ref()?)?;
        let prevs = Prevs::of(input)?;
        let (keys, arrivals, stamps, latest) =
            (HashMap::default(), VecDeque::new(), HashMap::default(), HashMap::default());
        Some(PrevWindow { prevs, keeps, keys, arrivals, stamps, latest })
    }

    /// `row` arriving at `now` (stamped `stamp`, in `win:ext_timed`) into the window of `key`: answers it with the
    /// functions read off that window once it is in, and as the window keeps it, for its remove stream (the functions
    /// null).
    pub fn arrive(&mut self, (now, stamp): (i64, Option<i64>), key: Key, row: &Row) -> (Row, Row) {
        self.expire(now);
        match self.keeps {
            Keeps::Millis(_) => self.arrivals.push_back((now, key.clone())),
            Keeps::Quiet(_) => {
                self.arrivals.push_back((now, key.clone()));
                self.latest.insert(key.clone(), now);
            }
            _ => {}
        }
        let expired = match (self.keeps, stamp) {
            (Keeps::Stamped(millis), Some(stamp)) => {
                let stamps = self.stamps.entry(key.clone()).or_default();
                stamps.push_back(stamp);
                let before = expires_before(stamp, millis);
                let expired = stamps.iter().take_while(|at| **at < before).count();
                stamps.drain(..expired);
                expired
            }
            _ => 0,
        };
        let kept = self.prevs.nulled(row);
        let events = self.keys.entry(key).or_default();
        events.push_back(kept.clone());
        if let Keeps::Last(n) = self.keeps
            && events.len() > n
        {
            events.pop_front();
        }
        events.drain(..expired);
        let len = events.len();
        (self.prevs.read(row, |i| &events[i], len, len - 1), kept)
    }

    /// Lets go a time window's events due by `now`, and `win:time_accum`'s of every key quiet for its period by then;
    /// a key left with none is forgotten.
    fn expire(&mut self, now: i64) {
        let millis = match self.keeps {
            Keeps::Millis(millis) => millis,
            Keeps::Quiet(millis) => return self.expire_quiet(now, millis),
            _ => return,
        };
        while let Some((_, key)) = self.arrivals.front().filter(|(at, _)| *at + millis <= now) {
            if let Some(events) = self.keys.get_mut(key) {
                events.pop_front();
                if events.is_empty() {
                    self.keys.remove(key);
                }
            }
            self.arrivals.pop_front();
        }
    }

    /// `win:time_accum`: the events of each key whose latest arrival is `millis` before `now` leave, all of them.
    fn expire_quiet(&mut self, now: i64, millis: i64) {
        while let Some((at, key)) = self.arrivals.front().filter(|(at, _)| *at + millis <= now) {
            // An arrival of the key after this one put its leaving off.
            if self.latest.get(key) == Some(at) {
                self.keys.remove(key);
                self.latest.remove(key);
            }
            self.arrivals.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::plan::{Prev, PrevKind};
    use crate::cep::runtime::Val;

    fn time_window(millis: u64) -> History {
        let input = StreamInput {
            stream: "S".into(),
            label: "S".into(),
            filter: None,
            window: Some(WindowSpec::Time { millis }),
            named_window: false,
            priors: Vec::new(),
            prevs: vec![Prev::new(PrevKind::Count, 0, "x".into())],
        };
        History::of(&input).expect("a statement reading prevcount")
    }

    fn count(history: &mut History, now: i64) -> Val {
        let row: Row = [("x", Val::Int(now))].into_iter().collect();
        let (read, kept) = history.post((now, None), |_| Key::default(), &row);
        assert_eq!(kept.get("prevcount(x)"), Some(&Val::Null), "the view keeps it for the remove stream");
        read.get("prevcount(x)").cloned().expect("set")
    }

    #[test]
    fn a_time_windows_events_leave_at_its_timers_and_before_an_arrival_then() {
        let mut history = time_window(1000);
        assert_eq!([0, 500, 1000].map(|now| count(&mut history, now)), [1, 2, 2].map(Val::Int));
        history.expire(1499);
        assert_eq!(history.prevs.as_ref().map(|w| w.arrivals.len()), Some(2));
        history.expire(2000);
        let window = history.prevs.as_ref().expect("a window");
        assert!(window.arrivals.is_empty() && window.keys.is_empty(), "nothing outlives the view's last timer");
    }
}
