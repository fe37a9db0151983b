//! Property names. Every row carries its names, and rows cross threads: ingest builds them and the workers drop them.
//! A name that is an `Arc` has its count written by both sides at every row, so the cache line with the count moves
//! between the cores. So names are interned instead: one copy of each text for the life of the process, copied as a
//! pointer, no count to write. On `bench geofence --duration 20`, interned names ran 1.10–1.30x the events per second
//! of shared `Arc`s on 1 worker in three of three pairs of runs; on 2 workers the six pairs ranged from 0.87x to 1.13x
//! (`benches/results/cep.md`, sixteenth session).
//!
//! Names come from configurations (declared attributes, select lists, tags), never from events, so the table holds
//! the distinct names ever configured. A tenant posting configuration after configuration with new names could still
//! make it grow, so it is capped at [`INTERNED_BYTES`]: past that, a new name is an ordinary shared `Arc` again,
//! slower to copy but freed with its last row.

use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

/// The most bytes of text the interning table keeps.
pub const INTERNED_BYTES: usize = 16 << 20;

/// A property name.
#[derive(Clone)]
pub struct Name(Repr);

/// Two words: the shared form is a thin pointer (an `Arc` of a boxed text) that fits beside the interned text's
/// non-null pointer, so the enum needs no tag word of its own. A row's property (name and value) is then 40 bytes
/// instead of 48, and rows are what a pattern holds for seconds.
#[derive(Clone)]
enum Repr {
    /// The table's one copy: equal names are the same pointer.
    Interned(&'static str),
    /// A name made after the table was full.
    Shared(Arc<Box<str>>),
}

#[derive(Default)]
struct Table {
    names: HashSet<&'static str>,
    bytes: usize,
}

impl Table {
    /// The table's copy of `text`, made if there is room.
    fn intern(&mut self, text: &str, limit: usize) -> Option<&'static str> {
        if let Some(known) = self.names.get(text) {
            return Some(known);
        }
        if self.bytes + text.len() > limit {
            return None;
        }
        let copy: &'static str = Box::leak(text.into());
        self.bytes += text.len();
        self.names.insert(copy);
        Some(copy)
    }
}

/// Whether two texts are equal, looking at their addresses first: a name read through an interned [`Name`] (a plan's
/// column, label or tag, a row's property) is found equal to another read of the same name without comparing bytes.
pub fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len() && (std::ptr::eq(a.as_ptr(), b.as_ptr()) || a.as_bytes() == b.as_bytes())
}

impl Name {
    fn new(text: &str) -> Self {
        static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
        let mut table = TABLE.get_or_init(Mutex::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match table.intern(text, INTERNED_BYTES) {
            Some(interned) => Name(Repr::Interned(interned)),
            None => Name(Repr::Shared(Arc::new(text.into()))),
        }
    }

    /// Whether it is the interning table's copy, which a drop does not touch.
    pub fn is_interned(&self) -> bool {
        matches!(self.0, Repr::Interned(_))
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Interned(text) => text,
            Repr::Shared(text) => text,
        }
    }
}

impl std::ops::Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Name {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            // One copy per text: the pointers decide.
            (Repr::Interned(a), Repr::Interned(b)) => std::ptr::eq(*a, *b),
            _ => self.same_text_as(other),
        }
    }
}

impl Name {
    /// Equality of names not both interned, out of line so that the pointer test inlines small.
    #[cold]
    #[inline(never)]
    fn same_text_as(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Self {
        Name::new(text)
    }
}

impl From<String> for Name {
    fn from(text: String) -> Self {
        Name::new(&text)
    }
}

impl From<&String> for Name {
    fn from(text: &String) -> Self {
        Name::new(text)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Name::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_two_words() {
        assert_eq!(size_of::<Name>(), 16);
    }

    #[test]
    fn equal_texts_share_one_interned_copy() {
        let (a, b) = (Name::from("temperature"), Name::from(String::from("temperature")));
        let (Repr::Interned(x), Repr::Interned(y)) = (&a.0, &b.0) else { panic!("interned") };
        assert!(std::ptr::eq(*x, *y));
        assert_eq!(a, b);
        assert_ne!(a, Name::from("temperatures"));
        let (first, second) = (Name::from("a"), Name::from("b"));
        assert!(first < second);
    }

    #[test]
    fn texts_are_the_same_by_address_or_by_bytes() {
        let interned = Name::from("position");
        let copy = String::from("position");
        assert!(same_text(&interned, &Name::from("position")));
        assert!(same_text(&interned, &copy));
        assert!(!same_text(&interned, "positions"));
        assert!(!same_text(&interned, "pos1tion"));
        assert!(!same_text(&interned[..3], &interned[..4]), "the same address, another length");
    }

    #[test]
    fn a_full_table_makes_no_new_copies_but_still_finds_the_old_ones() {
        let mut table = Table::default();
        let first = table.intern("position", 10).expect("room for 8 bytes");
        assert_eq!(table.intern("inside", 10), None, "8 + 6 bytes is over 10");
        assert!(std::ptr::eq(table.intern("position", 10).expect("known"), first));
        assert_eq!(table.bytes, 8);
    }

    #[test]
    fn a_shared_name_equals_and_orders_as_its_interned_twin() {
        let shared = Name(Repr::Shared(Arc::new("floor".into())));
        let interned = Name::from("floor");
        assert_eq!(shared, interned);
        assert_eq!(shared.cmp(&interned), std::cmp::Ordering::Equal);
        let hash = |n: &Name| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            n.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&shared), hash(&interned));
    }

    #[test]
    fn a_row_releases_its_shared_names() {
        let text: Arc<Box<str>> = Arc::new("late".into());
        let name = Name(Repr::Shared(text.clone()));
        assert!(!name.is_interned() && Name::from("early").is_interned());
        let mut props: crate::cep::runtime::props::Props = [("early", crate::cep::runtime::Val::Int(1))].into();
        props.insert(name, crate::cep::runtime::Val::Int(2));
        assert_eq!(Arc::strong_count(&text), 2);
        drop(props);
        assert_eq!(Arc::strong_count(&text), 1);
    }
}
