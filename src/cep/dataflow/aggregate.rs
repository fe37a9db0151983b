//! Running aggregates of one group: counts, sums and sums of squares maintained as rows enter and leave the window, an
//! ordered multiset of values for `min`, `max`, `median` and `avedev`, and the values by arrival number for `first` and
//! `last` (a row leaves by its number, from wherever it is), the newest values for `nth`, and for `rate` the timestamps
//! of the newest row and of the one that left last (the planner takes it where rows leave in order). Reading a group's
//! aggregates is O(number of aggregates), never a scan of the window (the reference evaluator recomputes from the rows
//! instead), but for `median` and `avedev`, which walk their group's distinct values, as Esper's own walk theirs.
//!
//! Sums of doubles are maintained by adding and subtracting, so they can differ from a sum recomputed in window order
//! in the last bits; a group's sums restart from exact zero whenever it has no value left. A value that is not finite
//! (NaN, an infinity) is counted rather than summed, so that once it leaves the window the sums are as if it had never
//! come: the aggregates are those of the values in the window, as the reference computes them. Esper's running sums
//! keep a NaN after it left (`TestGroupByMedianAndDeviation.testSumOneView`); ours do not.
//!
//! Hand-written rather than differential-dataflow's `reduce` over insertions retracted at `t + d`: Esper's output
//! policies, HAVING and the last event per group need a hand-written operator around the aggregates in any case, and
//! it is the faster. `benches/window.rs` (2026-11-23; `benches/results/window.md`, 2 shared cores, others compiling)
//! ran the floor job's aggregation (100 floors, 100,000 events in the 10-minute window, one timely worker, same typed
//! events) three ways. At 10 / 100 / 1,000 events per epoch, this structure as one timely operator did 1.3 M / 5.6 M /
//! 24.8 M events/s; differential 0.26 `reduce` 3.7 k / 7.2 k / 34.8 k (346× / 778× / 713× slower), and differential
//! `count` of (sum, count) differences 8.7 k / 48 k / 1.5 M (149× / 117× / 16× slower). Differential's epoch costs in
//! proportion to the window, not the batch: each pending retraction waits in the arrangement's batcher, which goes
//! through all of them whenever the frontier moves (half the profile), and `reduce` recomputes a changed group from
//! all its values. The whole engine on that statement did 133 k / 115 k / 179 k events/s, ahead of both differential
//! forms at the service's small batches (one epoch per millisecond of arrivals).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::cep::plan::{AggregateCall, AggregateFunction, DataType};
use crate::cep::runtime::Val;
use crate::cep::runtime::eval::{over_no_rows, rate, rate_point};

/// A value ordered for `min`/`max` ([`Val::extreme_order`]).
#[derive(Debug, Clone)]
struct Ordered(Val);

impl PartialEq for Ordered {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ordered {}

impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.extreme_order(&other.0)
    }
}

/// What an aggregate keeps of its values beyond their count: `sum` of `int` and `long` an exact integer sum, `sum`
/// of other numbers and `avg` a sum, `stddev` a sum and a sum of squares, `min`, `max`, `median` and `avedev` the
/// values, `first` and `last` the values by arrival, the ever forms (`firstever`, `minever`, `countever`, ...) the one
/// value, which rows leaving do not change, and `rate` a sum and two timestamps. Keeping only that spares
/// `bench floor`'s `avg` an integer conversion and a square, 20 instructions an event (`benches/results/cep.md`,
/// seventieth session).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Keeps {
    #[default]
    Count,
    IntSum,
    Sum,
    Squares,
    Values,
    /// Each value by the number of the row it arrived with: `first(x, n)`, `last(x, n)`.
    ByArrival,
    /// The first value alone, null too.
    FirstEver,
    /// The latest value alone, null too.
    LastEver,
    /// The newest values, null too, as many as the count: `nth(x, n)` where no row leaves keeps `n + 1`.
    Newest(u32),
    /// The least value so far.
    MinEver,
    /// The greatest value so far.
    MaxEver,
    /// How many values so far.
    CountEver,
    /// Whether a value left (`leaving()`).
    Leaving,
    /// `rate`: the amounts' sum, the newest row's timestamp, and that of the row that left last.
    Rate,
}

impl Keeps {
    /// Whether the function reads one row's value, null too, rather than a summary of the non-null ones.
    fn holds_rows(self) -> bool {
        matches!(self, Keeps::ByArrival | Keeps::FirstEver | Keeps::LastEver | Keeps::Newest(_))
    }

    /// What `call` keeps: its values, when it reads each distinct one once.
    fn of(call: &AggregateCall) -> Self {
        match call.distinct {
            true => Keeps::Values,
            false => Keeps::plain(call),
        }
    }

    /// What `call` keeps of each value it reads.
    fn plain(call: &AggregateCall) -> Self {
        match call.function {
            AggregateFunction::Count => Keeps::Count,
            AggregateFunction::Sum if matches!(call.ty, DataType::Int | DataType::Long) => Keeps::IntSum,
            AggregateFunction::Sum | AggregateFunction::Avg => Keeps::Sum,
            AggregateFunction::Stddev => Keeps::Squares,
            AggregateFunction::Min | AggregateFunction::Max | AggregateFunction::Median | AggregateFunction::Avedev => {
                Keeps::Values
            }
            AggregateFunction::First(_) | AggregateFunction::Last(_) => Keeps::ByArrival,
            AggregateFunction::FirstEver => Keeps::FirstEver,
            AggregateFunction::LastEver => Keeps::LastEver,
            AggregateFunction::Nth(n) => Keeps::Newest(n.saturating_add(1)),
            AggregateFunction::MinEver => Keeps::MinEver,
            AggregateFunction::MaxEver => Keeps::MaxEver,
            AggregateFunction::CountEver => Keeps::CountEver,
            AggregateFunction::Leaving => Keeps::Leaving,
            AggregateFunction::Rate => Keeps::Rate,
        }
    }
}

/// How many NaNs, positive and negative infinities a sum has had added and not removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Odd {
    nan: u32,
    up: u32,
    down: u32,
}

impl Odd {
    /// Counts `x`, which is not finite, in (`by` 1) or out (`by` -1).
    #[cold]
    #[inline(never)]
    fn count(&mut self, x: f64, by: i32) {
        let counter = match x {
            f64::INFINITY => &mut self.up,
            f64::NEG_INFINITY => &mut self.down,
            _ => &mut self.nan,
        };
        *counter = counter.wrapping_add_signed(by);
    }

    fn merge(&mut self, other: Odd, by: i32) {
        let scale = |n: u32| (n as i32).wrapping_mul(by);
        self.nan = self.nan.wrapping_add_signed(scale(other.nan));
        self.up = self.up.wrapping_add_signed(scale(other.up));
        self.down = self.down.wrapping_add_signed(scale(other.down));
    }

    /// What a sum of finite values `sum` and these is, as IEEE arithmetic has it in any order.
    fn sum(self, sum: f64) -> f64 {
        match self {
            Odd { nan: 0, up: 0, down: 0 } => sum,
            Odd { nan: 0, up: 0, .. } => f64::NEG_INFINITY,
            Odd { nan: 0, down: 0, .. } => f64::INFINITY,
            _ => f64::NAN,
        }
    }
}

/// One aggregate's running state.
#[derive(Debug, Clone, Default)]
struct Running {
    keeps: Keeps,
    /// Non-null values.
    n: i64,
    int_sum: i64,
    sum: f64,
    sum2: f64,
    /// The values summed that are not finite, which the sums leave out.
    odd: Odd,
    /// Values by order, with multiplicity; kept only for `min`, `max`, `median` and `avedev`.
    values: BTreeMap<Ordered, (Val, usize)>,
    /// Values by the number of the row they arrived with ([`Keeps::ByArrival`]), or by their own number in the order
    /// they came ([`Keeps::Newest`]).
    by_arrival: BTreeMap<u64, Val>,
    /// The value an ever form keeps, once it has one; `rate`'s, the timestamp of the row that left last.
    ever: Option<Val>,
    /// `rate`'s timestamp of the newest row.
    latest: i64,
}

impl Running {
    fn new(call: &AggregateCall) -> Self {
        Running { keeps: Keeps::of(call), ..Running::default() }
    }

    /// Adds `v`, the argument of the row numbered `seq` (in arrival order: the rows that may leave again are numbered
    /// apart). Inlined whole: out of line it cost `bench floor`'s worker 8 instructions an event more (cep.md,
    /// seventy-first session).
    #[inline(always)]
    fn add(&mut self, seq: u64, v: &Val) {
        if v.is_null() {
            if self.keeps.holds_rows() {
                self.hold(seq, v);
            }
            return;
        }
        self.n += 1;
        match self.keeps {
            Keeps::Count | Keeps::Leaving => {}
            Keeps::IntSum => self.int_sum = self.int_sum.wrapping_add(v.as_long().unwrap_or(0)),
            Keeps::Sum => match v.as_f64().unwrap_or(0.0) {
                x if x.is_finite() => self.sum += x,
                x => self.odd.count(x, 1),
            },
            Keeps::Squares => self.square(v.as_f64().unwrap_or(0.0), 1.0),
            Keeps::Values => self.count_value(v),
            Keeps::Rate => self.rate(v, 1),
            // Their `n` counts too, unread: testing for them before it cost `bench floor` 2 instructions an event.
            Keeps::ByArrival
            | Keeps::FirstEver
            | Keeps::LastEver
            | Keeps::Newest(_)
            | Keeps::MinEver
            | Keeps::MaxEver
            | Keeps::CountEver => self.hold(seq, v),
        }
    }

    /// Adds the value of a function reading one row ([`Keeps::holds_rows`], null too) or of an ever form; out of
    /// line, as such functions are rare.
    #[inline(never)]
    fn hold(&mut self, seq: u64, v: &Val) {
        match self.keeps {
            Keeps::ByArrival => {
                self.by_arrival.insert(seq, v.clone());
            }
            Keeps::FirstEver => {
                self.ever.get_or_insert_with(|| v.clone());
            }
            Keeps::LastEver => self.ever = Some(v.clone()),
            Keeps::Newest(kept) => self.keep_newest(kept, v),
            Keeps::MinEver | Keeps::MaxEver | Keeps::CountEver => self.keep_ever(v),
            Keeps::Count
            | Keeps::IntSum
            | Keeps::Sum
            | Keeps::Squares
            | Keeps::Values
            | Keeps::Leaving
            | Keeps::Rate => {}
        }
    }

    /// Keeps `v` as the newest of the `kept` newest values, numbered after the one before it.
    fn keep_newest(&mut self, kept: u32, v: &Val) {
        let next = self.by_arrival.last_key_value().map_or(0, |(number, _)| number + 1);
        self.by_arrival.insert(next, v.clone());
        if self.by_arrival.len() > kept as usize {
            self.by_arrival.pop_first();
        }
    }

    /// Takes `v` into what `minever` or `maxever` keeps, or counts one more for `countever`.
    fn keep_ever(&mut self, v: &Val) {
        let kept = match (self.keeps, self.ever.take()) {
            (Keeps::CountEver, before) => Val::Int(before.and_then(|n| n.as_long()).unwrap_or(0) + 1),
            (_, None) => v.clone(),
            (Keeps::MinEver, Some(least)) if v.extreme_order(&least) == Ordering::Less => v.clone(),
            (Keeps::MaxEver, Some(most)) if v.extreme_order(&most) == Ordering::Greater => v.clone(),
            (_, Some(kept)) => kept,
        };
        self.ever = Some(kept);
    }

    /// A row of `rate` enters (`by` 1) or leaves (`by` -1) with `v`, its argument: a row without a point
    /// ([`rate_point`]) is taken back out of the count its caller just made.
    #[inline(never)]
    fn rate(&mut self, v: &Val, by: i32) {
        let Some((stamp, amount)) = rate_point(v) else {
            self.n -= i64::from(by);
            return;
        };
        match amount.is_finite() {
            true => self.sum += f64::from(by) * amount,
            false => self.odd.count(amount, by),
        }
        match by {
            1 => self.latest = stamp,
            _ => self.ever = Some(Val::Int(stamp)),
        }
    }

    /// Adds `x` and its square to the sums (`sign` 1) or takes them out (`sign` -1), out of line as `stddev` is rare.
    #[inline(never)]
    fn square(&mut self, x: f64, sign: f64) {
        match x.is_finite() {
            true => (self.sum, self.sum2) = (self.sum + sign * x, self.sum2 + sign * x * x),
            false => self.odd.count(x, sign as i32),
        }
    }

    /// Out of line, so that [`Running::add`] of a sum is small enough to inline.
    #[inline(never)]
    fn count_value(&mut self, v: &Val) {
        self.values.entry(Ordered(v.clone())).or_insert_with(|| (v.clone(), 0)).1 += 1;
    }

    /// Takes out `v`, which the row numbered `seq` added. The ever forms, and `nth` where no row leaves, keep what
    /// they hold.
    fn remove(&mut self, seq: u64, v: &Val) {
        if v.is_null() {
            if self.keeps == Keeps::ByArrival {
                self.by_arrival.remove(&seq);
            }
            return;
        }
        self.n -= 1;
        match self.keeps {
            Keeps::Count => {}
            Keeps::IntSum => self.int_sum = self.int_sum.wrapping_sub(v.as_long().unwrap_or(0)),
            Keeps::Sum => match v.as_f64().unwrap_or(0.0) {
                x if x.is_finite() => self.sum -= x,
                x => self.odd.count(x, -1),
            },
            Keeps::Squares => self.square(v.as_f64().unwrap_or(0.0), -1.0),
            Keeps::Rate => self.rate(v, -1),
            Keeps::Values => {
                let key = Ordered(v.clone());
                if let Some(entry) = self.values.get_mut(&key) {
                    entry.1 -= 1;
                    if entry.1 == 0 {
                        self.values.remove(&key);
                    }
                }
            }
            Keeps::ByArrival => {
                self.by_arrival.remove(&seq);
            }
            Keeps::FirstEver
            | Keeps::LastEver
            | Keeps::Newest(_)
            | Keeps::MinEver
            | Keeps::MaxEver
            | Keeps::CountEver => {}
            Keeps::Leaving => self.ever = Some(Val::Bool(true)),
        }
        if self.n == 0 {
            (self.int_sum, self.sum, self.sum2) = (0, 0.0, 0.0);
        }
    }

    /// Adds what `part` holds, as [`Running::add`] would add each of its values.
    fn merge(&mut self, part: &Running) {
        self.n += part.n;
        self.int_sum = self.int_sum.wrapping_add(part.int_sum);
        self.sum += part.sum;
        self.sum2 += part.sum2;
        self.odd.merge(part.odd, 1);
        for (key, (value, count)) in &part.values {
            self.values.entry(key.clone()).or_insert_with(|| (value.clone(), 0)).1 += count;
        }
        match self.keeps {
            Keeps::Newest(kept) => part.by_arrival.values().for_each(|v| self.keep_newest(kept, v)),
            _ => self.by_arrival.extend(part.by_arrival.iter().map(|(seq, v)| (*seq, v.clone()))),
        }
        if self.keeps == Keeps::Rate && part.n > 0 {
            self.latest = part.latest;
        }
        match (self.keeps, &part.ever) {
            (Keeps::FirstEver, Some(first)) => {
                self.ever.get_or_insert_with(|| first.clone());
            }
            (Keeps::CountEver, Some(n)) => {
                let sum = self.ever.take().and_then(|m| m.as_long()).unwrap_or(0) + n.as_long().unwrap_or(0);
                self.ever = Some(Val::Int(sum));
            }
            (Keeps::MinEver | Keeps::MaxEver, Some(v)) => self.keep_ever(v),
            (_, Some(latest)) => self.ever = Some(latest.clone()),
            (_, None) => {}
        }
    }

    /// Removes what `part` holds, as [`Running::remove`] would remove each of its values.
    fn subtract(&mut self, part: &Running) {
        self.n -= part.n;
        self.int_sum = self.int_sum.wrapping_sub(part.int_sum);
        self.sum -= part.sum;
        self.sum2 -= part.sum2;
        self.odd.merge(part.odd, -1);
        if self.n == 0 {
            (self.int_sum, self.sum, self.sum2) = (0, 0.0, 0.0);
        }
        match self.keeps {
            Keeps::Leaving if part.n > 0 => self.ever = Some(Val::Bool(true)),
            // The part's rows leave in the order they came, the newest last.
            Keeps::Rate if part.n > 0 => self.ever = Some(Val::Int(part.latest)),
            _ => {}
        }
        for (key, (_, count)) in &part.values {
            if let Some(entry) = self.values.get_mut(key) {
                entry.1 = entry.1.saturating_sub(*count);
                if entry.1 == 0 {
                    self.values.remove(key);
                }
            }
        }
        if self.keeps == Keeps::ByArrival {
            for seq in part.by_arrival.keys() {
                self.by_arrival.remove(seq);
            }
        }
    }

    fn value(&self, call: &AggregateCall) -> Val {
        match call.distinct {
            true => self.distinct_value(call),
            false => self.plain_value(call.function),
        }
    }

    /// The aggregate over each distinct value once, as Esper's distinct aggregators hand their inner one a value
    /// only as it first enters and as its last copy leaves: read afresh from the values kept.
    fn distinct_value(&self, call: &AggregateCall) -> Val {
        let mut once = Running { keeps: Keeps::plain(call), ..Running::default() };
        self.values.values().for_each(|(value, _)| once.add(0, value));
        once.plain_value(call.function)
    }

    fn plain_value(&self, function: AggregateFunction) -> Val {
        let n = self.n;
        match function {
            AggregateFunction::Count => Val::Int(n),
            AggregateFunction::First(at) => self.by_arrival.values().nth(at as usize).cloned().unwrap_or_default(),
            AggregateFunction::Last(at) | AggregateFunction::Nth(at) => {
                self.by_arrival.values().rev().nth(at as usize).cloned().unwrap_or_default()
            }
            AggregateFunction::FirstEver
            | AggregateFunction::LastEver
            | AggregateFunction::MinEver
            | AggregateFunction::MaxEver => self.ever.clone().unwrap_or_default(),
            AggregateFunction::CountEver => self.ever.clone().unwrap_or(Val::Int(0)),
            AggregateFunction::Leaving => self.ever.clone().unwrap_or(Val::Bool(false)),
            AggregateFunction::Rate => match self.ever {
                Some(Val::Int(oldest)) => rate(self.odd.sum(self.sum), self.latest, oldest),
                _ => Val::Null,
            },
            _ if n == 0 => Val::Null,
            AggregateFunction::Sum if self.keeps == Keeps::IntSum => Val::Int(self.int_sum),
            AggregateFunction::Sum => Val::Double(self.odd.sum(self.sum)),
            AggregateFunction::Avg => Val::Double(self.odd.sum(self.sum) / n as f64),
            AggregateFunction::Stddev if n < 2 => Val::Null,
            // An infinity's deviation from the mean is NaN, as the reference's two passes find.
            AggregateFunction::Stddev if self.odd != Odd::default() => Val::Double(f64::NAN),
            AggregateFunction::Stddev => {
                let nf = n as f64;
                Val::Double(((self.sum2 - self.sum * self.sum / nf) / (nf - 1.0)).max(0.0).sqrt())
            }
            AggregateFunction::Min => self.values.first_key_value().map(|(_, (v, _))| v.clone()).unwrap_or_default(),
            AggregateFunction::Max => self.values.last_key_value().map(|(_, (v, _))| v.clone()).unwrap_or_default(),
            AggregateFunction::Median => self.median().map_or(Val::Null, Val::Double),
            AggregateFunction::Avedev => Val::Double(self.avedev()),
        }
    }

    /// The values as numbers, in order (every NaN last), each with how many times it counts.
    fn numbers(&self) -> impl Iterator<Item = (f64, usize)> + '_ {
        self.values.values().map(|(v, count)| (v.as_f64().unwrap_or(0.0), *count))
    }

    /// The number at `index` of the values in order, if there are that many.
    fn nth(&self, index: usize) -> Option<f64> {
        let mut before = 0;
        self.numbers()
            .find(|(_, count)| {
                before += count;
                index < before
            })
            .map(|(x, _)| x)
    }

    /// The middle value but NaN, which Esper's `median` leaves out; of an even count, the mean of the two middle ones.
    /// `None` when there is none.
    fn median(&self) -> Option<f64> {
        let n: usize = self.numbers().filter(|(x, _)| !x.is_nan()).map(|(_, count)| count).sum();
        match n {
            0 => None,
            _ if n.is_multiple_of(2) => Some((self.nth(n / 2 - 1)? + self.nth(n / 2)?) / 2.0),
            _ => self.nth(n / 2),
        }
    }

    /// The mean distance of the values from their mean; NaN of no values.
    fn avedev(&self) -> f64 {
        let n = self.numbers().map(|(_, count)| count as f64).sum::<f64>();
        let mean = self.numbers().map(|(x, count)| x * count as f64).sum::<f64>() / n;
        self.numbers().map(|(x, count)| count as f64 * (x - mean).abs()).sum::<f64>() / n
    }
}

/// The running aggregates of one group.
#[derive(Debug, Clone)]
pub struct Accumulators {
    /// Rows of the group that count (passed WHERE).
    rows: i64,
    running: Vec<Running>,
}

impl Accumulators {
    pub fn new(calls: &[AggregateCall]) -> Self {
        Accumulators { rows: 0, running: calls.iter().map(Running::new).collect() }
    }

    /// A row enters the group with its aggregate arguments evaluated (`Null` for `count(*)`), owned or borrowed:
    /// the row numbered `seq` among those that may leave the group again, in the order they arrive.
    #[inline(always)]
    pub fn add<V: Borrow<Val>>(&mut self, seq: u64, args: impl IntoIterator<Item = V>) {
        self.rows += 1;
        for (running, v) in self.running.iter_mut().zip(args) {
            running.add(seq, v.borrow());
        }
    }

    /// The row numbered `seq`, which entered with `args`, leaves the group.
    pub fn remove(&mut self, seq: u64, args: &[Val]) {
        self.rows -= 1;
        for (running, v) in self.running.iter_mut().zip(args) {
            running.remove(seq, v);
        }
    }

    /// Adds the rows `part` holds (with the same aggregates): one addition for rows that arrived together.
    pub fn merge(&mut self, part: &Accumulators) {
        self.rows += part.rows;
        for (running, more) in self.running.iter_mut().zip(&part.running) {
            running.merge(more);
        }
    }

    /// Removes the rows `part` holds, which entered this group too (and with the same aggregates): one subtraction
    /// for rows that leave together.
    pub fn subtract(&mut self, part: &Accumulators) {
        self.rows -= part.rows;
        for (running, gone) in self.running.iter_mut().zip(&part.running) {
            running.subtract(gone);
        }
    }

    /// Whether no row counts.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Whether an ever form holds a value, which the group keeps after its last row left: such a group is not
    /// forgotten.
    pub fn keeps_ever(&self) -> bool {
        self.running.iter().any(|running| running.ever.is_some())
    }

    /// Every aggregate's current value; over no row, a count 0, the ever forms what they keep and every other
    /// aggregate null.
    pub fn values(&self, calls: &[AggregateCall]) -> Vec<Val> {
        if self.rows == 0 && !self.keeps_ever() {
            return over_no_rows(calls);
        }
        calls
            .iter()
            .zip(&self.running)
            .map(|(call, running)| if call.arg.is_none() { Val::Int(self.rows) } else { running.value(call) })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::plan::PlanExpr;
    use crate::cep::runtime::Row;

    fn call(function: AggregateFunction, ty: DataType) -> AggregateCall {
        let arg = Some(PlanExpr::Column { source: "r".into(), name: "x".into(), ty: ty.clone() });
        AggregateCall { function, arg, ty, distinct: false }
    }

    /// A NaN or an infinity counts while it is in the window and leaves no trace once it is out: the running
    /// aggregates are always those the reference computes from the values in the window (Esper's sums keep a NaN).
    /// So do the aggregates of distinct values, for which every NaN is one value and `-0.0` is not `0.0`.
    #[test]
    fn values_that_are_not_finite_count_only_while_they_are_in() {
        use AggregateFunction::*;
        let plain = [Count, Sum, Avg, Stddev, Min, Max, Median, Avedev].map(|f| call(f, DataType::Double));
        let distinct = plain.clone().map(|call| AggregateCall { distinct: true, ..call });
        let calls = [plain, distinct].concat();
        let values = [f64::NAN, 1.0, f64::INFINITY, 2.0, -0.0, f64::NEG_INFINITY, 0.0, 3.0, -f64::NAN, 1.0, 2.0]
            .map(Val::Double);
        let mut running = Accumulators::new(&calls);
        let reference = |window: &[Val]| {
            let rows: Vec<Row> = window.iter().map(|v| Row::from([("x", v.clone())])).collect();
            let rows: Vec<&Row> = rows.iter().collect();
            crate::cep::reference::aggregate::compute(&calls, "r", &rows, &rows, &Row::new())
        };
        let shown = |values: Vec<Val>| format!("{values:?}");
        for n in 1..=values.len() {
            running.add(n as u64, calls.iter().map(|_| values[n - 1].clone()));
            assert_eq!(shown(running.values(&calls)), shown(reference(&values[..n])), "in: {:?}", &values[..n]);
        }
        for n in 1..values.len() {
            running.remove(n as u64, &vec![values[n - 1].clone(); calls.len()]);
            assert_eq!(shown(running.values(&calls)), shown(reference(&values[n..])), "in: {:?}", &values[n..]);
        }
    }

    /// Esper's `TestGroupByMedianAndDeviation` window (10, 20, 20, 90, 5): a median of an odd and of an even count,
    /// whether the values came one by one or as parts merged and subtracted.
    #[test]
    fn median_and_avedev_read_the_values_in_the_window() {
        let calls = [call(AggregateFunction::Median, DataType::Int), call(AggregateFunction::Avedev, DataType::Int)];
        let args = |x: i64| [Val::Int(x), Val::Int(x)];
        let (mut whole, mut part) = (Accumulators::new(&calls), Accumulators::new(&calls));
        [10, 20].into_iter().for_each(|x| whole.add(0, args(x)));
        [20, 90, 5].into_iter().for_each(|x| part.add(0, args(x)));
        assert_eq!(whole.values(&calls), [Val::Double(15.0), Val::Double(5.0)]);
        whole.merge(&part);
        assert_eq!(whole.values(&calls), [Val::Double(20.0), Val::Double(24.4)]);
        whole.remove(0, &args(20));
        assert_eq!(whole.values(&calls), [Val::Double(15.0), Val::Double(29.375)], "(10 + 20) / 2; 117.5 / 4");
        whole.subtract(&part);
        whole.add(0, args(20));
        assert_eq!(whole.values(&calls), [Val::Double(15.0), Val::Double(5.0)]);
    }

    /// `first(x, n)` and `last(x, n)` read the values by arrival number, null too, whichever rows left (one from the
    /// middle, as a unique view lets one go) and whether they came one by one or as a part; the ever forms keep the
    /// first value and the latest through every removal, as nothing leaves where the planner chooses them.
    #[test]
    fn the_ends_read_the_rows_by_arrival() {
        use AggregateFunction::*;
        let calls = [First(0), First(1), Last(0), Last(2), FirstEver, LastEver].map(|f| call(f, DataType::Int));
        let (null, int) = (Val::Null, Val::Int);
        let mut acc = Accumulators::new(&calls);
        for (seq, v) in [int(1), null.clone(), int(3), int(4)].into_iter().enumerate() {
            acc.add(seq as u64, calls.iter().map(|_| v.clone()));
        }
        assert_eq!(acc.values(&calls), [int(1), null.clone(), int(4), null.clone(), int(1), int(4)]);
        acc.remove(2, &vec![int(3); calls.len()]);
        assert_eq!(acc.values(&calls), [int(1), null.clone(), int(4), int(1), int(1), int(4)], "3 left the middle");
        acc.remove(0, &vec![int(1); calls.len()]);
        assert_eq!(acc.values(&calls), [null.clone(), int(4), int(4), null.clone(), int(1), int(4)]);
        let mut part = Accumulators::new(&calls);
        (5..7).for_each(|seq| part.add(seq, calls.iter().map(|_| int(seq as i64 + 1))));
        acc.merge(&part);
        assert_eq!(acc.values(&calls), [null.clone(), int(4), int(7), int(4), int(1), int(7)]);
        acc.subtract(&part);
        assert_eq!(acc.values(&calls), [null.clone(), int(4), int(4), null, int(1), int(7)]);
    }

    /// `nth(x, n)` where no row leaves keeps the `n + 1` newest values, null too, whether they came one by one or as
    /// a part, and no more.
    #[test]
    fn nth_reads_the_newest_values() {
        let calls = [0, 1, 2].map(|n| call(AggregateFunction::Nth(n), DataType::Int));
        let (null, int) = (Val::Null, Val::Int);
        let mut acc = Accumulators::new(&calls);
        acc.add(0, calls.iter().map(|_| int(1)));
        assert_eq!(acc.values(&calls), [int(1), null.clone(), null.clone()]);
        for v in [null.clone(), int(3), int(4)] {
            acc.add(0, calls.iter().map(|_| v.clone()));
        }
        assert_eq!(acc.values(&calls), [int(4), int(3), null.clone()], "the null two back counts");
        let mut part = Accumulators::new(&calls);
        [5, 6].into_iter().for_each(|x| part.add(0, calls.iter().map(|_| int(x))));
        acc.merge(&part);
        assert_eq!(acc.values(&calls), [int(6), int(5), int(4)]);
        let kept: Vec<usize> = acc.running.iter().map(|running| running.by_arrival.len()).collect();
        assert_eq!(kept, [1, 2, 3], "no more than the values read");
    }

    /// `rate` is null until a row left, then the rows per second between the timestamp of the last to leave and the
    /// newest's, whether rows come and go one by one or as a part (which leaves in the order it came); a row with a
    /// null timestamp or value counts for nothing, and NaN comes of the window emptied.
    #[test]
    fn rate_reads_the_newest_timestamp_and_that_of_the_row_that_left_last() {
        let calls = [call(AggregateFunction::Rate, DataType::Double), call(AggregateFunction::Rate, DataType::Double)];
        let args = |stamp: Val, x: Val| [stamp.clone(), Val::Array(vec![stamp, x].into())];
        let at = |ms: i64, x: i64| args(Val::Int(ms), Val::Int(x));
        let mut acc = Accumulators::new(&calls);
        [(1000, 10), (1200, 0), (1300, 0)]
            .into_iter()
            .enumerate()
            .for_each(|(seq, (ms, x))| acc.add(seq as u64, at(ms, x)));
        acc.add(3, args(Val::Null, Val::Int(7)));
        assert_eq!(acc.values(&calls), [Val::Null, Val::Null]);
        acc.add(4, at(1500, 14));
        acc.remove(0, &at(1000, 10));
        acc.remove(3, &args(Val::Null, Val::Int(7)));
        assert_eq!(acc.values(&calls), [Val::Double(6.0), Val::Double(28.0)], "3 and 14 over 500 ms");
        let mut part = Accumulators::new(&calls);
        part.add(5, at(2000, 1));
        part.add(6, at(2100, 2));
        acc.merge(&part);
        assert_eq!(
            acc.values(&calls),
            [Val::Double(5000.0 / 1100.0), Val::Double(17000.0 / 1100.0)],
            "since 1000, to 2100"
        );
        [(1, 1200, 0), (2, 1300, 0), (4, 1500, 14)].into_iter().for_each(|(seq, ms, x)| acc.remove(seq, &at(ms, x)));
        assert_eq!(acc.values(&calls), [Val::Double(2000.0 / 600.0), Val::Double(3000.0 / 600.0)], "since 1500");
        acc.subtract(&part);
        let emptied = acc.values(&calls);
        assert!(emptied.iter().all(|v| matches!(v, Val::Double(x) if x.is_nan())), "0 over 2100 - 2100: {emptied:?}");
    }

    #[test]
    fn min_and_max_survive_the_removal_of_the_extreme() {
        let calls = [call(AggregateFunction::Min, DataType::Int), call(AggregateFunction::Max, DataType::Int)];
        let mut acc = Accumulators::new(&calls);
        for x in [5, 1, 9, 1] {
            acc.add(0, &[Val::Int(x), Val::Int(x)]);
        }
        acc.remove(0, &[Val::Int(1), Val::Int(1)]);
        acc.remove(0, &[Val::Int(9), Val::Int(9)]);
        assert_eq!(acc.values(&calls), vec![Val::Int(1), Val::Int(5)]);
    }

    #[test]
    fn subtracting_a_part_is_removing_each_of_its_rows() {
        let calls = [
            call(AggregateFunction::Min, DataType::Int),
            call(AggregateFunction::Sum, DataType::Int),
            call(AggregateFunction::Avg, DataType::Double),
            call(AggregateFunction::Max, DataType::Int),
        ];
        let args = |x: i64| [Val::Int(x), Val::Int(x), Val::Double(x as f64 + 0.5), Val::Int(x)];
        let (mut whole, mut part, mut one_by_one) =
            (Accumulators::new(&calls), Accumulators::new(&calls), Accumulators::new(&calls));
        for x in [4, 1, 9, 1, 7] {
            whole.add(0, args(x));
            one_by_one.add(0, args(x));
        }
        for x in [1, 9] {
            part.add(0, args(x));
            one_by_one.remove(0, &args(x));
        }
        whole.subtract(&part);
        assert_eq!(whole.values(&calls), one_by_one.values(&calls));
        assert_eq!(whole.values(&calls), vec![Val::Int(1), Val::Int(12), Val::Double(4.5), Val::Int(7)]);
        let rest = whole.clone();
        whole.subtract(&rest);
        assert_eq!(whole.values(&calls), vec![Val::Null; 4], "an emptied group reads null");
    }

    #[test]
    fn merging_a_part_is_adding_each_of_its_rows() {
        let calls = [
            call(AggregateFunction::Min, DataType::Int),
            call(AggregateFunction::Sum, DataType::Int),
            call(AggregateFunction::Max, DataType::Int),
        ];
        let args = |x: i64| [Val::Int(x), Val::Int(x), Val::Int(x)];
        let (mut whole, mut part, mut one_by_one) =
            (Accumulators::new(&calls), Accumulators::new(&calls), Accumulators::new(&calls));
        for x in [4, 7] {
            whole.add(0, args(x));
            one_by_one.add(0, args(x));
        }
        for x in [1, 9, 1] {
            part.add(0, args(x));
            one_by_one.add(0, args(x));
        }
        whole.merge(&part);
        assert_eq!(whole.values(&calls), vec![Val::Int(1), Val::Int(22), Val::Int(9)]);
        whole.remove(0, &args(1));
        one_by_one.remove(0, &args(1));
        assert_eq!(whole.values(&calls), one_by_one.values(&calls), "the merged 1 is there twice");
        whole.subtract(&part);
        assert_eq!(whole.values(&calls), vec![Val::Int(4), Val::Int(10), Val::Int(7)]);
    }

    #[test]
    fn longs_sum_exactly_and_wrap_as_esper_s_do() {
        let calls = [call(AggregateFunction::Sum, DataType::Long)];
        let mut acc = Accumulators::new(&calls);
        acc.add(0, &[Val::Int((1 << 53) + 1)]);
        acc.add(0, &[Val::Int(2)]);
        assert_eq!(acc.values(&calls), [Val::Int((1 << 53) + 3)], "as a double, 2^53 + 1 is 2^53");
        acc.add(0, &[Val::Int(i64::MAX)]);
        acc.remove(0, &[Val::Int(2)]);
        assert_eq!(acc.values(&calls), [Val::Int(((1i64 << 53) + 1).wrapping_add(i64::MAX))]);
    }

    #[test]
    fn an_emptied_group_reads_null_and_restarts_exactly() {
        let calls = [call(AggregateFunction::Avg, DataType::Double)];
        let mut acc = Accumulators::new(&calls);
        acc.add(0, &[Val::Double(0.1)]);
        acc.add(0, &[Val::Double(0.2)]);
        acc.remove(0, &[Val::Double(0.1)]);
        acc.remove(0, &[Val::Double(0.2)]);
        assert_eq!(acc.values(&calls), vec![Val::Null]);
        acc.add(0, &[Val::Double(0.3)]);
        assert_eq!(acc.values(&calls), vec![Val::Double(0.3)]);
    }
}
