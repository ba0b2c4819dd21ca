//! Asking the processor to bring a value's cache lines closer before it
//! is read: a hint, which changes no result, only when the memory arrives.
//!
//! In a cell of thousands of stations a station's state is rarely in the
//! nearest caches. Where the simulator knows which stations it is about
//! to serve (the members of the bystander group due at a wake-up), it
//! asks for all their lines at once, so that their misses overlap instead
//! of following one another as the code reaches each field.

/// The size of a cache line on x86-64, the one architecture whose
/// prefetch instruction is wired here.
const LINE: usize = 64;

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
