//! What a query's plan asks of both runtimes, read from the plan alone: which constructs the runtimes run
//! ([`check_query`]), which rows its output policy releases and when ([`rows_at_changes`], [`represents_groups`],
//! [`snapshots_rows`], [`removes`], [`not_before`], [`stands`], [`aggregates_triggers`], [`lasts_by_group`]), when a
//! first-time view stops letting events in ([`closes_at`]), and the one order in which every worker releases the
//! group rows of a tick ([`tick_rank`]).

use crate::cep::plan::{Aggregation, AggregationKind, Emits, Input, OutputKind, QueryPlan, StreamInput};
use crate::cep::runtime::EngineError;

/// Checks what the reference evaluator does not run yet.
pub fn check_query(number: usize, q: &QueryPlan) -> Result<(), EngineError> {
    let unsupported = |c: &str| Err(EngineError::Unsupported { statement: number, construct: c.into() });
    let fully = q.aggregation.as_ref().is_some_and(|a| a.kind == AggregationKind::FullyAggregated);
    match q.output.as_ref().map(|o| o.kind) {
        None | Some(OutputKind::Last | OutputKind::First) => {}
        Some(OutputKind::Snapshot) if fully => {}
        Some(OutputKind::Snapshot) => match &q.input {
            Input::Stream(s) if s.named_window => return unsupported("OUTPUT SNAPSHOT of a named window's rows"),
            // Esper's snapshot iterates the stream's view, and a stream without one keeps nothing to iterate.
            Input::Stream(s) if s.window.is_none() => {
                return unsupported("OUTPUT SNAPSHOT of a stream without a data window (Esper's is always empty)");
            }
            Input::Stream(s) if kept(s) => {
                return unsupported(
                    "OUTPUT SNAPSHOT of a view that keeps its rows for good (`win:keepall`, a first-event view)",
                );
            }
            Input::Stream(_) => {}
            // Neither keeps rows to iterate: its snapshot is of its groups, when fully aggregated (`paced`).
            _ => return unsupported("OUTPUT SNAPSHOT of a pattern or a join not fully aggregated"),
        },
        Some(OutputKind::All | OutputKind::Default) => {}
    }
    // `SELECT IRSTREAM` under a plain `INSERT INTO` gives the rows `SELECT` gives: Esper routes only the insert stream
    // into the stream (`OutputStrategyPostProcess`), and Cepheus's listener ignores the remove stream it is handed.
    // `SELECT RSTREAM` hands that listener the remove stream as its new rows (`check_removed` keeps other statements
    // from reading the insert stream it still routes): the rows leaving a data window.
    // A fully aggregated query's remove stream holds its groups' rows as they were before each change, with or
    // without a data window.
    if q.emits == Emits::Removed {
        match &q.input {
            Input::Stream(s) if s.named_window => return unsupported("SELECT RSTREAM of a named window's rows"),
            Input::Stream(s) if s.window.is_none() && !fully => {
                return unsupported("SELECT RSTREAM of a stream without a data window (its remove stream is empty)");
            }
            Input::Stream(s) if kept(s) && !fully => {
                return unsupported("SELECT RSTREAM of a view no row leaves (`win:keepall`, a first-event view)");
            }
            Input::Stream(_) => {}
            _ => return unsupported("SELECT RSTREAM of a pattern or a join (neither has a remove stream)"),
        }
        if let Some(refused) = refused_removed_policy(q) {
            return unsupported(refused);
        }
    }
    Ok(())
}

/// Why `SELECT RSTREAM` under `q`'s output policy is refused, if it is. Without aggregates the rows leaving go to
/// `LAST`, `ALL` and the default `OUTPUT EVERY` as the insert stream's do (Esper's `ResultSetProcessorSimple` output
/// helpers keep the old events as they keep the new); with aggregates, to those and to grouped `FIRST` of a fully
/// aggregated query as Esper 5's output view hands them on (`runtime::before_pace`, and with ungrouped columns the
/// rows leaving, each with the aggregates it left).
fn refused_removed_policy(q: &QueryPlan) -> Option<&'static str> {
    let kind = q.output.as_ref()?.kind;
    let grouped = q.aggregation.as_ref().is_some_and(|a| !a.group_by.is_empty());
    let batches = matches!(&q.input, Input::Stream(s) if s.window.as_ref().is_some_and(|w| w.batches()));
    match kind {
        _ if batches && q.aggregation.is_some() => {
            Some("SELECT RSTREAM with aggregates under an OUTPUT policy over a batch window")
        }
        OutputKind::Last | OutputKind::All | OutputKind::Default => None,
        OutputKind::First if fully_aggregated(q) && grouped => None,
        // Esper's remove stream under `FIRST` is empty with ungrouped columns, and without `GROUP BY` its output
        // view for `FIRST` does not hand the statement's listener that stream.
        OutputKind::First => Some("SELECT RSTREAM under OUTPUT FIRST without GROUP BY or with columns not aggregated"),
        OutputKind::Snapshot => Some("SELECT RSTREAM under OUTPUT SNAPSHOT (a snapshot has no remove stream)"),
    }
}

/// Where the row of the group of key `group` stands among the group rows an output tick releases (before `ORDER BY`
/// sorts them): a hash of the key, which every worker of the dataflow computes alike for the groups it holds, so that
/// the rows of one tick from several workers reach a statement reading them in this one order. Esper releases them in
/// the order the groups changed in, which no worker alone knows; the contract fixes no order. 48 bits, the width of a
/// stamp's row number.
pub fn tick_rank(group: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(TICK_SEED).hash_one(group) >> 16
}

/// `items` in the order a tick releases their groups' rows, each with its rank: by [`tick_rank`] of its group's text
/// as the reference writes it (`text`; an item without one is dropped), then by that text. The dataflow's workers
/// order the groups they hold so.
pub fn by_tick_rank<T>(items: impl IntoIterator<Item = T>, text: impl Fn(&T) -> Option<String>) -> Vec<(u64, T)> {
    let mut ranked: Vec<(u64, String, T)> =
        items.into_iter().filter_map(|item| text(&item).map(|t| (tick_rank(&t), t, item))).collect();
    ranked.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    ranked.into_iter().map(|(rank, _, item)| (rank, item)).collect()
}

/// Any constant: only its being the same everywhere matters.
const TICK_SEED: u64 = 0x5eed_71c4_0000_0001;

/// Whether `q`'s rows are its groups' rows at each change, as its policy lets them out: a fully aggregated query
/// under `OUTPUT FIRST`, the default `OUTPUT EVERY` or (without `GROUP BY`) `OUTPUT ALL`, whose changes are its
/// arrivals, the rows they push out of the view and its expiries (Esper's `ResultSetOutputLimitRowPerGroup` and
/// `RowForAll` traces). Not of a remove stream ([`removes`]), whose rows are from before the changes.
pub fn rows_at_changes(q: &QueryPlan) -> bool {
    let grouped = q.aggregation.as_ref().is_some_and(|a| !a.group_by.is_empty());
    fully_aggregated(q)
        && !removes(q)
        && match q.output.as_ref().map(|o| o.kind) {
            Some(OutputKind::First | OutputKind::Default) => true,
            Some(OutputKind::All) => !grouped,
            _ => false,
        }
}

/// Whether `q`'s ticks release, besides its arrivals' rows, a row for each group it knows: a grouped query with
/// ungrouped columns under `OUTPUT ALL`, whose groups each stand by their last arrival, with the aggregates of the
/// moment. A row of the group goes out when rows of it leave (after all that leave at once) and at each tick for a
/// group that neither had an arrival nor lost a row in the interval; a group with no row left is forgotten at the
/// tick (Esper's `ResultSetProcessorAggregateGroupedOutputAllHelper` and `ResultSetOutputLimitAggregateGrouped`
/// traces; Esper forgets a group when its aggregation row goes). Not of a remove stream ([`removes`]), which holds
/// only the rows leaving.
pub fn represents_groups(q: &QueryPlan) -> bool {
    let grouped = q.aggregation.as_ref().is_some_and(|a| !a.group_by.is_empty());
    grouped && !fully_aggregated(q) && !removes(q) && q.output.as_ref().is_some_and(|o| o.kind == OutputKind::All)
}

/// Whether `q`'s rows under `OUTPUT FIRST` are those of the rows leaving its data window as well as of its arrivals:
/// a grouped query with ungrouped columns, whose `FIRST` (Esper's `ResultSetProcessorAggregateGrouped`, handed each
/// change alone) lets out the row of each arrival and then of each row leaving, with its group's aggregates after the
/// change, when it passes HAVING and none of its group's went out in the last `p` (Esper's
/// `ResultSetOutputLimitAggregateGrouped` trace: IBM's 25 leaving at 5.7 s gives its group's row).
pub fn firsts_leaving(q: &QueryPlan) -> bool {
    let grouped = q.aggregation.as_ref().is_some_and(|a| !a.group_by.is_empty());
    let windowed = matches!(&q.input, Input::Stream(s) if s.window.as_ref().is_some_and(|w| !w.batches()) && !kept(s));
    let first = q.output.as_ref().is_some_and(|o| o.kind == OutputKind::First);
    grouped && windowed && first && !fully_aggregated(q) && !removes(q)
}

/// Whether the view's rows are what `q`'s output tick releases: `OUTPUT SNAPSHOT` of a query not fully aggregated,
/// each row with its group's aggregates when it has some.
pub fn snapshots_rows(q: &QueryPlan) -> bool {
    !fully_aggregated(q) && q.output.as_ref().is_some_and(|o| o.kind == OutputKind::Snapshot)
}

/// Whether `input` is read through a view no row leaves: `win:keepall()`, a first-event view.
fn kept(input: &StreamInput) -> bool {
    input.window.as_ref().is_some_and(|w| !w.lets_go())
}

/// Whether `q`'s rows are its remove stream's (`SELECT RSTREAM`): the rows its data window lets go, or a fully
/// aggregated query's groups' rows before each change. But a fully aggregated, grouped query with `HAVING` under
/// `OUTPUT FIRST`: Esper 5's `ResultSetProcessorRowPerGroup` makes its remove stream there after each change, from the
/// aggregates and the rows its insert stream's are made of, so the two streams are alike.
pub fn removes(q: &QueryPlan) -> bool {
    let having = q.aggregation.as_ref().is_some_and(|a| a.having.is_some() && !a.group_by.is_empty());
    let first = q.output.as_ref().is_some_and(|o| o.kind == OutputKind::First);
    q.emits == Emits::Removed && !(first && having && fully_aggregated(q))
}

/// Whether every column of `q` is an aggregate or a group key (Esper's `RowForAll` and `RowPerGroup`).
pub fn fully_aggregated(q: &QueryPlan) -> bool {
    q.aggregation.as_ref().is_some_and(|a| a.kind == AggregationKind::FullyAggregated)
}

/// With `win:firsttime(d)`, the millisecond from which the view lets nothing in: `d` after the statement's creation,
/// an event of that millisecond already kept out (Esper's view closes at a timer due then, which fires before the
/// events of its millisecond: `ViewFirstTime.ViewFirstTimeSceneOne`).
pub fn closes_at(input: &StreamInput, created_ms: i64) -> Option<i64> {
    let millis = input.window.as_ref()?.open_for()?;
    Some(created_ms.saturating_add(millis as i64))
}

/// With `OUTPUT AFTER`, the millisecond before which a statement created at `created_ms` gives no output.
pub fn not_before(q: &QueryPlan, created_ms: i64) -> Option<i64> {
    let after = q.output.as_ref().and_then(|o| o.after_millis).or(q.quiet_millis)?;
    Some(created_ms.saturating_add(after as i64))
}

/// Whether `q` is an aggregating join with `GROUP BY` under `OUTPUT LAST`, whose tick releases a row per group
/// touched in the interval (`join::last`).
pub fn lasts_by_group(q: &QueryPlan) -> bool {
    let grouped = |a: &Aggregation| !a.group_by.is_empty();
    matches!(q.input, Input::Join(_))
        && q.aggregation.as_ref().is_some_and(grouped)
        && q.output.as_ref().is_some_and(|o| o.kind == OutputKind::Last)
}

/// Whether `q` is a join that aggregates: under a policy, each trigger any of whose joined rows passed `WHERE` is
/// handed to Esper's output view, which starts its clock, even when `HAVING` refuses every row the trigger makes.
pub fn aggregates_triggers(q: &QueryPlan) -> bool {
    matches!(q.input, Input::Join(_)) && q.aggregation.is_some()
}

/// Whether `q` is a join whose columns are all aggregates, without `GROUP BY`: one row a trigger, which stands
/// between triggers under an output policy (Esper's `ResultSetProcessorRowForAll`, `rate`).
pub fn stands(q: &QueryPlan) -> bool {
    let all = |a: &Aggregation| a.kind == AggregationKind::FullyAggregated && a.group_by.is_empty();
    matches!(q.input, Input::Join(_)) && q.aggregation.as_ref().is_some_and(all)
}
