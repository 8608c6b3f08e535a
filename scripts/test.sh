#!/usr/bin/env bash
# Quick start 2: install what is missing, build, and run the whole test suite.
# Usage: scripts/test.sh [release|asan]   (default release; asan = sanitizer build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kind="${1:-release}"
"$root/scripts/build.sh" "$kind"
dir="$root/build"; [ "$kind" = asan ] && dir="$root/build-asan"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cd "$dir" && ctest --output-on-failure --parallel "$(nproc)" --timeout 300
