//! What a statement reads of the events before the one arriving: `prior` (`runtime::prior`) and `prev` and its kin
//! (`runtime::previous`), together ([`History`]), so that a statement reading neither pays one test an event.
//!
//! The previous-event functions read the view's window, whose panes keep no events, so the statement keeps its own
//! copy of the window's events ([`PrevWindow`]), by `std:groupwin` key (the one empty key without it): the last `n`
//! of a length window, all of a keep-all window, and of a time window those that arrived in its last `d`. A time
//! window's events leave in arrival order, across keys, as the arrivals find them due; the view lets them go at
//! their timers, and an arrival comes after the timers of its millisecond, so what an arrival reads is what the view
//! holds. Batch windows read their batches (`batch`).

use std::collections::{HashMap, VecDeque};

use foldhash::fast::RandomState;

use crate::cep::plan::{StreamInput, WindowSpec};
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
    /// (with its priors and the previous-event functions set) and as the view keeps it (those null).
    pub fn post(&mut self, now: i64, key: impl FnOnce(&Row) -> Key, row: &Row) -> (Row, Row) {
        let posted = match self.priors.as_mut() {
            Some(priors) => priors.post(row),
            None => row.clone(),
        };
        match self.prevs.as_mut() {
            Some(window) => window.arrive(now, key(&posted), &posted),
            None => (posted.clone(), posted),
        }
    }
}

/// How long the window keeps an event.
#[derive(Debug, Clone, Copy)]
enum Keeps {
    Last(usize),
    Millis(i64),
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
}

fn keeps(window: &WindowSpec) -> Option<Keeps> {
    Some(match window {
        WindowSpec::Length { count } => Keeps::Last((*count).max(1) as usize),
        WindowSpec::Time { millis } => Keeps::Millis(*millis as i64),
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
        Some(PrevWindow { prevs, keeps, keys: HashMap::default(), arrivals: VecDeque::new() })
    }

    /// `row` arriving at `now` into the window of `key`: answers it with the functions read off that window once it is
    /// in, and as the window keeps it, for its remove stream (the functions null).
    pub fn arrive(&mut self, now: i64, key: Key, row: &Row) -> (Row, Row) {
        if let Keeps::Millis(millis) = self.keeps {
            self.expire(now - millis);
            self.arrivals.push_back((now, key.clone()));
        }
        let kept = self.prevs.nulled(row);
        let events = self.keys.entry(key).or_default();
        events.push_back(kept.clone());
        if let Keeps::Last(n) = self.keeps
            && events.len() > n
        {
            events.pop_front();
        }
        let len = events.len();
        (self.prevs.read(row, |i| &events[i], len, len - 1), kept)
    }

    /// Lets go the events that arrived at or before `until`; a key left with none is forgotten.
    fn expire(&mut self, until: i64) {
        while let Some((_, key)) = self.arrivals.front().filter(|(at, _)| *at <= until) {
            if let Some(events) = self.keys.get_mut(key) {
                events.pop_front();
                if events.is_empty() {
                    self.keys.remove(key);
                }
            }
            self.arrivals.pop_front();
        }
    }
}
