//! Esper's tests of `prior(n, x)`: Esper 5's `TestPriorFunction` (`regression/view`, at `aaa35756`) and Esper 8's
//! `ExprCorePrior` (`regression-lib`, at `7cb4d691`), the cases in the subset: over no view, `win:time`,
//! `win:length` and `win:time_batch`. Where Esper asserts a statement's new and old rows, the new ones are its case
//! here and the old ones a second case of the same statement under `SELECT RSTREAM` ("its old rows"), as its
//! listener would receive them; each old row reads the priors its event arrived with. `testPriorLengthWindow`'s
//! columns are aliased shorter (`cur`, `s0`..`s3` for `prior0Symbol`.., `p0`..`p3` for `prior0Price`..). Not here:
//! the whole-event form (`prior(1, s0)`), `stat:uni`, `win:ext_timed`, `ext:sort` and the join. Esper's
//! `sendMarketEvent(symbol, price)` has volume 0 and no feed; Esper 8's events have feed `''`. The last cases are
//! not Esper's tests but follow from its prior view, which sits after the stream's last view and so counts what
//! that view posts: a first-unique view's rejected events not at all, the merged stream of `std:groupwin`, every
//! event `std:unique` posts, and a batch as it is released.

use super::{MD, SB, ViewCase};

/// Each case's statement, columns and steps, as the module's header says.
pub(super) const PRIOR: [ViewCase; 20] = [
    ViewCase {
        test: "TestPriorFunction.testPriorTimeWindow",
        select: "irstream symbol as currSymbol, prior(2, symbol) as priorSymbol, prior(2, price) as priorPrice FROM \
                 SupportMarketDataBean.win:time(1 min)",
        columns: "currSymbol string, priorSymbol string, priorPrice double",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (0, MD, "symbol='D1',price=1,volume=0", "currSymbol='D1' priorSymbol=null priorPrice=null"),
            (1000, "", "", "-"),
            (1000, MD, "symbol='D2',price=2,volume=0", "currSymbol='D2' priorSymbol=null priorPrice=null"),
            (2000, "", "", "-"),
            (2000, MD, "symbol='D3',price=3,volume=0", "currSymbol='D3' priorSymbol='D1' priorPrice=1.0"),
            (3000, "", "", "-"),
            (3000, MD, "symbol='D4',price=4,volume=0", "currSymbol='D4' priorSymbol='D2' priorPrice=2.0"),
            (4000, "", "", "-"),
            (4000, MD, "symbol='D5',price=5,volume=0", "currSymbol='D5' priorSymbol='D3' priorPrice=3.0"),
            (30_000, "", "", "-"),
            (30_000, MD, "symbol='D6',price=6,volume=0", "currSymbol='D6' priorSymbol='D4' priorPrice=4.0"),
            (60_000, "", "", "-"),
            (61_000, "", "", "-"),
            (62_000, "", "", "-"),
            (63_000, "", "", "-"),
            (64_000, "", "", "-"),
            (90_000, "", "", "-"),
            (90_000, MD, "symbol='D7',price=7,volume=0", "currSymbol='D7' priorSymbol='D5' priorPrice=5.0"),
            (90_000, MD, "symbol='D8',price=8,volume=0", "?"),
            (90_000, MD, "symbol='D9',price=9,volume=0", "?"),
            (90_000, MD, "symbol='D10',price=10,volume=0", "?"),
            (90_000, MD, "symbol='D11',price=11,volume=0", "?"),
            (150_000, "", "", "-"),
        ],
    },
    ViewCase {
        test: "TestPriorFunction.testPriorTimeWindow (its old rows)",
        select: "rstream symbol as currSymbol, prior(2, symbol) as priorSymbol, prior(2, price) as priorPrice FROM \
                 SupportMarketDataBean.win:time(1 min)",
        columns: "currSymbol string, priorSymbol string, priorPrice double",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (0, MD, "symbol='D1',price=1,volume=0", "-"),
            (1000, "", "", "-"),
            (1000, MD, "symbol='D2',price=2,volume=0", "-"),
            (2000, "", "", "-"),
            (2000, MD, "symbol='D3',price=3,volume=0", "-"),
            (3000, "", "", "-"),
            (3000, MD, "symbol='D4',price=4,volume=0", "-"),
            (4000, "", "", "-"),
            (4000, MD, "symbol='D5',price=5,volume=0", "-"),
            (30_000, "", "", "-"),
            (30_000, MD, "symbol='D6',price=6,volume=0", "-"),
            (60_000, "", "", "currSymbol='D1' priorSymbol=null priorPrice=null"),
            (61_000, "", "", "currSymbol='D2' priorSymbol=null priorPrice=null"),
            (62_000, "", "", "currSymbol='D3' priorSymbol='D1' priorPrice=1.0"),
            (63_000, "", "", "currSymbol='D4' priorSymbol='D2' priorPrice=2.0"),
            (64_000, "", "", "currSymbol='D5' priorSymbol='D3' priorPrice=3.0"),
            (90_000, "", "", "currSymbol='D6' priorSymbol='D4' priorPrice=4.0"),
            (90_000, MD, "symbol='D7',price=7,volume=0", "-"),
            (90_000, MD, "symbol='D8',price=8,volume=0", "-"),
            (90_000, MD, "symbol='D9',price=9,volume=0", "-"),
            (90_000, MD, "symbol='D10',price=10,volume=0", "-"),
            (90_000, MD, "symbol='D11',price=11,volume=0", "-"),
            (
                150_000,
                "",
                "",
                "currSymbol='D7' priorSymbol='D5' priorPrice=5.0 | currSymbol='D8' priorSymbol='D6' priorPrice=6.0 | \
                 currSymbol='D9' priorSymbol='D7' priorPrice=7.0 | currSymbol='D10' priorSymbol='D8' priorPrice=8.0 \
                 | currSymbol='D11' priorSymbol='D9' priorPrice=9.0",
            ),
        ],
    },
    ViewCase {
        test: "TestPriorFunction.testPriorTimeBatchWindow",
        select: "irstream symbol as currSymbol, prior(3, symbol) as priorSymbol, prior(2, price) as priorPrice FROM \
                 SupportMarketDataBean.win:time_batch(1 min)",
        columns: "currSymbol string, priorSymbol string, priorPrice double",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (0, MD, "symbol='A',price=1,volume=0", "-"),
            (0, MD, "symbol='B',price=2,volume=0", "-"),
            (
                60_000,
                "",
                "",
                "currSymbol='A' priorSymbol=null priorPrice=null | currSymbol='B' priorSymbol=null priorPrice=null",
            ),
            (80_000, "", "", "-"),
            (80_000, MD, "symbol='C',price=3,volume=0", "-"),
            (120_000, "", "", "currSymbol='C' priorSymbol=null priorPrice=1.0"),
            (300_000, "", "", "?"),
            (300_000, MD, "symbol='D',price=4,volume=0", "?"),
            (300_000, MD, "symbol='E',price=5,volume=0", "?"),
            (300_000, MD, "symbol='F',price=6,volume=0", "?"),
            (300_000, MD, "symbol='G',price=7,volume=0", "?"),
            (
                360_000,
                "",
                "",
                "currSymbol='D' priorSymbol='A' priorPrice=2.0 | currSymbol='E' priorSymbol='B' priorPrice=3.0 | \
                 currSymbol='F' priorSymbol='C' priorPrice=4.0 | currSymbol='G' priorSymbol='D' priorPrice=5.0",
            ),
        ],
    },
    ViewCase {
        test: "TestPriorFunction.testPriorUnbound",
        select: "symbol as currSymbol, prior(3, symbol) as priorSymbol, prior(2, price) as priorPrice FROM \
                 SupportMarketDataBean",
        columns: "currSymbol string, priorSymbol string, priorPrice double",
        typed: true,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=0", "currSymbol='A' priorSymbol=null priorPrice=null"),
            (2, MD, "symbol='B',price=2,volume=0", "currSymbol='B' priorSymbol=null priorPrice=null"),
            (3, MD, "symbol='C',price=3,volume=0", "currSymbol='C' priorSymbol=null priorPrice=1.0"),
            (4, MD, "symbol='D',price=4,volume=0", "currSymbol='D' priorSymbol='A' priorPrice=2.0"),
            (5, MD, "symbol='E',price=5,volume=0", "currSymbol='E' priorSymbol='B' priorPrice=3.0"),
        ],
    },
    ViewCase {
        test: "TestPriorFunction.testPriorNoDataWindowWhere",
        select: "* FROM SupportMarketDataBean where prior(1, price) = 100",
        columns: "symbol string, price double",
        typed: false,
        steps: &[
            (1, MD, "symbol='IBM',price=75,volume=0", "-"),
            (2, MD, "symbol='IBM',price=100,volume=0", "-"),
            (3, MD, "symbol='IBM',price=120,volume=0", "symbol='IBM' price=120.0"),
        ],
    },
    ViewCase {
        test: "TestPriorFunction.testPriorLengthWindow",
        select: "irstream symbol as cur, prior(0, symbol) as s0, prior(1, symbol) as s1, prior(2, symbol) as s2, \
                 prior(3, symbol) as s3, prior(0, price) as p0, prior(1, price) as p1, prior(2, price) as p2, \
                 prior(3, price) as p3 FROM SupportMarketDataBean.win:length(3)",
        columns: "cur string, s0 string, s1 string, s2 string, s3 string, p0 double, p1 double, p2 double, p3 double",
        typed: true,
        steps: &[
            (
                1,
                MD,
                "symbol='A',price=1,volume=0",
                "cur='A' s0='A' s1=null s2=null s3=null p0=1.0 p1=null p2=null p3=null",
            ),
            (
                2,
                MD,
                "symbol='B',price=2,volume=0",
                "cur='B' s0='B' s1='A' s2=null s3=null p0=2.0 p1=1.0 p2=null p3=null",
            ),
            (3, MD, "symbol='C',price=3,volume=0", "cur='C' s0='C' s1='B' s2='A' s3=null p0=3.0 p1=2.0 p2=1.0 p3=null"),
            (4, MD, "symbol='D',price=4,volume=0", "cur='D' s0='D' s1='C' s2='B' s3='A' p0=4.0 p1=3.0 p2=2.0 p3=1.0"),
            (5, MD, "symbol='E',price=5,volume=0", "cur='E' s0='E' s1='D' s2='C' s3='B' p0=5.0 p1=4.0 p2=3.0 p3=2.0"),
            (6, MD, "symbol='F',price=6,volume=0", "cur='F' s0='F' s1='E' s2='D' s3='C' p0=6.0 p1=5.0 p2=4.0 p3=3.0"),
            (7, MD, "symbol='G',price=7,volume=0", "cur='G' s0='G' s1='F' s2='E' s3='D' p0=7.0 p1=6.0 p2=5.0 p3=4.0"),
            (8, MD, "symbol='G',price=8,volume=0", "?"),
        ],
    },
    ViewCase {
        test: "TestPriorFunction.testPriorLengthWindow (its old rows)",
        select: "rstream symbol as cur, prior(0, symbol) as s0, prior(1, symbol) as s1, prior(2, symbol) as s2, \
                 prior(3, symbol) as s3, prior(0, price) as p0, prior(1, price) as p1, prior(2, price) as p2, \
                 prior(3, price) as p3 FROM SupportMarketDataBean.win:length(3)",
        columns: "cur string, s0 string, s1 string, s2 string, s3 string, p0 double, p1 double, p2 double, p3 double",
        typed: true,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=0", "-"),
            (2, MD, "symbol='B',price=2,volume=0", "-"),
            (3, MD, "symbol='C',price=3,volume=0", "-"),
            (
                4,
                MD,
                "symbol='D',price=4,volume=0",
                "cur='A' s0='A' s1=null s2=null s3=null p0=1.0 p1=null p2=null p3=null",
            ),
            (
                5,
                MD,
                "symbol='E',price=5,volume=0",
                "cur='B' s0='B' s1='A' s2=null s3=null p0=2.0 p1=1.0 p2=null p3=null",
            ),
            (6, MD, "symbol='F',price=6,volume=0", "cur='C' s0='C' s1='B' s2='A' s3=null p0=3.0 p1=2.0 p2=1.0 p3=null"),
            (7, MD, "symbol='G',price=7,volume=0", "cur='D' s0='D' s1='C' s2='B' s3='A' p0=4.0 p1=3.0 p2=2.0 p3=1.0"),
            (8, MD, "symbol='G',price=8,volume=0", "cur='E' s0='E' s1='D' s2='C' s3='B' p0=5.0 p1=4.0 p2=3.0 p3=2.0"),
        ],
    },
    ViewCase {
        test: "TestPriorFunction.testPriorLengthWindowWhere",
        select: "prior(2, symbol) as currSymbol FROM SupportMarketDataBean.win:length(1) where prior(2, price) > 100",
        columns: "currSymbol string",
        typed: false,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=0", "-"),
            (2, MD, "symbol='B',price=130,volume=0", "-"),
            (3, MD, "symbol='C',price=10,volume=0", "-"),
            (4, MD, "symbol='D',price=5,volume=0", "currSymbol='B'"),
        ],
    },
    ViewCase {
        test: "ExprCorePrior.ExprCorePriorUnboundSceneOne",
        select: "prior(1, symbol) as prior1 FROM SupportMarketDataBean",
        columns: "prior1 string",
        typed: false,
        steps: &[
            (1, MD, "symbol='E0',price=0,volume=0,feed=''", "prior1=null"),
            (2, MD, "symbol='E1',price=0,volume=0,feed=''", "prior1='E0'"),
            (3, MD, "symbol='E2',price=0,volume=0,feed=''", "prior1='E1'"),
            (4, MD, "symbol='E3',price=0,volume=0,feed=''", "prior1='E2'"),
            (5, MD, "symbol='E4',price=0,volume=0,feed=''", "prior1='E3'"),
            (6, MD, "symbol='E5',price=0,volume=0,feed=''", "prior1='E4'"),
            (7, MD, "symbol='E6',price=0,volume=0,feed=''", "prior1='E5'"),
            (8, MD, "symbol='E7',price=0,volume=0,feed=''", "prior1='E6'"),
            (9, MD, "symbol='E8',price=0,volume=0,feed=''", "prior1='E7'"),
        ],
    },
    ViewCase {
        test: "ExprCorePrior.ExprCorePriorUnboundSceneTwo",
        select: "theString as c0, prior(1, intPrimitive) as c1, prior(2, intPrimitive) as c2 FROM SupportBean",
        columns: "c0 string, c1 int, c2 int",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=10", "c0='E1' c1=null c2=null"),
            (2, SB, "theString='E2',intPrimitive=11", "c0='E2' c1=10 c2=null"),
            (3, SB, "theString='E3',intPrimitive=12", "c0='E3' c1=11 c2=10"),
            (4, SB, "theString='E4',intPrimitive=13", "c0='E4' c1=12 c2=11"),
            (5, SB, "theString='E5',intPrimitive=14", "c0='E5' c1=13 c2=12"),
        ],
    },
    ViewCase {
        test: "ExprCorePrior.ExprCorePriorBoundedMultiple",
        select: "irstream theString as c0, prior(1, intPrimitive) as c1, prior(2, intPrimitive) as c2 FROM \
                 SupportBean.win:length(2)",
        columns: "c0 string, c1 int, c2 int",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=10", "c0='E1' c1=null c2=null"),
            (2, SB, "theString='E2',intPrimitive=11", "c0='E2' c1=10 c2=null"),
            (3, SB, "theString='E3',intPrimitive=12", "c0='E3' c1=11 c2=10"),
            (4, SB, "theString='E4',intPrimitive=13", "c0='E4' c1=12 c2=11"),
            (5, SB, "theString='E5',intPrimitive=14", "c0='E5' c1=13 c2=12"),
        ],
    },
    ViewCase {
        test: "ExprCorePrior.ExprCorePriorBoundedMultiple (its old rows)",
        select: "rstream theString as c0, prior(1, intPrimitive) as c1, prior(2, intPrimitive) as c2 FROM \
                 SupportBean.win:length(2)",
        columns: "c0 string, c1 int, c2 int",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=10", "-"),
            (2, SB, "theString='E2',intPrimitive=11", "-"),
            (3, SB, "theString='E3',intPrimitive=12", "c0='E1' c1=null c2=null"),
            (4, SB, "theString='E4',intPrimitive=13", "c0='E2' c1=10 c2=null"),
            (5, SB, "theString='E5',intPrimitive=14", "c0='E3' c1=11 c2=10"),
        ],
    },
    ViewCase {
        test: "ExprCorePrior.ExprCorePriorBoundedSingle",
        select: "irstream theString as c0, prior(1, intPrimitive) as c1 FROM SupportBean.win:length(2)",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=10", "c0='E1' c1=null"),
            (2, SB, "theString='E2',intPrimitive=11", "c0='E2' c1=10"),
            (3, SB, "theString='E3',intPrimitive=12", "c0='E3' c1=11"),
            (4, SB, "theString='E4',intPrimitive=13", "c0='E4' c1=12"),
            (5, SB, "theString='E5',intPrimitive=14", "c0='E5' c1=13"),
        ],
    },
    ViewCase {
        test: "ExprCorePrior.ExprCorePriorBoundedSingle (its old rows)",
        select: "rstream theString as c0, prior(1, intPrimitive) as c1 FROM SupportBean.win:length(2)",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=10", "-"),
            (2, SB, "theString='E2',intPrimitive=11", "-"),
            (3, SB, "theString='E3',intPrimitive=12", "c0='E1' c1=null"),
            (4, SB, "theString='E4',intPrimitive=13", "c0='E2' c1=10"),
            (5, SB, "theString='E5',intPrimitive=14", "c0='E3' c1=11"),
        ],
    },
    ViewCase {
        test: "ExprCorePrior.ExprCorePriorLengthWindowSceneTwo",
        select: "prior(1, symbol) as prior1, prior(2, symbol) as prior2 FROM SupportMarketDataBean.win:length(3)",
        columns: "prior1 string, prior2 string",
        typed: false,
        steps: &[
            (1, MD, "symbol='E0',price=0,volume=0,feed=''", "prior1=null prior2=null"),
            (2, MD, "symbol='E1',price=0,volume=0,feed=''", "prior1='E0' prior2=null"),
            (3, MD, "symbol='E2',price=0,volume=0,feed=''", "prior1='E1' prior2='E0'"),
            (4, MD, "symbol='E3',price=0,volume=0,feed=''", "prior1='E2' prior2='E1'"),
            (5, MD, "symbol='E4',price=0,volume=0,feed=''", "prior1='E3' prior2='E2'"),
            (6, MD, "symbol='E5',price=0,volume=0,feed=''", "prior1='E4' prior2='E3'"),
            (7, MD, "symbol='E6',price=0,volume=0,feed=''", "prior1='E5' prior2='E4'"),
            (8, MD, "symbol='E7',price=0,volume=0,feed=''", "prior1='E6' prior2='E5'"),
            (9, MD, "symbol='E8',price=0,volume=0,feed=''", "prior1='E7' prior2='E6'"),
        ],
    },
    ViewCase {
        test: "semantics: std:firstunique posts the first event of a key only, and prior counts what it posts",
        select: "symbol, price, prior(1, price) as p1 FROM SupportMarketDataBean.std:firstunique(symbol)",
        columns: "symbol string, price double, p1 double",
        typed: false,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=0", "symbol='A' price=1.0 p1=null"),
            (2, MD, "symbol='B',price=2,volume=0", "symbol='B' price=2.0 p1=1.0"),
            (3, MD, "symbol='A',price=3,volume=0", "-"),
            (4, MD, "symbol='C',price=4,volume=0", "symbol='C' price=4.0 p1=2.0"),
        ],
    },
    ViewCase {
        test: "semantics: under std:groupwin prior counts the merged stream, across keys",
        select: "symbol, prior(1, symbol) as p1 FROM SupportMarketDataBean.std:groupwin(symbol).win:length(1)",
        columns: "symbol string, p1 string",
        typed: false,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=0", "symbol='A' p1=null"),
            (2, MD, "symbol='B',price=2,volume=0", "symbol='B' p1='A'"),
            (3, MD, "symbol='A',price=3,volume=0", "symbol='A' p1='B'"),
        ],
    },
    ViewCase {
        test: "semantics: an aggregate over prior takes out, as a row leaves, the value it came with",
        select: "sum(prior(1, price)) as s FROM SupportMarketDataBean.win:length(2)",
        columns: "s double",
        typed: false,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=0", "s=null"),
            (2, MD, "symbol='B',price=2,volume=0", "s=1.0"),
            (3, MD, "symbol='C',price=3,volume=0", "s=3.0"),
            (4, MD, "symbol='D',price=4,volume=0", "s=5.0"),
        ],
    },
    ViewCase {
        test: "semantics: std:unique posts every event, those replacing an event of their key included",
        select: "irstream symbol, price, prior(1, price) as p1 FROM SupportMarketDataBean.std:unique(symbol)",
        columns: "symbol string, price double, p1 double",
        typed: false,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=0", "symbol='A' price=1.0 p1=null"),
            (2, MD, "symbol='A',price=2,volume=0", "symbol='A' price=2.0 p1=1.0"),
            (3, MD, "symbol='B',price=3,volume=0", "symbol='B' price=3.0 p1=2.0"),
        ],
    },
    ViewCase {
        test: "semantics: a batch window posts a batch as it releases it, each std:groupwin key's on its own",
        select: "symbol, price, prior(1, price) as p1 FROM SupportMarketDataBean.std:groupwin(symbol).\
                 win:length_batch(2)",
        columns: "symbol string, price double, p1 double",
        typed: false,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=0", "-"),
            (2, MD, "symbol='B',price=2,volume=0", "-"),
            (3, MD, "symbol='B',price=3,volume=0", "symbol='B' price=2.0 p1=null | symbol='B' price=3.0 p1=2.0"),
            (4, MD, "symbol='A',price=4,volume=0", "symbol='A' price=1.0 p1=3.0 | symbol='A' price=4.0 p1=1.0"),
        ],
    },
];
