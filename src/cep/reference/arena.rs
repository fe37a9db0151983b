//! Slots for the live frames and leaves of a pattern automaton. A node is created and dropped once per event or
//! timer, so a slot freed is reused instead of growing or rebalancing a map, and a lookup is an index. An id names
//! its slot and the low 32 bits of the node's creation number, so an id kept after its node died (a timer of a
//! killed leaf, a frame already finished) finds nothing rather than the slot's next tenant (unless that tenant came
//! 2^32 creations later). Ids of one automaton's arenas share the creation numbers, so an id is live in at most one
//! of them.

/// Nodes by id. The free slots are linked through themselves, so an automaton's arena is one buffer.
#[derive(Debug)]
pub struct Arena<T> {
    slots: Vec<Slot<T>>,
    /// The most recently freed slot, the head of the free list.
    free: Option<u32>,
    live: usize,
}

#[derive(Debug)]
enum Slot<T> {
    Live {
        seq: u64,
        value: T,
    },
    /// A freed slot and the one freed before it.
    Free {
        next: Option<u32>,
    },
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { slots: Vec::new(), free: None, live: 0 }
    }
}

fn id(seq: u64, slot: u32) -> u64 {
    (seq << 32) | u64::from(slot)
}

impl<T> Arena<T> {
    /// Stores `value`, created `seq`-th; answers its id.
    pub fn insert(&mut self, seq: u64, value: T) -> u64 {
        self.live += 1;
        let slot = Slot::Live { seq, value };
        match self.free {
            Some(index) => {
                let Slot::Free { next } = std::mem::replace(&mut self.slots[index as usize], slot) else {
                    unreachable!("the free list links only free slots");
                };
                self.free = next;
                id(seq, index)
            }
            None => {
                let index = u32::try_from(self.slots.len()).expect("fewer than 2^32 live pattern nodes");
                self.slots.push(slot);
                id(seq, index)
            }
        }
    }

    fn index(&self, id: u64) -> Option<usize> {
        let index = (id & u64::from(u32::MAX)) as usize;
        match self.slots.get(index)? {
            Slot::Live { seq, .. } if (seq << 32) == (id & !u64::from(u32::MAX)) => Some(index),
            _ => None,
        }
    }

    pub fn get(&self, id: u64) -> Option<&T> {
        match &self.slots[self.index(id)?] {
            Slot::Live { value, .. } => Some(value),
            Slot::Free { .. } => None,
        }
    }

    pub fn get_mut(&mut self, id: u64) -> Option<&mut T> {
        let index = self.index(id)?;
        match &mut self.slots[index] {
            Slot::Live { value, .. } => Some(value),
            Slot::Free { .. } => None,
        }
    }

    pub fn contains(&self, id: u64) -> bool {
        self.index(id).is_some()
    }

    pub fn remove(&mut self, id: u64) -> Option<T> {
        let index = self.index(id)?;
        let freed = Slot::Free { next: self.free };
        self.free = Some(index as u32);
        self.live -= 1;
        match std::mem::replace(&mut self.slots[index], freed) {
            Slot::Live { value, .. } => Some(value),
            Slot::Free { .. } => None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The live nodes as (creation number, id, node), in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64, &T)> {
        (self.slots.iter().enumerate()).filter_map(|(i, s)| match s {
            Slot::Live { seq, value } => Some((*seq, id(*seq, i as u32), value)),
            Slot::Free { .. } => None,
        })
    }

    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.iter().map(|(_, _, value)| value)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.slots.iter_mut().filter_map(|s| match s {
            Slot::Live { value, .. } => Some(value),
            Slot::Free { .. } => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_slot_is_reused_and_the_old_id_finds_nothing() {
        let mut arena = Arena::default();
        let first = arena.insert(1, "a");
        assert_eq!(arena.remove(first), Some("a"));
        let second = arena.insert(2, "b");
        assert_eq!(second & 0xFFFF_FFFF, first & 0xFFFF_FFFF, "the slot is reused");
        assert_eq!((arena.get(first), arena.values().count()), (None, 1));
        assert_eq!(arena.remove(first), None);
        assert_eq!(arena.get(second), Some(&"b"));
    }

    #[test]
    fn iterates_the_live_nodes_with_their_creation_numbers() {
        let mut arena = Arena::default();
        let ids: Vec<u64> = (1..=4).map(|seq| arena.insert(seq, seq * 10)).collect();
        arena.remove(ids[1]);
        let seen: Vec<(u64, u64)> = arena.iter().map(|(seq, _, v)| (seq, *v)).collect();
        assert_eq!(seen, [(1, 10), (3, 30), (4, 40)]);
        assert!(arena.contains(ids[3]) && !arena.contains(ids[1]));
    }
}
