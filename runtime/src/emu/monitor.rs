//! The synchronisation primitive of the parallel-warps mode: a value behind a mutex, a
//! condition variable signalled when the value changes, and the bookkeeping that tells when
//! every live thread is blocked on it (a deadlock, found exactly rather than by timeout).
//!
//! The value counts its changes ([`Versioned`]). A thread reads the version, does its work
//! (which may change the value, waking the others), and if it could not proceed blocks until
//! the version moves past what it read. A blocked thread records the version it waits on:
//! when every live thread waits on the current version, nothing can change it any more.
//! Under `cfg(loom)` the mutex and condition variable are loom's, and the tests below
//! model-check the primitive driving an [`MBarrier`](super::MBarrier) with 2 to 4 threads.

#[cfg(all(loom, test))]
use loom::sync::{Condvar, Mutex, MutexGuard};
use std::sync::PoisonError;
#[cfg(not(all(loom, test)))]
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A value that counts its changes.
pub(super) trait Versioned {
    /// Increases whenever the value changes in a way a blocked thread may wait for.
    fn version(&self) -> u64;
}

/// Why [`Monitor::block`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Wake {
    /// The version moved: look again.
    Changed,
    /// The monitor was stopped.
    Stopped,
    /// Every live thread is blocked on the current version: nothing will change it.
    AllBlocked,
    /// The timeout passed without a change.
    TimedOut,
}

struct Inner<T> {
    value: T,
    /// Per thread: whether it is still running (has not finished).
    live: Vec<bool>,
    /// Per thread: the version it is blocked on, while it is.
    blocked: Vec<Option<u64>>,
    stopped: bool,
}

/// A value shared by a fixed set of threads, numbered `0..threads`.
pub(super) struct Monitor<T> {
    inner: Mutex<Inner<T>>,
    changed: Condvar,
}

impl<T: Versioned> Monitor<T> {
    /// `value`, shared by `threads` threads.
    pub fn new(value: T, threads: usize) -> Self {
        let inner = Inner { value, live: vec![true; threads], blocked: vec![None; threads], stopped: false };
        Self { inner: Mutex::new(inner), changed: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<T>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the value, waking the blocked threads if it changed the version.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut inner = self.lock();
        let before = inner.value.version();
        let result = f(&mut inner.value);
        if inner.value.version() != before {
            self.changed.notify_all();
        }
        result
    }

    /// Stops the monitor: every blocked thread, and every later [`Monitor::block`], returns
    /// [`Wake::Stopped`].
    pub fn stop(&self) {
        self.lock().stopped = true;
        self.changed.notify_all();
    }

    /// Thread `thread` is done: it no longer counts among those that could change the value.
    pub fn finish(&self, thread: usize) {
        self.lock().live[thread] = false;
        self.changed.notify_all();
    }

    /// Blocks thread `thread`, which found it could not proceed at version `seen`, until the
    /// version moves, the monitor stops, every live thread is blocked on the current version,
    /// or `timeout` passes without any of these.
    pub fn block(&self, thread: usize, seen: u64, timeout: Option<Duration>) -> Wake {
        let start = Instant::now();
        let mut inner = self.lock();
        loop {
            if inner.stopped {
                return Wake::Stopped;
            }
            let version = inner.value.version();
            if version != seen {
                return Wake::Changed;
            }
            inner.blocked[thread] = Some(version);
            if inner.live.iter().zip(&inner.blocked).all(|(&live, &blocked)| !live || blocked == Some(version)) {
                inner.blocked[thread] = None;
                return Wake::AllBlocked;
            }
            inner = match timeout {
                None => self.changed.wait(inner).unwrap_or_else(PoisonError::into_inner),
                Some(limit) => {
                    let left = limit.saturating_sub(start.elapsed());
                    if left.is_zero() {
                        inner.blocked[thread] = None;
                        return Wake::TimedOut;
                    }
                    self.changed.wait_timeout(inner, left).unwrap_or_else(PoisonError::into_inner).0
                }
            };
            inner.blocked[thread] = None;
        }
    }

    /// The value, once every thread is done with the monitor.
    pub fn into_inner(self) -> T {
        self.inner.into_inner().unwrap_or_else(PoisonError::into_inner).value
    }
}

#[cfg(all(loom, test))]
mod loom_tests {
    //! Run with `RUSTFLAGS="--cfg loom" cargo test -p warpspec --release loom`.

    use loom::sync::Arc;
    use loom::thread;

    use super::super::MBarrier;
    use super::*;

    /// mbarriers with a change counter: the state the parallel-warps mode shares.
    struct Shared {
        bars: Vec<MBarrier>,
        changes: u64,
    }

    impl Versioned for Shared {
        fn version(&self) -> u64 {
            self.changes
        }
    }

    /// Every interleaving with at most three preemptions (loom's bound: unbounded, the 3-
    /// and 4-thread cases run for many minutes).
    fn model(f: impl Fn() + Sync + Send + 'static) {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(3);
        model.check(f);
    }

    /// Thread `thread` waits for the first phase of barrier `bar` the way a parallel warp
    /// does: look, and block until something changes. A deadlock stops the monitor.
    fn wait(monitor: &Monitor<Shared>, thread: usize, bar: usize) -> Wake {
        loop {
            let (passed, seen) = monitor.with(|s| (s.bars[bar].parity_passed(0), s.changes));
            if passed {
                return Wake::Changed;
            }
            match monitor.block(thread, seen, None) {
                Wake::Changed => continue,
                Wake::AllBlocked => {
                    monitor.stop();
                    return Wake::AllBlocked;
                }
                other => return other,
            }
        }
    }

    fn arrive(monitor: &Monitor<Shared>, bar: usize) {
        monitor.with(|s| {
            s.bars[bar].arrive(0);
            s.changes += 1;
        });
    }

    fn shared(bars: usize, count: u32, threads: usize) -> Arc<Monitor<Shared>> {
        Arc::new(Monitor::new(Shared { bars: vec![MBarrier::new(count); bars], changes: 0 }, threads))
    }

    /// `arrivers` threads arrive on a barrier counting `count` arrivals while one waits for
    /// its first phase: it passes when every arrival is made, and is told of the deadlock
    /// (never hangs, never hears of a false one) when one is missing.
    fn arrivals(arrivers: usize, count: u32) {
        model(move || {
            let monitor = shared(1, count, arrivers + 1);
            let handles: Vec<_> = (0..arrivers)
                .map(|t| {
                    let monitor = Arc::clone(&monitor);
                    thread::spawn(move || {
                        arrive(&monitor, 0);
                        monitor.finish(t);
                    })
                })
                .collect();
            let woke = wait(&monitor, arrivers, 0);
            monitor.finish(arrivers);
            for h in handles {
                h.join().unwrap_or_else(|_| panic!("an arriving thread panicked"));
            }
            let completed = monitor.with(|s| s.bars[0].completed_phases());
            if arrivers as u32 >= count {
                assert_eq!((woke, completed), (Wake::Changed, 1), "every arrival made: the waiter passes");
            } else {
                assert_eq!((woke, completed), (Wake::AllBlocked, 0), "an arrival short: a deadlock, not a hang");
            }
        });
    }

    /// `n` threads hand a token round a ring of barriers: thread 0 arrives on barrier 1 and
    /// waits on barrier 0, thread `i` waits on barrier `i` and arrives on barrier `i + 1`
    /// (mod `n`). Several threads block at once, so a thread woken by a change but not yet
    /// running must not count as blocked. With `broken`, the last thread never arrives.
    fn ring(n: usize, broken: bool) {
        model(move || {
            let monitor = shared(n, 1, n);
            let handles: Vec<_> = (1..n)
                .map(|t| {
                    let monitor = Arc::clone(&monitor);
                    thread::spawn(move || {
                        let woke = wait(&monitor, t, t);
                        if woke == Wake::Changed && !(broken && t == n - 1) {
                            arrive(&monitor, (t + 1) % n);
                        }
                        monitor.finish(t);
                        woke
                    })
                })
                .collect();
            arrive(&monitor, 1);
            let mut woke = vec![wait(&monitor, 0, 0)];
            monitor.finish(0);
            woke.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|_| panic!("a thread panicked"))));
            if broken {
                assert_eq!(woke[0], Wake::AllBlocked, "thread 0 waits for an arrival that never comes: {woke:?}");
            } else {
                assert!(woke.iter().all(|&w| w == Wake::Changed), "the token goes round: {woke:?}");
            }
        });
    }

    #[test]
    fn loom_one_arriver_releases_the_waiter() {
        arrivals(1, 1);
    }

    #[test]
    fn loom_three_arrivers_release_the_waiter() {
        arrivals(3, 3);
    }

    #[test]
    fn loom_an_arrival_short_is_a_deadlock_not_a_hang() {
        arrivals(2, 3);
    }

    #[test]
    fn loom_a_token_goes_round_two_threads() {
        ring(2, false);
    }

    #[test]
    fn loom_a_token_goes_round_three_threads() {
        ring(3, false);
    }

    #[test]
    fn loom_a_ring_broken_at_the_last_thread_is_a_deadlock_not_a_hang() {
        ring(3, true);
    }
}
