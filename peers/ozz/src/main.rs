//! The ozz-animation-rs side of animtune's paired checks.
//!
//!   ozz-peer ik                          IK cases on standard input (ik.rs)
//!   ozz-peer bench DIR [batches] [iters] timing rows on ozz archives in DIR (bench.rs)
//!   ozz-peer sample DIR CLIP RATIO...    local transforms of CLIP at each ratio (bench.rs)

mod bench;
mod ik;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ik") => ik::run(),
        Some("bench") if args.len() >= 2 => bench::run(&args[1..]),
        Some("sample") if args.len() >= 4 => bench::sample_locals(&args[1..]),
        _ => Err("usage: ozz-peer ik | ozz-peer bench DIR [batches] [iters] | ozz-peer sample DIR CLIP RATIO...".to_string()),
    };
    if let Err(e) = result {
        eprintln!("ozz-peer: {e}");
        std::process::exit(1);
    }
}
