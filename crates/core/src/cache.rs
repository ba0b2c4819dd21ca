//! Asking the processor to bring a value's cache lines closer before it
//! is read: a hint, which changes no result, only when the memory arrives.
//!
//! In a cell of thousands of stations a station's state is rarely in the
//! nearest caches. Where the simulator knows which stations it is about
//! to serve (the members of the bystander group due at a wake-up), it
//! asks for all their lines at once, so that their misses overlap instead
//! of following one another as the code reaches each field; only where
//! the stations' state is well beyond the second-level cache, whose size
//! the processor reports ([`beyond_l2`]): below, the lines mostly hit and
//! the requests only cost.

/// The size of a cache line on x86-64, the one architecture whose
/// prefetch instruction is wired here.
const LINE: usize = 64;

/// One core's second-level cache where the processor does not say: the
/// 2 MiB of the Intel Xeon in docs/performance.md ("Dense cells").
const L2_UNKNOWN: usize = 2 << 20;

/// One core's second-level cache in bytes, as the processor reports it,
/// or `None` where it does not (another architecture; a hypervisor that
/// hides the leaf). x86-64: CPUID leaf 8000_0006h, ECX bits 31-16, the
/// size in KiB (AMD64 Architecture Programmer's Manual vol. 3, appendix
/// E.4.4; Intel SDM vol. 2A, CPUID), if leaf 8000_0000h's EAX (the
/// largest extended leaf) reaches it. Asked once.
pub fn l2_bytes() -> Option<usize> {
    static L2: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *L2.get_or_init(ask_l2)
}

#[cfg(target_arch = "x86_64")]
fn ask_l2() -> Option<usize> {
    use std::arch::x86_64::__cpuid;
    // SAFETY: CPUID is part of the x86-64 baseline and only reads
    // identification registers (newer compilers call it safe).
    #[allow(unused_unsafe)]
    let (max, ecx) = unsafe { (__cpuid(0x8000_0000).eax, __cpuid(0x8000_0006).ecx) };
    let kib = if max >= 0x8000_0006 { ecx >> 16 } else { 0 };
    (kib > 0).then_some(kib as usize * 1024)
}

#[cfg(not(target_arch = "x86_64"))]
fn ask_l2() -> Option<usize> {
    None
}

/// Whether `n` items of `bytes` each fill at least twice one core's
/// second-level cache ([`l2_bytes`], else 2 MiB): past that, an item
/// about to be used is mostly not in it, and asking for its lines ahead
/// ([`prefetch`]) saves more than the requests cost; below, they mostly
/// hit and asking only costs (the measurements on three processors are in
/// docs/performance.md, "Dense cells").
pub fn beyond_l2(n: usize, bytes: usize) -> bool {
    beyond(n, bytes, l2_bytes().unwrap_or(L2_UNKNOWN))
}

/// [`beyond_l2`] with a second-level cache of `l2` bytes.
fn beyond(n: usize, bytes: usize, l2: usize) -> bool {
    n.saturating_mul(bytes) >= 2 * l2
}

/// Bring every cache line of `x` towards the first-level data cache.
/// A no-op on processors without a prefetch instruction wired here.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    let bytes = std::mem::size_of::<T>();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (x as *const T).cast::<i8>();
        for at in line_offsets(p as usize, bytes) {
            // SAFETY: SSE is part of the x86-64 baseline, and a prefetch
            // neither faults nor reads memory the program sees, whatever
            // the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_offset(at)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (x, bytes);
}

/// Offsets from `addr`, one in each [`LINE`] that the bytes `addr ..
/// addr + bytes` touch, in address order (none for no bytes).
#[inline(always)]
fn line_offsets(addr: usize, bytes: usize) -> impl Iterator<Item = isize> {
    let first = -((addr % LINE) as isize);
    let end = if bytes == 0 { first } else { bytes as isize };
    (first..end).step_by(LINE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_offset_in_each_line_the_bytes_touch() {
        for addr in 1_000..1_000 + 2 * LINE {
            for bytes in 0..5 * LINE {
                let lines: Vec<usize> =
                    line_offsets(addr, bytes).map(|o| (addr as isize + o) as usize / LINE).collect();
                let want: Vec<usize> =
                    if bytes == 0 { vec![] } else { (addr / LINE..=(addr + bytes - 1) / LINE).collect() };
                assert_eq!(lines, want, "addr {addr}, {bytes} bytes");
            }
        }
    }

    #[test]
    fn a_reported_second_level_cache_is_a_plausible_size() {
        // (x86-64 processors report between 256 KiB and 4 MiB per core;
        // a hypervisor may hide it, and other architectures do not say)
        if let Some(l2) = l2_bytes() {
            assert!((64 << 10..=64 << 20).contains(&l2), "{l2} bytes");
        }
        assert_eq!(beyond_l2(1, 4 << 20), beyond(1, 4 << 20, l2_bytes().unwrap_or(L2_UNKNOWN)));
    }

    #[test]
    fn asking_starts_at_twice_the_second_level_cache() {
        // A DCF station's state is 360 bytes: the thresholds that
        // docs/performance.md ("Dense cells") gives for 2 MiB, 1 MiB and
        // 512 KiB per core.
        for (l2, from) in [(2 << 20, 11_651), (1 << 20, 5_826), (512 << 10, 2_913)] {
            assert!(!beyond(from - 1, 360, l2) && beyond(from, 360, l2), "{l2} bytes");
        }
        assert!(!beyond(0, 1 << 30, 1 << 20));
        assert!(beyond(usize::MAX, 2, 1 << 20), "no overflow");
    }

    #[test]
    fn prefetch_of_any_value_reads_nothing() {
        #[repr(align(64))]
        struct Wide([u8; 448]);
        let w = Wide([7; 448]);
        prefetch(&w);
        prefetch(&w.0[3]);
        prefetch(&());
        assert_eq!(w.0[447], 7);
    }
}
