//! Work on every core for what runs while the index's lock is held (its refresh and scan): on
//! threads of its own, not rayon's pool. A rayon job may wait for that lock (a search), and a
//! thread that holds it while it waits for rayon's pool would wait for that job forever (a
//! deadlock seen when the scan stated the listing's files on the pool).

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many items a thread takes at a time.
const BATCH: usize = 16;

/// How many cores this process may use, asked once (it reads the cgroup's files each time).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` of each of `items`, in order, computed on as many threads as there are cores (the
/// caller's among them), each taking the next items as it goes.
pub(crate) fn map_on_cores<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = cores();
    let threads = cores.min(items.len().div_ceil(BATCH));
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let start = next.fetch_add(BATCH, Ordering::Relaxed);
            if start >= items.len() {
                return done;
            }
            let end = (start + BATCH).min(items.len());
            done.extend((start..end).map(|at| (at, f(&items[at]))));
        }
    };
    let mut all: Vec<(usize, R)> = std::thread::scope(|s| {
        let others: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mut all = work();
        for other in others {
            match other.join() {
                Ok(done) => all.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    all.sort_unstable_by_key(|(at, _)| *at);
    all.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_item_is_mapped_once_and_in_order() {
        for n in [0, 1, 15, 16, 17, 1000] {
            let items: Vec<usize> = (0..n).collect();
            let calls = AtomicUsize::new(0);
            let out = map_on_cores(&items, |i| {
                calls.fetch_add(1, Ordering::Relaxed);
                i * 2
            });
            assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
            assert_eq!(calls.load(Ordering::Relaxed), n);
        }
    }

    #[test]
    fn it_finishes_while_every_thread_of_rayons_pool_waits_for_a_lock_the_caller_holds() {
        let lock = std::sync::Mutex::new(());
        let held = lock.lock().unwrap();
        let waiting = AtomicUsize::new(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                rayon::broadcast(|_| {
                    waiting.fetch_add(1, Ordering::SeqCst);
                    drop(lock.lock());
                })
            });
            while waiting.load(Ordering::SeqCst) < rayon::current_num_threads() {
                std::thread::yield_now();
            }
            // On rayon's pool this would wait forever.
            let items: Vec<usize> = (0..100).collect();
            let out = map_on_cores(&items, |i| i + 1);
            assert_eq!(out, (1..101).collect::<Vec<_>>());
            drop(held);
        });
    }
}
