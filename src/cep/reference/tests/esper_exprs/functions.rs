//! Esper's `TestCaseExpr` (at `645a97e4`), `TestLikeRegexpExpr` (`645a97e4`), `TestMathExpr` (`f18a3602`),
//! `TestCastExpr` (`b9c19356`), `TestPerRowFunc` (`645a97e4`) and `TestSelectExpr.testConcat` (`aaa35756`): `case`,
//! `like`, `regexp`, division, `cast`, `coalesce`, `||`, `%` and `not`, per event.

use super::{CE, CLOCK, ExprCase, MD, S0, SB};

/// `TestCaseExpr` (at `645a97e4`), `SupportMarketDataBean` sent as `(symbol, price, volume)`; without Java methods and
/// enums (`testCaseSyntax2StringsNBranches`, `testCaseSyntax2Enum*`), and `testCaseSyntax2NoAsName`, whose column the
/// planner names `CASE intPrimitive WHEN 1 THEN 0 END` where Esper names it `case intPrimitive when 1 then 0 end`.
pub(super) const CASE_EXPR: [ExprCase; 11] = [
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax2WithNullBool",
        select: "case boolBoxed  when null then 1  when true then 2l when false then 3  end as p1 FROM \
                 SupportBean.win:length(100)",
        columns: "p1 long",
        typed: true,
        runs: &[&[(SB, "", "p1=1"), (SB, "boolBoxed=false", "p1=3"), (SB, "boolBoxed=true", "p1=2")]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax1WithElse",
        select: "case  when symbol='DELL' then 3 * volume  else volume end as p1 FROM \
                 SupportMarketDataBean.win:length(3)",
        columns: "p1 long",
        typed: true,
        runs: &[&[
            (MD, "symbol='CSCO',price=0,volume=4000", "p1=4000"),
            (MD, "symbol='DELL',price=0,volume=20", "p1=60"),
        ]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax1WithNull",
        select: "case  when theString is null then true  when theString = '' then false end as p1 FROM \
                 SupportBean.win:length(100)",
        columns: "p1 boolean",
        typed: true,
        runs: &[&[
            (SB, "theString='x'", "p1=null"),
            (SB, "theString='null'", "p1=null"),
            (SB, "", "p1=true"),
            (SB, "theString=''", "p1=false"),
        ]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax2WithCoercion",
        select: "case intPrimitive  when 1.0 then null  when 4/2.0 then 'x' end as p1 FROM SupportBean.win:length(100)",
        columns: "p1 string",
        typed: true,
        runs: &[&[
            (SB, "intPrimitive=1", "p1=null"),
            (SB, "intPrimitive=2", "p1='x'"),
            (SB, "intPrimitive=3", "p1=null"),
        ]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax2WithinExpression",
        select: "2 * (case  intPrimitive when 1 then 2  when 2 then 3  else 10 end) as p1  FROM \
                 SupportBean.win:length(1)",
        columns: "p1 int",
        typed: true,
        runs: &[&[(SB, "intPrimitive=1", "p1=4"), (SB, "intPrimitive=2", "p1=6"), (SB, "intPrimitive=3", "p1=20")]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax1Sum",
        select: "case  when symbol='GE' then volume  when symbol='DELL' then sum(price) end as p1 FROM \
                 SupportMarketDataBean.win:length(10)",
        columns: "p1 double",
        typed: true,
        runs: &[&[
            (MD, "symbol='DELL',price=50,volume=10000", "p1=50.0"),
            (MD, "symbol='DELL',price=50,volume=10000", "p1=100.0"),
            (MD, "symbol='CSCO',price=5,volume=4000", "p1=null"),
            (MD, "symbol='GE',price=30,volume=20", "p1=20.0"),
        ]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax1Branches3",
        select: "case  when (symbol='GE') then volume  when (symbol='DELL') then volume / 2.0  when \
                 (symbol='MSFT') then volume / 3.0  end as p1 FROM SupportMarketDataBean",
        columns: "p1 double",
        typed: true,
        runs: &[&[
            (MD, "symbol='DELL',price=0,volume=10000", "p1=5000.0"),
            (MD, "symbol='MSFT',price=0,volume=10000", "p1=3333.3333333333335"),
            (MD, "symbol='GE',price=0,volume=10000", "p1=10000.0"),
        ]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax2",
        select: "case intPrimitive  when longPrimitive then (intPrimitive + longPrimitive)  when doublePrimitive then \
                 intPrimitive * doublePrimitive when floatPrimitive then floatPrimitive / doublePrimitive  else \
                 (intPrimitive + longPrimitive + floatPrimitive + doublePrimitive) end as p1  FROM \
                 SupportBean.win:length(10)",
        columns: "p1 double",
        typed: true,
        runs: &[&[
            (SB, "intPrimitive=2,longPrimitive=2,floatPrimitive=1,doublePrimitive=1", "p1=4.0"),
            (SB, "intPrimitive=5,longPrimitive=1,floatPrimitive=1,doublePrimitive=5", "p1=25.0"),
            (SB, "intPrimitive=12,longPrimitive=1,floatPrimitive=12,doublePrimitive=4", "p1=3.0"),
            (SB, "intPrimitive=1,longPrimitive=2,floatPrimitive=3,doublePrimitive=4", "p1=10.0"),
        ]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax2NoElseWithNull",
        select: "case theString  when null then true  when '' then false end as p1 FROM SupportBean.win:length(100)",
        columns: "p1 boolean",
        typed: true,
        runs: &[&[
            (SB, "theString='x'", "p1=null"),
            (SB, "theString='null'", "p1=null"),
            (SB, "", "p1=true"),
            (SB, "theString=''", "p1=false"),
        ]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax2WithNull",
        select: "case intPrimitive  when 1 then null  when 2 then 1.0 when 3 then null  else 2  end as p1 FROM \
                 SupportBean.win:length(100)",
        columns: "p1 double",
        typed: true,
        runs: &[&[
            (SB, "intPrimitive=4", "p1=2.0"),
            (SB, "intPrimitive=1", "p1=null"),
            (SB, "intPrimitive=2", "p1=1.0"),
            (SB, "intPrimitive=3", "p1=null"),
        ]],
    },
    ExprCase {
        test: "TestCaseExpr.testCaseSyntax2Sum",
        select: "case intPrimitive when 1 then sum(longPrimitive)  when 2 then sum(floatPrimitive)  else \
                 sum(intPrimitive) end as p1  FROM SupportBean.win:length(10)",
        columns: "p1 double",
        typed: true,
        runs: &[&[
            (SB, "intPrimitive=1,longPrimitive=10,floatPrimitive=3,doublePrimitive=4", "p1=10.0"),
            (SB, "intPrimitive=1,longPrimitive=15,floatPrimitive=3,doublePrimitive=4", "p1=25.0"),
            (SB, "intPrimitive=2,longPrimitive=1,floatPrimitive=3,doublePrimitive=4", "p1=9.0"),
            (SB, "intPrimitive=2,longPrimitive=1,floatPrimitive=3,doublePrimitive=4", "p1=12.0"),
            (SB, "intPrimitive=5,longPrimitive=1,floatPrimitive=1,doublePrimitive=1", "p1=11.0"),
            (SB, "intPrimitive=5,longPrimitive=1,floatPrimitive=1,doublePrimitive=1", "p1=16.0"),
        ]],
    },
];

/// `TestLikeRegexpExpr` (at `645a97e4`), without `testRegexpFilterWithDanglingMetaCharacter`, whose pattern `*any*`
/// Esper 5 accepts and then fails on at each event (Esper 7 and later refuse it, as the planner does) and
/// `testInvalidLikeRegEx`, whose statements are refused here too.
pub(super) const LIKE: [ExprCase; 3] = [
    ExprCase {
        test: "TestLikeRegexpExpr.testLikeRegexStringAndNull",
        select: "p00 like p01 as r1, p00 like p01 escape \"!\" as r2, p02 regexp p03 as r3 FROM SupportBean_S0",
        columns: "r1 boolean, r2 boolean, r3 boolean",
        typed: false,
        runs: &[&[
            (S0, "p00='a',p01='b',p02='c',p03='d'", "r1=false r2=false r3=false"),
            (S0, "p01='b',p03='d'", "r1=null r2=null r3=null"),
            (S0, "p00='a',p02='c'", "r1=null r2=null r3=null"),
            (S0, "", "r1=null r2=null r3=null"),
            (S0, "p00='abcdef',p01='%de_',p02='a',p03='[a-c]'", "r1=true r2=true r3=true"),
            (S0, "p00='abcdef',p01='b%de_',p02='d',p03='[a-c]'", "r1=false r2=false r3=false"),
            (S0, "p00='!adex',p01='!%de_',p02='',p03='.'", "r1=true r2=false r3=false"),
            (S0, "p00='%dex',p01='!%de_',p02='a',p03='.'", "r1=false r2=true r3=true"),
        ]],
    },
    ExprCase {
        test: "TestLikeRegexpExpr.testLikeRegexEscapedChar",
        select: "p00 regexp '\\\\w*-ABC' as result FROM SupportBean_S0",
        columns: "result boolean",
        typed: false,
        runs: &[&[(S0, "p00='TBT-ABC'", "result=true"), (S0, "p00='TBT-BC'", "result=false")]],
    },
    ExprCase {
        test: "TestLikeRegexpExpr.testLikeRegexNumericAndNull",
        select: "intBoxed like '%01%' as r1, doubleBoxed regexp '[0-9][0-9].[0-9]' as r2 FROM SupportBean",
        columns: "r1 boolean, r2 boolean",
        typed: false,
        runs: &[&[
            (SB, "intBoxed=101,doubleBoxed=1.1", "r1=true r2=false"),
            (SB, "intBoxed=102,doubleBoxed=11.0", "r1=false r2=true"),
            (SB, "", "r1=null r2=null"),
        ]],
    },
];

/// `TestMathExpr` (at `f18a3602`), without its test of the engine's integer division setting.
pub(super) const MATH: [ExprCase; 1] = [ExprCase {
    test: "TestMathExpr.testIntDivisionDoubleResultZeroDevision",
    select: "intPrimitive/intBoxed as result FROM SupportBean",
    columns: "result double",
    typed: true,
    runs: &[&[
        (SB, "intPrimitive=100,intBoxed=3", "result=33.333333333333336"),
        (SB, "intPrimitive=100", "result=null"),
        (SB, "intPrimitive=100,intBoxed=0", "result=inf"),
        (SB, "intPrimitive=-5,intBoxed=0", "result=-inf"),
    ]],
}];

/// `TestTimestampExpr.testGetTimestamp` (Esper 5's `regression/expr`): `current_timestamp`, with and without its parentheses, is
/// the engine's time when the event arrives, a `long`. Esper's first column, named by its text, is `ct` here.
pub(super) const TIMESTAMP: [ExprCase; 1] = [ExprCase {
    test: "TestTimestampExpr.testGetTimestamp",
    select: "current_timestamp() as ct, current_timestamp as t0, current_timestamp() as t1, current_timestamp + 1 \
             as t2 from SupportBean",
    columns: "ct long, t0 long, t1 long, t2 long",
    typed: true,
    runs: &[&[
        (CLOCK, "0", "-"),
        (CLOCK, "100", "-"),
        (SB, "intPrimitive=1", "ct=100 t0=100 t1=100 t2=101"),
        (CLOCK, "999", "-"),
        (SB, "intPrimitive=2", "ct=999 t0=999 t1=999 t2=1000"),
    ]],
}];

/// `TestCastExpr` (at `b9c19356`): the columns cast to a type of the subset (not to Java classes, byte or short);
/// without date formats (refused by the parser), dynamic properties and interfaces.
pub(super) const CAST: [ExprCase; 4] = [
    ExprCase {
        test: "TestCastExpr.testCastSimple",
        select: "cast(theString as string) as t0,  cast(intBoxed, int) as t1,  cast(intPrimitive, long) as \
                 t5,  cast(floatBoxed, long) as t7  FROM SupportBean",
        columns: "t0 string, t1 int, t5 long, t7 long",
        typed: true,
        runs: &[&[
            (SB, "theString='abc',intPrimitive=100,floatBoxed=9.5,intBoxed=3", "t0='abc' t1=3 t5=100 t7=9"),
            (SB, "intPrimitive=100", "t0=null t1=null t5=100 t7=null"),
            (SB, "intPrimitive=100", "t0=null t1=null t5=100 t7=null"),
        ]],
    },
    ExprCase {
        test: "TestCastExpr.testCastAsParse",
        select: "cast(theString, int) as t0 FROM SupportBean",
        columns: "t0 int",
        typed: true,
        runs: &[&[(SB, "theString='12',intPrimitive=1", "t0=12")]],
    },
    ExprCase {
        test: "TestCastExpr.testCastBoolean",
        select: "cast(boolBoxed, string) as t2  FROM SupportBean",
        columns: "t2 string",
        typed: true,
        runs: &[&[
            (SB, "theString='abc',intPrimitive=100,boolPrimitive=true,boolBoxed=true", "t2='true'"),
            (SB, "intPrimitive=100,boolPrimitive=false,boolBoxed=false", "t2='false'"),
            (SB, "intPrimitive=100,boolPrimitive=true", "t2=null"),
        ]],
    },
    ExprCase {
        test: "TestCastExpr.testCastMapStringInt",
        select: "cast(anInt, int) as intVal, cast(anDouble, double) as doubleVal, cast(anLong, long) as longVal, \
                 cast(anFloat, float) as floatVal, cast(intPrimitive, int) as intOne, cast(intBoxed, int) as intTwo, \
                 cast(intBoxed, long) as longTwo FROM CastEvent",
        columns: "intVal int, doubleVal double, longVal long, floatVal float, intOne int, intTwo int, longTwo long",
        typed: true,
        runs: &[&[(
            CE,
            "anInt='100',anDouble='1.4E-1',anLong='-10',anFloat='1.001',intPrimitive=10,intBoxed=11",
            "intVal=100 doubleVal=0.14 longVal=-10 floatVal=1.001 intOne=10 intTwo=11 longTwo=11",
        )]],
    },
];

/// `TestPerRowFunc` (at `645a97e4`), without `coalesce` over events or short and byte properties, and without the
/// short third value of `testMinMaxWindowStats`; with `TestSelectExpr.testConcat` (`aaa35756`).
pub(super) const PER_ROW: [ExprCase; 5] = [
    ExprCase {
        test: "TestPerRowFunc.testMinMaxWindowStats",
        select: "max(longBoxed, intBoxed) as myMax, min(longBoxed, intBoxed) as myMin FROM SupportBean.win:length(3)",
        columns: "myMax long, myMin long",
        typed: true,
        runs: &[&[
            (SB, "longBoxed=10,intBoxed=20", "myMax=20 myMin=10"),
            (SB, "longBoxed=-10,intBoxed=-20", "myMax=-10 myMin=-20"),
        ]],
    },
    ExprCase {
        test: "TestSelectExpr.testConcat",
        select: "p00 || p01 as c1, p00 || p01 || p02 as c2, p00 || '|' || p01 as c3 FROM SupportBean_S0.win:length(10)",
        columns: "c1 string, c2 string, c3 string",
        typed: true,
        runs: &[&[
            (S0, "p00='a',p01='b',p02='c'", "c1='ab' c2='abc' c3='a|b'"),
            (S0, "p01='b',p02='c'", "c1=null c2=null c3=null"),
            (S0, "p00='',p01='b',p02='c'", "c1='b' c2='bc' c3='|b'"),
            (S0, "p00='123',p02='c'", "c1=null c2=null c3=null"),
            (S0, "p00='123',p01='456',p02='c'", "c1='123456' c2='123456c' c3='123|456'"),
            (S0, "p00='123',p01='456'", "c1='123456' c2=null c3='123|456'"),
        ]],
    },
    ExprCase {
        test: "TestPerRowFunc.testCoalesceBeans",
        select: "coalesce(a.theString, b.theString) as myString FROM pattern [every (a=SupportBean(theString='s0') or \
                 b=SupportBean(theString='s1'))]",
        columns: "myString string",
        typed: false,
        runs: &[&[(SB, "theString='s0'", "myString='s0'"), (SB, "theString='s1'", "myString='s1'")]],
    },
    ExprCase {
        test: "TestPerRowFunc.testCoalesceBeans",
        select: "COALESCE(a.theString, b.theString) AS myString FROM PATTERN [EVERY (a=SupportBean(theString='s0') OR \
                 b=SupportBean(theString='s1'))]",
        columns: "myString string",
        typed: false,
        runs: &[&[(SB, "theString='s0'", "myString='s0'"), (SB, "theString='s1'", "myString='s1'")]],
    },
    ExprCase {
        test: "TestPerRowFunc.testOperators",
        select: "longBoxed % intBoxed as myMod  FROM SupportBean.win:length(3) where not(longBoxed > intBoxed)",
        columns: "myMod long",
        typed: true,
        runs: &[&[
            (SB, "longBoxed=1,intBoxed=1", "myMod=0"),
            (SB, "longBoxed=2,intBoxed=1", "-"),
            (SB, "longBoxed=2,intBoxed=3", "myMod=2"),
        ]],
    },
];
