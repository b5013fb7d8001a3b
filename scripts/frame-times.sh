#!/usr/bin/env bash
# Frame times of the real editor window in software rendering: opens MODEL (default: the built-in mannequin on
# its blend space) at WxH (default 1280x800) under Xvfb, plays 10 s as opened, 10 s with onion skin and 10 s with the
# curves and skate map panes open, and
# prints the figures; the last line is `median frame ms: N` (as opened). Needs xvfb-run (apt-get install xvfb
# xauth) and lavapipe (mesa-vulkan-drivers) or a GPU. Figures in BENCHMARKS.md, "Editor frame times".
set -euo pipefail
cd "$(dirname "$0")/.."
model="${1:-}"
size="${2:-1280x800}"
seconds="${FRAME_SECONDS:-10}"
cargo build --release --locked --bin animtune >&2
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
args=(--frame-times "$seconds" --window-size "$size")
if [[ -n "$model" ]]; then args=("$model" "${args[@]}"); fi
# The X screen is larger than the window so that nothing clamps it.
xvfb-run -a -s "-screen 0 2560x1600x24" target/release/animtune "${args[@]}"
