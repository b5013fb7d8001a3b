//! The thread's CPU clock and the timing loop, shared by the benchmark examples and the ozz-animation-rs peer
//! (peers/ozz includes this file), so that both sides of a paired row are measured by the same code.

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

/// Times `f`: one warm-up batch, then `batches` batches of `iters` calls; prints
/// "BENCH name median_ns min_ns" (per call). `BENCH_ONLY=name` runs only that row (for profiling one operation).
pub fn bench(name: &str, batches: usize, iters: usize, mut f: impl FnMut()) {
    if std::env::var("BENCH_ONLY").is_ok_and(|only| only != name) {
        return;
    }
    for _ in 0..iters {
        f();
    }
    let mut ns: Vec<f64> = (0..batches)
        .map(|_| {
            let t0 = thread_cpu_ns();
            for _ in 0..iters {
                f();
            }
            (thread_cpu_ns() - t0) / iters as f64
        })
        .collect();
    ns.sort_by(f64::total_cmp);
    println!(
        "BENCH {name:<40} {:>10.1} {:>10.1}",
        ns[ns.len() / 2],
        ns[0]
    );
}
