//! The module's allocator: the standard one (dlmalloc), made to grow wasm memory
//! geometrically.
//!
//! dlmalloc grows linear memory by about what each allocation needs, so filling a store
//! grows it every few pods. In V8 every `memory.grow` counts as new external memory and,
//! once that adds up, starts a full garbage collection of the host's JS heap: with a
//! large JS heap (an operator's informer caches, a benchmark's pods), filling one store
//! past ~30,000 pods cost a millisecond per pod. So whenever an allocation has just grown
//! memory, this allocator takes and releases at once a block of half the memory's new
//! size: the released block stays with dlmalloc as free space, and the next growth comes
//! only after that much more has been allocated (O(log n) growths instead of O(n)), at
//! the cost of up to half the memory again held free. (wasm32 only.)

use std::alloc::{GlobalAlloc, Layout, System};

/// See the module documentation.
pub struct GrowAhead;

fn pages() -> usize {
    core::arch::wasm32::memory_size(0)
}

const PAGE: usize = 64 * 1024;

/// `System.alloc`, not inlined: one copy of dlmalloc's `malloc` serves both callers.
///
/// # Safety
/// As [`GlobalAlloc::alloc`].
#[inline(never)]
unsafe fn system_alloc(layout: Layout) -> *mut u8 {
    // SAFETY: forwarded with the caller's layout.
    unsafe { System.alloc(layout) }
}

/// `System.dealloc`, not inlined (see [`system_alloc`]).
///
/// # Safety
/// As [`GlobalAlloc::dealloc`].
#[inline(never)]
unsafe fn system_dealloc(ptr: *mut u8, layout: Layout) {
    // SAFETY: forwarded with the caller's pointer and layout.
    unsafe { System.dealloc(ptr, layout) }
}

impl GrowAhead {
    /// After an allocation that moved memory from `before` to `after` pages: reserve half
    /// the new size as free space (best effort: a failed reservation changes nothing).
    #[inline(never)]
    fn after_growth(before: usize, after: usize) {
        let size = after / 2 * PAGE;
        if after <= before || size == 0 {
            return;
        }
        let Ok(layout) = Layout::from_size_align(size, 1) else {
            return;
        };
        // SAFETY: `layout` has a non-zero size, and the block is freed with the layout it
        // was allocated with.
        unsafe {
            let block = system_alloc(layout);
            if !block.is_null() {
                system_dealloc(block, layout);
            }
        }
    }
}

// SAFETY: every call is forwarded to `System` with the caller's arguments; the extra
// reservation in `after_growth` allocates and frees its own block.
unsafe impl GlobalAlloc for GrowAhead {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let before = pages();
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { system_alloc(layout) };
        Self::after_growth(before, pages());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let before = pages();
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc_zeroed(layout) };
        Self::after_growth(before, pages());
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let before = pages();
        // SAFETY: forwarded with the caller's pointer, layout and size.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        Self::after_growth(before, pages());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { system_dealloc(ptr, layout) }
    }
}
