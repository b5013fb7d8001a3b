#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit/integration/CLI tests, and the Khronos glTF-Validator on the
# generated mannequin. Installs missing system packages when run as root; otherwise prints the apt command.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: node/npm for the glTF validator; Vulkan (lavapipe), Xvfb and the X libraries winit loads, for the
# renderer and window tests; GNU time for the peak memory of hostile-input runs (tests/malformed.rs).
packages=(time libvulkan1 mesa-vulkan-drivers xvfb xauth xdotool libxkbcommon-x11-0 libxcursor1 libxi6 libxrandr2 libx11-xcb1)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# Node may come from elsewhere than Debian (its own package bundles npm): check the commands, not the packages.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "Missing system packages. Run:"
    echo "  sudo apt-get install -y ${missing[*]}"
    if ! command -v node >/dev/null; then exit 1; fi
  fi
fi

# Test assets (third-party humanoids) must be present: tests fail without them rather than skip.
export ANIMTUNE_TEST_ASSETS="${ANIMTUNE_TEST_ASSETS:-$(pwd)/../shared/assets}"
echo "== test assets: $ANIMTUNE_TEST_ASSETS"

# Mesa's software Vulkan (lavapipe) wants a private runtime directory; without one it only complains.
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
  export XDG_RUNTIME_DIR="$(mktemp -d)"
  chmod 700 "$XDG_RUNTIME_DIR"
fi

echo "== disk: $(df -h . | tail -1 | awk '{print $4}') free"

# No incremental caches: CI builds once from clean, and they cost gigabytes of disk.
export CARGO_INCREMENTAL=0

echo "== cargo fmt --check"
cargo fmt --check

echo "== cargo clippy (default features, then the headless library and its tests)"
cargo clippy --all-targets --locked -- -D warnings
cargo clippy --no-default-features --all-targets --locked -- -D warnings

echo "== the headless library has no GUI stack"
gui=$(cargo tree --no-default-features -e normal --locked --prefix none | grep -E '^(wgpu|egui|eframe|winit|rfd|clap) ' || true)
if [ -n "$gui" ]; then
  echo "the library without default features depends on: $gui" >&2
  exit 1
fi
cargo build --lib --no-default-features --locked

echo "== glTF validator on the generated mannequin and on exports (tuned walk with the model; skeleton only; a textured model)"
tools=target/node-tools
if [ ! -d "$tools/node_modules/gltf-validator" ] || [ ! -d "$tools/node_modules/three" ]; then
  mkdir -p "$tools"
  (cd "$tools" && npm install --silent --no-audit --no-fund --prefix . gltf-validator@2.0.0-dev.3.10 three@0.187.0 \
    >/dev/null)
fi
cargo run --quiet --locked -- mannequin -o target/mannequin.glb --force
cargo run --quiet --locked -- preset default > target/export-preset.json
cargo run --quiet --locked -- bake mannequin --preset target/export-preset.json --look-at 0.8,1.6,1.5 \
  --blend-point 0.3,1.2 --duration 2 --format gltf -o target/export-walk.glb --force
cargo run --quiet --locked -- bake mannequin --preset target/export-preset.json --blend-point 0,3.5 \
  --format gltf --animation-only -o target/export-run-skeleton.glb --force
assets="${ANIMTUNE_TEST_ASSETS:-../shared/assets}"
cargo run --quiet --locked -- bake "$assets/CesiumMan.glb" --format gltf -o target/export-cesium.glb --force
cargo run --quiet --locked -- bake "$assets/fbx/mixamo.fbx" --format gltf --duration 2 -o target/export-fbx.glb \
  --force
(cd "$tools" && node ../../scripts/validate_gltf.mjs ../mannequin.glb ../export-walk.glb \
  ../export-run-skeleton.glb ../export-cesium.glb ../export-fbx.glb)

echo "== three.js replays the exports: its joint poses against animtune's evaluation of the same file"
for t in 0.1 0.55 1.0 1.45 1.9; do
  cargo run --quiet --locked -- pose target/export-walk.glb --clip 0 --time "$t" --json > "target/replay-walk-$t.json"
done
for t in 0.05 0.35 0.65; do
  cargo run --quiet --locked -- pose target/export-run-skeleton.glb --clip 0 --time "$t" --json \
    > "target/replay-run-$t.json"
done
for t in 0.1 0.95 1.9; do
  cargo run --quiet --locked -- pose target/export-fbx.glb --clip 0 --time "$t" --json > "target/replay-fbx-$t.json"
done
(cd "$tools" && node ../../scripts/replay_threejs.mjs ../export-walk.glb ../replay-walk-*.json &&
  node ../../scripts/replay_threejs.mjs ../export-run-skeleton.glb ../replay-run-*.json &&
  node ../../scripts/replay_threejs.mjs ../export-fbx.glb ../replay-fbx-*.json)

echo "== three.js's FBXLoader reads the FBX files: its joint poses against animtune's import, at 3 key times"
assets_abs="$(cd "$assets" && pwd)"
for f in Samba_Dancing mixamo; do
  fbx="$assets_abs/fbx/$f.fbx"
  unit=$(cargo run --quiet --locked -- inspect "$fbx" | sed -n 's/.*units of \([0-9.e-]*\) m.*/\1/p')
  for t in 1.0 5.0 10.0; do
    cargo run --quiet --locked -- pose "$fbx" --clip 0 --time "$t" --json > "target/fbx-$f-$t.json"
  done
  (cd "$tools" && node ../../scripts/fbx_threejs.mjs "$fbx" "$unit" ../fbx-"$f"-*.json)
done

echo "== benchmarks, each run once as a test"
cargo test --bench pose_eval --bench clip_bake --bench frame --bench blend --bench layers --locked

echo "== cargo test: headless (no GUI stack linked)"
cargo test --no-default-features --lib --tests --locked

echo "== cargo test: the library's editor and CLI tests, and every test that declares required features"
feature_tests=()
while read -r name; do feature_tests+=(--test "$name"); done < <(
  awk '/^\[\[test\]\]/ { t = 1; next } t && /^name = / { gsub(/"/, "", $3); print $3; t = 0 }' Cargo.toml)
cargo test --lib --bins "${feature_tests[@]}" --locked
