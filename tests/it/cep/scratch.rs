use fluxgate::cep::{parser::parse_statement, printer::print};

#[test]
fn scratch() {
    let stmts = [
        "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room.win:time(10 min) GROUP BY floor OUTPUT LAST EVERY 10 sec",
        "INSERT INTO Shutter SELECT R.r.shutter as id, 'closed' as status FROM pattern [ every r=Room(temperature > 26.0) -> (timer:interval(5 sec) and not Room(temperature < 26.0 and id=r.id))] as R unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent() as S ON R.r.shutter = S.id WHERE S is null OR S.status = 'opened'",
        "INSERT INTO Flap SELECT a.flap as id, 'closed' as status FROM pattern [every a=Room(temperature > cast(25,double)) -> ( (Room(id=a.id, temperature > cast(25,double)) and not Room(id=a.id, temperature <= cast(25,double))) -> (Room(id=a.id, temperature > cast(25,double)) and not Room(id=a.id, temperature <= cast(25,double)))) where timer:within(10 seconds)]",
        "CREATE VARIABLE Geometry fence = polygon({point(0, 0), point(0,50), point(50,50), point(50, 0), point(0, 0)})",
        "CREATE WINDOW TrackerState.std:unique(id) as Alert",
        "INSERT INTO TrackerInside SELECT *, fence.contains(location) as inside FROM Tracker",
        "INSERT INTO FenceCross SELECT a.* FROM pattern [ every a=TrackerInside -> (timer:interval(4 sec) and not TrackerInside(id=a.id, inside!=a.inside)) ]",
        "ON FenceCross fc MERGE TrackerState ts WHERE fc.id = ts.id WHEN NOT MATCHED THEN INSERT SELECT id, time, location, inside WHEN MATCHED AND fc.inside != ts.inside THEN UPDATE SET inside = fc.inside",
        "INSERT INTO Alert SELECT * FROM TrackerState",
        "select a from b where x between 1 and 2 and y not in (1,2) or z like 'a%' and case when a then 1 else 2 end = 3 output after 1 min snapshot every 2 sec order by a desc, b",
        "SELEC * FROM Room",
        "SELECT * FROM Room WHERE",
        "SELECT * FROM Room WHERE a >",
        "SELECT distinct a FROM Room",
        "SELECT * FROM Room.win:time(10 secs)",
        "SELECT * FROM pattern[every a=X -> timer:interval(-1 sec)]",
        "SELECT * FROM Room WHERE (a = 1",
        "SELECT 'abc FROM Room",
        "SELECT * FROM Room GROUPBY a",
        "SELECT * FROM Room WHERE a = (select b from c)",
        "INSERT INTO x SELECT * FRM Room",
        "",
    ];
    for s in stmts {
        match parse_statement(1, s) {
            Ok(ast) => {
                let p = print(&ast);
                println!("OK  {p}");
                let again = parse_statement(1, &p).unwrap();
                assert_eq!(again, ast);
            }
            Err(e) => println!("ERR {}", e.render()),
        }
    }
}
