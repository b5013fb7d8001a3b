#!/usr/bin/env bash
# Coverage-guided fuzzing with cargo-fuzz (libFuzzer): every target for SECONDS each (default 600).
# Needs `cargo install cargo-fuzz`. cargo-fuzz passes unstable compiler flags; RUSTC_BOOTSTRAP=1 lets this stable
# toolchain accept them. No sanitizer (the code under test is safe Rust); -rss_limit_mb bounds memory, -timeout
# bounds one input. Seeds: fuzz/corpus/TARGET (kept in git, replayed by tests/headless/fuzz_corpus.rs). What libFuzzer adds
# goes to target/libfuzzer-corpus/TARGET (not committed), crashes to fuzz/artifacts/TARGET/.
# FUZZ_ARGS adds libFuzzer flags (e.g. FUZZ_ARGS=-max_len=16384). Exit 1 when any target had a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
targets="${FUZZ_TARGETS:-animclip unity preset gltf blend_path render_setup heatmap fbx machine vrm}"
export RUSTC_BOOTSTRAP=1
cargo fuzz build -s none -O
status=0
for t in $targets; do
  mkdir -p "target/libfuzzer-corpus/$t"
  cargo fuzz run -s none -O "$t" "target/libfuzzer-corpus/$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -timeout=2 -rss_limit_mb=1024 -print_final_stats=1 ${FUZZ_ARGS:-} || status=1
done
exit $status
