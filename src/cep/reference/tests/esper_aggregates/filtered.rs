//! Esper's `TestAggregateFiltered` (`regression/view` at `aaa35756`), `testCountVariations`, `testAllAggFunctions`
//! and `testFirstLastEver`: aggregates whose second argument is a filter, only the events for which it is true
//! counted, summed or averaged, as they enter and as they leave the window (the ever forms, as they enter).

use super::{ExprCase, SB};

/// `TestAggregateFiltered`, `SupportBean` sent as its `makeBean(intBoxed, boolPrimitive)` (the other properties
/// Java's defaults, `theString` null) and `makeBean(floatPrimitive, doublePrimitive, longPrimitive, shortPrimitive,
/// boolPrimitive)`. Esper asserts each event's new row; it asserts no column types. Without `shortPrimitive` (no short
/// here), `bigdec`/`bigint` of `SupportBeanNumeric` and the math context (no big numbers), `testBlackWhitePercent`
/// (`BlackWhiteEvent`, not a type here), `testFirstLastEver`'s `firstever` and `lastever` (with a filter) and
/// `testInvalid` (errors, no rows).
pub(super) const FILTERED: [ExprCase; 6] = [
    ExprCase {
        test: "TestAggregateFiltered.testCountVariations",
        select: "count(intBoxed, boolPrimitive) as c1,count(distinct intBoxed, boolPrimitive) as c2 from \
                 SupportBean.win:length(3)",
        columns: "c1 long, c2 long",
        typed: false,
        runs: &[&[
            (SB, "intBoxed=100,boolPrimitive=true", "c1=1 c2=1"),
            (SB, "intBoxed=100,boolPrimitive=true", "c1=2 c2=1"),
            (SB, "intBoxed=101,boolPrimitive=false", "c1=2 c2=1"),
            (SB, "intBoxed=102,boolPrimitive=true", "c1=2 c2=2"),
            (SB, "intBoxed=103,boolPrimitive=false", "c1=1 c2=1"),
            (SB, "intBoxed=104,boolPrimitive=false", "c1=1 c2=1"),
            (SB, "intBoxed=105,boolPrimitive=false", "c1=0 c2=0"),
        ]],
    },
    // The first statement: no event passing the filter gives null, one a null `stddev`. By the fifth event 10 has
    // left the window, and `fminever` keeps it.
    ExprCase {
        test: "TestAggregateFiltered.testAllAggFunctions",
        select: "avedev(intBoxed, boolPrimitive) as cavedev,avg(intBoxed, boolPrimitive) as cavg, fmax(intBoxed, \
                 boolPrimitive) as cmax, median(intBoxed, boolPrimitive) as cmedian, fmin(intBoxed, boolPrimitive) \
                 as cmin, stddev(intBoxed, boolPrimitive) as cstddev, sum(intBoxed, boolPrimitive) as csum,fmaxever(intBoxed, \
                 boolPrimitive) as cfmaxever, fminever(intBoxed, boolPrimitive) as cfminever from \
                 SupportBean.win:length(3)",
        columns: "cavedev double, cavg double, cmax int, cmedian double, cmin int, cstddev double, csum int, \
                  cfmaxever int, cfminever int",
        typed: false,
        runs: &[&[
            (
                SB,
                "intBoxed=100,boolPrimitive=false",
                "cavedev=null cavg=null cmax=null cmedian=null cmin=null cstddev=null csum=null cfmaxever=null \
                 cfminever=null",
            ),
            (
                SB,
                "intBoxed=10,boolPrimitive=true",
                "cavedev=0.0 cavg=10.0 cmax=10 cmedian=10.0 cmin=10 cstddev=null csum=10 cfmaxever=10 \
                 cfminever=10",
            ),
            (
                SB,
                "intBoxed=11,boolPrimitive=false",
                "cavedev=0.0 cavg=10.0 cmax=10 cmedian=10.0 cmin=10 cstddev=null csum=10 cfmaxever=10 \
                 cfminever=10",
            ),
            (
                SB,
                "intBoxed=20,boolPrimitive=true",
                "cavedev=5.0 cavg=15.0 cmax=20 cmedian=15.0 cmin=10 cstddev=7.0710678118654755 csum=30 \
                 cfmaxever=20 cfminever=10",
            ),
            (
                SB,
                "intBoxed=30,boolPrimitive=true",
                "cavedev=5.0 cavg=25.0 cmax=30 cmedian=25.0 cmin=20 cstddev=7.0710678118654755 csum=50 \
                 cfmaxever=30 cfminever=10",
            ),
        ]],
    },
    // The second statement ("all remaining types of sum"), without its `sum(shortPrimitive, boolPrimitive) as c4`:
    // Esper's `c1` is a float.
    ExprCase {
        test: "TestAggregateFiltered.testAllAggFunctions",
        select: "sum(floatPrimitive, boolPrimitive) as c1,sum(doublePrimitive, boolPrimitive) as c2, \
                 sum(longPrimitive, boolPrimitive) as c3 from SupportBean.win:length(2)",
        columns: "c1 float, c2 double, c3 long",
        typed: false,
        runs: &[&[
            (SB, "floatPrimitive=2,doublePrimitive=3,longPrimitive=4,boolPrimitive=false", "c1=null c2=null c3=null"),
            (SB, "floatPrimitive=3,doublePrimitive=4,longPrimitive=5,boolPrimitive=true", "c1=3.0 c2=4.0 c3=5"),
            (SB, "floatPrimitive=4,doublePrimitive=5,longPrimitive=6,boolPrimitive=true", "c1=7.0 c2=9.0 c3=11"),
            (SB, "floatPrimitive=1,doublePrimitive=1,longPrimitive=1,boolPrimitive=true", "c1=5.0 c2=6.0 c3=7"),
        ]],
    },
    // The statement over `SupportBean` with no data window: every event so far counts.
    ExprCase {
        test: "TestAggregateFiltered.testAllAggFunctions",
        select: "fmax(intBoxed, boolPrimitive) as c1,fmin(intBoxed, boolPrimitive) as c2 from SupportBean",
        columns: "c1 int, c2 int",
        typed: false,
        runs: &[&[
            (SB, "intBoxed=10,boolPrimitive=true", "c1=10 c2=10"),
            (SB, "intBoxed=20,boolPrimitive=true", "c1=20 c2=10"),
            (SB, "intBoxed=8,boolPrimitive=false", "c1=20 c2=10"),
            (SB, "intBoxed=7,boolPrimitive=true", "c1=20 c2=7"),
            (SB, "intBoxed=30,boolPrimitive=false", "c1=20 c2=7"),
            (SB, "intBoxed=40,boolPrimitive=true", "c1=40 c2=7"),
        ]],
    },
    // The `distinct` statement of `runAssertionDistinct` (run there twice, as text and as its object model, the
    // same statement).
    ExprCase {
        test: "TestAggregateFiltered.testAllAggFunctions",
        select: "avedev(distinct intBoxed,boolPrimitive) as cavedev, avg(distinct intBoxed,boolPrimitive) as cavg, \
                 fmax(distinct intBoxed,boolPrimitive) as cmax, median(distinct intBoxed,boolPrimitive) as cmedian, \
                 fmin(distinct intBoxed,boolPrimitive) as cmin, stddev(distinct intBoxed,boolPrimitive) as cstddev, \
                 sum(distinct intBoxed,boolPrimitive) as csum from SupportBean.win:length(3)",
        columns: "cavedev double, cavg double, cmax int, cmedian double, cmin int, cstddev double, csum int",
        typed: false,
        runs: &[&[
            (
                SB,
                "intBoxed=100,boolPrimitive=true",
                "cavedev=0.0 cavg=100.0 cmax=100 cmedian=100.0 cmin=100 cstddev=null csum=100",
            ),
            (
                SB,
                "intBoxed=100,boolPrimitive=true",
                "cavedev=0.0 cavg=100.0 cmax=100 cmedian=100.0 cmin=100 cstddev=null csum=100",
            ),
            (
                SB,
                "intBoxed=200,boolPrimitive=true",
                "cavedev=50.0 cavg=150.0 cmax=200 cmedian=150.0 cmin=100 cstddev=70.71067811865476 csum=300",
            ),
            (
                SB,
                "intBoxed=200,boolPrimitive=true",
                "cavedev=50.0 cavg=150.0 cmax=200 cmedian=150.0 cmin=100 cstddev=70.71067811865476 csum=300",
            ),
            (
                SB,
                "intBoxed=200,boolPrimitive=true",
                "cavedev=0.0 cavg=200.0 cmax=200 cmedian=200.0 cmin=200 cstddev=null csum=200",
            ),
        ]],
    },
    // `testFirstLastEver`'s `countever` column alone: its `firstever` and `lastever` take a filter, which the subset
    // refuses.
    ExprCase {
        test: "TestAggregateFiltered.testFirstLastEver",
        select: "countever(*,boolPrimitive) as c3 from SupportBean.win:length(3)",
        columns: "c3 long",
        typed: false,
        runs: &[&[
            (SB, "intBoxed=100,boolPrimitive=false", "c3=0"),
            (SB, "intBoxed=100,boolPrimitive=true", "c3=1"),
            (SB, "intBoxed=200,boolPrimitive=true", "c3=2"),
            (SB, "intBoxed=201,boolPrimitive=false", "c3=2"),
        ]],
    },
];
