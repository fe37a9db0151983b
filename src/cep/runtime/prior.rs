//! Esper's `prior(n, x)` (its prior view, `PriorEventView`, which sits after the stream's last view): each event the
//! view posts is given, as the properties its statement reads ([`Prior`]), the values of the events posted `n`
//! before it, counted over every event posted, those failing `WHERE` included. The values are fixed then, so a row
//! the view lets go later reads what it arrived with, as Esper's buffers map each event to its priors. Both runtimes
//! post an event here where their view takes it in.

use std::collections::VecDeque;

use super::{Row, Val};
use crate::cep::plan::{Prior, StreamInput};
use crate::cep::runtime::value::Name;

/// The last events posted, as much of each as the priors read.
#[derive(Debug)]
pub struct PriorBuffer {
    priors: Box<[Prior]>,
    /// The properties the priors read, each once.
    columns: Box<[Name]>,
    /// Where each prior's property is in `columns`.
    column_of: Box<[usize]>,
    /// The values of `columns` of the last `depth` events posted, the latest last.
    past: VecDeque<Box<[Val]>>,
    depth: usize,
}

impl PriorBuffer {
    /// The priors of a statement over `input`; `None` when it reads none.
    pub fn of(input: &StreamInput) -> Option<Self> {
        if input.priors.is_empty() {
            return None;
        }
        let mut columns: Vec<Name> = Vec::new();
        let mut column_of = Vec::with_capacity(input.priors.len());
        for prior in &input.priors {
            let at = columns.iter().position(|c| *c == prior.column).unwrap_or_else(|| {
                columns.push(prior.column.clone());
                columns.len() - 1
            });
            column_of.push(at);
        }
        let depth = input.priors.iter().map(|p| p.n as usize).max().unwrap_or(0);
        Some(PriorBuffer {
            priors: input.priors.clone().into(),
            columns: columns.into(),
            column_of: column_of.into(),
            past: VecDeque::new(),
            depth,
        })
    }

    /// The same priors over no event yet.
    pub fn emptied(&self) -> Self {
        PriorBuffer {
            priors: self.priors.clone(),
            columns: self.columns.clone(),
            column_of: self.column_of.clone(),
            past: VecDeque::new(),
            depth: self.depth,
        }
    }

    /// `event` as the view posts it: with each prior's value set, that of the event `n` posts back (its own at 0,
    /// null before there were `n`). The event is then one of those the next ones count back over.
    pub fn post(&mut self, event: &Row) -> Row {
        let own: Box<[Val]> = self.columns.iter().map(|c| event.get(c).cloned().unwrap_or_default()).collect();
        let mut posted = event.clone();
        let props = posted.edit(self.priors.len());
        for (prior, column) in self.priors.iter().zip(&self.column_of) {
            let value = match prior.n as usize {
                0 => Some(&own[*column]),
                n => self.past.len().checked_sub(n).map(|at| &self.past[at][*column]),
            };
            props.insert(prior.name.clone(), value.cloned().unwrap_or_default());
        }
        if self.depth > 0 {
            if self.past.len() == self.depth {
                self.past.pop_front();
            }
            self.past.push_back(own);
        }
        posted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(priors: &[(u32, &str)]) -> StreamInput {
        StreamInput {
            stream: "S".into(),
            label: "S".into(),
            filter: None,
            window: None,
            named_window: false,
            priors: priors.iter().map(|(n, column)| Prior::new(*n, (*column).into())).collect(),
            prevs: Vec::new(),
        }
    }

    fn event(symbol: &str, price: f64) -> Row {
        [("symbol", Val::String(symbol.into())), ("price", Val::Double(price))].into_iter().collect()
    }

    fn read(row: &Row, name: &str) -> Val {
        row.get(name).cloned().expect("the prior is set")
    }

    #[test]
    fn each_posted_event_reads_the_events_posted_n_before_it() {
        let mut priors = PriorBuffer::of(&input(&[(0, "symbol"), (2, "symbol"), (1, "price")])).expect("priors");
        let posted: Vec<Row> = [("A", 1.0), ("B", 2.0), ("C", 3.0), ("D", 4.0)]
            .iter()
            .map(|(symbol, price)| priors.post(&event(symbol, *price)))
            .collect();
        let shown: Vec<(Val, Val, Val)> = posted
            .iter()
            .map(|r| (read(r, "prior(0, symbol)"), read(r, "prior(2, symbol)"), read(r, "prior(1, price)")))
            .collect();
        let text = |s: &str| Val::String(s.into());
        assert_eq!(
            shown,
            [
                (text("A"), Val::Null, Val::Null),
                (text("B"), Val::Null, Val::Double(1.0)),
                (text("C"), text("A"), Val::Double(2.0)),
                (text("D"), text("B"), Val::Double(3.0)),
            ]
        );
        assert_eq!(priors.past.len(), 2, "only as many events as the deepest prior are kept");
    }

    #[test]
    fn a_statement_without_priors_posts_nothing_here() {
        assert!(PriorBuffer::of(&input(&[])).is_none());
    }
}
