//! Esper 5's own aggregation and grouping tests (`regression/view` of espertechinc/esper at `aaa35756`) through the
//! reference, in the case shape of [`super::esper_exprs`] with its clock moves: each statement with Esper's events,
//! clock moves and the new rows its assertions expect, and where Esper asserts a column's type, that type. Esper's
//! old rows (of `irstream`) are not delivered here, so only its new rows are compared. This module holds the list of
//! tables and the tests; the tables are in modules by Esper class, and the dataflow's tests run the same cases on one,
//! two and four workers.
//!
//! Only what the subset holds is transcribed: no joins, `std:size`, `stat:uni`, subqueries, hints, Java methods,
//! `window`, `minever` and `maxever` over a named window, nor what the planner refuses (each table's comment names what
//! it leaves out). Esper's statements are kept as written but for the `INSERT INTO Out` our outputs need and the simple
//! names of Esper's classes. Cases whose rows differ from Esper's by design are in [`DIFFERING`], their tests ignored.

mod differing;
mod filtered;
mod first_last;
mod grouped;
mod rows;
mod timed;

use self::differing::DIFFERING;
use self::filtered::FILTERED;
use self::first_last::{FIRST_LAST, FIRST_LAST_DIFFERING};
use self::grouped::{
    DEVIATION, EVENT_PER_GROUP, EVENT_PER_GROUP_HAVING, EVENT_PER_ROW, EVENT_PER_ROW_HAVING, GROUP_BY_COUNT, MAX_MIN,
};
use self::rows::{COUNT_ALL, HAVING_NO_GROUP_BY, LEAVING, RATE, ROW_FOR_ALL, ROW_FOR_ALL_HAVING, ROW_PER_EVENT};
use self::timed::{SUM_WIN_TIME, TIME_BATCH};
use super::esper_exprs::{CLOCK, Case, ExprCase, MD, SB, Sent, assert_like_esper};

/// Every case of the aggregation and grouping classes that gives Esper's rows, ready to run.
pub(crate) fn aggregate_cases() -> Vec<Case> {
    let tables: [&[ExprCase]; 18] = [
        &ROW_FOR_ALL,
        &ROW_FOR_ALL_HAVING,
        &ROW_PER_EVENT,
        &HAVING_NO_GROUP_BY,
        &COUNT_ALL,
        &GROUP_BY_COUNT,
        &EVENT_PER_GROUP,
        &EVENT_PER_GROUP_HAVING,
        &EVENT_PER_ROW,
        &EVENT_PER_ROW_HAVING,
        &MAX_MIN,
        &DEVIATION,
        &SUM_WIN_TIME,
        &TIME_BATCH,
        &FILTERED,
        &FIRST_LAST,
        &LEAVING,
        &RATE,
    ];
    tables.into_iter().flatten().map(ExprCase::ready).collect()
}

/// The cases of [`DIFFERING`], and of `first` and `last` one that differs as its first four do, ready to run.
pub(crate) fn differing_cases() -> Vec<Case> {
    DIFFERING.iter().chain(&FIRST_LAST_DIFFERING).map(ExprCase::ready).collect()
}

#[test]
fn esper_aggregate_cases_through_the_reference() {
    assert_like_esper(&aggregate_cases());
}

#[test]
#[ignore = "the cases of DIFFERING, whose rows differ from Esper's by design"]
fn esper_differing_aggregate_cases_through_the_reference() {
    assert_like_esper(&differing_cases());
}
