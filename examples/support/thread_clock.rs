//! The thread's CPU clock, shared by the benchmark examples.

/// Nanoseconds of CPU time this thread has used (`CLOCK_THREAD_CPUTIME_ID`: time the thread ran, not time another
/// process took).
pub fn thread_cpu_ns() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for clock_gettime to write; the clock id is a constant the OS defines.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}
