#!/usr/bin/env bash
# Soak test: the real editor under Xvfb cycles load model -> play -> blend -> layers -> export for SECONDS
# (default 240) while sampling its resident memory; prints the summary line (figure in BENCHMARKS.md) and leaves
# the samples in target/soak.csv. Needs xvfb-run (apt-get install xvfb xauth) and lavapipe or a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-240}"
assets=assets
cargo build --release --locked --bin animtune
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
xvfb-run -a -s "-screen 0 1280x800x24" target/release/animtune "$assets/RobotExpressive.glb" \
  --soak "$seconds" --soak-out target/soak.csv
