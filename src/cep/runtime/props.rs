//! The properties of an event: a short vector of (name, value) pairs kept sorted by name, so a row iterates in name
//! order as a `BTreeMap` would, and copying it shares the names instead of allocating each. Up to [`INLINE`]
//! properties are held inline, so a row (an `Arc` of its properties) is one allocation; rows are built by ingest and
//! freed by the workers, and every allocation freed on another thread than its own takes the allocator's slow path.
//! An event has a handful of properties, so a lookup scans them and compares lengths, then addresses (an interned name
//! is one copy), then bytes; that is cheaper than a tree search whose every step compares bytes.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use smallvec::SmallVec;

use super::prefetch;
use super::value::Val;

pub use super::name::Name;
use super::name::same_text;

/// How many properties a row holds without a second allocation: the seed's trackers have six and the geofence's first
/// statement adds one, its rooms four. Seven rather than eight makes the properties 296 bytes instead of 336, so a row
/// with its count takes mimalloc's 320-byte blocks (five cache lines) instead of its 384-byte ones (six; by my reading
/// of mimalloc's size classes). One worker of `bench geofence` then ran 9–35 % more events per second in seven
/// interleaved pairs, the floor within the noise (`benches/results/cep.md`, forty-third session).
pub const INLINE: usize = 7;

/// The (name, value) pairs of a row, as [`Props`] keeps them.
pub type Entries = SmallVec<[(Name, Val); INLINE]>;

/// Properties by name, sorted by name, each name once.
#[derive(Clone, Default)]
pub struct Props {
    entries: Entries,
    /// Whether a property may own memory of its own (a name made past the interning table, a long text, a
    /// polygon, an array), which dropping the properties must release. Most rows own none, and their drop then skips
    /// the properties one by one ([`Drop`] below). Kept conservatively: set by whatever adds such a property, cleared
    /// only when the properties are checked afresh.
    owning: bool,
}

/// Whether dropping `(name, value)` releases anything.
fn owns(name: &Name, value: &Val) -> bool {
    !name.is_interned() || value.owns_memory()
}

/// Whether dropping any of `entries` releases anything.
fn any_owns(entries: &[(Name, Val)]) -> bool {
    entries.iter().any(|(name, value)| owns(name, value))
}

impl Drop for Props {
    /// Forgets inline properties that own nothing rather than dropping each: nothing is lost, and dropping a row
    /// skips one check per property. That took `bench geofence`'s worker instructions down 2.8 %; one worker ran
    /// 2.4–3.8 % more events per second on the geofence at 2,000 an epoch (0.6–2.6 % at 100) and 4.6–5.8 % more on
    /// the floor at 5,000, in interleaved pairs (`benches/results/cep.md`, thirty-first session).
    fn drop(&mut self) {
        if !self.owning && !self.entries.spilled() {
            std::mem::forget(std::mem::take(&mut self.entries));
        }
    }
}

impl PartialEq for Props {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Props {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| same_text(k, name))
    }

    pub fn get(&self, name: &str) -> Option<&Val> {
        self.position(name).map(|i| &self.entries[i].1)
    }

    /// [`Props::get`] of a name the caller holds as a [`Name`], as a compiled column does: two interned names are
    /// equal exactly when they are the same pointer, so the scan reads no text. Reading `bench floor`'s columns by
    /// text cost its worker about 50 instructions an event more (`benches/results/cep.md`, seventieth session).
    #[inline]
    pub fn named(&self, name: &Name) -> Option<&Val> {
        self.entries.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    /// Sets `name` to `value`, returning the value it replaces.
    pub fn insert(&mut self, name: impl Into<Name> + AsRef<str>, value: Val) -> Option<Val> {
        match self.entries.binary_search_by(|(k, _)| (**k).cmp(name.as_ref())) {
            Ok(i) => {
                self.owning |= value.owns_memory();
                Some(std::mem::replace(&mut self.entries[i].1, value))
            }
            Err(i) => {
                let name = name.into();
                self.owning |= owns(&name, &value);
                self.entries.insert(i, (name, value));
                None
            }
        }
    }

    /// Adds `name`, which the properties lack, at `index`, where the name order puts it (a caller that knows the
    /// names in advance computed it once).
    pub fn insert_at(&mut self, index: usize, name: Name, value: Val) {
        debug_assert!(self.entries.get(index).is_none_or(|(next, _)| name < *next), "{name} before the next name");
        debug_assert!(index == 0 || self.entries[index - 1].0 < name, "{name} after the previous name");
        self.owning |= owns(&name, &value);
        self.entries.insert(index, (name, value));
    }

    /// Makes room for `extra` more properties, so adding them does not grow the vector again.
    pub fn reserve(&mut self, extra: usize) {
        self.entries.reserve_exact(extra);
    }

    /// Whether the properties are held inline, with no allocation of their own.
    #[cfg(test)]
    pub fn is_inline(&self) -> bool {
        !self.entries.spilled()
    }

    /// How many properties fit before the vector grows.
    #[cfg(test)]
    pub fn spare(&self) -> usize {
        self.entries.capacity() - self.entries.len()
    }

    /// A copy with room for `extra` more properties.
    pub fn with_room(&self, extra: usize) -> Props {
        let mut entries = Entries::with_capacity(self.entries.len() + extra);
        entries.extend(self.entries.iter().cloned());
        Props { entries, owning: self.owning }
    }

    /// Fills empty properties with `pairs`, which come in name order, each name once ([`name_order`]).
    pub(super) fn fill_sorted(&mut self, pairs: impl ExactSizeIterator<Item = (Name, Val)>) {
        debug_assert!(self.is_empty(), "filling properties that have some");
        let mut owning = false;
        self.entries.extend(pairs.inspect(|(name, value)| owning |= owns(name, value)));
        self.owning = owning;
        debug_assert!(self.entries.windows(2).all(|w| w[0].0 < w[1].0), "not in name order: {self:?}");
    }

    /// Whether the properties are inline and own nothing: dropping them would free nothing but their row's block.
    pub(super) fn reusable(&self) -> bool {
        !self.owning && !self.entries.spilled()
    }

    /// Empties properties that are [`Props::reusable`] and fills them with `pairs`, which come in name order, each
    /// name once ([`name_order`]), with room for `extra` more, in the memory they have. Being inline and owning
    /// nothing, the old ones are forgotten, as [`Drop`] does, rather than dropped one by one: that was 123 of the 740
    /// instructions `bench geofence`'s producer spent on a row (`benches/results/cep.md`, fiftieth session).
    pub(super) fn refill(&mut self, pairs: impl ExactSizeIterator<Item = (Name, Val)>, extra: usize) {
        debug_assert!(self.reusable(), "refilling properties that own memory: {self:?}");
        std::mem::forget(std::mem::take(&mut self.entries));
        self.reserve(pairs.len() + extra);
        self.fill_sorted(pairs);
    }

    /// Starts loading the row's first line, which holds the vector's length and the first property (what reading any
    /// property reads first), and its last, which holds `owning` (read when the row is reused) and the last inline
    /// property. A probe printed the properties' data at offset 8 and `owning` at 288 (`benches/results/cep.md`,
    /// forty-fourth session).
    pub fn load_ends(&self) {
        prefetch::load(&self.entries);
        prefetch::load(&self.owning);
    }

    /// Starts loading the lines of the properties themselves: [`Props::load_ends`] loaded the length by now.
    pub fn load_entries(&self) {
        self.entries.iter().for_each(|(name, value)| {
            prefetch::load(name);
            prefetch::load(value);
        });
    }

    /// Whether the properties are exactly `names` (given sorted).
    pub fn names_are(&self, names: &[Name]) -> bool {
        // Interned names are equal when their pointers are, found equal without reading the text. Lengths first, then
        // a plain zip: `Iterator::eq` over the two lists cost 1.2 % of geofence's instructions more (cep.md).
        self.entries.len() == names.len() && self.entries.iter().zip(names).all(|((k, _), n)| k == n)
    }

    /// Sets `name` to `value` unless it already has a value.
    pub fn insert_absent(&mut self, name: impl Into<Name> + AsRef<str>, value: Val) {
        if !self.contains_key(name.as_ref()) {
            self.insert(name, value);
        }
    }

    /// Keeps only the properties `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&Name, &mut Val) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
        self.owning = any_owns(&self.entries);
    }

    pub fn remove(&mut self, name: &str) -> Option<Val> {
        self.position(name).map(|i| self.entries.remove(i).1)
    }

    /// The properties in name order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Name, &Val)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Name> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }
}

impl std::ops::Index<&str> for Props {
    type Output = Val;

    /// The value of `name`; panics when there is none, as a map's index does.
    fn index(&self, name: &str) -> &Val {
        self.get(name).unwrap_or_else(|| panic!("no property `{name}`"))
    }
}

impl<K: Into<Name>> FromIterator<(K, Val)> for Props {
    /// As a map is built: a name given twice keeps its last value.
    fn from_iter<I: IntoIterator<Item = (K, Val)>>(iter: I) -> Self {
        Props::from(iter.into_iter().map(|(k, v)| (k.into(), v)).collect::<Entries>())
    }
}

impl From<Entries> for Props {
    /// As `collect`, in the vector given: its spare capacity stays, as room for properties added later.
    fn from(entries: Entries) -> Self {
        let owning = any_owns(&entries);
        Props { entries: by_name(entries), owning }
    }
}

/// `entries` sorted by name, each name once with the last of its values given.
fn by_name<T>(mut entries: SmallVec<[(Name, T); INLINE]>) -> SmallVec<[(Name, T); INLINE]> {
    // Stable: equal names stay in the order given, so the last one given is the one kept.
    entries.sort_by(|(a, _), (b, _)| a.cmp(b));
    entries.reverse();
    entries.dedup_by(|(later, _), (earlier, _)| later == earlier);
    entries.reverse();
    entries
}

/// Where the values of properties named `names` (given in that order) go in a row: (name, index of its value in
/// `names`), in name order, a repeated name once with its last value, as [`Props::from`] places them. For a caller
/// that builds many rows of the same names ([`super::Row::sorted`]): sorted once, not at every row.
pub fn name_order(names: &[Name]) -> Vec<(Name, usize)> {
    by_name(names.iter().cloned().zip(0..).collect()).into_vec()
}

impl<K: Into<Name>, const N: usize> From<[(K, Val); N]> for Props {
    fn from(pairs: [(K, Val); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<K: Into<Name> + AsRef<str>> Extend<(K, Val)> for Props {
    fn extend<I: IntoIterator<Item = (K, Val)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl IntoIterator for Props {
    type Item = (Name, Val);
    type IntoIter = smallvec::IntoIter<[(Name, Val); INLINE]>;

    fn into_iter(mut self) -> Self::IntoIter {
        std::mem::take(&mut self.entries).into_iter()
    }
}

impl fmt::Debug for Props {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl serde::Serialize for Props {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            map.serialize_entry(&**k, v)?;
        }
        map.end()
    }
}

impl<'de> serde::Deserialize<'de> for Props {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PropsVisitor;

        impl<'de> Visitor<'de> for PropsVisitor {
            type Value = Props;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of properties")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Props, A::Error> {
                let mut pairs: SmallVec<[(String, Val); INLINE]> = SmallVec::new();
                while let Some((k, v)) = access.next_entry::<String, Val>()? {
                    pairs.push((k, v));
                }
                Ok(pairs.into_iter().collect())
            }
        }

        deserializer.deserialize_map(PropsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_in_name_order_and_keeps_the_last_of_a_repeated_name() {
        let props: Props = [("b", Val::Int(1)), ("a", Val::Int(2)), ("b", Val::Int(3))].into_iter().collect();
        let names: Vec<&str> = props.keys().map(|k| &**k).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(props.get("b"), Some(&Val::Int(3)));
        assert!(props.names_are(&["a".into(), "b".into()]));
        assert!(!props.names_are(&["a".into()]) && !props.names_are(&["a".into(), "c".into()]));
    }

    #[test]
    fn insert_replaces_or_adds_in_order_and_remove_takes_out() {
        let mut props = Props::from([("m", Val::Int(1))]);
        assert_eq!(props.insert("z", Val::Int(2)), None);
        assert_eq!(props.insert("a", Val::Int(3)), None);
        assert_eq!(props.insert("m", Val::Int(4)), Some(Val::Int(1)));
        let pairs: Vec<(&str, &Val)> = props.iter().map(|(k, v)| (&**k, v)).collect();
        assert_eq!(pairs, [("a", &Val::Int(3)), ("m", &Val::Int(4)), ("z", &Val::Int(2))]);
        assert_eq!(props.remove("m"), Some(Val::Int(4)));
        assert_eq!((props.len(), props.get("m"), props.contains_key("z")), (2, None, true));
    }

    #[test]
    fn up_to_inline_properties_need_no_allocation_of_their_own() {
        let names: Vec<String> = (0..=INLINE).map(|i| format!("p{i}")).collect();
        let props = |n: usize| names[..n].iter().map(|k| (k.as_str(), Val::Int(1))).collect::<Props>();
        assert!(props(INLINE).is_inline());
        assert!(!props(INLINE + 1).is_inline());
    }

    /// Every way a property that owns memory gets into a row: the row's drop releases it, though a row of plain
    /// values skips their drops.
    #[test]
    fn a_row_releases_what_its_properties_own_however_they_got_there() {
        let owned: std::sync::Arc<[Val]> = std::sync::Arc::from([Val::Int(1)]);
        let array = || Val::Array(owned.clone());
        let plain = || Props::from([("a", Val::Int(1)), ("c", Val::Bool(true))]);
        let mut rows = vec![Props::from([("a", array())]), plain(), plain(), plain(), plain()];
        rows[1].insert("b", array());
        rows[2].insert("a", array());
        rows[3].insert_at(1, Name::from("b"), array());
        rows[4].retain(|_, v| {
            *v = array();
            true
        });
        let mut filled = Props::default();
        filled.fill_sorted([(Name::from("a"), array()), (Name::from("b"), Val::Int(2))].into_iter());
        rows.extend([filled, rows[1].clone(), rows[1].with_room(2)]);
        let made = rows.iter().map(Props::len).sum::<usize>();
        assert!(std::sync::Arc::strong_count(&owned) > 1);
        drop(rows);
        assert_eq!(std::sync::Arc::strong_count(&owned), 1, "{made} properties dropped");
    }

    proptest::proptest! {
        /// A row built from names sorted once is the row `Props::from` sorts for itself: the same names in the same
        /// order, a repeated name with the value given last.
        #[test]
        fn rows_of_names_sorted_once_are_the_rows_sorted_each_time(
            given in proptest::collection::vec((0..6usize, proptest::num::i64::ANY), 0..8),
            room in 0..3usize,
        ) {
            const NAMES: [&str; 6] = ["b", "id", "a_m", "a", "z", "m"];
            let names: Vec<Name> = given.iter().map(|(n, _)| Name::from(NAMES[*n])).collect();
            let mut values: Vec<Val> = given.iter().map(|(_, v)| Val::Int(*v)).collect();
            let expected = Props::from(names.iter().cloned().zip(values.iter().cloned()).collect::<Entries>());
            let order = name_order(&names);
            let row = super::super::Row::sorted(
                order.iter().map(|(name, i)| (name.clone(), std::mem::take(&mut values[*i]))),
                room,
            );
            proptest::prop_assert_eq!(&*row, &expected);
            proptest::prop_assert!(row.spare() >= room);
        }
    }

    #[test]
    fn round_trips_through_json_as_a_map() {
        let props = Props::from([("id", Val::String("t1".into())), ("n", Val::Int(3))]);
        let text = serde_json::to_string(&props).unwrap();
        assert_eq!(text, r#"{"id":{"String":"t1"},"n":{"Int":3}}"#);
        assert_eq!(serde_json::from_str::<Props>(&text).unwrap(), props);
    }
}
