//! Where each key's state is in its statement's slab: a hash table of 8-byte entries, a slot and the key's hash, rather
//! than a map holding each key (a 24-byte text) beside its slot. The slab's entry holds the key, so a lookup
//! ([`Slots::get`]) compares keys there.
//!
//! A statement that finds the state of an event a few events ahead of its turn guesses instead, by the key's hash
//! alone, and checks the guess against the key when the event's turn comes. The guess is asked in two steps, a group
//! of events apart: [`Slots::seek`] hashes the key and starts loading the one cache line the guess will read, and
//! [`Slots::guess`] reads it. That line is of a second table, [`Lines`]: the entries again, eight to a cache line,
//! the line chosen by the hash, so that where an entry is follows from the hash alone; in the hash table, reaching
//! an entry takes a read of the table's control bytes first. An entry its line has no room for is guessed from the
//! hash table.
//!
//! In `bench geofence` (a hundred thousand trackers) the lookups ahead, in a map of keys, took 12.9 % of one worker's
//! samples, nearly all on the first read of the bucket; the guesses take 5.1 %. One worker ran 1.7–18.9 % more events
//! a second than with the map in six pairs at 2,000 events an epoch, and 5.4 and 2.1 % more in two at 100
//! (`benches/results/cep.md`, thirty-eighth session); the table alone, without the lines and the step ahead, made no
//! difference the noise showed.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;

use crate::cep::runtime::prefetch;

/// A key's slot and its hash.
#[derive(Debug, Clone, Copy)]
struct Entry {
    slot: u32,
    hash: u32,
}

impl Entry {
    /// What an unused place of a line holds.
    const VACANT: Entry = Entry { slot: u32::MAX, hash: 0 };
}

/// The slots of the keys of one slab.
#[derive(Debug, Default)]
pub struct Slots {
    table: HashTable<Entry>,
    lines: Lines,
    /// Seeded per table, so another table's keys do not probe this one's worst case.
    hasher: RandomState,
}

/// Eight entries, a cache line.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
struct Line([Entry; WAYS]);

const WAYS: usize = 8;

/// Entries by hash, eight to a line, with room for twice as many entries as the table holds: a power of two of
/// lines, at least one line for every four entries.
#[derive(Debug, Default)]
struct Lines(Vec<Line>);

impl Lines {
    fn line(&self, hash: u32) -> Option<&Line> {
        let mask = self.0.len().checked_sub(1)?;
        self.0.get(hash as usize & mask)
    }

    fn line_mut(&mut self, hash: u32) -> Option<&mut Line> {
        let mask = self.0.len().checked_sub(1)?;
        self.0.get_mut(hash as usize & mask)
    }

    fn guess(&self, hash: u32) -> Option<usize> {
        let line = self.line(hash)?;
        let entry = line.0.iter().find(|e| e.hash == hash && e.slot != Entry::VACANT.slot)?;
        Some(entry.slot as usize)
    }

    /// Puts `entry` in its line, if the line has room.
    fn put(&mut self, entry: Entry) {
        if let Some(line) = self.line_mut(entry.hash)
            && let Some(place) = line.0.iter_mut().find(|e| e.slot == Entry::VACANT.slot)
        {
            *place = entry;
        }
    }

    fn take(&mut self, entry: Entry) {
        if let Some(line) = self.line_mut(entry.hash)
            && let Some(place) = line.0.iter_mut().find(|e| e.slot == entry.slot)
        {
            *place = Entry::VACANT;
        }
    }

    /// Lines for `entries`, filled anew when there are too few.
    fn fit<'e>(&mut self, count: usize, entries: impl Iterator<Item = &'e Entry>) {
        if count <= self.0.len() * WAYS / 2 {
            return;
        }
        let lines = (count * 2).div_ceil(WAYS).next_power_of_two();
        self.0 = vec![Line([Entry::VACANT; WAYS]); lines];
        entries.for_each(|e| self.put(*e));
    }
}

/// The table's hash of an entry's 32-bit hash: the same bits above and below, since the table places an entry by its
/// low bits and tells entries apart within a group by its top seven.
fn spread(hash: u32) -> u64 {
    (u64::from(hash) << 32) | u64::from(hash)
}

/// A slot as an entry holds it; the largest `u32` marks a vacant place. Each live key holds state of at least a cache
/// line, so 2^32 keys would be 256 GiB.
fn narrow(slot: usize) -> u32 {
    u32::try_from(slot).ok().filter(|s| *s != Entry::VACANT.slot).expect("fewer than 2^32 - 1 live keys")
}

impl Slots {
    fn hash(&self, key: &str) -> u32 {
        (self.hasher.hash_one(key) >> 32) as u32
    }

    /// The slot of `key`, for which `holds(slot)` says whether the slab's entry `slot` is of `key`.
    pub fn get(&self, key: &str, holds: impl Fn(usize) -> bool) -> Option<usize> {
        let hash = self.hash(key);
        let entry = self.table.find(spread(hash), |e| e.hash == hash && holds(e.slot as usize))?;
        Some(entry.slot as usize)
    }

    /// Hashes `key` and starts loading the line [`Slots::guess`] will read for it.
    pub fn seek(&self, key: &str) -> u32 {
        let hash = self.hash(key);
        if let Some(line) = self.lines.line(hash) {
            prefetch::load(line);
        }
        hash
    }

    /// The slot of a key of hash `hash` (from [`Slots::seek`]): that of the key hashed if it has one, since two live
    /// keys share a 32-bit hash about once in forty thousand with a hundred thousand of them; the caller checks it
    /// before it relies on it.
    pub fn guess(&self, hash: u32) -> Option<usize> {
        let in_table = || self.table.find(spread(hash), |e| e.hash == hash).map(|e| e.slot as usize);
        self.lines.guess(hash).or_else(in_table)
    }

    /// Files `key`, which has no slot yet, at `slot`.
    pub fn insert(&mut self, key: &str, slot: usize) {
        let entry = Entry { slot: narrow(slot), hash: self.hash(key) };
        self.table.insert_unique(spread(entry.hash), entry, |e| spread(e.hash));
        self.lines.put(entry);
        self.lines.fit(self.table.len(), self.table.iter());
    }

    /// Forgets `key`, filed at `slot`.
    pub fn remove(&mut self, key: &str, slot: usize) {
        let entry = Entry { slot: narrow(slot), hash: self.hash(key) };
        if let Ok(found) = self.table.find_entry(spread(entry.hash), |e| e.slot == entry.slot) {
            found.remove();
            self.lines.take(entry);
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.table.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_at_their_slots_until_removed() {
        let keys: Vec<String> = (0..10_000).map(|n| format!("urn:Tracker:{n}")).collect();
        let mut slots = Slots::default();
        for (slot, key) in keys.iter().enumerate() {
            slots.insert(key, slot);
        }
        let holds = |key: &str, slot: usize| keys[slot] == key;
        for (slot, key) in keys.iter().enumerate() {
            assert_eq!(slots.get(key, |slot| holds(key, slot)), Some(slot));
            // The hashes are 32 bits, seeded per index: two of ten thousand keys share one about once in a hundred
            // runs, and then a guess may name the other's slot.
            let guess = slots.guess(slots.seek(key)).expect("a guess");
            assert!(guess == slot || slots.hash(&keys[guess]) == slots.hash(key), "{key} guessed at {guess}");
        }
        assert_eq!(slots.get("urn:Tracker:x", |slot| holds("urn:Tracker:x", slot)), None);
        for (slot, key) in keys.iter().enumerate().filter(|(slot, _)| slot % 2 == 0) {
            slots.remove(key, slot);
        }
        assert_eq!(slots.len(), 5_000);
        for (slot, key) in keys.iter().enumerate() {
            let kept = (slot % 2 == 1).then_some(slot);
            assert_eq!(slots.get(key, |slot| holds(key, slot)), kept, "{key}");
        }
    }

    #[test]
    fn a_lookup_checks_the_key_where_a_guess_does_not() {
        let mut slots = Slots::default();
        slots.insert("a", 7);
        // The slab's entry 7 is of another key now: a lookup finds nothing, a guess still answers 7.
        assert_eq!(slots.get("a", |_| false), None);
        assert_eq!(slots.guess(slots.seek("a")), Some(7));
        slots.remove("a", 7);
        assert_eq!(slots.guess(slots.seek("a")), None);
    }

    #[test]
    fn an_entry_its_line_has_no_room_for_is_guessed_from_the_table() {
        let mut slots = Slots::default();
        slots.lines.0 = vec![Line([Entry::VACANT; WAYS])];
        // Hashes that all choose the one line: the ninth entry is in the table only.
        let entries: Vec<Entry> = (0..=WAYS as u32).map(|n| Entry { slot: n, hash: (n + 1) << 8 }).collect();
        for entry in &entries {
            slots.table.insert_unique(spread(entry.hash), *entry, |e| spread(e.hash));
            slots.lines.put(*entry);
        }
        assert_eq!(slots.lines.guess(entries[WAYS].hash), None, "the line is full");
        for entry in &entries {
            assert_eq!(slots.guess(entry.hash), Some(entry.slot as usize));
        }
    }
}
