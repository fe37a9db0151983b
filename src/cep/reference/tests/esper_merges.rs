//! Esper's `TestInfraOnMerge.testFlow` (espertechinc/esper at `aaa35756`, `regression/nwtable`) through the
//! reference: a unique window that an insert, a delete of all rows and a merge with three `WHEN MATCHED` clauses and
//! a `WHEN NOT MATCHED` write. Esper's test reads the merge's own listener and the window's iterator; here a consumer
//! of the window's insert stream (`Out`) and a join that looks keys up in the window (`Seen`) show the same: each
//! insert and update as its new row, and the rows the window holds. Esper's stream filters
//! (`SupportBean(boolPrimitive)`, `on SupportBean(boolPrimitive=false)`) are two streams here, `SupportBean` and `Up`.

use super::esper_scripted::columns_of;
use super::{engine, row, text};
use crate::cep::runtime::{Engine, Output, Val};

/// The window, its writers, the consumer and the lookup.
pub(crate) const MERGE_FLOW: &str = r#"{"host":"h","in":[
 {"id":"SB.*","type":"SupportBean","isPattern":true,"attributes":[{"name":"theString","type":"string"},
   {"name":"intPrimitive","type":"int"},{"name":"intBoxed","type":"int"}]},
 {"id":"Up.*","type":"Up","isPattern":true,"attributes":[{"name":"theString","type":"string"},
   {"name":"intPrimitive","type":"int"},{"name":"intBoxed","type":"int"}]},
 {"id":"A.*","type":"SupportBean_A","isPattern":true,"attributes":[{"name":"x","type":"string"}]},
 {"id":"P.*","type":"Probe","isPattern":true,"attributes":[{"name":"theString","type":"string"}]}],
"out":[{"id":"O","type":"Out","attributes":[{"name":"theString","type":"string"},{"name":"intPrimitive","type":"int"},
   {"name":"intBoxed","type":"int"}]},
 {"id":"S","type":"Seen","attributes":[{"name":"probe","type":"string"},{"name":"intPrimitive","type":"int"},
   {"name":"intBoxed","type":"int"}]}],
"statements":[
 "CREATE WINDOW MyMergeInfra.std:unique(theString) as SupportBean",
 "INSERT INTO MyMergeInfra SELECT theString, intPrimitive, intBoxed FROM SupportBean",
 "ON SupportBean_A DELETE FROM MyMergeInfra",
 "ON Up as up MERGE MyMergeInfra as mv WHERE mv.theString = up.theString WHEN MATCHED AND up.intPrimitive < 0 THEN DELETE WHEN MATCHED AND up.intPrimitive = 0 THEN UPDATE SET intPrimitive = 0, intBoxed = 0 WHEN MATCHED THEN UPDATE SET intPrimitive = up.intPrimitive, intBoxed = up.intBoxed + mv.intBoxed WHEN NOT MATCHED THEN INSERT SELECT *",
 "INSERT INTO Out SELECT theString, intPrimitive, intBoxed FROM MyMergeInfra",
 "INSERT INTO Seen SELECT p.theString as probe, w.intPrimitive as intPrimitive, w.intBoxed as intBoxed FROM Probe as p unidirectional LEFT OUTER JOIN MyMergeInfra as w ON p.theString = w.theString"]}"#;

/// Esper's steps, a millisecond apart: `(type, theString, intPrimitive, intBoxed)`; a probe or a delete has only
/// its type and text. After its nine steps (the window then holds E3 alone), probes of the three keys, the delete of
/// all rows, and the flow's first two steps again on the emptied window, as Esper's test runs it a second time.
pub(crate) const MERGE_STEPS: [(&str, &str, i64, i64); 17] = [
    ("SupportBean", "E1", 10, 200),
    ("Up", "E1", 11, 201),
    ("Up", "E2", 13, 300),
    ("Up", "E2", 14, 301),
    ("Up", "E2", 15, 302),
    ("Up", "E3", 40, 400),
    ("Up", "E3", 0, 1000),
    ("Up", "E2", -1, 1000),
    ("Up", "E1", -1, 1000),
    ("Probe", "E1", 0, 0),
    ("Probe", "E2", 0, 0),
    ("Probe", "E3", 0, 0),
    ("SupportBean_A", "A1", 0, 0),
    ("Probe", "E3", 0, 0),
    ("SupportBean", "E1", 10, 200),
    ("Up", "E1", 11, 201),
    ("Probe", "E1", 0, 0),
];

/// The rows Esper's assertions give, by step (its millisecond): an update's new row, no row for a delete.
pub(crate) const MERGE_ROWS: [(i64, &str, &str); 14] = [
    (1, "Out", "intBoxed=200 intPrimitive=10 theString=E1"),
    (2, "Out", "intBoxed=401 intPrimitive=11 theString=E1"),
    (3, "Out", "intBoxed=300 intPrimitive=13 theString=E2"),
    (4, "Out", "intBoxed=601 intPrimitive=14 theString=E2"),
    (5, "Out", "intBoxed=903 intPrimitive=15 theString=E2"),
    (6, "Out", "intBoxed=400 intPrimitive=40 theString=E3"),
    (7, "Out", "intBoxed=0 intPrimitive=0 theString=E3"),
    (10, "Seen", "probe=E1"),
    (11, "Seen", "probe=E2"),
    (12, "Seen", "intBoxed=0 intPrimitive=0 probe=E3"),
    (14, "Seen", "probe=E3"),
    (15, "Out", "intBoxed=200 intPrimitive=10 theString=E1"),
    (16, "Out", "intBoxed=401 intPrimitive=11 theString=E1"),
    (17, "Seen", "intBoxed=401 intPrimitive=11 probe=E1"),
];

/// [`MERGE_STEPS`] through `e` (running [`MERGE_FLOW`]): each row with its time and stream, in the order they came.
pub(crate) fn merge_rows(e: &mut dyn Engine) -> Vec<(i64, String, String)> {
    let mut out: Vec<Output> = Vec::new();
    for (ms, (stream, key, int, boxed)) in (1..).zip(MERGE_STEPS) {
        let props = match stream {
            "SupportBean" | "Up" => {
                vec![("theString", text(key)), ("intPrimitive", Val::Int(int)), ("intBoxed", Val::Int(boxed))]
            }
            _ => vec![("theString", text(key))],
        };
        out.extend(e.push(ms, stream, row(&props)));
    }
    out.iter().map(|o| (o.time, o.stream.to_string(), columns_of(o))).collect()
}

/// [`MERGE_ROWS`] as [`merge_rows`] gives them.
pub(crate) fn merge_expected() -> Vec<(i64, String, String)> {
    MERGE_ROWS.iter().map(|(t, s, r)| (*t, s.to_string(), r.to_string())).collect()
}

#[test]
fn esper_merge_flow() {
    assert_eq!(merge_rows(&mut engine(MERGE_FLOW)), merge_expected());
}

/// Esper's `testUpdateOrderOfFields`, of `TestInfraOnMerge` and of `TestInfraOnUpdate`: an update's assignments
/// apply in order, each reading the row as those before it left it (`intBoxed = mywin.intPrimitive` reads the new
/// value), and `initial` is the row before any. Esper's window keeps all rows (`win:keepall`, not in the subset); its
/// rows have distinct keys, so a unique window holds the same. `SupportBean_S0`'s `id` is `n` here, `id` being the
/// entity's.
pub(crate) const UPDATE_ORDERS: [&str; 2] = [
    "ON SupportBean_S0 as sb MERGE MyInfra as mywin WHERE mywin.theString = sb.p00 WHEN MATCHED THEN UPDATE SET \
     intPrimitive = n, intBoxed = mywin.intPrimitive, doublePrimitive = initial.intPrimitive",
    "ON SupportBean_S0 as sb UPDATE MyInfra as mywin SET intPrimitive = n, intBoxed = mywin.intPrimitive, \
     doublePrimitive = initial.intPrimitive WHERE mywin.theString = sb.p00",
];

/// The window, its insert and a consumer of its insert stream, with `update` (one of [`UPDATE_ORDERS`]).
pub(crate) fn update_order_config(update: &str) -> String {
    let config = r#"{"host":"h","in":[
 {"id":"SB.*","type":"SupportBean","isPattern":true,"attributes":[{"name":"theString","type":"string"},
   {"name":"intPrimitive","type":"int"},{"name":"intBoxed","type":"int"},{"name":"doublePrimitive","type":"double"}]},
 {"id":"S0.*","type":"SupportBean_S0","isPattern":true,"attributes":[{"name":"n","type":"int"},
   {"name":"p00","type":"string"}]}],
"out":[{"id":"O","type":"Out","attributes":[{"name":"theString","type":"string"},{"name":"intPrimitive","type":"int"},
   {"name":"intBoxed","type":"int"},{"name":"doublePrimitive","type":"double"}]}],
"statements":[
 "CREATE WINDOW MyInfra.std:unique(theString) as SupportBean",
 "INSERT INTO MyInfra SELECT theString, intPrimitive, intBoxed, doublePrimitive FROM SupportBean",
 "UPDATE",
 "INSERT INTO Out SELECT theString, intPrimitive, intBoxed, doublePrimitive FROM MyInfra"]}"#;
    config.replace("\"UPDATE\"", &serde_json::to_string(update).expect("text"))
}

/// Esper's events, a millisecond apart (`makeSupportBean("E1", 1, 2)`, `SupportBean_S0(5, "E1")`, ...), through
/// `e` running an [`update_order_config`]: the consumer's rows with their times.
pub(crate) fn update_order_rows(e: &mut dyn Engine) -> Vec<(i64, String)> {
    let bean = |s: &str, int: i64, double: f64| {
        row(&[("theString", text(s)), ("intPrimitive", Val::Int(int)), ("doublePrimitive", Val::Double(double))])
    };
    let s0 = |n: i64, p00: &str| row(&[("n", Val::Int(n)), ("p00", text(p00))]);
    let steps = [
        ("SupportBean", bean("E1", 1, 2.0)),
        ("SupportBean_S0", s0(5, "E1")),
        ("SupportBean", bean("E2", 10, 20.0)),
        ("SupportBean_S0", s0(6, "E2")),
        ("SupportBean_S0", s0(7, "E1")),
    ];
    let mut out: Vec<Output> = Vec::new();
    for (ms, (stream, event)) in (1..).zip(steps) {
        out.extend(e.push(ms, stream, event));
    }
    out.iter().map(|o| (o.time, columns_of(o))).collect()
}

/// Esper's rows for the updates (`{5, 5, 1.0}`, `{6, 6, 10.0}`, `{7, 7, 5.0}`), after each insert's.
pub(crate) fn update_order_expected() -> Vec<(i64, String)> {
    [
        (1, "doublePrimitive=2.0 intPrimitive=1 theString=E1"),
        (2, "doublePrimitive=1.0 intBoxed=5 intPrimitive=5 theString=E1"),
        (3, "doublePrimitive=20.0 intPrimitive=10 theString=E2"),
        (4, "doublePrimitive=10.0 intBoxed=6 intPrimitive=6 theString=E2"),
        (5, "doublePrimitive=5.0 intBoxed=7 intPrimitive=7 theString=E1"),
    ]
    .map(|(t, r)| (t, r.to_string()))
    .to_vec()
}

#[test]
fn esper_update_assignments_apply_in_order() {
    for update in UPDATE_ORDERS {
        assert_eq!(update_order_rows(&mut engine(&update_order_config(update))), update_order_expected(), "{update}");
    }
}
