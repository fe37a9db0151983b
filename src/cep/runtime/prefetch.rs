//! Hints that start loading memory a statement will read soon, so that its cache misses overlap with other work
//! instead of stalling it: a pattern's per-key state, cold since the key's last event, is asked for a few records
//! before its event is handled (`Logic::find` in `cep::dataflow::operator`), and so are the lines of the event's row,
//! written by the thread that made it; and a row a thread reuses is claimed for writing before it is written
//! ([`claim`]). A hint changes nothing the program does; on targets other than x86_64 it is nothing.
//!
//! [`claim`] is the crate's one `unsafe` block: the write hint, `prefetchw`, is reached only through inline assembly on
//! stable Rust (`_mm_prefetch` with `_MM_HINT_ET0` compiles to the read hint unless the unstable `prfchw` target
//! feature is on).

/// Starts loading the cache line that holds `value` into every cache level.
#[inline(always)]
pub fn load<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(value);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Starts taking the lines of `value` for writing (`prefetchw`), on a processor that has the hint (CPUID
/// 0x8000_0001, ECX bit 8), and loading them otherwise. A line the thread is about to write that another core holds
/// has to be taken from it first; loading it only for reading leaves that for the store, and a thread writing reused
/// rows then waits on its stores: a profile of `bench floor` had 36.6 % of its samples in the producer's writing of
/// reused rows (`Props::fill_sorted`), 85.5 % of those on one store. Claimed sixteen rows ahead, one worker ran the
/// floor at 1.30–1.55 times the events a second in six interleaved pairs (`benches/results/cep.md`, fiftieth
/// session); the geofence, whose worker is its bottleneck, ran no differently.
#[inline(always)]
pub fn claim<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    if *CLAIMS {
        let start = std::ptr::from_ref(value).cast::<u8>();
        let skew = start.addr() % LINE;
        let first = start.wrapping_sub(skew);
        for offset in (0..skew + size_of::<T>()).step_by(LINE) {
            prefetch_w(first.wrapping_add(offset));
        }
        return;
    }
    load(value);
}

/// The size of a cache line on x86_64.
#[cfg(target_arch = "x86_64")]
const LINE: usize = 64;

/// Whether the processor has `prefetchw`.
#[cfg(target_arch = "x86_64")]
static CLAIMS: std::sync::LazyLock<bool> =
    std::sync::LazyLock::new(|| std::arch::x86_64::__cpuid(0x8000_0001).ecx & (1 << 8) != 0);

#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch_w(line: *const u8) {
    // SAFETY: `prefetchw` only hints the cache (it neither reads nor writes memory the program sees, and does not
    // fault on any address), and `claim` runs it only where CPUID reports it.
    unsafe {
        std::arch::asm!("prefetchw [{}]", in(reg) line, options(nostack, preserves_flags, readonly));
    }
}
