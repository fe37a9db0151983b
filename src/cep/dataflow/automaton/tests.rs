//! The compact automaton and the queue against the tree interpreter of `cep::reference::pattern`, on random patterns
//! of the compact form, and on fixed ones.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::cep::config::CepConfig;
use crate::cep::dataflow::record::timer_epoch;
use crate::cep::explain::plan_config;
use crate::cep::plan::{Input, PlanNode, QueryPlan};
use crate::cep::reference::TimerKind;
use crate::cep::reference::pattern::PatternQuery;
use crate::cep::runtime::Val;

/// A pattern after `every a=A(…) ->`, rendered with fresh tags.
#[derive(Debug, Clone)]
enum Part {
    Match {
        stream: u8,
        tagged: bool,
        op: u8,
        n: u8,
        on_a: bool,
    },
    Timer(u8),
    Then(Box<Part>, Box<Part>),
    And(Box<Part>, Box<Part>),
    Or(Box<Part>, Box<Part>),
    Unless(Box<Part>, u8, u8),
    /// `(timer:interval(s sec) and not S(v op a.v))`: a confirmation whose `not` pins the start event's value.
    Confirm(u8, u8, u8),
    Nots(u8, u8),
    Within(Box<Part>, u8),
}

fn part() -> impl Strategy<Value = Part> {
    let leaf =
        prop_oneof![
            (0..2u8, any::<bool>(), 0..4u8, 0..4u8, any::<bool>())
                .prop_map(|(stream, tagged, op, n, on_a)| Part::Match { stream, tagged, op, n, on_a }),
            (1..4u8).prop_map(Part::Timer),
            (0..4u8, 0..4u8).prop_map(|(a, b)| Part::Nots(a, b)),
            (1..4u8, 0..2u8, 0..3u8).prop_map(|(s, stream, op)| Part::Confirm(s, stream, op)),
        ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(l, r)| Part::Then(Box::new(l), Box::new(r))),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| Part::And(Box::new(l), Box::new(r))),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| Part::Or(Box::new(l), Box::new(r))),
            (inner.clone(), 0..2u8, 0..5u8).prop_map(|(p, s, n)| Part::Unless(Box::new(p), s, n)),
            (inner, 1..5u8).prop_map(|(p, s)| Part::Within(Box::new(p), s)),
        ]
    })
}

fn render(part: &Part, tags: &mut usize) -> String {
    let stream = |s: u8| if s == 0 { "A" } else { "B" };
    match part {
        Part::Match { stream: s, tagged, op, n, on_a } => {
            let tag = if *tagged {
                *tags += 1;
                format!("t{tags}=")
            } else {
                String::new()
            };
            // Filters with more conditions take an event first: none, one or (with `n` 3) two.
            let Some(op) = ["<", ">=", "!="].get(*op as usize) else {
                return format!("{tag}{}", stream(*s));
            };
            let rhs = if *on_a { "a.v".to_owned() } else { n.to_string() };
            let second = if *n == 3 { ", v != 9" } else { "" };
            format!("{tag}{}(v {op} {rhs}{second})", stream(*s))
        }
        Part::Timer(s) => format!("timer:interval({s} sec)"),
        Part::Then(l, r) => format!("({} -> {})", render(l, tags), render(r, tags)),
        Part::And(l, r) => format!("({} and {})", render(l, tags), render(r, tags)),
        Part::Or(l, r) => format!("({} or {})", render(l, tags), render(r, tags)),
        Part::Unless(p, s, 4) => format!("({} and not {})", render(p, tags), stream(*s)),
        Part::Unless(p, s, n) => format!("({} and not {}(v = {n}))", render(p, tags), stream(*s)),
        Part::Confirm(s, on, op) => {
            let op = ["<", ">=", "!="][*op as usize];
            format!("(timer:interval({s} sec) and not {}(v {op} a.v))", stream(*on))
        }
        Part::Nots(a, b) => format!("(not A(v = {a}) and not B(v = {b}))"),
        Part::Within(p, s) => format!("({} where timer:within({s} sec))", render(p, tags)),
    }
}

fn query(pattern: &str) -> QueryPlan {
    let config = format!(
        r#"{{"host":"h","in":[
          {{"id":"A.*","type":"A","isPattern":true,"attributes":[{{"name":"v","type":"int"}}]}},
          {{"id":"B.*","type":"B","isPattern":true,"attributes":[{{"name":"v","type":"int"}}]}}],
          "out":[{{"id":"O","type":"Out","attributes":[{{"name":"v","type":"int"}}]}}],
          "statements":["INSERT INTO Out SELECT a.v as v FROM pattern [{pattern}]"]}}"#
    );
    let config: CepConfig = serde_json::from_str(&config).expect("a test configuration");
    let plan = plan_config(&config, true).expect("plans");
    let PlanNode::Query(q) = &plan.statements[0].node else { panic!("a query") };
    (**q).clone()
}

/// Matches, comparable: each one's tags and events, by tag.
type Seen = Vec<Vec<(String, String)>>;

fn seen(matches: impl IntoIterator<Item = Bindings>) -> Seen {
    let each = |b: Bindings| {
        let mut tags: Vec<(String, String)> = b.iter().map(|(t, r)| (t.to_string(), format!("{r:?}"))).collect();
        tags.sort();
        tags
    };
    matches.into_iter().map(each).collect()
}

/// The automata, each with its timers by (due, set order): the tree, the compact automaton and, when the
/// shape queues its instances, the queue.
struct Pair {
    tree: PatternQuery,
    compact: Compact,
    out: Out,
    queue: Option<(Queue, Out)>,
    tree_timers: BTreeMap<(i64, u64), TimerKind>,
    compact_timers: BTreeMap<(i64, u64), Wake>,
    queue_timers: BTreeMap<(i64, u64), Wake>,
    set: u64,
    seq: u64,
}

/// What each automaton of a [`Pair`] matched; the queue's is empty when there is none.
type Three = (Seen, Seen, Seen);

impl Pair {
    fn schedule(&mut self, tree: &mut Ctx<'_>) {
        for (at, _, kind) in tree.take_timers() {
            self.set += 1;
            self.tree_timers.insert((at, self.set), kind);
        }
        for (at, wake, _) in self.out.drain_wakes() {
            self.set += 1;
            self.compact_timers.insert((at, self.set), wake);
        }
        for (at, wake, _) in self.queue.iter_mut().flat_map(|(_, out)| out.drain_wakes()) {
            self.set += 1;
            self.queue_timers.insert((at, self.set), wake);
        }
    }

    /// Fires what is due by `now` on each, timers set meanwhile included.
    fn fire_until(&mut self, now: i64, vars: &Row) -> Three {
        let (mut tree, mut compact, mut queued) = (Vec::new(), Vec::new(), Vec::new());
        while let Some(entry) = self.tree_timers.first_entry().filter(|e| e.key().0 <= now) {
            let ((due, _), kind) = entry.remove_entry();
            let mut ctx = Ctx::new(due, self.seq, vars);
            tree.extend(seen(self.tree.matches_on_timer(&mut ctx, kind)));
            self.schedule(&mut ctx);
        }
        while let Some(entry) = self.compact_timers.first_entry().filter(|e| e.key().0 <= now) {
            let ((due, _), wake) = entry.remove_entry();
            let mut ctx = Ctx::new(due, self.seq, vars);
            self.compact.on_timer(&mut ctx, &mut self.out, wake);
            compact.extend(seen(self.out.take_matches()));
            self.schedule(&mut ctx);
        }
        while let Some(entry) = self.queue_timers.first_entry().filter(|e| e.key().0 <= now) {
            let (_, wake) = entry.remove_entry();
            let Some((queue, out)) = self.queue.as_mut() else { break };
            queue.on_timer(out, wake);
            queued.extend(seen(out.take_matches()));
            self.schedule(&mut Ctx::new(now, self.seq, vars));
        }
        (tree, compact, queued)
    }

    /// Runs `event` of stream `stream` on each.
    fn event(&mut self, now: i64, (stream, label): (u8, &str), event: &Row, vars: &Row) -> Three {
        self.seq += 1;
        let mut ctx = Ctx::new(now, self.seq, vars);
        let tree = seen(self.tree.matches_on_event(&mut ctx, label, event));
        self.schedule(&mut ctx);
        let mut ctx = Ctx::new(now, self.seq, vars);
        self.compact.on_event(&mut ctx, &mut self.out, u32::from(stream), label, event);
        let compact = seen(self.out.take_matches());
        let queued = match self.queue.as_mut() {
            Some((queue, out)) => {
                let set = (timer_epoch(now), self.seq);
                queue.on_event(&mut Ctx::new(now, self.seq, vars), out, (u32::from(stream), label), event.clone(), set);
                out.reap();
                seen(out.take_matches())
            }
            None => Vec::new(),
        };
        self.schedule(&mut ctx);
        self.out.reap();
        (tree, compact, queued)
    }

    /// Whether each automaton's instances are in order (`Compact::is_tidy`, `Queue::is_tidy`).
    fn is_tidy(&self) -> bool {
        self.compact.is_tidy() && self.queue.as_ref().is_none_or(|(queue, _)| queue.is_tidy())
    }

    /// Requires what the tree matched of the others: the queue's, when there is one.
    fn agree(&self, (tree, compact, queued): Three, what: &str) -> Result<usize, TestCaseError> {
        prop_assert_eq!(&tree, &compact, "{}: compact", what);
        if self.queue.is_some() {
            prop_assert_eq!(&tree, &queued, "{}: queue", what);
        }
        Ok(tree.len())
    }
}

/// Runs `events` (milliseconds apart, stream, value) through the tree interpreter and the compact automaton of
/// `every a=A(v >= start) -> rest`, requiring the same matches at every event and every instant timers fire.
/// Answers how many matches there were.
fn compare(rest: &Part, start: u8, events: &[(i64, u8, i64)]) -> Result<usize, TestCaseError> {
    let pattern = format!("every a=A(v >= {start}) -> {}", render(rest, &mut 0));
    let q = query(&pattern);
    let Input::Pattern(p) = &q.input else { panic!("a pattern") };
    let nodes = Nodes::new(&p.root, &q.projection);
    let names = [Name::from("A"), Name::from("B")];
    let shape = Shape::new(&nodes, &names, &Row::default());
    prop_assert!(shape.is_some(), "{} has the compact form", pattern);
    let shape = shape.expect("checked");
    // Half the cases (by the parity of their length) keep ended instances' rows for a reaper.
    let out = || {
        if events.len().is_multiple_of(2) { Out { ended: Leftovers::kept(), ..Out::default() } } else { Out::default() }
    };
    let mut pair = Pair {
        tree: PatternQuery::shared(Arc::new(q.clone()), nodes),
        compact: Compact::new(shape.clone()),
        out: out(),
        queue: shape.queues().then(|| (Queue::new(shape.clone()), out())),
        tree_timers: BTreeMap::new(),
        compact_timers: BTreeMap::new(),
        queue_timers: BTreeMap::new(),
        set: 0,
        seq: 0,
    };
    let vars = Row::default();
    let (mut now, mut matched) = (1_000, 0);
    for (n, (delta, stream, v)) in events.iter().enumerate() {
        now += delta;
        let due = pair.fire_until(now, &vars);
        matched += pair.agree(due, &format!("{pattern}: timers before event {n}"))?;
        let label = &names[*stream as usize];
        let event: Row = [("v".to_owned(), Val::Int(*v)), ("n".to_owned(), Val::Int(n as i64))].into_iter().collect();
        let heard = pair.event(now, (*stream, label), &event, &vars);
        matched += pair.agree(heard, &format!("{pattern}: event {n}"))?;
        prop_assert!(pair.is_tidy(), "{}: tidy after event {}", pattern, n);
    }
    let due = pair.fire_until(i64::MAX, &vars);
    matched += pair.agree(due, &format!("{pattern}: the timers left"))?;
    prop_assert!(pair.is_tidy(), "{}: tidy at the end", pattern);
    Ok(matched)
}

fn events() -> impl Strategy<Value = Vec<(i64, u8, i64)>> {
    prop::collection::vec((0..2500i64, 0..2u8, 0..4i64), 1..60)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn the_compact_automaton_matches_what_the_tree_interpreter_matches(
        rest in part(), start in 0..3u8, events in events(),
    ) {
        compare(&rest, start, &events)?;
    }
}

/// The compact automaton of `every a=A(v >= 0) -> rest`, with its shape's opening or without.
fn automaton(rest: &Part, opening: bool) -> Compact {
    let q = query(&format!("every a=A(v >= 0) -> {}", render(rest, &mut 0)));
    let Input::Pattern(p) = &q.input else { panic!("a pattern") };
    let names = [Name::from("A"), Name::from("B")];
    let mut shape = Shape::new(&Nodes::new(&p.root, &q.projection), &names, &Row::default()).expect("compact");
    if !opening {
        Arc::get_mut(&mut shape).expect("not shared yet").opening = None;
    }
    Compact::new(shape)
}

/// The compact automaton of `every a=A(v >= 0) -> rest` after one event of A, begun from its shape's opening or,
/// without one, by walking the slots, and the timers it set.
fn begun(rest: &Part, opening: bool) -> (Compact, Wakes) {
    let mut compact = automaton(rest, opening);
    let event: Row = [("v".to_owned(), Val::Int(2)), ("n".to_owned(), Val::Int(0))].into_iter().collect();
    let mut out = Out::default();
    compact.on_event(&mut Ctx::new(1_000, 1, &Row::default()), &mut out, 0, "A", &event);
    (compact, out.wakes)
}

/// Each instance's live slots, bindings and states, written out first where the opening left them unwritten.
fn written(compact: &mut Compact) -> Vec<String> {
    let shape = compact.shape.clone();
    let mut written = Vec::new();
    for instance in compact.instances.values_mut() {
        instance.materialize(&shape);
        written.push(format!("{:?}", (instance.live, &instance.bindings, &instance.phase)));
    }
    written
}

proptest! {
    /// An instance copied from the opening is the instance walking the slots makes: its live slots, states and
    /// timers, the leaves' orders and what the key's leaves pinned.
    #[test]
    fn an_instance_begun_from_the_opening_is_the_one_the_walk_makes(rest in part()) {
        let ((mut copied, copied_wakes), (mut walked, walked_wakes)) = (begun(&rest, true), begun(&rest, false));
        prop_assert_eq!(written(&mut copied), written(&mut walked));
        prop_assert_eq!(copied_wakes, walked_wakes);
        prop_assert_eq!(format!("{:?}", copied.seen), format!("{:?}", walked.seen));
        prop_assert_eq!((copied.start, copied.next), (walked.start, walked.next));
    }
}

#[test]
fn the_opening_is_worked_out_unless_an_and_of_nots_finishes_at_once() {
    let confirmation = Part::Unless(Box::new(Part::Timer(4)), 1, 0);
    assert!(begun(&confirmation, true).0.shape.opening.is_some());
    let within = Part::Within(Box::new(Part::Then(Box::new(confirmation), Box::new(Part::Timer(1)))), 9);
    assert!(begun(&within, true).0.shape.opening.is_some());
    assert!(begun(&Part::Nots(0, 1), true).0.shape.opening.is_none());
}

#[test]
fn shapes_whose_every_leaf_ends_the_instance_queue_their_instances() {
    let shape = |rest: &Part| automaton(rest, true).shape.clone();
    let timer = || Box::new(Part::Timer(4));
    let queued = [Part::Confirm(4, 0, 2), Part::Unless(timer(), 1, 0), Part::Timer(2), Part::Within(timer(), 3)];
    for rest in &queued {
        assert!(shape(rest).queues(), "{rest:?}");
    }
    let match_b = Part::Match { stream: 1, tagged: false, op: 0, n: 2, on_a: true };
    // The last: the inner `not` ends the inner `and` only, and the outer one waits on for its own `not`.
    let not_queued = [
        Part::Then(timer(), timer()),
        match_b.clone(),
        Part::And(timer(), Box::new(match_b)),
        Part::Unless(Box::new(Part::Confirm(4, 1, 0)), 0, 3),
    ];
    for rest in &not_queued {
        assert!(!shape(rest).queues(), "{rest:?}");
    }
}

#[test]
fn the_geofence_confirmation_matches_after_four_quiet_seconds() {
    // A at 1 s starts an instance confirmed at 5 s; A at 7 s starts one that B(v = 0) at 8 s kills.
    let rest = Part::Unless(Box::new(Part::Timer(4)), 1, 0);
    let events = [(0, 0, 1), (1_000, 1, 2), (5_000, 0, 1), (1_000, 1, 0)];
    assert_eq!(compare(&rest, 0, &events).expect("the same matches"), 1);
}

#[test]
fn an_instance_a_crossing_ends_leaves_its_row_for_the_reaper_and_a_match_takes_its_own() {
    // `every a=A(v >= 0) -> (timer:interval(4 sec) and not B(v = 0))`, keeping ended instances' rows.
    let mut compact = automaton(&Part::Unless(Box::new(Part::Timer(4)), 1, 0), true);
    let mut out = Out { ended: Leftovers::kept(), ..Out::default() };
    let vars = Row::default();
    let row = |v: i64, n: i64| -> Row {
        [("v".to_owned(), Val::Int(v)), ("n".to_owned(), Val::Int(n))].into_iter().collect()
    };
    let ended_ns =
        |out: &Out| out.ended.rows().map(|rows| rows.iter().map(|r| r.get("n").cloned()).collect::<Vec<_>>());

    // A (n = 0) at 1 s is confirmed at 5 s: its row goes with the match.
    compact.on_event(&mut Ctx::new(1_000, 1, &vars), &mut out, 0, "A", &row(1, 0));
    let wakes: Vec<_> = out.drain_wakes().collect();
    for (at, wake, _) in wakes {
        compact.on_timer(&mut Ctx::new(at, 2, &vars), &mut out, wake);
    }
    assert_eq!(seen(out.take_matches()).len(), 1);
    assert_eq!(ended_ns(&out), Some(vec![]));

    // A (n = 2) at 7 s is ended by B (v = 0) at 8 s: its row waits for the reaper, then goes to it.
    compact.on_event(&mut Ctx::new(7_000, 3, &vars), &mut out, 0, "A", &row(1, 2));
    compact.on_event(&mut Ctx::new(8_000, 4, &vars), &mut out, 1, "B", &row(0, 3));
    assert!(out.take_matches().is_empty());
    assert_eq!(ended_ns(&out), Some(vec![Some(Val::Int(2))]));
    out.reap();
    assert_eq!(ended_ns(&out), Some(vec![]));
}

/// The shipped configurations' patterns all have the compact form, so none of them falls back to the tree.
#[test]
fn the_shipped_patterns_run_on_the_compact_automaton() {
    let shipped = [
        include_str!("../../../../queries/geofence.json"),
        include_str!("../../../../queries/cepheus-geofencing.json"),
        include_str!("../../../../queries/cepheus-close-shutters.json"),
        include_str!("../../../../queries/cepheus-rooms-and-flaps.json"),
    ];
    let mut patterns = 0;
    for text in shipped {
        let config: CepConfig = serde_json::from_str(text).expect("a shipped configuration");
        let plan = plan_config(&config, true).expect("plans");
        for statement in &plan.statements {
            let PlanNode::Query(q) = &statement.node else { continue };
            let p = match &q.input {
                Input::Pattern(p) => p,
                Input::Join(join) => match &join.driver {
                    Input::Pattern(p) => p,
                    _ => continue,
                },
                Input::Stream(_) => continue,
            };
            patterns += 1;
            let shape = Shape::new(&Nodes::new(&p.root, &q.projection), &[], &Row::default());
            assert!(shape.is_some(), "{}", statement.text);
        }
    }
    assert_eq!(patterns, 5, "the patterns of the four configurations");
}

#[test]
fn patterns_of_other_forms_have_no_compact_shape() {
    let names = [Name::from("A"), Name::from("B")];
    let patterns = [
        "every a=A(v >= 0)",
        "every (a=A(v >= 0) -> B(v >= 0))",
        "every a=A(v >= 0) -> every B(v >= 0)",
        "every a=A(v >= 0) -> not B(v = a.v)",
        "every a=A(v >= 0) -> (B(v = 1) or not B(v = a.v))",
        "every a=A(v >= 0) -> (not B(v = a.v) where timer:within(1 sec))",
    ];
    for pattern in patterns {
        let q = query(pattern);
        let Input::Pattern(p) = &q.input else { panic!("a pattern") };
        assert!(Shape::new(&Nodes::new(&p.root, &q.projection), &names, &Row::default()).is_none(), "{pattern}");
    }
}
