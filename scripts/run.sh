#!/usr/bin/env bash
# Builds and opens the editor: `scripts/run.sh [MODEL] [--clips FILE...] [other animtune arguments]`. First installs
# the build's system packages (pkg-config, libudev-dev) and the window's when run as root; otherwise prints the `apt-get` line for what is missing and goes
# on (without a Vulkan driver the window uses OpenGL; without either it says which package to install).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/system-packages.sh
if command -v dpkg >/dev/null 2>&1; then
  ensure_packages "${BUILD_PACKAGES[@]}" || { echo "(the build needs them: gamepads are read through libudev)"; exit 1; }
  ensure_packages "${WINDOW_PACKAGES[@]}" || echo "(going on: the window may not open without them)"
fi
exec cargo run --release --locked -- "$@"
