#!/usr/bin/env bash
# Paired runtime benchmark: our runtime against ozz-animation-rs 0.11 (crates.io: ozz-animation's runtime
# rewritten in Rust), in the same run, on the same Quaternius rig.
#
#   scripts/bench-vs-ozz.sh [ROUNDS] [BATCHES] [ITERS]      (defaults 5, 200, 1000)
#
# Builds examples/runtime_bench.rs (release) and the peer (scripts/ozz-peer.sh: peers/ozz, its own target folder),
# has runtime_bench write the rig's skeleton and the four clips as ozz archives (examples/support/ozz_archive.rs:
# the same keys our runtime compiles), then runs ours and the peer interleaved for ROUNDS rounds. Both time with
# CLOCK_THREAD_CPUTIME_ID. Per operation it prints the peer's and our median ns over the rounds and the median of
# the per-round ratios ours/ozz (each round's ratio of medians), then each clip's bytes in memory on both sides
# (the peer's as ozz's Animation::size() counts them), then the load. Our extra rows (the full stack, the layer
# stack, and the state-machine rows) have no ozz counterpart.
set -euo pipefail

rounds=${1:-5}
batches=${2:-200}
iters=${3:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

rig="$root/assets/quaternius_ual/AnimationLibrary_Godot_Standard.gltf"

echo "== building the peer (ozz-animation-rs)" >&2
ozz_bin=$(scripts/ozz-peer.sh)
echo "== building examples/runtime_bench.rs (release)" >&2
cargo build --release --quiet --example runtime_bench >&2
ours_bin=target/release/examples/runtime_bench
data=target/ozz-peer/data
"$ours_bin" --write-ozz "$rig" "$data"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$rounds"); do
    echo "== round $r/$rounds" >&2
    "$ours_bin" "$rig" "$batches" "$iters" > "$out/ours.$r"
    "$ozz_bin" bench "$data" "$batches" "$iters" > "$out/ozz.$r"
done

python3 - "$out" "$rounds" <<'EOF'
import statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])

def read(path):
    rows = {}
    for line in open(path):
        if line.startswith("BENCH "):
            parts = line.split()
            rows[" ".join(parts[1:-2])] = float(parts[-2])
    return rows

ours = [read(f"{out}/ours.{r}") for r in range(1, rounds + 1)]
ozz = [read(f"{out}/ozz.{r}") for r in range(1, rounds + 1)]
names = list(ours[0])
print(f"| operation | ozz ns | ours ns | ours/ozz (median of {rounds} rounds) |")
print("|---|---|---|---|")
for name in names:
    a = statistics.median(o[name] for o in ours)
    if name in ozz[0]:
        b = statistics.median(z[name] for z in ozz)
        ratio = statistics.median(o[name] / z[name] for o, z in zip(ours, ozz))
        print(f"| {name} | {b:.0f} | {a:.0f} | {ratio:.2f} |")
    else:
        print(f"| {name} | – | {a:.0f} | – |")

def memory(path):
    return {l.split()[1]: int(l.split()[2]) for l in open(path) if l.startswith("MEMORY ")}

ours_mem, ozz_mem = memory(f"{out}/ours.1"), memory(f"{out}/ozz.1")
print()
print("| compiled clip | ozz bytes in memory (same keys, ozz layout) | ours | ours/ozz |")
print("|---|---|---|---|")
for clip, b in ozz_mem.items():
    a = ours_mem.get(clip, 0)
    print(f"| {clip} | {b} | {a} | {a / b:.2f} |")
EOF
echo
echo "load: $(uptime)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
