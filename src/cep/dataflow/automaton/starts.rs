//! The start events of a queue's instances when each instance has one timer (the geofence's confirmation), written
//! down compactly in the order the instances began, in chunks shared by every key of the pattern on a worker, instead
//! of kept as the rows they came in.
//!
//! Kept as rows, every event's row lived until its instance's timer, four seconds in the geofence, and the thread that
//! made the next rows wrote them into those rows' memory, cold by then: a profile of `bench geofence` had 91 % of the
//! producer's `Generator::row` samples on loading that memory. Here an event's row goes back to the thread that made
//! it as soon as its instance began, with its lines still cached, and the worker writes about 50 bytes of the
//! geofence's event one after another instead (its row is 320), and reads back only the events of instances that
//! match, one in ten there.
//!
//! A value that owns memory (a long text, a polygon, an array) is kept as it is, beside the bytes; every other is
//! written as a tag and its bytes. Each event names its properties' names by an index into its chunk's lists of
//! names: rows of one route share theirs, so a new list is mostly not needed.
//!
//! An instance's start is found by its number, which is the number this store gave it: numbers rise in the order
//! instances began, across all keys, as a queue needs its own to. Instances end in any order (a crossing ends a run of
//! them), so nothing is freed one by one: a chunk goes once the last timer due among its events has fired, when every
//! instance it holds has ended ([`Starts::trim`]), and its buffers serve the next chunk.

use std::collections::VecDeque;

use crate::cep::runtime::value::Text;
use crate::cep::runtime::{Name, Row, Val};

/// Start events per chunk.
const CHUNK: usize = 1024;
/// Emptied chunks kept for the next ones.
const SPARE: usize = 16;

/// The start events of a pattern's queued instances on one worker.
#[derive(Debug)]
pub struct Starts {
    /// Oldest first; every one full but the last.
    chunks: VecDeque<Chunk>,
    /// The number of the first chunk's first event.
    first: u64,
    /// The number the next event gets.
    next: u64,
    spare: Vec<Chunk>,
}

#[derive(Debug, Default)]
struct Chunk {
    /// The events, written one after another.
    bytes: Vec<u8>,
    /// Where each event begins in `bytes`.
    starts: Vec<u32>,
    /// The lists of names the events name, by index.
    names: Vec<Box<[Name]>>,
    /// The values that own memory, by index.
    owned: Vec<Val>,
    /// The latest epoch at which the timer of an instance begun by one of its events is due.
    due: u64,
}

/// How a value is written: its tag, then its bytes.
mod tag {
    pub const NULL: u8 = 0;
    pub const FALSE: u8 = 1;
    pub const TRUE: u8 = 2;
    pub const INT: u8 = 3;
    pub const DOUBLE: u8 = 4;
    pub const TEXT: u8 = 5;
    pub const DATE: u8 = 6;
    pub const POINT: u8 = 7;
    pub const OWNED: u8 = 8;
}

impl Default for Starts {
    fn default() -> Self {
        Starts { chunks: VecDeque::new(), first: 1, next: 1, spare: Vec::new() }
    }
}

impl Starts {
    /// Writes down `event`, the start of an instance whose timer is due at epoch `due`, and answers its number.
    pub fn keep(&mut self, event: &Row, due: u64) -> u64 {
        if (self.next - self.first) as usize == self.chunks.len() * CHUNK {
            let chunk = self.spare.pop().unwrap_or_default();
            self.chunks.push_back(chunk);
        }
        let chunk = self.chunks.back_mut().expect("a chunk with room");
        chunk.write(event);
        chunk.due = chunk.due.max(due);
        self.next += 1;
        self.next - 1
    }

    /// The start event numbered `number`, as a row: its instance matched.
    pub fn row(&self, number: u64) -> Row {
        let at = number.checked_sub(self.first).expect("a start event still kept") as usize;
        self.chunks[at / CHUNK].read(at % CHUNK)
    }

    /// Lets go of the chunks whose instances' timers were all due by `epoch`, after the timers of `epoch` fired:
    /// every instance of theirs has ended. A queue sets only its oldest instance's timer, and the next one's when the
    /// oldest ends, due no earlier; one due by then fires in the same round (`PatternLogic::fire`). So once `epoch`'s
    /// timers fired, no live instance is due by `epoch`.
    pub fn trim(&mut self, epoch: u64) {
        while self.chunks.front().is_some_and(|chunk| chunk.due <= epoch) {
            let mut chunk = self.chunks.pop_front().expect("the front chunk");
            // The last chunk may be part full: the next event starts a chunk of its own.
            self.first = match self.chunks.is_empty() {
                true => self.next,
                false => self.first + CHUNK as u64,
            };
            chunk.clear();
            if self.spare.len() < SPARE {
                self.spare.push(chunk);
            }
        }
    }

    /// How many start events are kept, ended or not.
    #[cfg(test)]
    pub fn len(&self) -> u64 {
        self.next - self.first
    }
}

impl Chunk {
    fn write(&mut self, event: &Row) {
        self.starts.push(self.bytes.len() as u32);
        let names = match self.names.last() {
            Some(last) if event.names_are(last) => self.names.len() - 1,
            _ => {
                self.names.push(event.keys().cloned().collect());
                self.names.len() - 1
            }
        };
        self.bytes.extend_from_slice(&(names as u32).to_le_bytes());
        for (_, value) in event.iter() {
            self.value(value);
        }
    }

    fn value(&mut self, value: &Val) {
        let bytes = &mut self.bytes;
        let long = matches!(value, Val::String(text) if text.len() > usize::from(u8::MAX));
        match value {
            _ if long || value.owns_memory() => {
                bytes.push(tag::OWNED);
                bytes.extend_from_slice(&(self.owned.len() as u32).to_le_bytes());
                self.owned.push(value.clone());
            }
            Val::Null => bytes.push(tag::NULL),
            Val::Bool(false) => bytes.push(tag::FALSE),
            Val::Bool(true) => bytes.push(tag::TRUE),
            Val::Int(n) => tagged(bytes, tag::INT, &n.to_le_bytes()),
            Val::Double(x) => tagged(bytes, tag::DOUBLE, &x.to_le_bytes()),
            Val::Date(ms) => tagged(bytes, tag::DATE, &ms.to_le_bytes()),
            Val::Point(x, y) => {
                tagged(bytes, tag::POINT, &x.to_le_bytes());
                bytes.extend_from_slice(&y.to_le_bytes());
            }
            Val::String(text) => {
                bytes.extend_from_slice(&[tag::TEXT, text.len() as u8]);
                bytes.extend_from_slice(text.as_bytes());
            }
            Val::Polygon(_) | Val::Array(_) => unreachable!("a polygon or an array owns memory"),
        }
    }

    /// Event `index`, read back as a row.
    fn read(&self, index: usize) -> Row {
        let mut reader = Reader { chunk: self, at: self.starts[index] as usize };
        let names = &self.names[reader.u32() as usize];
        Row::sorted(names.iter().map(|name| (name.clone(), reader.value())), 0)
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.starts.clear();
        self.names.clear();
        self.owned.clear();
        self.due = 0;
    }
}

fn tagged(bytes: &mut Vec<u8>, tag: u8, payload: &[u8; 8]) {
    bytes.push(tag);
    bytes.extend_from_slice(payload);
}

/// Reads an event back from a chunk's bytes, in the order it was written.
struct Reader<'c> {
    chunk: &'c Chunk,
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let bytes = self.chunk.bytes[self.at..self.at + N].try_into().expect("N bytes");
        self.at += N;
        bytes
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take())
    }

    fn i64(&mut self) -> i64 {
        i64::from_le_bytes(self.take())
    }

    fn value(&mut self) -> Val {
        let [tag] = self.take();
        match tag {
            tag::NULL => Val::Null,
            tag::FALSE => Val::Bool(false),
            tag::TRUE => Val::Bool(true),
            tag::INT => Val::Int(self.i64()),
            tag::DOUBLE => Val::Double(self.f64()),
            tag::DATE => Val::Date(self.i64()),
            tag::POINT => Val::Point(self.f64(), self.f64()),
            tag::TEXT => {
                let [len] = self.take();
                let text = &self.chunk.bytes[self.at..self.at + len as usize];
                self.at += len as usize;
                Val::String(Text::new(std::str::from_utf8(text).expect("text written whole")))
            }
            tag::OWNED => self.chunk.owned[self.u32() as usize].clone(),
            other => unreachable!("no value is written with tag {other}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::runtime::value::watched_shape;

    fn event(n: i64) -> Row {
        Row::from([("n", Val::Int(n))])
    }

    #[test]
    fn every_kind_of_value_reads_back_as_it_was() {
        let long = "a text longer than twenty-three bytes";
        let (shape, _) = watched_shape();
        let values = [
            Val::Null,
            Val::Bool(false),
            Val::Bool(true),
            Val::Int(-7),
            Val::Double(21.25),
            Val::String("tracker-1".into()),
            Val::String(long.into()),
            // Not on the heap, and too long for the one byte a text's length is written with.
            Val::String(Text::new_static(Box::leak("static ".repeat(40).into_boxed_str()))),
            Val::Date(1_700_000_000_000),
            Val::Point(43.6, 1.44),
            shape,
            Val::Array(vec![Val::Int(1), Val::String("x".into())].into()),
        ];
        let row: Row =
            values.iter().enumerate().map(|(i, v)| (Name::from(format!("p{i:02}").as_str()), v.clone())).collect();
        let mut starts = Starts::default();
        let number = starts.keep(&row, 10);
        assert_eq!(starts.row(number), row);
    }

    #[test]
    fn an_event_is_found_by_the_number_it_was_given() {
        let mut starts = Starts::default();
        let numbers: Vec<u64> = (0..2_500).map(|n| starts.keep(&event(n), 10)).collect();
        assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "numbers rise by one");
        assert_eq!(starts.row(numbers[1_500]).get("n"), Some(&Val::Int(1_500)));
        let other = Row::from([("m", Val::Bool(true))]);
        let number = starts.keep(&other, 10);
        assert_eq!(starts.row(number), other, "a row of other names");
        assert_eq!(starts.row(numbers[2_499]).get("n"), Some(&Val::Int(2_499)));
    }

    #[test]
    fn chunks_go_once_all_their_timers_are_due_and_numbers_keep_rising() {
        let mut starts = Starts::default();
        let early: Vec<u64> = (0..CHUNK as i64).map(|n| starts.keep(&event(n), 10)).collect();
        let late = starts.keep(&event(-1), 20);
        starts.trim(9);
        assert_eq!(starts.len(), CHUNK as u64 + 1, "nothing due yet");
        starts.trim(10);
        assert_eq!(starts.len(), 1, "the first chunk went");
        assert_eq!(starts.row(late).get("n"), Some(&Val::Int(-1)));
        starts.trim(20);
        assert_eq!(starts.len(), 0, "the part-full chunk went too");
        let next = starts.keep(&event(7), 30);
        assert!(next > late && next > early[CHUNK - 1]);
        assert_eq!(starts.row(next).get("n"), Some(&Val::Int(7)));
    }

    #[test]
    fn an_emptied_chunk_lets_go_of_what_its_events_own() {
        let mut starts = Starts::default();
        let (shape, watch) = watched_shape();
        starts.keep(&Row::from([("shape", shape)]), 5);
        starts.trim(5);
        assert_eq!(watch.strong_count(), 0, "the polygon was let go with its chunk");
    }
}
