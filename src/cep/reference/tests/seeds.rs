//! The seed's Esper trace under `OUTPUT LAST`, the geofence's instances and alerts, and geometry read from WKT.

use super::*;

#[test]
fn esper_output_last_per_group_trace() {
    assert_eq!(run_trace(&mut engine(TRACE), 7200), trace_expected());
}

fn geofence() -> Reference {
    engine(include_str!("../../../../queries/geofence.json"))
}

fn reading(id: &str, lat: f64) -> Row {
    row(&[
        ("id", Val::String(id.into())),
        ("position", Val::Point(lat, 1.44)),
        ("time", Val::Date(0)),
        ("temperature", Val::Null),
        ("levelBattery", Val::Null),
        ("position_location", Val::Null),
    ])
}

const INSIDE: f64 = 43.60;
const OUTSIDE: f64 = 43.70;

#[test]
fn three_readings_then_an_opposite_one_kill_all_instances() {
    let mut e = geofence();
    let mut alerts = Vec::new();
    for s in 0..3 {
        alerts.extend(e.push(s * 1000, "tracker", reading("T1", INSIDE)));
    }
    alerts.extend(e.push(3000, "tracker", reading("T1", OUTSIDE)));
    alerts.extend(e.advance(6500));
    assert!(alerts.is_empty(), "{alerts:?}");
    alerts.extend(e.advance(7000));
    assert_eq!(alerts.iter().map(|a| a.time).collect::<Vec<_>>(), vec![7000]);
}

#[test]
fn three_readings_fire_three_instances_four_seconds_later() {
    let mut e = geofence();
    for s in 0..3 {
        assert!(e.push(s * 1000, "tracker", reading("T1", INSIDE)).is_empty());
    }
    // The first instance inserts the window row (an Alert); the next two change nothing.
    let alerts = e.advance(6000);
    assert_eq!(alerts.iter().map(|a| a.time).collect::<Vec<_>>(), vec![4000]);
    let Some(crate::cep::reference::Statement::Pattern(p)) = e.statements.get(3) else {
        panic!("statement 4 is the pattern")
    };
    assert_eq!(p.live(), 1, "only the `every` leaf is left once the timers fired");
}

#[test]
fn geofence_alerts_outside_inside_outside() {
    let mut e = geofence();
    let mut alerts = Vec::new();
    // Each state is held six seconds, one reading a second.
    let path = [OUTSIDE, INSIDE, OUTSIDE].iter().flat_map(|lat| [*lat; 6]);
    for (i, lat) in path.enumerate() {
        alerts.extend(e.push(i as i64 * 1000, "tracker", reading("T1", lat)));
    }
    alerts.extend(e.advance(30_000));
    let seen: Vec<(i64, Option<&Val>, Option<&Val>)> =
        alerts.iter().map(|a| (a.time, a.row.get("id"), a.row.get("inside"))).collect();
    let t1 = Val::String("T1".into());
    assert_eq!(
        seen,
        vec![
            (4000, Some(&t1), Some(&Val::Bool(false))),
            (10_000, Some(&t1), Some(&Val::Bool(true))),
            (16_000, Some(&t1), Some(&Val::Bool(false))),
        ]
    );
    assert!(alerts.iter().all(|a| a.stream == "Alert"));
}

/// Commands driving a join over an `in` stream of shutter states (so B's events come from outside).

#[test]
fn geometry_reads_wkt_with_holes_refuses_an_open_ring_and_measures_distance() {
    let mut e = engine(
        r#"{"host":"h","in":[{"id":"T.*","type":"T","isPattern":true,"attributes":[
            {"name":"position","type":"geo:point"}]}],
          "out":[{"id":"O","type":"Out","attributes":[{"name":"inside","type":"boolean"},
            {"name":"open","type":"boolean"},{"name":"d","type":"double"}]}],
          "statements":["INSERT INTO Out SELECT geometry('POLYGON ((0 0, 0 10, 10 10, 10 0, 0 0), (4 4, 4 6, 6 6, 6 4, 4 4))').contains(position) as inside, geometry('POLYGON ((0 0, 0 10, 10 10, 10 0))').contains(position) as open, polygon({point(0, 0), point(0, 10), point(10, 10), point(10, 0), point(0, 0)}).distance(position) as d FROM T"]}"#,
    );
    let seen = |e: &mut Reference, x: f64, y: f64| {
        let out = e.push(0, "T", row(&[("position", Val::Point(x, y))]));
        let row = &out.first().expect("one row per event").row;
        [row.get("inside").cloned(), row.get("open").cloned(), row.get("d").cloned()]
    };
    assert_eq!(seen(&mut e, 5.0, 5.0), [Some(Val::Bool(false)), Some(Val::Null), Some(Val::Double(0.0))], "hole");
    assert_eq!(seen(&mut e, 2.0, 5.0), [Some(Val::Bool(true)), Some(Val::Null), Some(Val::Double(0.0))]);
    assert_eq!(seen(&mut e, 13.0, 5.0), [Some(Val::Bool(false)), Some(Val::Null), Some(Val::Double(3.0))]);
}
