//! Random event streams through the reference and the dataflow on 1, 2 and 4 workers: the rooms' queries, named
//! windows, joins, the geofence and patterns of every kind.

use super::configs::*;
use super::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn rooms_agree_with_the_reference(steps in steps(room_event())) {
        compare(ROOMS, &steps)?;
    }

    #[test]
    fn rows_of_many_writers_reach_a_ticking_reader_as_in_the_reference(steps in steps(room_event())) {
        compare(WRITERS_READ, &steps)?;
    }

    /// The same with the readers listed first: the ticks of one millisecond go in the configuration's order, so a
    /// reader's tick goes before its writers' there, and their rows reach its next interval.
    #[test]
    fn rows_of_many_writers_reach_readers_listed_before_them_as_in_the_reference(steps in steps(room_event())) {
        compare(&readers_first(WRITERS_READ), &steps)?;
    }

    #[test]
    fn geofence_agrees_with_the_reference(steps in steps(tracker_event())) {
        compare(GEOFENCE, &steps)?;
    }

    #[test]
    fn joins_agree_with_the_reference(steps in steps(join_event()), keyed in any::<bool>()) {
        let config = if keyed { JOINS.to_owned() } else { unkeyed_joins() };
        compare(&config, &steps)?;
    }

    /// A join looking up a stream another statement writes from its triggers, listed after it or before.
    #[test]
    fn joins_reading_a_stream_written_elsewhere_agree_with_the_reference(
        steps in steps(join_event()),
        writer_first in any::<bool>(),
    ) {
        compare(&written_elsewhere(writer_first), &steps)?;
    }

    #[test]
    fn named_window_lookups_agree_with_the_reference(steps in steps(join_event()), keyed in any::<bool>()) {
        compare(&window_joins(keyed), &steps)?;
    }

    #[test]
    fn unread_named_windows_agree_with_the_reference(steps in steps(room_event())) {
        compare(&unread_windows(), &steps)?;
    }

    #[test]
    fn named_window_writers_agree_with_the_reference(steps in steps(room_event()), keyed in any::<bool>()) {
        let config = if keyed { windows() } else { windows().replace(r#""INSERT INTO Seen"#, UNKEYED_MERGE) };
        compare(&config, &steps)?;
    }

    /// Patterns that aggregate their matches, grouped and not: the groups' aggregates grow with every match.
    #[test]
    fn aggregating_patterns_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&AGGREGATING_PATTERNS), &steps)?;
    }

    /// `SELECT DISTINCT` over batches, ticks, a remove stream, a group's row at each event and a pattern's matches
    /// ([`DISTINCT`]).
    #[test]
    fn distinct_statements_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&DISTINCT), &steps)?;
    }

    /// Statements reading `prior` ([`PRIORS`]): each event's priors are the events its view posted before it, in
    /// the one order of the stream, whichever worker it arrived on.
    #[test]
    fn prior_statements_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&PRIORS), &steps)?;
    }

    /// Statements reading `prev` and its kin ([`PREVS`]): read off each window as its events arrive, whichever
    /// worker they arrived on.
    #[test]
    fn prev_statements_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&PREVS), &steps)?;
    }

    /// Statements released by counts of events ([`COUNTED`]), on the one worker each runs on.
    #[test]
    fn counted_policies_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&COUNTED), &steps)?;
    }

    /// Externally timed windows ([`EXT_TIMED`]).
    #[test]
    fn externally_timed_windows_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&EXT_TIMED), &steps)?;
    }

    /// Time-length batch windows ([`TIME_LENGTH_BATCH`]).
    #[test]
    fn time_length_batches_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&TIME_LENGTH_BATCH), &steps)?;
    }

    /// Sorted windows ([`SORTED`]).
    #[test]
    fn sorted_windows_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&SORTED), &steps)?;
    }

    /// Time-ordered windows ([`TIME_ORDER`]), over rooms stamped about the clock.
    #[test]
    fn time_ordered_windows_agree_with_the_reference(steps in stamped_steps()) {
        compare(&stamped_room_to_seen(&TIME_ORDER), &steps)?;
    }

    /// `rate` ([`RATES`]), over rooms stamped about the clock.
    #[test]
    fn rates_agree_with_the_reference(steps in stamped_steps()) {
        compare(&stamped_room_to_seen(&RATES), &steps)?;
    }

    /// `current_timestamp()` ([`CLOCKED`], [`CLOCKED_FUSED`]).
    #[test]
    fn clocked_statements_agree_with_the_reference(steps in stamped_steps()) {
        compare(&stamped_room_to_seen(&CLOCKED), &steps)?;
        compare(&stamped_room_to_seen(&CLOCKED_FUSED), &steps)?;
    }

    /// Accumulating time windows ([`TIME_ACCUM`]).
    #[test]
    fn accumulating_windows_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&TIME_ACCUM), &steps)?;
    }

    /// Externally timed batch windows ([`EXT_TIMED_BATCH`]).
    #[test]
    fn externally_timed_batches_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&EXT_TIMED_BATCH), &steps)?;
    }

    /// `SELECT DISTINCT` on two joins, one of them under a policy ([`distinct_joins`]).
    #[test]
    fn distinct_joins_agree_with_the_reference(steps in steps(join_event())) {
        compare(&distinct_joins(), &steps)?;
    }

    /// Patterns that aggregate their matches under each output policy ([`PACED_PATTERNS`]).
    #[test]
    fn aggregating_patterns_under_output_policies_agree_with_the_reference(steps in steps(room_event())) {
        compare(&paced_patterns(), &steps)?;
    }

    /// Patterns under each output policy without aggregates, one waiting with `AFTER`, one whose matches come at its
    /// timers' expiry as well as at events.
    #[test]
    fn rate_limited_patterns_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&rate_limited_patterns()), &steps)?;
    }

    /// An instance's second timer is due before its first: timers fire by due epoch, not in the order set.
    #[test]
    fn timers_due_out_of_the_order_set_agree_with_the_reference(steps in steps(room_event())) {
        let pattern = "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap \
            as flap FROM pattern [every a=Room(temperature > 20) -> (timer:interval(4 sec) or (timer:interval(1 sec) \
            and Room(id=a.id, temperature < 10)))]";
        compare(&room_to_seen(&[pattern]), &steps)?;
    }

    /// A key's instances form runs by the values they pinned, and an event ends the runs whose values it matches,
    /// the oldest or a later one: the start events written down for the queue's instances must last until their
    /// timers fire (`automaton::starts`).
    #[test]
    fn runs_ended_out_of_their_order_agree_with_the_reference(steps in steps(room_event())) {
        let pattern = "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap \
            as flap FROM pattern [every a=Room(temperature > 20) -> (timer:interval(4 sec) and not Room(id=a.id, \
            people < a.people))]";
        compare(&room_to_seen(&[pattern]), &steps)?;
    }

    /// A row found by its text key skips the key test of the merge's condition but not the rest of it; a writer
    /// that sets the key column keeps the whole condition.
    #[test]
    fn keyed_merges_test_the_rest_of_their_condition(steps in steps(room_event()), sets_key in any::<bool>()) {
        let mut config = windows().replace("WHERE w.id = r.id WHEN", "WHERE w.people > 2 AND r.id = w.id WHEN");
        if sets_key {
            config = config.replace("SET people = Cool.people * 2", "SET people = Cool.people * 2, id = Cool.id");
        }
        compare(&config, &steps)?;
    }
}

proptest! {
    // Their timers make an epoch every second or so (and `FIRST_LAST` has 16 statements): fewer cases than the others,
    // for the time they take.
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// `first` and `last` ([`FIRST_LAST`]).
    #[test]
    fn first_and_last_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&FIRST_LAST), &steps)?;
    }

    /// `nth` ([`NTHS`]).
    #[test]
    fn nth_agrees_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&NTHS), &steps)?;
    }

    /// The "ever" aggregates ([`EVERS`]).
    #[test]
    fn ever_aggregates_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&EVERS), &steps)?;
    }

    /// The "ever" aggregates per group ([`GROUPED_EVERS`]).
    #[test]
    fn grouped_ever_aggregates_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&GROUPED_EVERS), &steps)?;
    }

    /// `OUTPUT AFTER n EVENTS` ([`AFTER_ROWS`]).
    #[test]
    fn counts_of_rows_after_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&AFTER_ROWS), &steps)?;
    }

    /// `HAVING` without aggregates ([`HAVING_ROWS`]).
    #[test]
    fn having_alone_agrees_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&HAVING_ROWS), &steps)?;
    }

    #[test]
    fn patterns_started_with_their_statement_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&STARTED_PATTERNS), &steps)?;
    }

    #[test]
    fn patterns_turning_false_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&TURNING_PATTERNS), &steps)?;
    }

    #[test]
    fn random_patterns_with_nots_anywhere_agree_with_the_reference(
        (keyed, loose) in (pattern_part(true), pattern_part(false)),
        steps in steps(room_event()),
    ) {
        let statements = [
            format!("INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as \
                flap FROM pattern [every a=Room(temperature > 30) -> {keyed}]"),
            format!("INSERT INTO Seen SELECT 'p' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern \
                [{loose}]"),
        ];
        compare(&room_to_seen(&statements.each_ref().map(String::as_str)), &steps)?;
    }
}
