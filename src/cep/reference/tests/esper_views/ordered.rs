//! Esper's `TestOrderBySimple` (at `aaa35756`): the statements without `output every n events` (`counted` holds
//! those) and without joins, iterators and collators.
//! `TestOrderByRowForAll`, `TestOrderByAggregateAll`, `TestOrderByEventPerRow` and `TestOrderByEventPerGroup` at the
//! same commit hold no other: each of their statements joins two streams, is read by its iterator or outputs every
//! six events.

use super::{MD, SB, ViewCase};

const SENT_THEN_FOX: [(i64, &str, &str, &str); 7] = {
    let [a, b, c, d, e, f] = created_and_sent!("symbol='CAT'");
    [a, b, c, d, e, f, (0, MD, "symbol='FOX',price=10,volume=0", "symbol='FOX'")]
};

const ALIASED_THEN_FOX: [(i64, &str, &str, &str); 7] = {
    let [a, b, c, d, e, f] = created_and_sent!("mySymbol='CAT'");
    [a, b, c, d, e, f, (0, MD, "symbol='FOX',price=10,volume=0", "mySymbol='FOX'")]
};

const BATCHED: [(i64, &str, &str, &str); 7] = {
    let [a, b, c, d, e, f] = created_and_sent!("?");
    let by_price = "symbol='KGB' | symbol='IBM' | symbol='CMU' | symbol='CAT' | symbol='IBM' | symbol='CAT'";
    [a, b, c, d, e, f, (1000, "", "", by_price)]
};

/// Each statement orders the rows one delivery gives: without an output policy, the rows one event or one batch
/// gives. Esper asserts only the last delivery of `createAndSend` (`?` before it).
pub(super) const ORDER_BY_SIMPLE: [ViewCase; 5] = [
    ViewCase {
        test: "TestOrderBySimple.testOrderByMultiDelivery",
        select: "rstream theString FROM SupportBean.std:groupwin(theString).win:time(10) order by theString desc",
        columns: "theString string",
        typed: false,
        steps: &[
            (1000, "", "", "?"),
            (1000, SB, "theString='A1',intPrimitive=1", "?"),
            (1000, SB, "theString='A2',intPrimitive=1", "?"),
            (11_000, "", "", "theString='A2' | theString='A1'"),
        ],
    },
    ViewCase {
        test: "TestOrderBySimple.testAliases",
        select: "symbol as mySymbol FROM SupportMarketDataBean.win:length(5) order by price, mySymbol",
        columns: "mySymbol string",
        typed: false,
        steps: &ALIASED_THEN_FOX,
    },
    ViewCase {
        test: "TestOrderBySimple.testNoOutputClauseView",
        select: "symbol FROM SupportMarketDataBean.win:length(5) order by price",
        columns: "symbol string",
        typed: false,
        steps: &SENT_THEN_FOX,
    },
    ViewCase {
        test: "TestOrderBySimple.testNoOutputClauseView",
        select: "symbol FROM SupportMarketDataBean.win:time_batch(1 sec) order by price",
        columns: "symbol string",
        typed: false,
        steps: &BATCHED,
    },
    ViewCase {
        test: "TestOrderBySimple.testOrderByMultiDelivery",
        select: "a.theString as theString FROM pattern [every a=SupportBean(theString like 'A%') -> \
                     b=SupportBean(theString like 'B%')] order by a.theString desc",
        columns: "theString string",
        typed: false,
        steps: &[
            (0, SB, "theString='A1',intPrimitive=1", "-"),
            (0, SB, "theString='A2',intPrimitive=2", "-"),
            (0, SB, "theString='B',intPrimitive=3", "theString='A2' | theString='A1'"),
        ],
    },
];
