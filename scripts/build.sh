#!/usr/bin/env bash
# Configures and builds Tempest. Usage: scripts/build.sh [release|asan|tsan|bench] [cmake --build args...]
#   release → build/        (optimised, -O2 -g)
#   asan    → build-asan/   (AddressSanitizer + UndefinedBehaviorSanitizer)
#   tsan    → build-tsan/   (ThreadSanitizer; no benchmarks or examples)
#   bench   → build-bench/  (Release, -O3: what BENCHMARKS.md measures)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kind="${1:-release}"; shift || true
case "$kind" in
  release) dir="$root/build"; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan) dir="$root/build-asan"; flags=(-DCMAKE_BUILD_TYPE=Debug -DTEMPEST_SANITIZE=ON) ;;
  tsan) dir="$root/build-tsan"; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTEMPEST_TSAN=ON
                                       -DTEMPEST_BUILD_BENCH=OFF -DTEMPEST_BUILD_EXAMPLES=OFF) ;;
  bench) dir="$root/build-bench"; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  *) echo "build.sh: unknown build kind '$kind' (expected release, asan, tsan or bench)" >&2; exit 2 ;;
esac
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$dir" -G Ninja "${flags[@]}" >/dev/null
jobs="$(nproc)"
cmake --build "$dir" --parallel "$jobs" "$@"
