//! `HAVING` without aggregates or `GROUP BY` beyond Esper's own cases (`counted.rs`, `tests/having.rs`), worked out
//! by hand from Esper 5's `ResultSetProcessorSimple` and its helpers: every row it makes is read against `HAVING` as
//! it is made, a batch's and a pattern match's as those of an event, the rows leaving as those entering; `OUTPUT LAST`
//! keeps the last row that passed, and a snapshot the view's rows that pass.

use super::{MD, Step, ViewCase};

/// Four events, of which the second and the fourth each end a batch of two, or a count of two for a snapshot of the
/// last three: the rows passing are the first's, then the third's and the fourth's.
const EVERY_SECOND_EVENT: [Step; 4] = [
    (0, MD, "symbol='S0',volume=20", "-"),
    (0, MD, "symbol='IBM',volume=-1", "symbol='S0'"),
    (0, MD, "symbol='YAH',volume=10", "-"),
    (0, MD, "symbol='MSFT',volume=3", "symbol='MSFT' | symbol='YAH'"),
];

pub(super) const HAVING_ALONE_VIEWS: [ViewCase; 6] = [
    ViewCase {
        test: "semantics: a batch window's rows pass HAVING alone as it releases them",
        select: "symbol FROM SupportMarketDataBean.win:length_batch(2) having volume > 0",
        columns: "symbol string",
        typed: false,
        steps: &EVERY_SECOND_EVENT,
    },
    ViewCase {
        test: "semantics: a batch window's old rows pass HAVING alone as the next batch pushes them out",
        select: "rstream symbol FROM SupportMarketDataBean.win:length_batch(2) having volume > 0",
        columns: "symbol string",
        typed: false,
        steps: &[
            (0, MD, "symbol='S0',volume=20", "-"),
            (0, MD, "symbol='IBM',volume=-1", "-"),
            (0, MD, "symbol='YAH',volume=10", "-"),
            (0, MD, "symbol='MSFT',volume=3", "symbol='S0'"),
        ],
    },
    ViewCase {
        test: "semantics: a pattern's matches pass HAVING alone one by one",
        select: "a.symbol as symbol FROM pattern [every a=SupportMarketDataBean] having a.volume > 0",
        columns: "symbol string",
        typed: false,
        steps: &[
            (0, MD, "symbol='S0',volume=20", "symbol='S0'"),
            (0, MD, "symbol='IBM',volume=-1", "-"),
            (0, MD, "symbol='YAH',volume=10", "symbol='YAH'"),
        ],
    },
    ViewCase {
        test: "semantics: a unique view's replaced rows pass HAVING alone as they leave",
        select: "rstream symbol, volume FROM SupportMarketDataBean.std:unique(symbol) having volume > 0",
        columns: "symbol string, volume long",
        typed: false,
        steps: &[
            (0, MD, "symbol='S0',volume=20", "-"),
            (0, MD, "symbol='S0',volume=-1", "symbol='S0' volume=20"),
            (0, MD, "symbol='S0',volume=5", "-"),
            (0, MD, "symbol='S0',volume=6", "symbol='S0' volume=5"),
        ],
    },
    ViewCase {
        test: "semantics: OUTPUT LAST with HAVING alone releases the last row that passed, if any",
        select: "symbol FROM SupportMarketDataBean.win:length(5) having volume > 0 output last every 2 events",
        columns: "symbol string",
        typed: false,
        steps: &[
            (0, MD, "symbol='S0',volume=20", "-"),
            (0, MD, "symbol='IBM',volume=-1", "symbol='S0'"),
            (0, MD, "symbol='YAH',volume=-5", "-"),
            (0, MD, "symbol='MSFT',volume=-3", "-"),
            (0, MD, "symbol='KGB',volume=7", "-"),
            (0, MD, "symbol='GE',volume=8", "symbol='GE'"),
        ],
    },
    ViewCase {
        test: "semantics: a snapshot with HAVING alone releases the view's rows that pass",
        select: "symbol FROM SupportMarketDataBean.win:length(3) having volume > 0 output snapshot every 2 events",
        columns: "symbol string",
        typed: false,
        steps: &EVERY_SECOND_EVENT,
    },
];
