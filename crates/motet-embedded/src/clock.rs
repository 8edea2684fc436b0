//! The physical clock: SysTick counting processor cycles, extended to 64 bits.
//!
//! SysTick is a 24-bit down-counter. It runs from the processor clock with the largest reload,
//! and its exception counts the wraps. A reading combines the wrap count and the counter inside
//! a critical section; a wrap that happened but whose exception has not run yet (it is masked
//! there) shows as SysTick's pending bit, and is counted by re-reading the counter, which then
//! holds a value from after the wrap. Readings are therefore monotonic, and valid from thread
//! mode and from any interrupt handler.

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::{SCB, SYST};
use cortex_m_rt::exception;

/// SysTick's reload: the full 24 bits, so a wrap is every 2^24 cycles.
const RELOAD: u32 = 0x00FF_FFFF;

/// Wraps of SysTick counted so far. Written only by the SysTick exception and read inside
/// critical sections (with the exception masked), so `Relaxed` suffices on one core.
static WRAPS: AtomicU32 = AtomicU32::new(0);

/// Starts the clock (call once, at startup, before anything reads it).
pub fn start(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(RELOAD);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
    // The counter reads 0 until its first tick loads the reload value; a reading then would be
    // one wrap ahead of the next.
    while SYST::get_current() == 0 {}
}

/// Processor cycles since [`start`], read in place (inlined: for measurements, where the
/// reading should come as early as possible).
#[inline]
pub fn now_cycles() -> u64 {
    read_here().0
}

/// [`read_here`], called rather than inlined: the board and the reactor core read the clock in
/// many places, and one shared copy keeps the image small for the price of a call per reading
/// (the trade is measured in docs/measurements/2026-11-29-embedded.md).
#[inline(never)]
fn read() -> (u64, u32) {
    read_here()
}

/// Processor cycles since [`start`], and the counter value they were computed from.
#[inline(always)]
fn read_here() -> (u64, u32) {
    critical_section::with(|_| {
        let mut wraps = u64::from(WRAPS.load(Relaxed));
        let mut current = SYST::get_current();
        if SCB::is_pendst_pending() {
            // A wrap not yet counted: read again, now certainly after it.
            wraps += 1;
            current = SYST::get_current();
        }
        ((wraps << 24) + u64::from(RELOAD - current), current)
    })
}

/// Returns when [`now_ns`] has reached `deadline`, within a few cycles of it.
///
/// The last stretch is spent reading SysTick's counter alone (one load and one comparison a
/// turn) against the value it will hold at `deadline`, when that value lies ahead in the current
/// wrap with room to spare; otherwise, and before that, it reads the whole clock.
#[inline]
pub fn spin_until_ns(deadline: u64) {
    /// Counter values this close to a wrap are not waited for on the counter alone: a turn of
    /// the loop could miss them and then wait for the next wrap.
    const MARGIN: u32 = 64;
    loop {
        let (now, current) = read();
        let now = now * crate::NS_PER_CYCLE;
        if now >= deadline {
            return;
        }
        // Cycles left, rounded up; in 32 bits, which the processor divides without a library
        // routine (a longer wait is cut, and the loop goes round again).
        let left = u32::try_from(deadline - now)
            .unwrap_or(u32::MAX)
            .div_ceil(crate::NS_PER_CYCLE as u32);
        // The counter counts down one a cycle, so it holds `current - left` when `left` cycles
        // have passed.
        if left < current.saturating_sub(MARGIN) {
            let at = current - left;
            while SYST::get_current() > at {}
            return;
        }
    }
}

/// Nanoseconds since [`start`] (the clock the reactor core reads).
#[inline]
pub fn now_ns() -> u64 {
    read().0 * crate::NS_PER_CYCLE
}

#[exception]
fn SysTick() {
    WRAPS.fetch_add(1, Relaxed);
}
