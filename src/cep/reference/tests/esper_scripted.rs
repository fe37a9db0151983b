//! Esper's own pattern tests that drive their statements with events and clock moves of their own (in the classes
//! of [`super::esper_patterns`], outside their harness), run through the reference with the rows Esper's tests expect.

use super::{engine, row, text};
use crate::cep::runtime::{Engine, Output, Val};

/// One of Esper's pattern tests outside its harness: the statement's select list and pattern, its events and clock
/// moves (`(ms, type, properties)`, a move when the type is empty), and the rows expected, each as its non-null
/// columns (`name=value`, in name order) with its time.
pub(crate) struct Scripted {
    pub select: &'static str,
    pub pattern: &'static str,
    /// What the statement has after its pattern (`WHERE ...`).
    pub after: &'static str,
    pub steps: &'static [(i64, &'static str, &'static str)],
    pub rows: &'static [(i64, &'static str)],
}

/// The events of ESPER-411's test (`testFilterGreaterThen`), with a third that is not Esper's, and its rows.
const ESPER_411_STEPS: [(i64, &str, &str); 3] = [
    (1, "S", "theString=E1,intPrimitive=10"),
    (2, "S", "theString=E2,intPrimitive=11"),
    (3, "S", "theString=E3,intPrimitive=5"),
];
const ESPER_411_ROWS: [(i64, &str); 2] = [(3, "a=E1 b=E3"), (3, "a=E2 b=E3")];

/// Esper's pattern tests with their own events and clock, in the classes of [`ESPER_PATTERNS`] and `TestPatternQueries`
/// (types: `A` to `D` with `id`; `S` for `SupportBean`, with `theString` and `intPrimitive`; `M` for
/// `SupportMarketDataBean`, with `symbol` and `volume`; `LR` for `SupportRFIDEvent`, with `mac` and `zoneID`; `S0` and
/// `S1` for `SupportBean_S0` and `_S1`, their `id` as `n`). Where Esper's test asserts only that its listener heard
/// something, the rows are worked out from the pattern.
pub(crate) const SCRIPTED: [Scripted; 15] = [
    // TestEveryOperator.testEveryAndNot
    Scripted {
        select: "'No event within 6 seconds' as alert",
        pattern: "every (timer:interval(6) and not S)",
        after: "",
        steps: &[(2000, "S", ""), (7999, "", ""), (12000, "S", ""), (13000, "S", ""), (19000, "", "")],
        rows: &[(8000, "alert=No event within 6 seconds"), (19000, "alert=No event within 6 seconds")],
    },
    // TestFollowedByOperator.testFollowedByWithNot
    Scripted {
        select: "a.id as a",
        pattern: "every a=A -> (timer:interval(10 seconds) and not (B(id=a.id) or C(id=a.id)))",
        after: "",
        steps: &[
            (0, "A", "id=A1"),
            (9999, "", ""),
            (10000, "", ""),
            (20000, "A", "id=A2"),
            (29999, "B", "id=A2"),
            (30000, "A", "id=A3"),
            (30000, "C", "id=A3"),
            (40000, "A", "id=A4"),
            (40000, "B", "id=B4"),
            (40000, "C", "id=A5"),
            (50000, "", ""),
        ],
        rows: &[(10000, "a=A1"), (50000, "a=A4")],
    },
    // TestFollowedByOperator.testFollowedNotEvery
    Scripted {
        select: "a.theString as s",
        pattern: "every a=S -> (timer:interval(1 seconds) and not A)",
        after: "",
        steps: &[(0, "S", "theString=E1"), (0, "S", "theString=E2"), (1000, "", "")],
        rows: &[(1000, "s=E1"), (1000, "s=E2")],
    },
    // TestFollowedByOperator.testFollowedEveryMultiple
    Scripted {
        select: "a.id as a, b.id as b, c.id as c, d.id as d",
        pattern: "every a=A -> b=B -> c=C -> d=D",
        after: "",
        steps: &[(1, "A", "id=A1"), (2, "A", "id=A2"), (3, "B", "id=B1"), (4, "C", "id=C1"), (5, "D", "id=D1")],
        rows: &[(5, "a=A1 b=B1 c=C1 d=D1"), (5, "a=A2 b=B1 c=C1 d=D1")],
    },
    // TestFollowedByOperator.testRFIDZoneExit
    Scripted {
        select: "b.mac as mac, b.zoneID as zone",
        pattern: "every a=LR(zoneID='1') -> (b=LR(mac=a.mac,zoneID!='1') and not LR(mac=a.mac,zoneID='1'))",
        after: "",
        steps: &[
            (1, "LR", "mac=a,zoneID=1"),
            (2, "LR", "mac=a,zoneID=2"),
            (3, "LR", "mac=b,zoneID=1"),
            (4, "LR", "mac=b,zoneID=1"),
            (5, "LR", "mac=b,zoneID=2"),
        ],
        rows: &[(2, "mac=a zone=2"), (5, "mac=b zone=2")],
    },
    // TestFollowedByOperator.testRFIDZoneEnter
    Scripted {
        select: "b.mac as mac, b.zoneID as zone",
        pattern: "every a=LR(zoneID!='1') -> (b=LR(mac=a.mac,zoneID='1') and not LR(mac=a.mac,zoneID=a.zoneID))",
        after: "",
        steps: &[
            (1, "LR", "mac=a,zoneID=2"),
            (2, "LR", "mac=a,zoneID=1"),
            (3, "LR", "mac=b,zoneID=2"),
            (4, "LR", "mac=b,zoneID=2"),
            (5, "LR", "mac=b,zoneID=1"),
        ],
        rows: &[(2, "mac=a zone=1"), (5, "mac=b zone=1")],
    },
    // TestFollowedByOperator.testFilterGreaterThen (ESPER-411), its two statements, each filter reading its own tag;
    // E3 is not Esper's, added to see rows
    Scripted {
        select: "a.theString as a, b.theString as b",
        pattern: "every a=S -> b=S(b.intPrimitive <= a.intPrimitive)",
        after: "",
        steps: &ESPER_411_STEPS,
        rows: &ESPER_411_ROWS,
    },
    Scripted {
        select: "a.theString as a, b.theString as b",
        pattern: "every a=S -> b=S(a.intPrimitive >= b.intPrimitive)",
        after: "",
        steps: &ESPER_411_STEPS,
        rows: &ESPER_411_ROWS,
    },
    // TestFollowedByOperator.testFollowedOrPermFalse (Esper asserts only that a row came at 11 s)
    Scripted {
        select: "s.theString as s",
        pattern: "every s=S(theString='E') -> (timer:interval(10) and not S(theString='C1'))or(S(theString='C2') and \
                  not timer:interval(10))",
        after: "",
        steps: &[(1000, "S", "theString=E"), (10999, "", ""), (11000, "", "")],
        rows: &[(11000, "s=E")],
    },
    // TestNotOperator.testNotTimeInterval
    Scripted {
        select: "a.theString as s",
        pattern: "every a=S(intPrimitive=123) -> (timer:interval(30 seconds) and not M(volume=123, \
                  symbol=a.theString))",
        after: "",
        steps: &[
            (0, "S", "theString=E1,intPrimitive=123"),
            (10000, "S", "theString=E2,intPrimitive=123"),
            (20000, "M", "symbol=E1,volume=123"),
            (30000, "S", "theString=E3,intPrimitive=123"),
            (40000, "", ""),
        ],
        rows: &[(40000, "s=E2")],
    },
    // TestOrOperator.testOrAndNotAndZeroStart, its two patterns
    Scripted {
        select: "a.id as a, b.id as b",
        pattern: "(a=A -> b=B) or (a=A -> not b=B)",
        after: "",
        steps: &[(1, "A", "id=A1"), (2, "B", "id=B1")],
        rows: &[(1, "a=A1"), (2, "a=A1 b=B1")],
    },
    Scripted {
        select: "a.id as a, b.id as b",
        pattern: "a=A -> (b=B or not B)",
        after: "",
        steps: &[(1, "A", "id=A1"), (2, "B", "id=B1")],
        rows: &[(1, "a=A1"), (2, "a=A1 b=B1")],
    },
    // TestPatternQueries.testWhere (`SupportBean_S0`'s and `SupportBean_S1`'s `id` is `n`, cast to text for `Out`)
    Scripted {
        select: "cast(s0.n, string) as idS0, cast(s1.n, string) as idS1",
        pattern: "every s0=S0 or every s1=S1",
        after: " WHERE (s0.n is not null and s0.n < 100) or (s1.n is not null and s1.n >= 100)",
        steps: &[(1, "S0", "n=1"), (2, "S0", "n=101"), (3, "S1", "n=1"), (4, "S1", "n=100")],
        rows: &[(1, "idS0=1"), (4, "idS1=100")],
    },
    // TestPatternQueries.testAggregation: a sum over nulls is null
    Scripted {
        select: "cast(sum(s0.n), string) as sumS0, cast(sum(s1.n), string) as sumS1, cast(sum(s0.n + s1.n), string) as \
                 sumS0S1",
        pattern: "every s0=S0 or every s1=S1",
        after: "",
        steps: &[(1, "S0", "n=1"), (2, "S1", "n=2"), (3, "S1", "n=10"), (4, "S0", "n=20")],
        rows: &[(1, "sumS0=1"), (2, "sumS0=1 sumS1=2"), (3, "sumS0=1 sumS1=12"), (4, "sumS0=21 sumS1=12")],
    },
    // TestTimerWithinGuard.testInterval10Min
    Scripted {
        select: "s.theString as s",
        pattern: "(every s=S) where timer:within(1 days 2 hours 3 minutes 4 seconds 5 milliseconds)",
        after: "",
        steps: &[(0, "S", "theString=E1"), (93_784_004, "S", "theString=E2"), (93_784_005, "S", "theString=E3")],
        rows: &[(0, "s=E1"), (93_784_004, "s=E2")],
    },
];

/// A configuration reading the types of [`SCRIPTED`] and writing `Out` with `columns` (all text), running `INSERT
/// INTO Out SELECT select FROM pattern [pattern]`.
pub(crate) fn scripted_config(case: &Scripted) -> String {
    let attributes = |names: &[(&str, &str)]| {
        let each: Vec<String> = names.iter().map(|(n, t)| format!(r#"{{"name":"{n}","type":"{t}"}}"#)).collect();
        each.join(",")
    };
    let types: [(&str, &[(&str, &str)]); 9] = [
        ("A", &[("x", "string")]),
        ("B", &[("x", "string")]),
        ("C", &[("x", "string")]),
        ("D", &[("x", "string")]),
        ("S", &[("theString", "string"), ("intPrimitive", "int")]),
        ("M", &[("symbol", "string"), ("volume", "long")]),
        ("LR", &[("mac", "string"), ("zoneID", "string")]),
        ("S0", &[("n", "int"), ("p00", "string")]),
        ("S1", &[("n", "int")]),
    ];
    let ins: Vec<String> = (types.iter())
        .map(|(t, a)| format!(r#"{{"id":"{t}.*","type":"{t}","isPattern":true,"attributes":[{}]}}"#, attributes(a)))
        .collect();
    // Each column is the word after an ` as ` of the select list.
    let alias = |at: usize| case.select[at + 4..].split(|c: char| !c.is_alphanumeric()).next().expect("an alias");
    let columns: Vec<(&str, &str)> = case.select.match_indices(" as ").map(|(at, _)| (alias(at), "string")).collect();
    let statement = format!("INSERT INTO Out SELECT {} FROM pattern [{}]{}", case.select, case.pattern, case.after);
    let statement = serde_json::to_string(&statement).expect("text");
    format!(
        r#"{{"host":"h","in":[{}],"out":[{{"id":"O","type":"Out","attributes":[{}]}}],"statements":[{statement}]}}"#,
        ins.join(","),
        attributes(&columns)
    )
}

/// The rows of a [`Scripted`] case through `e`, each with its time, in the order they came out.
pub(crate) fn scripted_rows(e: &mut dyn Engine, case: &Scripted) -> Vec<(i64, String)> {
    let mut out: Vec<Output> = Vec::new();
    for (ms, stream, props) in case.steps {
        if stream.is_empty() {
            out.extend(e.advance(*ms));
            continue;
        }
        let props: Vec<(&str, Val)> = (props.split(',').filter(|p| !p.is_empty()))
            .map(|p| p.split_once('=').expect("name=value"))
            .map(|(n, v)| match n {
                "intPrimitive" | "volume" | "n" => (n, Val::Int(v.parse().expect("a number"))),
                _ => (n, text(v)),
            })
            .collect();
        out.extend(e.push(*ms, stream, row(&props)));
    }
    out.iter().map(|o| (o.time, columns_of(o))).collect()
}

/// An output's non-null columns as `name=value`, in name order.
pub(super) fn columns_of(output: &Output) -> String {
    let shown = output.row.iter().filter_map(|(name, value)| match value {
        Val::Null => None,
        Val::String(s) => Some(format!("{name}={s}")),
        Val::Int(n) => Some(format!("{name}={n}")),
        Val::Double(x) => Some(format!("{name}={x:?}")),
        other => Some(format!("{name}={other:?}")),
    });
    shown.collect::<Vec<_>>().join(" ")
}

#[test]
fn esper_scripted_pattern_tests() {
    for case in &SCRIPTED {
        let rows = scripted_rows(&mut engine(&scripted_config(case)), case);
        let expected: Vec<(i64, String)> = case.rows.iter().map(|(t, r)| (*t, r.to_string())).collect();
        assert_eq!(rows, expected, "{}", case.pattern);
    }
}
