#!/usr/bin/env bash
# Does a change alter any output? Builds the `animtune` binary at REV (default HEAD) and at the working tree, runs
# the same list of `bake` and `pose --json` commands (plus `preset default` and `skate --json`) with each, and
# compares every file they write byte for byte: the baked file, what the command prints on stdout (the pose, or
# the bake report from `--json`) and its stderr with the exit status appended (warnings and notes such as the
# bake's measured error). Prints `same CASE` or one `DIFFERENT FILE` line per differing file, with a hint of
# where (for JSON, and a .glb/.vrma's JSON chunk: the first differing path and value, flattened by jq when it is
# installed, else the first differing lines; for binary data: cmp's first differing byte).
#
# Usage: scripts/compare-outputs.sh [--rebuild] [REV]          REV's binary against the working tree's
#        scripts/compare-outputs.sh [--rebuild] REV NEWREV     REV's binary against NEWREV's (e.g. HEAD~1 HEAD)
#        scripts/compare-outputs.sh [--rebuild] --self [REV]   REV's binary against itself, run twice (is it byte-stable?)
# Exit status: 0 all same; 1 something differs; 2 a case failed with both binaries (the list is broken), or a
# usage or build error.
#
# The cases (the issue's list): the mannequin with the default preset (`preset default`, written by REV's
# binary and given to both) at a blend point in every --format (native, unity, gltf, vrma), and along
# scripts/compare-outputs/blend-path.json; Quaternius with
# assets/presets/quaternius_locomotion.json and Fox with assets/presets/fox_walk_run.json; --clip bakes; --foot-lock
# (mannequin, Quaternius) and --springs (the VRMs, playing a Quaternius clip retargeted by --clip-file);
# --look-at with both solvers; a VRM with expressions (scripts/compare-outputs/face.json: secondary_test.vrm and
# Godette) baked to vrma and posed; the state machine scripts/compare-outputs/machine.json (Idle → Walk → Run on
# Quaternius clips: a float parameter and a trigger, Unity crossfades, inertialization and dead blending) driven
# by scripts/compare-outputs/script.json, baked (native, vrma) and posed at 1.15, 1.6 and 2.5 s (and at 1.9 s at
# 30 fps, the frame of an event); `pose --json` at
# a few times for the mannequin, Quaternius and Fox with their presets, with --springs --foot-lock, and a VRMA clip.
# Every input is taken from the working tree (assets/, scripts/compare-outputs/), so both binaries read the same.
#
# Builds: REV is checked out with `git worktree add --detach target/compare/REV-SHORTSHA` (reused when present)
# and built from there with `cargo build --bin animtune --target-dir "$root/target"` (the registry dependencies
# are shared; only the crate recompiles), debug profile with CARGO_PROFILE_DEV_DEBUG=false (the crate itself at
# debug="line-directives-only" for REV, see "builds" below for why). The binary lands at target/debug/animtune, so it
# is copied at once to target/compare/animtune-REV-SHORTSHA and reused by later runs (a commit does not change;
# --rebuild builds it again), and the working tree's to target/compare/animtune-worktree (the build prints whether
# its crate was up to date). Another `cargo build` in this target dir finishing in the instant between our build
# and the copy would swap the binary. Outputs: target/compare/out-{old,new}/ (cases run in there, so names in the
# outputs are relative), inputs: target/compare/inputs/, cargo's messages: target/compare/build-*.json. Nothing
# outside target/compare/ is written (but cargo's own artefacts in target/debug) or removed. To clean up:
# `git worktree remove target/compare/REV-SHORTSHA`, then remove target/compare/.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
self=0
rebuild=0
while [[ ${1:-} == --* ]]; do
  case $1 in
    --self) self=1 ;;
    --rebuild) rebuild=1 ;;
    *) usage ;;
  esac
  shift
done
if [[ ${1:-} == -h || $# -gt 2 ]] || ((self && $# > 1)); then usage; fi
rev=${1:-HEAD}
rev2=${2:-}

root=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$root"
cmp_dir=$root/target/compare
mkdir -p "$cmp_dir"
export CARGO_PROFILE_DEV_DEBUG=false

# --- builds ----------------------------------------------------------------------------------------------------
# Two cargo pitfalls of one shared target dir, both met by this script's first version (its "working tree" and
# its second REV were "built" in 0.3 s and were the first REV's binary):
# (1) rustc's dep-info lists a source under the target dir relative to the target dir, so once a crate unit was
#     built from target/compare/X/, cargo judges that unit fresh by X's files whichever tree builds it next;
# (2) freshness is by mtime, so two trees that take turns on one unit hand each other their binaries.
# So REV builds give the crate a debug level nobody else uses (line-directives-only: no change to the code,
# a unit of its own, apart from the working tree's debug=false and the line-tables-only of a plain `cargo build`),
# and every file of every checkout under target/compare/ is touched before each build, so a unit that remembers
# one of them is rebuilt. A REV build must then have compiled the crate (checked in cargo's JSON messages).
touch_worktrees() {
  local d
  for d in "$cmp_dir"/*/; do
    if [[ -f $d.git ]]; then find "$d" -path "$d.git" -prune -o -type f -exec touch -c {} +; fi
  done
}
cargo_build() { # DIR LABEL [CARGO ARGS]: builds DIR's animtune with the shared target dir; sets $fresh
  local dir=$1 label=$2
  shift 2
  touch_worktrees
  (cd "$dir" && cargo build --bin animtune --target-dir "$root/target" --message-format=json-render-diagnostics "$@") \
    > "$cmp_dir/build-$label.json" || return 1
  # "fresh":false for the lib and the bin when the crate was compiled now, from DIR.
  fresh=$(grep '"reason":"compiler-artifact"' "$cmp_dir/build-$label.json" | grep -F "\"manifest_path\":\"$dir/Cargo.toml\"" |
    grep -o '"fresh":[a-z]*' | sort -u | tr '\n' ' ' || true)
}
copy_binary() { # DEST: the binary cargo just linked, copied at once (another build may replace it any moment)
  cp "$root/target/debug/animtune" "$1.tmp"
  mv "$1.tmp" "$1"
}

rev_binary() { # REV: builds REV's binary (or reuses it) and sets $bin and $tag
  local rev=$1 sha short wt
  sha=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "compare-outputs: $rev is not a commit" >&2; exit 2; }
  short=$(git rev-parse --short "$sha")
  tag="$(printf '%s' "$rev" | tr -c 'A-Za-z0-9._-' '_')-$short"
  bin=$cmp_dir/animtune-$tag
  if [[ -x $bin && $rebuild == 0 ]]; then
    echo "== reusing target/compare/animtune-$tag, built from $sha (--rebuild to build it again)" >&2
    return
  fi
  wt=$cmp_dir/$tag
  if [[ -f $wt/.git ]]; then
    [[ $(git -C "$wt" rev-parse HEAD) == "$sha" ]] || git -C "$wt" checkout --quiet --detach "$sha"
    echo "== reusing the worktree target/compare/$tag" >&2
  else
    # (--force only where git still lists a removed checkout at that path, never prune: other worktrees are not ours)
    if git worktree list --porcelain | grep -qxF "worktree $wt"; then
      git worktree add --quiet --force --detach "$wt" "$sha"
    else
      git worktree add --quiet --detach "$wt" "$sha"
    fi
  fi
  echo "== building $rev ($short) in target/compare/$tag" >&2
  cargo_build "$wt" "$tag" --config 'profile.dev.package.animtune.debug="line-directives-only"' ||
    { echo "compare-outputs: $rev does not build" >&2; exit 2; }
  copy_binary "$bin"
  if [[ $fresh != '"fresh":false ' ]]; then
    rm -f "$bin"
    echo "compare-outputs: cargo did not compile $rev's crate (JSON: ${fresh:-no artifact from $wt}); see the header" >&2
    exit 2
  fi
}

rev_binary "$rev"
old_bin=$bin
old_name=$tag
if ((self)); then
  new_bin=$old_bin
  new_name="$old_name again"
elif [[ -n $rev2 ]]; then
  rev_binary "$rev2"
  new_bin=$bin
  new_name=$tag
else
  echo "== building the working tree" >&2
  cargo_build "$root" worktree || { echo "compare-outputs: the working tree does not build" >&2; exit 2; }
  new_bin=$cmp_dir/animtune-worktree
  new_name="the working tree"
  copy_binary "$new_bin"
  [[ $fresh == '"fresh":true ' ]] && echo "== (the working tree's crate was up to date)" >&2
fi

# --- inputs ----------------------------------------------------------------------------------------------------
assets=$root/assets
fixtures=$root/scripts/compare-outputs
Q=$assets/quaternius_ual/AnimationLibrary_Godot_Standard.gltf
QL=$assets/presets/quaternius_locomotion.json
FOX=$assets/Fox.glb
FOXP=$assets/presets/fox_walk_run.json
VRM=$assets/vrm/secondary_test.vrm
GODETTE=$assets/Godette_vrm_v4.vrm
VRMA=$assets/three-vrm_test.vrma
FACE=$fixtures/face.json
MACHINE=$fixtures/machine.json
SCRIPT=$fixtures/script.json
BLEND_PATH=$fixtures/blend-path.json
mkdir -p "$cmp_dir/inputs"
DEFAULT=$cmp_dir/inputs/default.json
"$old_bin" preset default > "$DEFAULT"
for p in "$DEFAULT" "$FACE" "$MACHINE" "$QL" "$FOXP"; do
  "$old_bin" preset validate "$p" > /dev/null || { echo "compare-outputs: $old_name's binary refuses $p" >&2; exit 2; }
done

# --- the cases -------------------------------------------------------------------------------------------------
# Each helper runs one command in the output folder with $BIN; NAME is the case and the file it writes.
# bake NAME ARGS: `bake ARGS -o NAME --json`, the report to NAME.report.json. pose NAME ARGS: `pose ARGS --json`
# to NAME. out NAME ARGS: `ARGS` with stdout to NAME. Every case's stderr and exit status go to NAME.stderr.
CASES=()
run() { # NAME STDOUT-FILE ARGS...
  local name=$1 stdout=$2 rc=0
  shift 2
  "$BIN" "$@" > "$stdout" 2> "$name.stderr" || rc=$?
  echo "exit $rc" >> "$name.stderr"
  CASES+=("$name")
}
bake() { local name=$1; shift; run "$name" "$name.report.json" bake "$@" -o "$name" --json; }
pose() { local name=$1; shift; run "$name" "$name" pose "$@" --json; }
out() { local name=$1; shift; run "$name" "$name" "$@"; }

cases() {
  out preset-default.json preset default

  # The mannequin with the default preset at a blend point, in every format.
  local mb=(mannequin --preset "$DEFAULT" --blend-point 0.5,1.2)
  bake mannequin-blend.animclip "${mb[@]}" --format native
  bake mannequin-blend.bytes "${mb[@]}" --format unity
  bake mannequin-blend-gltf-axes.bytes "${mb[@]}" --format unity --unity-axes gltf --sparse
  bake mannequin-blend.glb "${mb[@]}" --format gltf
  bake mannequin-blend.vrma "${mb[@]}" --format vrma
  bake mannequin-blend-24fps.animclip mannequin --preset "$DEFAULT" --blend-point=-0.8,2.5 --duration 2 --fps 24
  bake mannequin-blend-path.animclip mannequin --preset "$DEFAULT" --blend-path "$BLEND_PATH"

  # Quaternius and Fox with their presets (the preset's own point).
  bake quaternius-locomotion.animclip "$Q" --preset "$QL" --format native
  bake quaternius-locomotion.bytes "$Q" --preset "$QL" --format unity
  bake quaternius-locomotion.glb "$Q" --preset "$QL" --format gltf
  bake quaternius-locomotion.vrma "$Q" --preset "$QL" --format vrma
  bake fox-walk-run.animclip "$FOX" --preset "$FOXP" --format native
  bake fox-walk-run.glb "$FOX" --preset "$FOXP" --format gltf --animation-only

  # Clips: plain, with the clip settings, and through the preset's stack.
  bake quaternius-clip.animclip "$Q" --clip Walk_Loop
  bake quaternius-clip-settings.glb "$Q" --clip Jog_Fwd_Loop --crop 0.1,0.6 --cycle-offset 0.25 --loop-pose --mirror --keep-source-keys --format gltf --animation-only
  bake mannequin-clip.bytes mannequin --clip StrafeLeft --format unity
  bake mannequin-preset-clip.glb mannequin --preset "$DEFAULT" --clip WalkForward --format gltf --animation-only

  # Foot lock, springs, look-at.
  bake mannequin-footlock.animclip mannequin --preset "$DEFAULT" --blend-point 0,1.4 --foot-lock
  bake quaternius-footlock.glb "$Q" --preset "$QL" --blend-point 1.4,0 --foot-lock --format gltf --animation-only
  bake vrm-springs.glb "$VRM" --clip-file "$Q" --clip Walk_Loop --springs --preroll 0.5 --format gltf
  bake vrm-springs-footlock.animclip "$VRM" --clip-file "$Q" --clip Jog_Fwd_Loop --springs --foot-lock
  bake godette-springs.glb "$GODETTE" --clip-file "$Q" --clip Walk_Loop --springs --format gltf --animation-only
  bake mannequin-lookat.animclip mannequin --preset "$DEFAULT" --blend-point 0,1 --look-at 0.5,1.6,1.0
  bake mannequin-lookat-unity.bytes mannequin --preset "$DEFAULT" --blend-point 0,1 --look-at=-0.6,1.2,0.8 --look-solver unity-original --format unity

  # A VRM with expressions (the preset's weights), baked to VRM Animation.
  bake vrm-face.vrma "$VRM" --preset "$FACE" --clip-file "$Q" --clip Walk_Loop --format vrma
  bake godette-face.vrma "$GODETTE" --preset "$FACE" --clip-file "$Q" --clip Idle_Loop --look-at 0.4,1.8,1 --format vrma

  # The state machine with its script.
  bake machine.animclip "$Q" --preset "$MACHINE" --script "$SCRIPT" --duration 3
  bake machine.vrma "$Q" --preset "$MACHINE" --script "$SCRIPT" --duration 3 --format vrma

  # Poses.
  local t
  for t in 0.5 1.3 2.0; do pose "pose-mannequin-default-$t.json" mannequin --preset "$DEFAULT" --time "$t"; done
  for t in 0.4 1.7; do pose "pose-quaternius-locomotion-$t.json" "$Q" --preset "$QL" --time "$t"; done
  pose pose-fox-walk-run-0.6.json "$FOX" --preset "$FOXP" --time 0.6
  pose pose-quaternius-clip-loop-2.1.json "$Q" --clip Jog_Fwd_Loop --time 2.1 --loop --exact
  pose pose-mannequin-footlock-1.5.json mannequin --preset "$DEFAULT" --foot-lock --time 1.5
  pose pose-mannequin-lookat-0.8.json mannequin --preset "$DEFAULT" --look-at 0.5,1.6,1.0 --time 0.8
  pose pose-quaternius-footlock-1.1.json "$Q" --preset "$QL" --foot-lock --fps 30 --time 1.1
  pose pose-vrm-springs-footlock-1.2.json "$VRM" --clip-file "$Q" --clip Walk_Loop --springs --foot-lock --preroll 0.5 --time 1.2
  pose pose-vrm-springs-sway-trace-0.5.json "$VRM" --clip-file "$VRMA" --springs --sway 0.1,0,0.05,1.5 --trace --time 0.5
  pose pose-vrm-face-0.5.json "$VRM" --preset "$FACE" --time 0.5
  pose pose-vrm-vrma-1.5.json "$VRM" --clip-file "$VRMA" --time 1.5
  pose pose-godette-face-lookat-0.5.json "$GODETTE" --preset "$FACE" --look-at 0.4,1.8,1 --time 0.5
  for t in 1.15 1.6 2.5; do pose "pose-machine-$t.json" "$Q" --preset "$MACHINE" --script "$SCRIPT" --time "$t"; done
  # On a frame where the script's events fall (1.9 = frame 57 at 30 fps): which update takes them.
  pose pose-machine-1.9-30fps.json "$Q" --preset "$MACHINE" --script "$SCRIPT" --fps 30 --time 1.9

  out skate-mannequin-footlock.json skate mannequin --preset "$DEFAULT" --blend-point 0,1.4 --foot-lock --json
}

run_all() { # BIN DIR
  BIN=$1
  rm -rf "$2"
  mkdir -p "$2"
  CASES=()
  pushd "$2" > /dev/null
  cases
  popd > /dev/null
}

old=$cmp_dir/out-old
new=$cmp_dir/out-new
echo "== running the cases" >&2
start=$SECONDS
run_all "$old_bin" "$old"
t_old=$((SECONDS - start))
run_all "$new_bin" "$new"
echo "== ${#CASES[@]} cases: ${t_old} s with $old_name, $((SECONDS - start - t_old)) s with $new_name" >&2

# --- comparison ------------------------------------------------------------------------------------------------
flat() { # a JSON file as one `path = value` line per scalar (jq), else as it is
  if command -v jq > /dev/null && jq -e . "$1" > /dev/null 2>&1; then
    jq -c 'paths(scalars) as $p | "\($p | map(tostring) | join(".")) = \(getpath($p) | tojson)"' -r "$1"
  else
    cat "$1"
  fi
}
first_diff() { # two text files: the first differing lines of each
  diff "$1" "$2" | grep -m 4 '^[<>]' | cut -c 1-200 | sed 's/^/    /' || true
}
glb_json() { # a .glb's JSON chunk to stdout
  local len
  len=$(od -An -t u4 -j 12 -N 4 "$1" | tr -d ' ')
  head -c $((20 + len)) "$1" | tail -c "$len"
}
hint() { # OLD NEW FILENAME
  local a=$1 b=$2 f=$3 tmp
  if [[ ! -e $a || ! -e $b ]]; then
    echo "    missing in $([[ -e $a ]] && echo new || echo old)"
    return
  fi
  echo "    sizes $(stat -c %s "$a") / $(stat -c %s "$b") bytes; $(cmp "$a" "$b" 2>&1 | head -n 1 | sed "s|$cmp_dir/||g")"
  case $f in
    *.json | *.stderr)
      first_diff <(flat "$a") <(flat "$b")
      ;;
    *.glb | *.vrma)
      tmp=$cmp_dir/hint
      mkdir -p "$tmp"
      glb_json "$a" > "$tmp/old.json"
      glb_json "$b" > "$tmp/new.json"
      if cmp -s "$tmp/old.json" "$tmp/new.json"; then
        echo "    the JSON chunk is the same: the difference is in the binary chunk (keys, meshes)"
      else
        echo "    in the JSON chunk:"
        first_diff <(flat "$tmp/old.json") <(flat "$tmp/new.json")
      fi
      rm -rf "$tmp"
      ;;
  esac
}

different=0
broken=0
for name in "${CASES[@]}"; do
  files=("$name" "$name.stderr")
  [[ -e $old/$name.report.json || -e $new/$name.report.json ]] && files+=("$name.report.json")
  if [[ $(tail -n 1 "$old/$name.stderr") != "exit 0" && $(tail -n 1 "$new/$name.stderr") != "exit 0" ]]; then
    echo "BROKEN    $name (fails with both binaries: $(grep -v '^exit ' "$new/$name.stderr" | tail -n 1))"
    broken=1
    continue
  fi
  case_same=1
  for f in "${files[@]}"; do
    if ! cmp -s "$old/$f" "$new/$f"; then
      echo "DIFFERENT $f"
      hint "$old/$f" "$new/$f" "$f"
      case_same=0
    fi
  done
  if ((case_same)); then echo "same      $name"; else different=1; fi
done
echo "== outputs in target/compare/out-old ($old_name) and target/compare/out-new ($new_name)" >&2
if ((different)); then exit 1; fi
if ((broken)); then exit 2; fi
exit 0
