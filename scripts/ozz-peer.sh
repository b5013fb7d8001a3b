#!/usr/bin/env bash
# Builds peers/ozz (the ozz-animation-rs side of the paired IK test and benchmark) and prints its binary's path.
#
#   scripts/ozz-peer.sh            -> target/ozz-peer/release/ozz-peer
#
# ozz-animation-rs 0.11.0 (crates.io) is written for a nightly compiler: it enables `portable_simd`, and calls
# `Mask::to_int`, which the standard library has since renamed `Mask::to_simd`. This machine has one stable
# toolchain, so the peer is built with RUSTC_BOOTSTRAP=1 (which lets stable accept the feature gate) in its own
# target folder, never animtune's build, from an unpacked copy of the registry's package with that one rename
# made (four call sites), given to cargo as a [patch]. Nothing of ozz-animation-rs is committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
manifest=peers/ozz/Cargo.toml
out=target/ozz-peer
crate=ozz-animation-rs-0.11.0
mkdir -p "$out"

# Two callers at once (the paired tests run in parallel) take turns: the unpacking holds a lock on the folder.
exec 9>"$out/.lock"
flock 9
if [ ! -f "$out/$crate/.renamed" ]; then
    cargo fetch --quiet --manifest-path "$manifest" >&2
    archive=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$crate.crate" | head -1)
    rm -rf "${out:?}/$crate"
    tar xzf "$archive" -C "$out"
    grep -rl 'to_int()' "$out/$crate/src" | xargs sed -i 's/\.to_int()/.to_simd()/g'
    touch "$out/$crate/.renamed"
fi

env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$out" cargo build --quiet --release --manifest-path "$manifest" \
    --config "patch.crates-io.ozz-animation-rs.path=\"$root/$out/$crate\"" >&2
echo "$root/$out/release/ozz-peer"
