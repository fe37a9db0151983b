//! The events of the join benchmark: [`KEYS`] shutters, each with a last known state (`State`, a status of 0 to 3)
//! that later states replace, and commands (`Cmd`) that look their shutter's state up, as `Cmd as c unidirectional
//! LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id` does. A first batch gives every shutter a state; then
//! each batch is `size` events, about half states and half commands, for shutters drawn at random.
//!
//! Batch `k` is epoch `k + 1`. A command sees the states of the earlier epochs: within an epoch, differential has no
//! order between two events, so both forms read the state as it was when the epoch began.

/// Shutters.
pub const KEYS: u32 = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// `arrival` numbers every event in the order of the batches.
    State {
        arrival: u64,
        key: u32,
        status: u8,
    },
    Cmd {
        arrival: u64,
        key: u32,
    },
}

/// What a command found: its arrival number and its shutter's status.
pub type Found = (u64, u8);

/// Where a form collects what its commands found, shared with the operator that finds it.
pub type Sink = std::rc::Rc<std::cell::RefCell<Vec<Found>>>;

/// Batches of states and commands, the same for every form that is fed them.
#[derive(Debug, Clone)]
pub struct Batches {
    size: u32,
    random: u64,
    arrival: u64,
    epoch: u64,
}

impl Batches {
    pub fn new(size: u32) -> Self {
        Batches { size: size.max(1), random: 0x9E37_79B9_7F4A_7C15, arrival: 0, epoch: 0 }
    }

    /// The first batch: a state for every shutter.
    pub fn first_states(&mut self) -> (u64, Vec<Event>) {
        self.epoch += 1;
        let states = (0..KEYS).map(|key| Event::State { arrival: self.arrive(), key, status: 0 }).collect();
        (self.epoch, states)
    }

    /// The next batch and its epoch.
    pub fn next_batch(&mut self) -> (u64, Vec<Event>) {
        self.epoch += 1;
        let events = (0..self.size).map(|_| self.event()).collect();
        (self.epoch, events)
    }

    fn event(&mut self) -> Event {
        let r = self.next_random();
        let (arrival, key) = (self.arrive(), (r >> 8) as u32 % KEYS);
        match r & 1 {
            0 => Event::State { arrival, key, status: ((r >> 1) & 3) as u8 },
            _ => Event::Cmd { arrival, key },
        }
    }

    fn arrive(&mut self) -> u64 {
        self.arrival += 1;
        self.arrival
    }

    /// xorshift64: the same sequence on every run.
    fn next_random(&mut self) -> u64 {
        let mut x = self.random;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.random = x;
        x
    }
}
