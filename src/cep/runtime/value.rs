//! Runtime values and events: what a property holds while statements run, and how a value is written back
//! to a broker as NGSI text. Values are typed as the plan's `DataType` says (int and long share `Int`, float and
//! double share `Double`); this module converts and compares, it never decides which statement sees what.

use std::cmp::Ordering;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, Utc};

pub use super::props::{Name, Props};
use crate::cep::plan::Value;

/// A text value. Up to 23 bytes (ids, floors, units) it is held inline, so a row built on one thread and dropped on
/// another frees no separate allocation for it, and a copy writes no reference count; a longer text is shared.
pub type Text = smol_str::SmolStr;

/// One property value of an event. The default is null: `option.map(..).unwrap_or_default()` makes the null only
/// when there is no value, where `map_or(Val::Null, ..)` makes one every time and, in the hot paths of the evaluator,
/// paid an out-of-line drop for it whenever there was a value.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Val {
    #[default]
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    /// Copying a value between rows, bindings and outputs copies no text on the heap: see [`Text`].
    String(Text),
    /// Epoch milliseconds, UTC.
    Date(i64),
    /// `x` is the first coordinate (latitude by convention), as written.
    Point(f64, f64),
    /// A polygon with a closed ring (and holes, read from WKT), shared: a configuration's fence is read by every event
    /// that tests it.
    Polygon(Arc<geo::Polygon<f64>>),
    /// Shared rather than a `Vec`, so that a value stays three words (the enum keeps its tag in the text's spare
    /// bits), and rather than boxed, so that dropping a value holds no loop over items: with a box, the drop of every
    /// value saved and restored five registers for that loop, and rows' values dropped in 22 instructions rather than
    /// 12 (`bench geofence` workers 1.8 % and `bench floor` workers 4.7 % fewer instructions, twenty-sixth session).
    Array(Arc<[Val]>),
}

/// An event: properties by name, shared. A row is copied from statement to statement, into pattern bindings, windows
/// and outputs; cloning it only counts a reference, and changing a shared row copies its properties first.
///
/// The reference is `triomphe`'s `Arc`, which has no weak count: whether nothing else holds a row, asked before a row
/// is changed or reused in place, is then one load of its count. The standard `Arc` asks with a locked
/// compare-and-swap on its weak count, and a locked instruction waits for every store before it, there the stores to
/// the cold lines of the row made just before. In a profile of `bench floor`'s producer, that instruction held 55 % of
/// the samples of `Generator::row`; with `triomphe`, one worker ran 13–16 % more events per second on the floor in
/// three interleaved pairs (`benches/results/cep.md`, fortieth session).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Row(triomphe::Arc<Props>);

impl Row {
    pub fn new() -> Self {
        Row::default()
    }

    /// Reads the row's reference count, which shares its first cache line, so that a drop soon after finds it
    /// cached: a loop of these over many cold rows has their cache misses overlap.
    pub fn warm(&self) {
        std::hint::black_box(triomphe::Arc::count(&self.0));
    }

    /// A row of `pairs`, which come in name order with each name once (as [`super::props::name_order`] arranges a
    /// caller's names once for all its rows), with room for `extra` more: no sort, and the properties are written
    /// straight into the row's allocation rather than moved there.
    pub fn sorted(pairs: impl ExactSizeIterator<Item = (Name, Val)>, extra: usize) -> Row {
        // A row the thread kept ([`super::spare`]) serves when nothing else holds it and dropping it would free only
        // its own block; any other is dropped here.
        while let Some(mut row) = super::spare::take() {
            if let Some(props) = triomphe::Arc::get_mut(&mut row.0).filter(|props| props.reusable()) {
                props.refill(pairs, extra);
                return row;
            }
        }
        let mut row = Row::default();
        row.edit(pairs.len() + extra).fill_sorted(pairs);
        row
    }

    /// The properties to change, with room for `extra` more: a shared row is copied once with the room, rather than
    /// copied and then grown by the first insert; a row of its own is neither counted nor checked again per change.
    pub fn edit(&mut self, extra: usize) -> &mut Props {
        if !self.0.is_unique() {
            self.0 = triomphe::Arc::new(self.0.with_room(extra));
        }
        let props = triomphe::Arc::make_mut(&mut self.0);
        props.reserve(extra);
        props
    }
}

/// A polygon value, and a way to tell whether every copy of it is gone: for the tests of who drops a row that holds
/// it, and when.
#[cfg(test)]
pub fn watched_shape() -> (Val, std::sync::Weak<geo::Polygon<f64>>) {
    let ring = geo::LineString::from(vec![(0.0, 0.0), (1.0, 0.0), (0.0, 0.0)]);
    let polygon = Arc::new(geo::Polygon::new(ring, vec![]));
    let watch = Arc::downgrade(&polygon);
    (Val::Polygon(polygon), watch)
}

impl Deref for Row {
    type Target = Props;

    fn deref(&self) -> &Props {
        &self.0
    }
}

impl DerefMut for Row {
    fn deref_mut(&mut self) -> &mut Props {
        triomphe::Arc::make_mut(&mut self.0)
    }
}

impl From<Props> for Row {
    fn from(props: Props) -> Self {
        Row(triomphe::Arc::new(props))
    }
}

impl<K: Into<Name>, const N: usize> From<[(K, Val); N]> for Row {
    fn from(props: [(K, Val); N]) -> Self {
        Row::from(Props::from(props))
    }
}

impl<K: Into<Name>> FromIterator<(K, Val)> for Row {
    fn from_iter<I: IntoIterator<Item = (K, Val)>>(iter: I) -> Self {
        Row::from(iter.into_iter().collect::<Props>())
    }
}

impl IntoIterator for Row {
    type Item = (Name, Val);
    type IntoIter = <Props as IntoIterator>::IntoIter;

    fn into_iter(self) -> Self::IntoIter {
        triomphe::Arc::unwrap_or_clone(self.0).into_iter()
    }
}

impl From<&Value> for Val {
    fn from(v: &Value) -> Self {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Int(i) => Val::Int(*i),
            Value::Float(x) => Val::Double(*x),
            Value::String(s) => Val::String(s.as_str().into()),
        }
    }
}

impl Val {
    pub fn is_null(&self) -> bool {
        matches!(self, Val::Null)
    }

    /// Whether it owns memory of its own (a long text, a polygon, an array), which dropping it releases.
    pub fn owns_memory(&self) -> bool {
        match self {
            Val::String(text) => text.is_heap_allocated(),
            Val::Polygon(_) | Val::Array(_) => true,
            Val::Null | Val::Bool(_) | Val::Int(_) | Val::Double(_) | Val::Date(_) | Val::Point(..) => false,
        }
    }

    /// The value as a double, when numeric.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Int(i) => Some(*i as f64),
            Val::Double(x) => Some(*x),
            _ => None,
        }
    }

    /// The value as a `long`, when numeric: an `int` or `long` exactly, a double truncated. Esper sums `int`s and
    /// `long`s as a `long`; through a double, a value past 2^53 would lose its low bits.
    pub fn as_long(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            Val::Double(x) => Some(*x as i64),
            _ => None,
        }
    }

    /// `true` only for a true boolean: `null` and everything else are false, as in WHERE.
    pub fn is_true(&self) -> bool {
        matches!(self, Val::Bool(true))
    }

    /// Compares two values of comparable types; `None` when either is null or they do not compare.
    pub fn compare(&self, other: &Val) -> Option<Ordering> {
        match (self, other) {
            (Val::Int(a), Val::Int(b)) | (Val::Date(a), Val::Date(b)) => Some(a.cmp(b)),
            (Val::String(a), Val::String(b)) => Some(a.cmp(b)),
            (Val::Bool(a), Val::Bool(b)) => Some(a.cmp(b)),
            (a, b) => a.as_f64()?.partial_cmp(&b.as_f64()?),
        }
    }

    /// The order `min` and `max` take values in: numbers by value with every NaN above every other number, as Java's
    /// `Double.compareTo` puts them for Esper; other values by [`Val::compare`], and values of kinds that do not
    /// compare by their keys.
    pub fn extreme_order(&self, other: &Val) -> Ordering {
        let canonical = |x: f64| if x.is_nan() { f64::NAN } else { x };
        match (self.as_f64(), other.as_f64()) {
            (Some(a), Some(b)) => canonical(a).total_cmp(&canonical(b)),
            _ => self.compare(other).unwrap_or_else(|| self.key().cmp(&other.key())),
        }
    }

    /// Equality with SQL null semantics: `None` when either side is null.
    pub fn equals(&self, other: &Val) -> Option<bool> {
        if self.is_null() || other.is_null() {
            return None;
        }
        match (self.compare(other), self, other) {
            (Some(o), _, _) => Some(o == Ordering::Equal),
            (None, a, b) => Some(a == b),
        }
    }

    /// A stable text key, for grouping and partitioning by value: the value's debug form, with text unescaped (the
    /// common case, so it is built without the formatter).
    pub fn key(&self) -> String {
        match self {
            Val::String(s) => ["String(\"", s, "\")"].concat(),
            other => format!("{other:?}"),
        }
    }

    /// The NGSI text of the value, as an output attribute carries it; `None` for null.
    pub fn to_ngsi(&self) -> Option<String> {
        Some(match self {
            Val::Null => return None,
            Val::Bool(b) => b.to_string(),
            Val::Int(i) => i.to_string(),
            Val::Double(x) => format!("{x:?}"),
            Val::String(s) => s.to_string(),
            Val::Date(ms) => format_date(*ms),
            Val::Point(x, y) => format!("{x:?}, {y:?}"),
            Val::Polygon(polygon) => {
                let ring = polygon.exterior().coords().map(|c| format!("{:?}, {:?}", c.x, c.y));
                ring.collect::<Vec<_>>().join("; ")
            }
            Val::Array(items) => items.iter().filter_map(Val::to_ngsi).collect::<Vec<_>>().join(", "),
        })
    }
}

/// ISO 8601 UTC, with milliseconds only when there are some.
pub fn format_date(ms: i64) -> String {
    let Some(date) = DateTime::<Utc>::from_timestamp_millis(ms) else {
        return ms.to_string();
    };
    let format = if ms % 1000 == 0 { SecondsFormat::Secs } else { SecondsFormat::Millis };
    date.to_rfc3339_opts(format, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Java's `Double.compareTo`, which Esper's `min` and `max` order by: every NaN, whatever its sign bit, above
    /// positive infinity; -0.0 below 0.0; whole numbers and doubles by value.
    #[test]
    fn min_and_max_order_numbers_as_java_does() {
        let order = |a: f64, b: f64| Val::Double(a).extreme_order(&Val::Double(b));
        assert_eq!(order(-f64::NAN, f64::INFINITY), Ordering::Greater);
        assert_eq!(order(f64::NAN, -f64::NAN), Ordering::Equal);
        assert_eq!(order(-0.0, 0.0), Ordering::Less);
        assert_eq!(Val::Int(2).extreme_order(&Val::Double(1.5)), Ordering::Greater);
    }

    #[test]
    fn renders_values_as_ngsi_text() {
        assert_eq!(Val::Double(21.0).to_ngsi().as_deref(), Some("21.0"));
        assert_eq!(Val::Double(23.46153846153846).to_ngsi().as_deref(), Some("23.46153846153846"));
        assert_eq!(Val::Point(25.0, 1.0).to_ngsi().as_deref(), Some("25.0, 1.0"));
        assert_eq!(Val::Date(1_445_899_629_000).to_ngsi().as_deref(), Some("2015-10-26T22:47:09Z"));
        assert_eq!(Val::Null.to_ngsi(), None);
    }

    #[test]
    fn null_compares_to_nothing() {
        assert_eq!(Val::Null.equals(&Val::Int(1)), None);
        assert_eq!(Val::Int(2).equals(&Val::Double(2.0)), Some(true));
        assert_eq!(Val::String("a".into()).compare(&Val::String("b".into())), Some(Ordering::Less));
    }

    /// Rows hold their values inline (`Props`), so a value's size is paid by every property of every row.
    #[test]
    fn a_value_is_three_words() {
        assert_eq!(size_of::<Val>(), 24);
    }
}
