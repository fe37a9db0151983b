//! The cases of Esper's view classes whose rows differ from what Esper's assertions expect, each with Esper's
//! expectation: run only by the ignored tests, so that the others pass. A pattern's rows at one event not ordered
//! by `order by ... desc` (`TestOrderBySimple` at `aaa35756`).

use super::{SB, ViewCase};

/// The cases of [`super::ordered`] and [`super::selects`] that differ, each as Esper expects it.
pub(crate) const VIEWS_DIFFERING: [ViewCase; 1] = [ViewCase {
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
}];
