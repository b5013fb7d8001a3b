#!/usr/bin/env bash
# Bounded fuzzing run: every target for SECONDS each (default 60), release build of examples/fuzz.rs.
# New corpus entries land in fuzz/corpus/TARGET/, findings in fuzz/crashers/TARGET/ (both replayed by
# tests/headless/fuzz_corpus.rs). Exit 1 when any target had a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
targets="${FUZZ_TARGETS:-animclip unity preset gltf blend_path render_setup heatmap fbx}"
cargo build --release --locked --no-default-features --example fuzz
status=0
for t in $targets; do
  target/release/examples/fuzz "$t" "$seconds" "${FUZZ_SEED:-1}" || status=1
done
exit $status
