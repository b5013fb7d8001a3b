#!/usr/bin/env bash
# Paired runtime benchmark: our runtime against ozz-animation 0.16, in the same run, on the same Quaternius rig.
#
#   scripts/bench-vs-ozz.sh [ROUNDS] [BATCHES] [ITERS]      (defaults 5, 200, 1000)
#
# Builds ../shared/anchors/ozz into target/ozz (once), our copy of its harness (benches/ozz/ozz_bench.cc: the
# thread-CPU clock, and rows sampling Idle, Jog and Sprint) against it, and examples/runtime_bench.rs (release),
# then runs ours and ozz interleaved for ROUNDS rounds. Both time with CLOCK_THREAD_CPUTIME_ID. Per operation it
# prints ozz's and our median ns over the rounds and the median of the per-round ratios ours/ozz (each round's
# ratio of medians), then each compiled clip's bytes in memory on both sides, then the load. Our extra rows (the
# full stack, the layer stack, and issue 41's state-machine rows: its crossfade, its budget measured as one call,
# one state) have no ozz counterpart.
set -euo pipefail

rounds=${1:-5}
batches=${2:-200}
iters=${3:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

shared=${ANIMTUNE_SHARED:-$root/../shared}
rig="$root/assets/quaternius_ual/AnimationLibrary_Godot_Standard.gltf"

if [ ! -x target/ozz/ozz_bench ]; then
    echo "== building ozz-animation into target/ozz (a few minutes)" >&2
    "$shared/anchors/ozz/build.sh" "$root/target/ozz" >&2
fi
ozz_bin=target/ozz/ozz_bench_animtune
if [ ! -x "$ozz_bin" ] || [ benches/ozz/ozz_bench.cc -nt "$ozz_bin" ]; then
    echo "== building benches/ozz/ozz_bench.cc against target/ozz" >&2
    g++ -Wno-ignored-attributes -O3 -DNDEBUG -std=c++17 -Itarget/ozz/src/include benches/ozz/ozz_bench.cc \
        -o "$ozz_bin" target/ozz/build/src/animation/runtime/libozz_animation_r.a \
        target/ozz/build/src/base/libozz_base_r.a
fi
echo "== building examples/runtime_bench.rs (release)" >&2
cargo build --release --quiet --example runtime_bench >&2
ours_bin=target/release/examples/runtime_bench

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$rounds"); do
    echo "== round $r/$rounds" >&2
    "$ours_bin" "$rig" "$batches" "$iters" > "$out/ours.$r"
    "$ozz_bin" target/ozz/data "$batches" "$iters" > "$out/ozz.$r"
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
print("| compiled clip | ozz bytes in memory | ours | ours/ozz |")
print("|---|---|---|---|")
for clip, b in ozz_mem.items():
    a = ours_mem.get(clip, 0)
    print(f"| {clip} | {b} | {a} | {a / b:.2f} |")
EOF
echo
echo "load: $(uptime)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
