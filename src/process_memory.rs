//! How the process asks the system for memory: on Linux with glibc, two heaps (the main
//! thread's, and one the worker threads share) that grow in large steps and are advised as
//! transparent huge pages, so a short request is not spent in page faults.
//!
//! A `candor call` touches tens of megabytes once (the index, the files it reads, their trees)
//! and exits. With the system's defaults each 4 KiB page of that is a fault of its own (about
//! 3 µs on the machines we measure on: a third of a warm request); in a heap advised as huge
//! pages a fault maps 2 MiB. One heap for every thread would serialise the parses that run on
//! every core, so the workers get a heap of their own, made and advised here, before any other
//! thread exists. Advice only: a system without transparent huge pages, or with them off, or a
//! glibc laid out otherwise, allocates as before. `CANDOR_HUGE_PAGES=0` leaves the allocator
//! as the system set it.

/// Sets the allocator up as the module says. Call it first in `main`, before any other thread
/// starts; calling it again does nothing more.
pub fn prefer_huge_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::prefer_huge_pages();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc {
    use std::sync::Once;

    /// How much a heap grows by beyond what is asked of it: below glibc's largest thread heap
    /// (64 MiB), so a thread heap is made this large at once.
    const HEAP_STEP: usize = 32 << 20;
    /// glibc's thread heaps are this large and aligned to it (`HEAP_MAX_SIZE` on 64-bit).
    const THREAD_HEAP: usize = 64 << 20;
    /// A huge page (x86-64, and aarch64 with 4 KiB pages).
    const HUGE_PAGE: usize = 2 << 20;

    pub fn prefer_huge_pages() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            if std::env::var("CANDOR_HUGE_PAGES").is_ok_and(|v| v.trim() == "0") {
                return;
            }
            // SAFETY: mallopt only sets the allocator's parameters.
            unsafe {
                libc::mallopt(libc::M_TOP_PAD, HEAP_STEP as i32);
                libc::mallopt(libc::M_TRIM_THRESHOLD, (4 * HEAP_STEP) as i32);
                libc::mallopt(libc::M_MMAP_THRESHOLD, HEAP_STEP as i32);
            }
            // The main heap: the break's area from the first block that makes it grow.
            advise_heap_of_a_block(|start| {
                // SAFETY: sbrk(0) only reads where the break is.
                let top = unsafe { libc::sbrk(0) } as usize;
                top.checked_sub(start).map(|len| (start, len))
            });
            // The workers' heap: a new thread's first block makes glibc's second arena, whose
            // heap is the aligned `THREAD_HEAP` around it. The thread then ends, and the next
            // thread started is given that arena; with two arenas at most, every later thread
            // shares one of the two advised heaps.
            // A thread that cannot be started (a limit on threads) leaves the arenas as they are.
            let made = std::thread::Builder::new().spawn(|| {
                advise_heap_of_a_block(|start| {
                    let base = start / THREAD_HEAP * THREAD_HEAP;
                    Some((start, base + THREAD_HEAP - start))
                })
            });
            if made.is_ok_and(|thread| thread.join().is_ok()) {
                // SAFETY: as above.
                unsafe { libc::mallopt(libc::M_ARENA_MAX, 2) };
            }
        });
    }

    /// Allocates a block larger than a heap has left (so the heap grows by the step), and
    /// advises as huge pages the range `heap` gives from the first huge-page boundary in the
    /// block: (start, length).
    fn advise_heap_of_a_block(heap: impl Fn(usize) -> Option<(usize, usize)>) {
        // SAFETY: malloc and free are used as documented; madvise gives advice on pages of a
        // heap the allocator owns and changes no byte of them (it fails harmlessly on a range
        // that is not mapped).
        unsafe {
            let block = libc::malloc(HUGE_PAGE);
            if block.is_null() {
                return;
            }
            let start = (block as usize).next_multiple_of(HUGE_PAGE);
            if let Some((start, len)) = heap(start).filter(|(_, len)| *len > 0) {
                libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
            libc::free(block);
        }
    }
}
