//! A thread running the newest job submitted to it, for the analyses the editor must not wait on (the skate
//! meter and map, the panels' analyses): a newer job marks the one under way stale, which stops at its next
//! progress call; only the newest job's result is handed back; the job reports its progress.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// What a worker shares with the UI thread: the newest job, the last result, the job under way and its progress.
struct Shared<J, R> {
    slot: Mutex<Slot<J, R>>,
    wake: Condvar,
    /// The id of the newest job submitted: a job with another id is stale and stops at its next progress call.
    newest: AtomicU64,
    /// The running job's progress in [0, 1], as f32 bits.
    progress: AtomicU32,
}

struct Slot<J, R> {
    job: Option<(u64, J)>,
    done: Option<(u64, R)>,
    quit: bool,
}

/// A thread running the newest job submitted to it, with cancellation and progress.
pub(crate) struct Worker<J, R> {
    shared: Arc<Shared<J, R>>,
    next: u64,
    thread: Option<JoinHandle<()>>,
}

impl<J: Send + 'static, R: Send + 'static> Worker<J, R> {
    /// Starts the thread; `work` runs each job with a progress callback that returns false once the job is stale.
    pub(crate) fn spawn(
        name: &str,
        mut work: impl FnMut(J, &dyn Fn(f32) -> bool) -> R + Send + 'static,
    ) -> Self {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot {
                job: None,
                done: None,
                quit: false,
            }),
            wake: Condvar::new(),
            newest: AtomicU64::new(0),
            progress: AtomicU32::new(0),
        });
        let inner = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                loop {
                    let (id, job) = {
                        let Ok(mut slot) = inner.slot.lock() else {
                            return;
                        };
                        loop {
                            if slot.quit {
                                return;
                            }
                            if let Some(job) = slot.job.take() {
                                break job;
                            }
                            slot = match inner.wake.wait(slot) {
                                Ok(s) => s,
                                Err(_) => return,
                            };
                        }
                    };
                    inner.progress.store(0f32.to_bits(), Ordering::Relaxed);
                    let progress = |f: f32| {
                        inner.progress.store(f.to_bits(), Ordering::Relaxed);
                        inner.newest.load(Ordering::Relaxed) == id
                    };
                    let result = work(job, &progress);
                    if inner.newest.load(Ordering::Relaxed) == id
                        && let Ok(mut slot) = inner.slot.lock()
                    {
                        slot.done = Some((id, result));
                    }
                }
            })
            .ok();
        Worker {
            shared,
            next: 0,
            thread,
        }
    }

    /// Queues `job` in place of any waiting one and marks the running one stale; returns its id.
    pub(crate) fn submit(&mut self, job: J) -> u64 {
        self.next += 1;
        self.shared.newest.store(self.next, Ordering::Relaxed);
        if let Ok(mut slot) = self.shared.slot.lock() {
            slot.job = Some((self.next, job));
            slot.done = None;
        }
        self.shared.wake.notify_one();
        self.next
    }

    /// The newest job's result, once (None while it runs).
    pub(crate) fn take(&self) -> Option<R> {
        let mut slot = self.shared.slot.lock().ok()?;
        match slot.done.take() {
            Some((id, r)) if id == self.next => Some(r),
            _ => None,
        }
    }

    /// The running job's progress in [0, 1].
    pub(crate) fn progress(&self) -> f32 {
        f32::from_bits(self.shared.progress.load(Ordering::Relaxed))
    }
}

impl<J, R> Drop for Worker<J, R> {
    fn drop(&mut self) {
        self.shared.newest.store(u64::MAX, Ordering::Relaxed);
        if let Ok(mut slot) = self.shared.slot.lock() {
            slot.quit = true;
        }
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl<J: Send + 'static, R: Send + 'static> Worker<J, R> {
    /// Marks the running job stale without queueing another.
    pub(crate) fn cancel(&mut self) {
        self.next += 1;
        self.shared.newest.store(self.next, Ordering::Relaxed);
        if let Ok(mut slot) = self.shared.slot.lock() {
            slot.job = None;
            slot.done = None;
        }
    }
}
