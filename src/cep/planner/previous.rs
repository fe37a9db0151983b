//! Types Esper's previous-event functions, `prev(n, x)`, `prevtail(n, x)` and `prevcount(x)`, as a
//! column of the statement's one stream that the runtimes set as an event arrives ([`Prev`]), and says where a
//! statement may read them. Esper's forms are all taken: one argument (`prev(x)` is `prev(1, x)`, `prevtail(x)`
//! `prevtail(0, x)`) and the index after the property (`prev(x, 2)`).
//!
//! Esper reads them off the data window as an event arrives, and as null for an event leaving it. So the window must
//! keep its events (`win:length`, `win:time`, `win:ext_timed`, `win:keepall` or a batch window, under `std:groupwin` or
//! not: Esper's "Required data window not found"); `WHERE` (with aggregates) and `HAVING` would drop the remove
//! stream's rows they pass at arrival (Esper refuses both); `GROUP BY` would move a leaving event to the null group; an
//! aggregate would add what it read at arrival and take back nothing. The subset leaves out what Esper reads elsewhere
//! than at the arrival: under an output policy (at the tick), in `ORDER BY`, in `WHERE` of a statement with a remove
//! stream (which Esper evaluates again as rows leave); and `prevwindow(x)`, whose array no attribute takes (refused by
//! name with the functions outside the subset). An index that is not a constant (`prev(count(*) - 1, x)`, Esper's)
//! reads the window's values as an array set on the event, at the index each row computes (`Function::Item`): the whole
//! window's for each event, where a constant reads one.

use super::super::ast::{Expr, ExprKind, Literal, Name, OutputClause};
use super::super::error::CepError;
use super::super::plan::{DataType, Function, Input, PlanExpr, Prev, PrevKind, WindowSpec};
use super::expr::{ExprPlanner, Typed, each_once, is_numeric};

/// Whether a clause may read the previous-event functions, and those it read.
#[derive(Debug, Clone)]
pub(super) enum Prevs {
    /// Not in this clause: a stream filter, a view's parameters, a pattern filter, a merge, a variable's value.
    NotHere,
    /// Not in this statement or clause, for the reason given: the subset does not hold it.
    Unsupported(&'static str),
    /// Not over this statement's view, which keeps no events to read.
    NoDataWindow,
    /// Read here: what, and where the latest was written (for a clause that turns out not to allow it).
    Read { read: Vec<Prev>, at: Option<Name> },
}

impl Prevs {
    /// What a select statement over `input`, with `output`, may read.
    pub fn of(input: &Input, output: Option<&OutputClause>) -> Prevs {
        let stream = match input {
            Input::Stream(stream) => stream,
            Input::Pattern(_) => return Prevs::Unsupported("over a pattern"),
            Input::Join(_) => return Prevs::Unsupported("in a join"),
        };
        if stream.named_window {
            return Prevs::Unsupported("over a named window");
        }
        if output.is_some_and(|o| o.every.is_some()) {
            return Prevs::Unsupported("under an output policy (Esper reads it at the tick)");
        }
        if let Some((view, _)) = stream.window.as_ref().and_then(WindowSpec::ordering_view) {
            return Prevs::Unsupported(match view {
                "ext:sort" => "over `ext:sort` (Esper reads its events in their sort order)",
                "ext:rank" => "over `ext:rank` (Esper reads its events in their sort order)",
                "ext:timetolive" => "over `ext:timetolive` (Esper reads its events in their timestamp order)",
                _ => "over `ext:time_order` (Esper reads its events in their timestamp order)",
            });
        }
        if !stream.window.as_ref().is_some_and(keeps_events) {
            return Prevs::NoDataWindow;
        }
        Prevs::Read { read: Vec::new(), at: None }
    }

    /// The prevs each of `planners` read, each once, in the order first read.
    pub fn read_by(planners: [&ExprPlanner<'_>; 3]) -> Vec<Prev> {
        each_once(planners.into_iter().filter_map(|planner| match &planner.prevs {
            Prevs::Read { read, .. } => Some(read.clone()),
            _ => None,
        }))
    }

    /// The name of the latest previous-event function written since the last call, if one was.
    pub fn take_read_at(&mut self) -> Option<Name> {
        match self {
            Prevs::Read { at, .. } => at.take(),
            _ => None,
        }
    }
}

/// Whether `window` keeps the events it holds in order, for the previous-event functions to read: a length, time,
/// externally timed, keep-all or accumulating window, or a batch window (externally timed or not), alone or under
/// `std:groupwin`.
fn keeps_events(window: &WindowSpec) -> bool {
    match window {
        WindowSpec::Length { .. }
        | WindowSpec::Time { .. }
        | WindowSpec::ExtTimed { .. }
        | WindowSpec::KeepAll
        | WindowSpec::TimeAccum { .. }
        | WindowSpec::LengthBatch { .. }
        | WindowSpec::TimeBatch { .. }
        | WindowSpec::TimeLengthBatch { .. }
        | WindowSpec::ExtTimedBatch { .. } => true,
        WindowSpec::Grouped { inner, .. } => keeps_events(inner),
        _ => false,
    }
}

/// How far a call counts: a constant, or a number each event reads.
enum Index {
    Constant(u32),
    Read(PlanExpr),
}

fn kind_of(function: &str) -> Option<PrevKind> {
    Some(match function {
        "prev" => PrevKind::Prev,
        "prevtail" => PrevKind::Tail,
        "prevcount" => PrevKind::Count,
        _ => return None,
    })
}

/// A constant whole number, as written.
fn constant(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Literal(Literal::Int(n)) => Some(*n),
        ExprKind::Neg(x) => constant(x).map(|n| -n),
        _ => None,
    }
}

impl ExprPlanner<'_> {
    /// Whether `function` (lower case) is one of the previous-event functions.
    pub(super) fn is_prev(function: &str) -> bool {
        kind_of(function).is_some()
    }

    /// `prev(n, x)` and its kin, `function` (lower case) named `name`: `n` a constant whole number or a number each
    /// row reads, `x` a property of the statement's one stream, read as the property the runtimes set on each event
    /// as it arrives ([`Prev`]), or, for an index read by the row, the item at it of the array they set.
    pub(super) fn prev(&mut self, e: &Expr, name: &Name, function: &str, args: &[Expr]) -> Result<Typed, CepError> {
        let kind = kind_of(function).expect("a previous-event function");
        self.may_read_prev(name)?;
        let (index, property) = match args {
            [property] => (None, property),
            // Esper's second form puts a constant index after the property.
            [property, index] if constant(index).is_some() && constant(property).is_none() => (Some(index), property),
            [index, property] => (Some(index), property),
            _ => {
                let message = format!("`{}` takes a property and, before or after it, an index", name.text);
                return Err(self.ctx.invalid(e.span, message));
            }
        };
        let index = match index {
            None => Index::Constant(u32::from(kind == PrevKind::Prev)),
            Some(index) => self.index(index, name)?,
        };
        let (planned, ty) = self.plan(property)?;
        let (source, column) = match planned {
            PlanExpr::Column { source, name, .. } => (source, name),
            PlanExpr::Row(_) => {
                return Err(self.ctx.unsupported(property.span, format!("`{}` of a whole event", name.text)));
            }
            _ => {
                return Err(self.ctx.invalid(property.span, format!("`{}` reads a property of the stream", name.text)));
            }
        };
        let (prev, planned) = match (kind, index) {
            (PrevKind::Count, _) => (Prev::new(kind, 0, column), None),
            (kind, Index::Constant(n)) => (Prev::new(kind, n, column), None),
            (kind, Index::Read(index)) => {
                let all = if kind == PrevKind::Prev { PrevKind::PrevAll } else { PrevKind::TailAll };
                (Prev::new(all, 0, column), Some(index))
            }
        };
        let read_ty = match kind {
            PrevKind::Count => DataType::Long,
            _ => ty.clone(),
        };
        let column_ty = if planned.is_some() { DataType::Array(Box::new(ty)) } else { read_ty.clone() };
        let column = PlanExpr::Column { source, name: prev.name.clone(), ty: column_ty };
        if let Prevs::Read { read, at } = &mut self.prevs {
            *at = Some(name.clone());
            if !read.contains(&prev) {
                read.push(prev);
            }
        }
        let read = match planned {
            Some(index) => PlanExpr::Call { function: Function::Item, args: vec![column, index], ty: read_ty.clone() },
            None => column,
        };
        Ok((read, read_ty))
    }

    /// Whether this clause of this statement may read a previous-event function.
    fn may_read_prev(&self, name: &Name) -> Result<(), CepError> {
        let function = &name.text;
        match &self.prevs {
            _ if self.in_aggregate => Err(self
                .ctx
                .unsupported(name.span, format!("`{function}` inside an aggregate (Esper takes nothing back)"))),
            Prevs::Read { .. } => Ok(()),
            Prevs::Unsupported(why) => Err(self.ctx.unsupported(name.span, format!("`{function}` {why}"))),
            Prevs::NoDataWindow => Err(self.ctx.invalid(
                name.span,
                format!(
                    "`{function}` needs a data window that keeps its events: `win:length`, `win:time`, \
                     `win:ext_timed`, `win:keepall`, `win:time_accum` or a batch window, under `std:groupwin` or not"
                ),
            )),
            Prevs::NotHere => {
                let place = self.no_aggregates.unwrap_or("this clause");
                Err(self.ctx.invalid(name.span, format!("`{function}` cannot be used in {place}")))
            }
        }
    }

    /// The index of `name`'s call: a constant whole number, 0 or more, or a number read as each event arrives.
    fn index(&mut self, index: &Expr, name: &Name) -> Result<Index, CepError> {
        let Some(n) = constant(index) else {
            if let ExprKind::Literal(_) = index.kind {
                let message = format!("`{}` counts a whole number of events", name.text);
                return Err(self.ctx.invalid(index.span, message));
            }
            let (planned, ty) = self.plan(index)?;
            if !is_numeric(&ty) && ty != DataType::Null {
                let message = format!("`{}` counts a number of events, not {ty}", name.text);
                return Err(self.ctx.type_error(index.span, message));
            }
            return Ok(Index::Read(planned));
        };
        u32::try_from(n).ok().filter(|n| *n <= i32::MAX as u32).map(Index::Constant).ok_or_else(|| {
            self.ctx.invalid(index.span, format!("`{}` counts a constant whole number of events, 0 or more", name.text))
        })
    }
}
