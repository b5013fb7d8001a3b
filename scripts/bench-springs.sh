#!/usr/bin/env bash
# Paired spring-bone benchmark: one update of every spring of a VRM with a VRM Animation playing at 60 fps, ours
# (examples/spring_bench.rs, release) against three-vrm 3.5.5 in node (scripts/springs_bench_threevrm.mjs), run
# alternately for ROUNDS rounds on the same files; prints each side's median ns per update and their ratio.
# Usage: scripts/bench-springs.sh [ROUNDS]   (needs the node tools of scripts/test.sh in target/node-tools)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
cargo build --release --example spring_bench >/dev/null 2>&1
root=$PWD
clip=$root/assets/three-vrm_test.vrma
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
printf '| character | spring joints | three-vrm ns | ours ns | ours/three-vrm |\n|---|---|---|---|---|\n'
for model in assets/vrm/secondary_test.vrm assets/Godette_vrm_v4.vrm; do
  ours=() theirs=() joints=0
  for _ in $(seq "$rounds"); do
    read -r _ joints ns < <(target/release/examples/spring_bench "$model" "$clip")
    ours+=("$ns")
    read -r _ _ ns < <(cd target/node-tools && node ../../scripts/springs_bench_threevrm.mjs "$root/$model" "$clip")
    theirs+=("$ns")
  done
  o=$(printf '%s\n' "${ours[@]}" | median)
  t=$(printf '%s\n' "${theirs[@]}" | median)
  printf '| %s | %s | %s | %s | %.2f |\n' "$(basename "$model")" "$joints" "$t" "$o" "$(echo "$o / $t" | bc -l)"
done
