//! The plan as an indented tree, outermost first: each statement's sink, then how it partitions,
//! outputs, projects, aggregates and filters, down to its sources. Snapshot tests and
//! `fluxgate explain` print exactly this, so wording changes show up in review.

use std::fmt::{self, Display, Formatter};

use super::expr::list;
use super::*;

/// Writes lines at an indentation depth.
struct Tree<'a, 'b> {
    f: &'a mut Formatter<'b>,
    depth: usize,
}

impl Tree<'_, '_> {
    fn line(&mut self, text: impl Display) -> fmt::Result {
        writeln!(self.f, "{:width$}{text}", "", width = self.depth * 2)
    }

    fn nested(&mut self, body: impl FnOnce(&mut Self) -> fmt::Result) -> fmt::Result {
        self.depth += 1;
        let result = body(self);
        self.depth -= 1;
        result
    }
}

/// `600000` → `10 min`.
pub fn duration(millis: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(86_400_000, "day"), (3_600_000, "h"), (60_000, "min"), (1_000, "s")];
    UNITS
        .iter()
        .find(|(size, _)| millis >= *size && millis.is_multiple_of(*size))
        .map_or_else(|| format!("{millis} ms"), |(size, unit)| format!("{} {unit}", millis / size))
}

impl Display for Plan {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let n = self.statements.len();
        writeln!(f, "plan: {n} statement(s), producers before consumers")?;
        let mut tree = Tree { f, depth: 0 };
        for s in &self.statements {
            tree.line(format_args!("[{}] {}", s.number, s.text))?;
            tree.nested(|t| node(t, &s.node))?;
        }
        Ok(())
    }
}

fn node(t: &mut Tree<'_, '_>, node: &PlanNode) -> fmt::Result {
    match node {
        PlanNode::Variable(v) => {
            let init = v.init.as_ref().map_or("null".to_string(), ToString::to_string);
            t.line(format_args!("variable ${}: {} = {init}", v.name, v.ty))?;
            t.nested(|t| t.line("evaluated once, when the configuration is applied"))
        }
        PlanNode::NamedWindow(w) => named_window(t, w),
        PlanNode::Query(q) => query(t, q),
        PlanNode::Merge(m) => merge(t, m),
        PlanNode::Delete(d) => window_action(t, "delete from", d),
        PlanNode::Update(u) => window_action(t, "update", u),
    }
}

fn columns(cols: &[Column]) -> String {
    let cols: Vec<String> = cols.iter().map(|c| format!("{} {}", c.name, c.ty)).collect();
    cols.join(", ")
}

fn named_window(t: &mut Tree<'_, '_>, w: &NamedWindowPlan) -> fmt::Result {
    t.line(format_args!("named window {} (rows of type {})", w.name, w.as_type))?;
    t.nested(|t| {
        t.line(format_args!("columns: {}", columns(&w.columns)))?;
        t.line(format_args!("window: {}", window(&w.window)))?;
        t.line(format_args!("partition: {}", partitioning(&w.partition)))?;
        t.line("consumers see the insert stream: new rows and new versions of updated rows")
    })
}

fn window(w: &WindowSpec) -> String {
    match w {
        WindowSpec::Time { millis } => {
            format!("win:time {} (each event expires {0} after arrival)", duration(*millis))
        }
        WindowSpec::Length { count } => format!("win:length {count} (the last {count} events)"),
        WindowSpec::ExtTimed { timestamp, millis } => format!(
            "win:ext_timed({timestamp}, {}) (an arrival stamped {0} or more after an event's {timestamp} pushes it out)",
            duration(*millis)
        ),
        WindowSpec::TimeBatch { millis } => {
            format!("win:time_batch {} (released every {0})", duration(*millis))
        }
        WindowSpec::ExtTimedBatch { timestamp, millis, reference } => {
            let from = reference.map_or_else(|| format!("the first event's {timestamp}"), |at| at.to_string());
            format!(
                "win:ext_timed_batch({timestamp}, {}) (an arrival whose {timestamp} reaches the end of the period \
                 the batch's oldest event is in releases the batch; periods of {0} count from {from})",
                duration(*millis)
            )
        }
        WindowSpec::LengthBatch { count } => {
            format!("win:length_batch {count} (released every {count} events)")
        }
        WindowSpec::TimeLengthBatch { millis, count } => format!(
            "win:time_length_batch {} {count} (released when it holds {count} events or {0} after its clock \
             started, whichever is first)",
            duration(*millis)
        ),
        WindowSpec::Sorted { unique, count, criteria } => {
            let criteria: Vec<String> =
                criteria.iter().map(|(e, desc)| format!("{e} {}", if *desc { "desc" } else { "asc" })).collect();
            let criteria = criteria.join(", ");
            match unique.is_empty() {
                true => format!("ext:sort {count} by {criteria} (the {count} events that sort first)"),
                false => format!(
                    "ext:rank({}) {count} by {criteria} (the last event of each key, the {count} that sort first)",
                    list(unique)
                ),
            }
        }
        WindowSpec::TimeAccum { millis } => {
            format!("win:time_accum {} (all events leave together once {0} pass without an arrival)", duration(*millis))
        }
        WindowSpec::TimeOrder { timestamp, millis: 0 } => {
            format!("ext:timetolive({timestamp}) (each event leaves when the clock reaches its timestamp)")
        }
        WindowSpec::TimeOrder { timestamp, millis } => format!(
            "ext:time_order({timestamp}, {}) (each event leaves when the clock is {0} past its timestamp, those due \
             together in timestamp order)",
            duration(*millis)
        ),
        WindowSpec::Unique { keys } => {
            format!("std:unique({}) (the last event per key)", list(keys))
        }
        WindowSpec::LastEvent => "std:lastevent (the last event)".to_string(),
        WindowSpec::FirstLength { count } => {
            format!("win:firstlength {count} (the first {count} events; later ones are not admitted)")
        }
        WindowSpec::KeepAll => "win:keepall (every event, for good)".to_string(),
        WindowSpec::FirstTime { millis } => {
            format!(
                "win:firsttime {} (the events of the statement's first {0}; later ones are not admitted)",
                duration(*millis)
            )
        }
        WindowSpec::FirstUnique { keys } => {
            format!("std:firstunique({}) (the first event per key; later ones are not admitted)", list(keys))
        }
        WindowSpec::Grouped { keys, inner } => {
            format!("std:groupwin({}) of {}", list(keys), window(inner))
        }
    }
}

fn partitioning(p: &Partitioning) -> String {
    match p {
        Partitioning::Stateless => "any worker (no state)".to_string(),
        Partitioning::Single => "one worker (the semantics need a single order)".to_string(),
        Partitioning::Key(keys) => {
            let keys: Vec<String> = keys.iter().map(|k| format!("{} [{}]", k.name, list(&k.inputs))).collect();
            format!("by key {}", keys.join(", "))
        }
    }
}

fn query(t: &mut Tree<'_, '_>, q: &QueryPlan) -> fmt::Result {
    sink(t, &q.sink)?;
    t.nested(|t| {
        t.line(format_args!("partition: {}", partitioning(&q.partition)))?;
        if let Some(o) = &q.output {
            output(t, o)?;
        }
        if let Some(quiet) = q.quiet_millis {
            t.line(format_args!(
                "output after {}: its rows before then are dropped, the later ones pass",
                duration(quiet)
            ))?;
        }
        if let Some(rows) = q.quiet_rows {
            t.line(format_args!(
                "output after {rows} events: its rows are dropped, an event's or a timer's together, until it has made \
                 more than {rows}; those that take it past pass, and the later ones"
            ))?;
        }
        if !q.order_by.is_empty() {
            let items: Vec<String> =
                q.order_by.iter().map(|(e, desc)| format!("{e}{}", if *desc { " desc" } else { "" })).collect();
            t.line(format_args!("order by {}", items.join(", ")))?;
        }
        if q.emits != Emits::Inserted {
            let emits = match q.emits {
                Emits::InsertedAndRemoved => "inserted and removed rows (irstream); its stream takes the inserted ones",
                _ => "removed rows only (rstream)",
            };
            t.line(format_args!("emits {emits}"))?;
        }
        if q.distinct {
            t.line("distinct: of the rows made at once, the first of each equal set")?;
        }
        t.line("project")?;
        t.nested(|t| {
            for p in &q.projection {
                t.line(format_args!("{} = {}: {}", p.name, p.expr, p.ty))?;
            }
            if let Some(a) = &q.aggregation {
                aggregation(t, a, &q.input)?;
            }
            if let Some(filter) = &q.filter {
                t.line(format_args!("filter (where) {filter}"))?;
            }
            input(t, &q.input)
        })
    })
}

fn sink(t: &mut Tree<'_, '_>, s: &Sink) -> fmt::Result {
    match &s.kind {
        SinkKind::Listeners => t.line("sink: listeners only (no INSERT INTO; nothing is sent)"),
        SinkKind::Internal => {
            t.line(format_args!("sink: stream {} (internal; not sent)", s.stream))?;
            t.nested(|t| t.line(format_args!("columns: {}", columns(&s.columns))))
        }
        SinkKind::NamedWindow => {
            t.line(format_args!("sink: named window {}", s.stream))?;
            t.nested(|t| t.line(format_args!("columns: {}", columns(&s.columns))))
        }
        SinkKind::Out(out) => {
            t.line(format_args!("sink: out type {} (entity updates, APPEND)", s.stream))?;
            t.nested(|t| out_mapping(t, s, out))
        }
    }
}

fn out_mapping(t: &mut Tree<'_, '_>, s: &Sink, out: &OutMapping) -> fmt::Result {
    t.line(format_args!("columns: {}", columns(&s.columns)))?;
    t.line(format_args!(
        "entity: type {}, id = the row's id, or {:?} when it is null or empty",
        out.entity_type, out.fallback_id
    ))?;
    let attrs: Vec<String> = out
        .attributes
        .iter()
        .map(|(name, ty, meta)| match meta.is_empty() {
            true => format!("{name} ({ty})"),
            false => format!("{name} ({ty}; metadata {})", meta.join(", ")),
        })
        .collect();
    t.line(format_args!("attributes (null ones skipped): {}", attrs.join(", ")))?;
    t.line(format_args!("brokers: {}", out.brokers.join(", ")))
}

fn output(t: &mut Tree<'_, '_>, o: &OutputPolicy) -> fmt::Result {
    let (after, first) = match o.after_millis {
        Some(a) => (format!(" after {}", duration(a)), "the first event past the delay"),
        None => (String::new(), "the first event"),
    };
    let kind = match o.kind {
        OutputKind::Default => String::new(),
        kind => format!("{kind:?} ").to_lowercase(),
    };
    match o.every_events {
        Some(n) => t.line(format_args!(
            "output {kind}every {n} events: a tick when {n} rows past WHERE have entered the view, or {n} left it, since the last"
        ))?,
        None => t.line(format_args!(
            "output {kind}every {}{after}, first tick one period after {first}",
            duration(o.every_millis)
        ))?,
    }
    t.nested(|t| t.line(format_args!("each tick releases {}", o.releases)))
}

fn aggregation(t: &mut Tree<'_, '_>, a: &Aggregation, over: &Input) -> fmt::Result {
    if let (true, true, Some(h)) = (a.aggregates.is_empty(), a.group_by.is_empty(), &a.having) {
        return t.line(format_args!("having {h}, read on each row as it is made (no aggregates)"));
    }
    let kind = match (&a.kind, over) {
        (AggregationKind::FullyAggregated, Input::Join(_)) => {
            "fully aggregated: one row per group of each trigger's rows, aggregated afresh".to_string()
        }
        (AggregationKind::FullyAggregated, Input::Pattern(_)) => {
            "fully aggregated: one row per match, its group's aggregates over every match so far".to_string()
        }
        (AggregationKind::FullyAggregated, Input::Stream(_)) => "fully aggregated: one row per group".to_string(),
        (AggregationKind::WithUngroupedColumns(cols), Input::Join(_)) => format!(
            "aggregated with ungrouped columns ({}): one row per joined row, with its group's aggregates over its \
             trigger's rows",
            cols.join(", ")
        ),
        (AggregationKind::WithUngroupedColumns(cols), Input::Pattern(_)) => format!(
            "aggregated with ungrouped columns ({}): one row per match, its group's aggregates over every match so far",
            cols.join(", ")
        ),
        (AggregationKind::WithUngroupedColumns(cols), Input::Stream(_)) => {
            format!("aggregated with ungrouped columns ({}): one row per event", cols.join(", "))
        }
    };
    t.line(format_args!("aggregate, {kind}"))?;
    t.nested(|t| {
        if !a.group_by.is_empty() {
            t.line(format_args!("group by {}", list(&a.group_by)))?;
        }
        for (i, call) in a.aggregates.iter().enumerate() {
            t.line(format_args!("#agg{i} = {call}"))?;
        }
        if let Some(h) = &a.having {
            t.line(format_args!("having {h}"))?;
        }
        Ok(())
    })
}

fn input(t: &mut Tree<'_, '_>, source: &Input) -> fmt::Result {
    match source {
        Input::Stream(s) => stream_input(t, s),
        Input::Pattern(p) => pattern(t, p),
        Input::Join(j) => {
            t.line(format_args!("join: left outer, driven by the left side only, on {}", j.on))?;
            t.nested(|t| {
                let keys: Vec<String> = j.keys.iter().map(|(a, b)| format!("{a} = {b}")).collect();
                t.line(format_args!("lookup keys: {}", keys.join(", ")))?;
                t.line(format_args!("driver partition: {}", partitioning(&j.driver_partition)))?;
                input(t, &j.driver)?;
                t.line("lookup (never triggers output)")?;
                t.nested(|t| lookup_input(t, &j.lookup))
            })
        }
    }
}

fn stream_input(t: &mut Tree<'_, '_>, s: &StreamInput) -> fmt::Result {
    let what = if s.named_window { "named window (insert stream)" } else { "stream" };
    source(t, s, what)
}

/// A join reads a named window's rows, as its inserts, updates and deletes leave them.
fn lookup_input(t: &mut Tree<'_, '_>, s: &StreamInput) -> fmt::Result {
    let what = if s.named_window { "named window (its rows)" } else { "stream" };
    source(t, s, what)
}

fn source(t: &mut Tree<'_, '_>, s: &StreamInput, what: &str) -> fmt::Result {
    t.line(format_args!("source: {what} {} as {}", s.stream, s.label))?;
    t.nested(|t| {
        if let Some(filter) = &s.filter {
            t.line(format_args!("filter {filter}"))?;
        }
        if let Some(w) = &s.window {
            t.line(format_args!("window: {}", window(w)))?;
        }
        if !s.priors.is_empty() {
            let priors: Vec<&str> = s.priors.iter().map(|p| p.name.as_str()).collect();
            t.line(format_args!("priors: {} (set on each event as the view posts it)", priors.join(", ")))?;
        }
        if !s.prevs.is_empty() {
            let prevs: Vec<&str> = s.prevs.iter().map(|p| p.name.as_str()).collect();
            t.line(format_args!("prevs: {} (read off the view as each event arrives)", prevs.join(", ")))?;
        }
        Ok(())
    })
}

fn pattern(t: &mut Tree<'_, '_>, p: &PatternPlan) -> fmt::Result {
    let tags: Vec<String> = p.tags.iter().map(|(tag, s)| format!("{tag}={s}")).collect();
    let label = p.label.as_ref().map_or(String::new(), |l| format!(" as {l}"));
    t.line(format_args!("source: pattern{label}, tags {}", tags.join(", ")))?;
    t.nested(|t| pattern_node(t, &p.root))
}

fn pattern_node(t: &mut Tree<'_, '_>, n: &PatternNode) -> fmt::Result {
    let id = n.id;
    match &n.kind {
        PatternNodeKind::Every(inner) => {
            t.line(format_args!("s{id} every: a new instance of s{} each time it starts or matches", inner.id))?;
            t.nested(|t| pattern_node(t, inner))
        }
        PatternNodeKind::FollowedBy(items) => {
            pattern_children(t, id, "followed-by: each starts after the previous matched", items)
        }
        PatternNodeKind::And(items) => pattern_children(t, id, "and: matches when all matched", items),
        PatternNodeKind::Or(items) => pattern_children(t, id, "or: matches when any matched", items),
        PatternNodeKind::Not(inner) => {
            t.line(format_args!("s{id} not: kill condition, the instance dies when s{} matches", inner.id))?;
            t.nested(|t| pattern_node(t, inner))
        }
        PatternNodeKind::Within { inner, millis } => {
            t.line(format_args!(
                "s{id} within {}: s{} ends as false if not matched by then",
                duration(*millis),
                inner.id
            ))?;
            t.nested(|t| pattern_node(t, inner))
        }
        PatternNodeKind::Timer { millis } => {
            t.line(format_args!("s{id} timer: true {} after the state starts", duration(*millis)))
        }
        PatternNodeKind::Match { tag, stream, filter } => {
            let tag = tag.as_ref().map_or(String::new(), |t| format!("{t}="));
            let filter = filter.as_ref().map_or(String::new(), |f| format!(" where {f}"));
            t.line(format_args!("s{id} match {tag}{stream}{filter}"))
        }
    }
}

fn pattern_children(t: &mut Tree<'_, '_>, id: usize, what: &str, items: &[PatternNode]) -> fmt::Result {
    t.line(format_args!("s{id} {what}"))?;
    t.nested(|t| items.iter().try_for_each(|i| pattern_node(t, i)))
}

fn merge(t: &mut Tree<'_, '_>, m: &MergePlan) -> fmt::Result {
    t.line(format_args!("merge into named window {} as {}", m.window, m.window_label))?;
    t.nested(|t| {
        t.line(format_args!("partition: {}", partitioning(&m.partition)))?;
        let cond = m.condition.as_ref().map_or("every row".to_string(), ToString::to_string);
        t.line(format_args!("matching rows: {cond}"))?;
        for c in &m.clauses {
            merge_clause(t, c)?;
        }
        stream_input(t, &m.trigger)
    })
}

fn merge_clause(t: &mut Tree<'_, '_>, c: &MergeClausePlan) -> fmt::Result {
    let when = if c.matched { "when matched" } else { "when not matched" };
    let cond = c.condition.as_ref().map_or(String::new(), |e| format!(" and {e}"));
    match &c.action {
        MergeActionPlan::Insert(cols) => {
            t.line(format_args!("{when}{cond}: insert"))?;
            t.nested(|t| cols.iter().try_for_each(|p| t.line(format_args!("{} = {}: {}", p.name, p.expr, p.ty))))
        }
        MergeActionPlan::Update(sets) => {
            let sets: Vec<String> = sets.iter().map(|(c, e)| format!("{c} = {e}")).collect();
            t.line(format_args!("{when}{cond}: update set {} (other columns kept)", sets.join(", ")))
        }
        MergeActionPlan::Delete => t.line(format_args!("{when}{cond}: delete the row")),
    }
}

fn window_action(t: &mut Tree<'_, '_>, what: &str, a: &WindowActionPlan) -> fmt::Result {
    t.line(format_args!("on each trigger: {what} named window {} as {}", a.window, a.window_label))?;
    t.nested(|t| {
        t.line(format_args!("partition: {}", partitioning(&a.partition)))?;
        let cond = a.condition.as_ref().map_or("every row".to_string(), ToString::to_string);
        t.line(format_args!("rows: {cond}"))?;
        if !a.assignments.is_empty() {
            let sets: Vec<String> = a.assignments.iter().map(|(c, e)| format!("{c} = {e}")).collect();
            t.line(format_args!("set {}", sets.join(", ")))?;
        }
        stream_input(t, &a.trigger)
    })
}
