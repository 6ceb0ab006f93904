#!/usr/bin/env bash
# The three build times a newcomer pays (Docs/Benchmarks.md "Build times"), each from
# a clean clone of this repository with an empty build folder, with the machine's load
# average before each. Run on a quiet machine; it takes a few minutes.
#   bash Scripts/build_times.sh
# Prints one line per measurement: what, wall seconds, CPU seconds, load before.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/repo"
# The package dependencies resolve once, outside the timings (a clone's first
# resolve fetches swift-argument-parser; CI's caches and a second build do not).
(cd "$work/repo" && swift package resolve >/dev/null 2>&1)

measure() {
  local what=$1 folder=$2
  shift 2
  local load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  local start end cpu
  start=$(date +%s.%N)
  # `time`'s user + sys of the whole build (the compiler's child processes included).
  cpu=$( { /usr/bin/time -f "%U %S" bash -c "cd '$folder' && $* > '$work/log' 2>&1" ; } 2>&1 | tail -1 | awk '{print $1 + $2}')
  end=$(date +%s.%N)
  printf '%s: %.0f s wall, %.0f s CPU, load before %s (%s cores)\n' "$what" "$(echo "$end - $start" | bc)" "$cpu" "$load" "$(nproc)"
}

measure "clean make demo (debug build + the demo)" "$work/repo" make demo
rm -rf "$work/repo/.build"
measure "clean make install (release build of migrate)" "$work/repo" make install PREFIX="$work/prefix"
# A deploy package: its own policies and its own migrate over this package, debug.
rm -rf "$work/repo/.build"
(cd "$work/repo/Examples/DeployPackage" && swift package resolve >/dev/null 2>&1)
measure "clean deploy package debug build (Examples/DeployPackage)" "$work/repo/Examples/DeployPackage" swift build
