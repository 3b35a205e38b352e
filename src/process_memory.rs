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
//!
//! A 2 MiB range that already holds a written page when the advice comes is mapped page by
//! page at every later fault (its page table exists). Making and advising the heaps writes two
//! such pages: the workers' heap's own header, and the chunk glibc writes after the block that
//! makes the main heap grow. Those two ranges are collapsed into huge pages at once
//! (`MADV_COLLAPSE`, Linux 6.1; refused harmlessly before; not asked where the system turned
//! huge pages off, which it would override), and the workers' heap is made with a small block,
//! whose neighbours all lie in that first range. Before, the first 4 MiB of each heap faulted
//! page by page: about 1,500 of a warm request's 2,200 faults.

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
            // The main heap: the break's area from the first huge-page boundary in a block
            // that makes it grow by the step.
            // SAFETY: malloc, free and sbrk(0) (which only reads where the break is) are used
            // as documented; `advise` and `collapse` are given ranges of this heap.
            let main_heap = unsafe {
                let block = libc::malloc(HUGE_PAGE) as usize;
                let top = libc::sbrk(0) as usize;
                let start = block.next_multiple_of(HUGE_PAGE);
                if block != 0 && top > start {
                    advise(start, top - start);
                    // The chunk after the block was written before the advice.
                    let written = (block + HUGE_PAGE) / HUGE_PAGE * HUGE_PAGE;
                    if written + HUGE_PAGE <= top {
                        collapse(written);
                    }
                }
                libc::free(block as *mut libc::c_void);
                block..top
            };
            // The workers' heap: a new thread's first block makes glibc's second arena, whose
            // heap is the `THREAD_HEAP` aligned on its size around it, advised whole. The thread
            // then ends, and the next thread started is given that arena; with two arenas at
            // most, every later thread shares one of the two advised heaps.
            // A thread that cannot be started (a limit on threads) leaves the arenas as they are.
            let made = std::thread::Builder::new().spawn(move || {
                // SAFETY: as above; a block that did not come from a new heap (glibc fell back
                // to the main arena) is advised nothing.
                unsafe {
                    let block = libc::malloc(64) as usize;
                    let base = block / THREAD_HEAP * THREAD_HEAP;
                    if block != 0 && !main_heap.contains(&block) {
                        advise(base, THREAD_HEAP);
                        // The heap's header and the arena were written before the advice.
                        collapse(base);
                    }
                    libc::free(block as *mut libc::c_void);
                }
            });
            if made.is_ok_and(|thread| thread.join().is_ok()) {
                // SAFETY: as above.
                unsafe { libc::mallopt(libc::M_ARENA_MAX, 2) };
            }
        });
    }

    /// Advises `len` bytes from `start` (a huge-page boundary) as huge pages.
    ///
    /// # Safety
    /// The range lies in a heap the allocator owns; the advice changes no byte of it (and fails
    /// harmlessly on a part that is not mapped).
    unsafe fn advise(start: usize, len: usize) {
        unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    }

    /// Maps the huge page at `start` (a huge-page boundary) as one, its written pages copied.
    ///
    /// # Safety
    /// As [`advise`]: the contents stay as they are.
    unsafe fn collapse(start: usize) {
        // A collapse on request overrides the system's setting: where huge pages are off, none.
        static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let off = OFF.get_or_init(|| {
            std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
                .map_or(true, |setting| setting.contains("[never]"))
        });
        if !*off {
            unsafe { libc::madvise(start as *mut libc::c_void, HUGE_PAGE, libc::MADV_COLLAPSE) };
        }
    }
}
