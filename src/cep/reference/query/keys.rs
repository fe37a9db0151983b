//! The keys a query reads off an event: its group's or view's text key ([`key_of`], [`view_key`]), its place in a
//! keyed view as a state key ([`view_state_key`]), how long a time window keeps it ([`time_window`]), its timestamp in
//! an externally timed one ([`timestamp`], [`expires_before`]), and how many events of its key a first-event view let
//! in ([`Admitted`]).

use std::collections::HashMap;

use foldhash::fast::RandomState;

use crate::cep::plan::{PlanExpr, WindowSpec};
use crate::cep::runtime::eval::{Scope, eval};
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::{Row, Val};

/// How long rows stay in a time window, alone or per group (`std:groupwin(k).win:time(d)`).
pub fn time_window(window: &WindowSpec) -> Option<u64> {
    match window {
        WindowSpec::Time { millis } => Some(*millis),
        WindowSpec::Grouped { inner, .. } => time_window(inner),
        _ => None,
    }
}

/// `event`'s timestamp in `win:ext_timed` ([`stamp_of`]).
pub fn timestamp(stamp: &PlanExpr, label: &str, event: &Row, vars: &Row) -> Option<i64> {
    stamp_of(&eval(stamp, &Scope::new(&[(label, event)], vars, None)))
}

/// A timestamp's value in `win:ext_timed`: a number as Esper's `Number.longValue()` reads it (a double truncated), a
/// date its epoch milliseconds; `None` when null, and such an event is kept out of the view: Esper's fails on it.
pub fn stamp_of(value: &Val) -> Option<i64> {
    match value {
        Val::Date(millis) => Some(*millis),
        other => other.as_long(),
    }
}

/// The timestamp before which an event stamped `newest` pushes rows out of a `win:ext_timed` window of `millis`:
/// Esper's `timestamp - delta + 1`, in Java's wrapping arithmetic.
pub fn expires_before(newest: i64, millis: u64) -> i64 {
    newest.wrapping_sub(millis as i64).wrapping_add(1)
}

/// How long after `oldest` the period it is in ends, periods of `millis` counting from `reference` (before or after
/// it): Esper's `deltaAddWReference` of a constant period, in Java's arithmetic (a quotient truncated toward zero;
/// from a reference in the future one period less), which `win:ext_timed_batch` compares an arrival's timestamp
/// against. The answer is in `1..=millis`.
pub fn period_left(oldest: i64, reference: i64, millis: i64) -> i64 {
    let mut n = oldest.wrapping_sub(reference) / millis;
    if reference > oldest {
        n = n.wrapping_sub(1);
    }
    match reference.wrapping_add(n.wrapping_add(1).wrapping_mul(millis)).wrapping_sub(oldest) {
        0 => millis,
        left => left,
    }
}

/// Where an externally timed batch (`win:ext_timed_batch`) stands: the millisecond its periods count from, once known,
/// and the timestamp of the oldest event it collects, while it collects one.
#[derive(Debug, Default, Clone, Copy)]
pub struct StampedBatch {
    reference: Option<i64>,
    oldest: Option<i64>,
}

impl StampedBatch {
    /// Whether an event stamped `at` releases the batch before it joins the next one: the batch holds an event, and
    /// `at` reaches the end of the period its oldest event is in ([`period_left`]; Esper's `ExternallyTimedBatchView`).
    /// The periods of `millis` count from `reference`, else from the first event's timestamp. The event is the oldest
    /// of the batch it joins if that is empty.
    pub fn releases(&mut self, at: i64, millis: i64, reference: Option<i64>) -> bool {
        let reference = *self.reference.get_or_insert(reference.unwrap_or(at));
        let due = self.oldest.is_some_and(|oldest| at.wrapping_sub(oldest) >= period_left(oldest, reference, millis));
        if due || self.oldest.is_none() {
            self.oldest = Some(at);
        }
        due
    }
}

/// The text key of `exprs` over `event` seen as `label`.
pub fn key_of(exprs: &[PlanExpr], label: &str, event: &Row, vars: &Row) -> String {
    let binding = [(label, event)];
    let scope = Scope::new(&binding, vars, None);
    match exprs {
        // The common single key needs no joining (and no second copy).
        [one] => eval(one, &scope).key(),
        _ => exprs.iter().map(|e| eval(e, &scope).key()).collect::<Vec<_>>().join("\u{1f}"),
    }
}

pub fn view_key(window: &WindowSpec, label: &str, event: &Row, vars: &Row) -> String {
    match window {
        WindowSpec::Unique { keys } | WindowSpec::FirstUnique { keys } => key_of(keys, label, event, vars),
        WindowSpec::Grouped { keys, inner } => {
            format!("{}\u{1e}{}", key_of(keys, label, event, vars), view_key(inner, label, event, vars))
        }
        _ => String::new(),
    }
}

/// The key of `event`'s place in a keyed view as a state key ([`key`]): a `std:unique` key by [`key::of_all`], so a
/// text key is not formatted; a grouped view's composite key as [`view_key`] forms it; the empty key otherwise.
pub fn view_state_key(window: Option<&WindowSpec>, label: &str, event: &Row, vars: &Row) -> Key {
    match window {
        Some(WindowSpec::Unique { keys } | WindowSpec::FirstUnique { keys }) => {
            key::of_all(keys, &Scope::new(&[(label, event)], vars, None))
        }
        Some(window @ WindowSpec::Grouped { .. }) => view_key(window, label, event, vars).into(),
        _ => Key::default(),
    }
}

/// How many events of each view key a first-event view (`win:firstlength(n)`, `std:firstunique(k)`, alone or under
/// `std:groupwin`) has let in. It only grows, as the view does: nothing leaves a first-event view.
#[derive(Debug, Default)]
pub struct Admitted(HashMap<Key, u64, RandomState>);

impl Admitted {
    /// Whether one more event of view key `key` gets in when `limit` of a key do, counting it if so.
    pub fn admits(&mut self, limit: u64, key: Key) -> bool {
        let seen = self.0.entry(key).or_default();
        let admitted = *seen < limit;
        *seen += u64::from(admitted);
        admitted
    }
}

#[cfg(test)]
mod tests {
    use super::period_left;

    /// Esper's own examples in `ExprTimePeriodEvalDeltaConstGivenDelta.deltaAddWReference`, a reference in the past
    /// and one in the future, and the edges: an oldest event on a period's start, and one a whole number of periods
    /// before a future reference (both a whole period left, not none).
    #[test]
    fn the_period_left_counts_from_the_reference_either_side() {
        assert_eq!(period_left(2300, 1000, 500), 200);
        assert_eq!(period_left(2300, 4200, 500), 400);
        assert_eq!(period_left(1500, 1000, 500), 500);
        assert_eq!(period_left(2000, 3000, 500), 500);
        assert_eq!(period_left(-1, 0, 60_000), 1);
        // Java's arithmetic wraps rather than failing, whatever timestamps an event carries.
        assert_eq!(period_left(i64::MIN, i64::MAX, 1), 1);
        assert_eq!(period_left(i64::MAX, i64::MIN, 1), 1);
    }
}
