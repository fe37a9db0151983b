//! Esper's previous-event functions (`prev`, `prevtail`, `prevcount`) read off a data window: each is
//! set on an arriving event as the property its statement reads ([`Prev`]), from the events of its window once it is
//! in (of its group's, under `std:groupwin`), or, of a batch window, from the batch it is released in. An event
//! leaving the view reads them as null, as Esper evaluates them on the remove stream. Both runtimes keep the windows
//! and call [`Prevs::read`] with them.

use super::{Row, Val};
use crate::cep::plan::{Prev, PrevKind, StreamInput};

/// The previous-event functions a statement reads.
#[derive(Debug, Clone)]
pub struct Prevs {
    prevs: Box<[Prev]>,
}

impl Prevs {
    /// Those of a statement over `input`; `None` when it reads none.
    pub fn of(input: &StreamInput) -> Option<Self> {
        (!input.prevs.is_empty()).then(|| Prevs { prevs: input.prevs.clone().into() })
    }

    /// `event` with each function read off `window`, the `len` events its window (or batch) holds, oldest first,
    /// `event` the one at `at`: `prev(n)` the event `n` before it (null past the window's or the batch's start),
    /// `prevtail(n)` the `n`-th oldest, `prevcount` their number; for an index that is not a constant, the values
    /// `prev` reads, from the event's back, and those `prevtail` reads, oldest first, as arrays.
    pub fn read<'w>(&self, event: &Row, window: impl Fn(usize) -> &'w Row, len: usize, at: usize) -> Row {
        let value = |i: usize, prev: &Prev| window(i).get(&prev.column).cloned().unwrap_or_default();
        let mut read = event.clone();
        let props = read.edit(self.prevs.len());
        for prev in self.prevs.iter() {
            let n = prev.n as usize;
            let found = match prev.kind {
                PrevKind::Prev => at.checked_sub(n).map_or(Val::Null, |i| value(i, prev)),
                PrevKind::Tail if n < len => value(n, prev),
                PrevKind::Tail => Val::Null,
                PrevKind::Count => Val::Int(len as i64),
                PrevKind::PrevAll => Val::Array((0..=at).rev().map(|i| value(i, prev)).collect()),
                PrevKind::TailAll => Val::Array((0..len).map(|i| value(i, prev)).collect()),
            };
            props.insert(prev.name.clone(), found);
        }
        read
    }

    /// `event` as the remove stream reads it: each function null.
    pub fn nulled(&self, event: &Row) -> Row {
        let mut nulled = event.clone();
        let props = nulled.edit(self.prevs.len());
        for prev in self.prevs.iter() {
            props.insert(prev.name.clone(), Val::Null);
        }
        nulled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::plan::Prior;

    fn prevs(read: &[(PrevKind, u32)]) -> Prevs {
        let input = StreamInput {
            stream: "S".into(),
            label: "S".into(),
            filter: None,
            window: None,
            named_window: false,
            priors: Vec::<Prior>::new(),
            prevs: read.iter().map(|(kind, n)| Prev::new(*kind, *n, "symbol".into())).collect(),
        };
        Prevs::of(&input).expect("prevs")
    }

    fn event(symbol: &str) -> Row {
        [("symbol", Val::String(symbol.into()))].into_iter().collect()
    }

    fn shown(row: &Row) -> Vec<String> {
        row.iter().filter(|(name, _)| name.contains('(')).map(|(name, value)| format!("{name}={value:?}")).collect()
    }

    #[test]
    fn each_function_reads_the_window_around_the_event() {
        let read = prevs(&[(PrevKind::Prev, 1), (PrevKind::Tail, 1), (PrevKind::Count, 0)]);
        let window: Vec<Row> = ["A", "B", "C"].into_iter().map(event).collect();
        let at = |i: usize| &window[i];
        let latest = read.read(&window[2], at, 3, 2);
        let text = |s: &str| Val::String(s.into());
        assert_eq!(latest.get("prev(1, symbol)"), Some(&text("B")));
        assert_eq!(latest.get("prevtail(1, symbol)"), Some(&text("B")));
        assert_eq!(latest.get("prevcount(symbol)"), Some(&Val::Int(3)));
        let first = read.read(&window[0], at, 3, 0);
        assert_eq!(first.get("prev(1, symbol)"), Some(&Val::Null), "a batch's first event has nothing before it");
        assert_eq!(first.get("prevcount(symbol)"), Some(&Val::Int(3)), "the batch's events, all of them");
    }

    #[test]
    fn past_the_window_and_on_the_remove_stream_they_are_null() {
        let read = prevs(&[(PrevKind::Prev, 2), (PrevKind::Tail, 2), (PrevKind::Count, 0)]);
        let window: Vec<Row> = ["A", "B"].into_iter().map(event).collect();
        let latest = read.read(&window[1], |i| &window[i], 2, 1);
        assert_eq!(latest.get("prev(2, symbol)"), Some(&Val::Null));
        assert_eq!(latest.get("prevtail(2, symbol)"), Some(&Val::Null));
        let leaving = read.nulled(&latest);
        let mut nulls = shown(&leaving);
        nulls.sort();
        assert_eq!(nulls, ["prev(2, symbol)=Null", "prevcount(symbol)=Null", "prevtail(2, symbol)=Null"]);
    }
}
