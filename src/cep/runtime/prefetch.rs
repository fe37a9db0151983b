//! Hints that start loading memory a statement will read soon, so that its cache misses overlap with other work
//! instead of stalling it: a pattern's per-key state, cold since the key's last event, is asked for a few records
//! before its event is handled (`Logic::find` in `cep::dataflow::operator`), and so are the lines of the event's row,
//! written by the thread that made it. A hint changes nothing the program does; on targets other than x86_64 it is
//! nothing.

/// Starts loading the cache line that holds `value` into every cache level.
#[inline(always)]
pub fn load<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(value);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
