//! Printing a parsed statement and parsing the text again gives the same tree (spans aside), and
//! printing is a fixed point. Statements are generated as text with generous parentheses, so the
//! printer's precedence rules are what is tested.

use fluxgate::cep::parser::parse_statement;
use fluxgate::cep::printer::print;
use proptest::prelude::*;

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_string()),
        Just("temperature".to_string()),
        Just("floor_2".to_string()),
        Just("`select`".to_string()),
        Just("`two words`".to_string()),
        "[a-z][a-z0-9_]{0,6}"
            .prop_filter("not a keyword", |s| { !fluxgate::cep::printer::KEYWORDS.contains(&s.as_str()) }),
    ]
}

fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        (0i64..1_000_000).prop_map(|i| i.to_string()),
        (0i64..1_000_000, prop::sample::select(&["L", "l"][..])).prop_map(|(i, l)| format!("{i}{l}")),
        (0.0f64..1e6).prop_map(|x| format!("{x:?}")),
        (0u32..1000, prop::sample::select(&["d", "D", "f", "F"][..])).prop_map(|(i, s)| format!("{i}{s}")),
        (0u32..1000).prop_map(|i| format!(".{i}")),
        "[ -~]{0,8}".prop_map(|s| format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))),
        Just("true".to_string()),
        Just("FALSE".to_string()),
        Just("null".to_string()),
    ]
}

fn property() -> impl Strategy<Value = String> {
    prop::collection::vec(name(), 1..=3).prop_map(|parts| parts.join("."))
}

fn expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![literal(), property()];
    leaf.prop_recursive(4, 24, 4, |inner| {
        const BINARY: [&str; 15] = ["or", "AND", "=", "!=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "||"];
        prop_oneof![
            (inner.clone(), prop::sample::select(&BINARY[..]), inner.clone())
                .prop_map(|(l, op, r)| format!("({l}) {op} ({r})")),
            inner.clone().prop_map(|e| format!("not ({e})")),
            inner.clone().prop_map(|e| format!("-({e})")),
            inner.clone().prop_map(|e| format!("({e}) is not null")),
            (inner.clone(), prop::collection::vec(inner.clone(), 1..3))
                .prop_map(|(e, l)| format!("({e}) in ({})", l.join(", "))),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(e, a, b)| format!("({e}) not between ({a}) and ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(e, p)| format!("({e}) like ({p})")),
            (inner.clone(), inner.clone()).prop_map(|(e, p)| format!("({e}) not like ({p}) escape '!'")),
            (inner.clone(), inner.clone(), any::<bool>())
                .prop_map(|(e, p, not)| format!("({e}) {}regexp ({p})", if not { "not " } else { "" })),
            (name(), prop::collection::vec(inner.clone(), 0..3)).prop_map(|(f, a)| format!("{f}({})", a.join(", "))),
            (property(), inner.clone()).prop_map(|(t, a)| format!("{t}.contains({a})")),
            (prop::sample::select(&["Math", "java.lang.Math"][..]), name(), prop::collection::vec(inner.clone(), 1..3))
                .prop_map(|(class, m, a)| format!("{class}.{m}({})", a.join(", "))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|a| format!("{{{}}}", a.join(", "))),
            inner.clone().prop_map(|e| format!("cast({e}, double)")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(w, t, e)| format!("case when ({w}) then ({t}) else ({e}) end")),
            Just("count(*)".to_string()),
        ]
    })
}

fn period() -> impl Strategy<Value = String> {
    (1u32..1000, prop::sample::select(&["msec", "seconds", "min", "hours", "day"][..]))
        .prop_map(|(n, u)| format!("{n} {u}"))
}

/// A pattern's time: a period, or a bare number of seconds as Esper reads one (`timer:interval(2.5)`).
fn pattern_period() -> impl Strategy<Value = String> {
    prop_oneof![
        period(),
        (1u32..100, 0u32..10).prop_map(|(s, tenths)| format!("{s}.{tenths}")),
        (1u32..100).prop_map(|s| s.to_string())
    ]
}

fn pattern() -> impl Strategy<Value = String> {
    let filter = (prop::option::of(name()), name(), prop::collection::vec(expr(), 0..2)).prop_map(|(tag, s, f)| {
        let tag = tag.map_or(String::new(), |t| format!("{t}="));
        if f.is_empty() { format!("{tag}{s}") } else { format!("{tag}{s}({})", f.join(", ")) }
    });
    let leaf = prop_oneof![filter, pattern_period().prop_map(|p| format!("timer:interval({p})"))];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (inner.clone(), prop::sample::select(&["->", "and", "or"][..]), inner.clone())
                .prop_map(|(l, op, r)| format!("({l}) {op} ({r})")),
            inner.clone().prop_map(|p| format!("every ({p})")),
            inner.clone().prop_map(|p| format!("not ({p})")),
            (inner.clone(), pattern_period()).prop_map(|(p, t)| format!("({p}) where timer:within({t})")),
        ]
    })
}

/// An `OUTPUT` clause: a rate (a period or a count of events), a delay before it, or a delay alone.
fn output() -> impl Strategy<Value = String> {
    let kind = prop_oneof![Just(""), Just("all "), Just("first "), Just("last "), Just("snapshot ")];
    let every = prop_oneof![period(), (1u32..1000).prop_map(|n| format!("{n} events"))];
    (prop::option::of(period()), kind, every, any::<bool>()).prop_map(|(after, kind, every, rate)| {
        let after = after.map_or(String::new(), |a| format!(" after {a}"));
        match (after.is_empty(), rate) {
            (false, false) => format!(" output{after}"),
            _ => format!(" output{after} {kind}every {every}"),
        }
    })
}

/// A stream's view: a time window, a sorted one whose criteria are written with `asc`, `desc` or neither, a
/// time-ordered one, or an accumulating one per key.
fn view() -> impl Strategy<Value = String> {
    let order = prop_oneof![Just(""), Just(" asc"), Just(" desc")];
    let sorted = (expr(), order, expr()).prop_map(|(a, order, b)| format!(".ext:sort(3, {a}{order}, {b})"));
    let timed = prop_oneof![
        expr().prop_map(|stamp| format!(".ext:time_order({stamp}, 10 sec)")),
        expr().prop_map(|stamp| format!(".ext:timetolive({stamp})")),
    ];
    let accumulating = Just(".std:groupwin(floor).win:time_accum(2 min)".to_string());
    prop_oneof![Just(".win:time(10 sec)".to_string()), sorted, timed, accumulating]
}

fn statement() -> impl Strategy<Value = String> {
    let select = (
        prop::option::of(name()),
        prop::collection::vec((expr(), prop::option::of((name(), prop::bool::ANY))), 1..3),
        (name(), view()),
        prop::option::of(expr()),
        prop::option::of(output()),
    )
        .prop_map(|(into, items, (from, view), filter, out)| {
            let into = into.map_or(String::new(), |i| format!("insert into {i} "));
            // A column's name with or without `AS`.
            let named = |e: &str, (a, r#as): (String, bool)| format!("{e} {}{a}", if r#as { "as " } else { "" });
            let items: Vec<String> = items.into_iter().map(|(e, a)| a.map_or(e.clone(), |a| named(&e, a))).collect();
            let filter = filter.map_or(String::new(), |f| format!(" where {f}"));
            let out = out.map_or(String::new(), |o| format!(" group by a{o}"));
            format!("{into}select *, {} from {from}{view}{filter}{out}", items.join(", "))
        });
    let patterns = (pattern(), name()).prop_map(|(p, alias)| {
        format!("select a.* from pattern [{p}] as {alias} unidirectional left outer join S.std:groupwin(id).std:lastevent() as s on a.id = s.id")
    });
    let merge = (expr(), expr(), expr()).prop_map(|(c, m, v)| {
        format!("on F fc merge W ts where {c} when not matched then insert select id, {v} as x when matched and {m} then update set x = {v} when matched then delete")
    });
    let variable = expr().prop_map(|e| format!("create variable double v = {e}"));
    prop_oneof![select, patterns, merge, variable, Just("create window W.std:unique(id) as T".to_string())]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn printing_then_parsing_gives_the_same_tree(text in statement()) {
        let ast = parse_statement(1, &text).map_err(|e| TestCaseError::fail(format!("{text}\n{}", e.render())))?;
        let printed = print(&ast);
        let again = parse_statement(1, &printed).map_err(|e| TestCaseError::fail(format!("{printed}\n{}", e.render())))?;
        prop_assert_eq!(&again, &ast, "printed: {}", printed);
        prop_assert_eq!(print(&again), printed);
    }
}

/// `AS` before a column's name is optional, as in Esper; a word there that reads as a misspelt keyword the statement
/// needs next is reported as one, not as the column's name.
#[test]
fn a_column_s_name_may_go_without_as() {
    let statement = parse_statement(1, "SELECT avg(price) avgPrice, p `x y`, q AS z FROM R").expect("parses");
    assert_eq!(print(&statement), "SELECT avg(price) AS avgPrice, p AS `x y`, q AS z FROM R");
    let error = parse_statement(1, "SELECT p, q FORM R").expect_err("a misspelt FROM").render();
    assert!(
        error.starts_with("error: statement 1, line 1, column 13: unknown keyword `FORM`; did you mean `FROM`?"),
        "{error}"
    );
    let error = parse_statement(1, "SELECT p x y FROM R").expect_err("two names").render();
    assert!(error.contains("column 12: syntax error: expected"), "{error}");
}

/// Esper's number suffixes: `L` makes a long, `d` and `f` a floating point number; a unit written against its number
/// (`10days`) is still a unit, a fraction may go without its whole part, and a long cannot have a fraction.
#[test]
fn number_suffixes_read_as_esper_s() {
    let text = "SELECT 2L as a, 7/3d as b, 1f as c, .5 as d, .25e1f as e FROM R.win:time(10days)";
    let statement = parse_statement(1, text).expect("parses");
    let printed = "SELECT 2L AS a, 7 / 3.0 AS b, 1.0 AS c, 0.5 AS d, 2.5 AS e FROM R.win:time(10 day)";
    assert_eq!(print(&statement), printed);
    let error = parse_statement(1, "SELECT 1.5L as a FROM R").expect_err("a long with a fraction").render();
    assert!(error.contains("only a whole number can be a long"), "{error}");
}

/// Java's `\uXXXX` escapes in text, as Esper reads them: a surrogate pair is one character, and a `\u` without four
/// hex digits stays the letter `u`.
#[test]
fn unicode_escapes_name_their_characters() {
    let statement = parse_statement(1, r"SELECT 'A\u0027B\uD83D\uDE00\u00e9\uzz' AS a FROM R").expect("parses");
    assert_eq!(print(&statement), "SELECT 'A\\'B\u{1F600}\u{e9}uzz' AS a FROM R");
}

/// `all` before an aggregate's argument is Esper's default and changes nothing, `distinct` is kept, and so is a filter
/// after it (`count(*, f)`); `all` or `distinct` before another function's argument is an error.
#[test]
fn all_before_an_aggregate_s_argument_is_its_default() {
    let statement = parse_statement(1, "SELECT sum(all price) AS total FROM R").expect("parses");
    assert_eq!(print(&statement), "SELECT sum(price) AS total FROM R");
    let statement = parse_statement(1, "SELECT median(all p) AS m, avedev(all p) AS d FROM R").expect("parses");
    assert_eq!(print(&statement), "SELECT median(p) AS m, avedev(p) AS d FROM R");
    let statement = parse_statement(1, "SELECT count(distinct p) AS n FROM R").expect("parses");
    assert_eq!(print(&statement), "SELECT count(DISTINCT p) AS n FROM R");
    let statement = parse_statement(1, "SELECT count(*, p > 1) AS n, sum(distinct p, q) AS s FROM R").expect("parses");
    assert_eq!(print(&statement), "SELECT count(*, p > 1) AS n, sum(DISTINCT p, q) AS s FROM R");
    let error = parse_statement(1, "SELECT coalesce(all price, 1) AS p FROM R").expect_err("not an aggregate").render();
    assert!(error.contains("`all` goes only before an aggregate's argument, not `coalesce`'s"), "{error}");
    let error = parse_statement(1, "SELECT point(DISTINCT x, y) AS p FROM R").expect_err("not an aggregate").render();
    assert!(error.contains("`distinct` goes only before an aggregate's argument, not `point`'s"), "{error}");
}

/// `SELECT DISTINCT` comes after the stream selector, as in Esper's grammar, and prints where it was written; before
/// the selector it is a syntax error.
#[test]
fn select_distinct_follows_the_stream_selector() {
    let statement = parse_statement(1, "select distinct floor, count(distinct id) AS n FROM R").expect("parses");
    assert_eq!(print(&statement), "SELECT DISTINCT floor, count(DISTINCT id) AS n FROM R");
    let statement = parse_statement(1, "SELECT RSTREAM DISTINCT * FROM R.win:time(1 sec)").expect("parses");
    assert_eq!(print(&statement), "SELECT RSTREAM DISTINCT * FROM R.win:time(1 sec)");
    let error = parse_statement(1, "SELECT DISTINCT RSTREAM * FROM R").expect_err("selector first").render();
    assert!(error.contains("column 17"), "{error}");
}

/// `like ... escape 'c'` names its escape character; `escape` is a word only there, so a property may be named so.
#[test]
fn like_takes_an_escape_character_and_escape_stays_a_name() {
    let statement = parse_statement(1, r#"SELECT escape FROM R WHERE p like "a!%" escape "!""#).expect("parses");
    assert_eq!(print(&statement), "SELECT escape FROM R WHERE p LIKE 'a!%' ESCAPE '!'");
    let error = parse_statement(1, "SELECT p like 'a' escape '!!' AS x FROM R").expect_err("two characters").render();
    assert!(error.contains("`escape` takes one character"), "{error}");
}
