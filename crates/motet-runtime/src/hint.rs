//! Hints to the processor, shared by the crates built on the runtime (the behaviour blocks of
//! motet-boc, the process blocks and registry of motet-process): they change no result, only
//! when memory is fetched.

/// Asks the processor to start fetching the cache line that holds `p` into its first-level
/// cache, so that a load from it soon after does not wait for memory.
///
/// `p` need not point to live memory: nothing is read or written as the program sees it, and the
/// hint cannot fault. On targets other than x86-64 it does nothing.
///
/// ```
/// let values = vec![1u64; 1024];
/// motet_runtime::hint::prefetch(values[512..].as_ptr().cast());
/// assert_eq!(values[512], 1);
/// ```
#[inline(always)]
pub fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch instruction neither reads nor writes memory as the program sees it and
    // cannot fault, whatever the address; SSE is part of the x86-64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
