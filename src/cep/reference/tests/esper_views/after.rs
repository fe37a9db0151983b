//! `OUTPUT AFTER n EVENTS` without a period: Esper's direct after view counts the rows each update makes (one event's
//! or one timer's, before `DISTINCT`), drops them while the count is at most `n`, and lets through the update that
//! takes it past `n`, whole, and every later one (`OutputProcessViewBaseWAfter.checkAfterCondition`, Esper 5 at
//! `aaa35756`). Esper's `TestOutputLimitAfter.testDirectNumberOfEvents`, and cases of our own worked out from that
//! code: a batch whose release takes the count past `n`, `DISTINCT` counted before, a pattern's matches, and a
//! time batch's release.

use super::{SB, ViewCase};

pub(super) const AFTER_EVENTS: [ViewCase; 5] = [
    ViewCase {
        test: "TestOutputLimitAfter.testDirectNumberOfEvents",
        select: "theString FROM SupportBean.win:keepall() output after 3 events",
        columns: "theString string",
        typed: false,
        steps: &[
            (0, SB, "theString='E1'", "-"),
            (0, SB, "theString='E2'", "-"),
            (0, SB, "theString='E3'", "-"),
            (0, SB, "theString='E4'", "theString='E4'"),
            (0, SB, "theString='E5'", "theString='E5'"),
        ],
    },
    ViewCase {
        test: "semantics: OUTPUT AFTER n EVENTS lets through whole the release that takes the count past n",
        select: "theString FROM SupportBean.win:length_batch(2) output after 3 events",
        columns: "theString string",
        typed: false,
        steps: &[
            (0, SB, "theString='E1'", "-"),
            (0, SB, "theString='E2'", "-"),
            (0, SB, "theString='E3'", "-"),
            (0, SB, "theString='E4'", "theString='E3' | theString='E4'"),
        ],
    },
    ViewCase {
        test: "semantics: OUTPUT AFTER n EVENTS counts the rows before DISTINCT",
        select: "distinct theString FROM SupportBean.win:length_batch(2) output after 2 events",
        columns: "theString string",
        typed: false,
        steps: &[
            (0, SB, "theString='E1'", "-"),
            (0, SB, "theString='E1'", "-"),
            (0, SB, "theString='E2'", "-"),
            (0, SB, "theString='E2'", "theString='E2'"),
        ],
    },
    ViewCase {
        test: "semantics: OUTPUT AFTER n EVENTS counts a pattern's matches",
        select: "a.theString as theString FROM pattern [every a=SupportBean] output after 1 events",
        columns: "theString string",
        typed: false,
        steps: &[(0, SB, "theString='E1'", "-"), (0, SB, "theString='E2'", "theString='E2'")],
    },
    ViewCase {
        test: "semantics: OUTPUT AFTER n EVENTS counts the rows a timer makes",
        select: "count(*) as c FROM SupportBean.win:time_batch(1 sec) output after 1 events",
        columns: "c long",
        typed: false,
        steps: &[
            (0, SB, "theString='E1'", "-"),
            (500, SB, "theString='E2'", "-"),
            (1_000, "", "", "-"),
            (1_200, SB, "theString='E3'", "-"),
            (2_000, "", "", "c=1"),
        ],
    },
];
