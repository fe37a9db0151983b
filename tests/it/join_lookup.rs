//! The lookups of `benches/join.rs`, compiled here from the bench's own files, on the same batches: differential's
//! upsert arrangement joined with the commands and the hand-written operator find each command's shutter state as of
//! the epoch before; the engine's join statement finds the state as of the command's arrival.

#[path = "../../benches/join/dd.rs"]
mod dd;
#[path = "../../benches/join/engine.rs"]
mod engine;
#[path = "../../benches/join/hand.rs"]
mod hand;
#[path = "../../benches/join/workload.rs"]
mod workload;

use std::collections::HashMap;

use dd::DdJoin;
use engine::EngineJoin;
use hand::HandJoin;
use workload::{Batches, Event, Found};

/// Runs both forms on `batches` batches of `size` events after the first states; answers what each found, and
/// what a plain replay of the events says each command should find.
fn run(size: u32, batches: usize) -> (Vec<Found>, Vec<Found>, Vec<Found>) {
    timely::execute_directly(move |worker| {
        let (mut dd, mut hand) = (DdJoin::new(worker), HandJoin::new(worker));
        let mut input = Batches::new(size);
        let mut last = HashMap::new();
        let (mut from_dd, mut from_hand, mut expected) = (Vec::new(), Vec::new(), Vec::new());
        let first = input.first_states();
        for (epoch, events) in std::iter::once(first).chain((0..batches).map(|_| input.next_batch())) {
            from_dd.extend(dd.push(worker, epoch, &events));
            from_hand.extend(hand.push(worker, epoch, &events));
            replay(&events, &mut last, &mut expected);
        }
        dd.drop_from(worker);
        hand.drop_from(worker);
        from_dd.sort_unstable();
        from_hand.sort_unstable();
        (from_dd, from_hand, expected)
    })
}

/// An epoch's commands read the states before it; then its states replace them.
fn replay(events: &[Event], last: &mut HashMap<u32, u8>, found: &mut Vec<Found>) {
    for event in events {
        if let Event::Cmd { arrival, key } = event {
            found.push((*arrival, last[key]));
        }
    }
    for event in events {
        if let Event::State { key, status, .. } = event {
            last.insert(*key, *status);
        }
    }
}

#[test]
fn both_lookups_find_each_commands_state_as_of_the_epoch_before() {
    for size in [10, 1_000] {
        let (dd, hand, expected) = run(size, 60);
        assert!(expected.len() > 20 * size as usize, "{} commands in 60 batches of {size}", expected.len());
        assert_eq!(hand, expected, "hand-written, {size} events per epoch");
        assert_eq!(dd, expected, "differential, {size} events per epoch");
    }
}

/// Each command reads the last state that arrived before it.
fn replay_in_order(events: &[Event], last: &mut HashMap<u32, u8>, found: &mut Vec<Found>) {
    for event in events {
        match *event {
            Event::Cmd { arrival, key } => found.push((arrival, last[&key])),
            Event::State { key, status, .. } => {
                last.insert(key, status);
            }
        }
    }
}

#[test]
fn the_engines_join_finds_each_commands_state_as_of_its_arrival() {
    for size in [10, 1_000] {
        let mut engine = EngineJoin::new();
        let mut input = Batches::new(size);
        let (mut last, mut found, mut expected) = (HashMap::new(), Vec::new(), Vec::new());
        let first = input.first_states();
        for (epoch, events) in std::iter::once(first).chain((0..60).map(|_| input.next_batch())) {
            found.extend(engine.push(epoch, EngineJoin::rows(&events)));
            replay_in_order(&events, &mut last, &mut expected);
        }
        assert!(expected.len() > 20 * size as usize, "{} commands in 60 batches of {size}", expected.len());
        assert_eq!(found, expected, "{size} events per epoch");
    }
}
