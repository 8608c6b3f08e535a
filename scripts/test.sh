#!/usr/bin/env bash
# Quick start 2: install what is missing, build, and run the whole test suite.
# Usage: scripts/test.sh [release|asan|tsan]   (default release; asan = ASan+UBSan build of
# everything; tsan = ThreadSanitizer build of the runtime and transport tests only)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kind="${1:-release}"
if [ "$kind" = tsan ]; then
  "$root/scripts/build.sh" tsan --target runtime_tests transport_tests
  export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp}"
  cd "$root/build-tsan"
  ./tests/transport_tests --gtest_brief=1
  ./tests/runtime_tests --gtest_brief=1
  exit 0
fi
"$root/scripts/build.sh" "$kind"
dir="$root/build"; [ "$kind" = asan ] && dir="$root/build-asan"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cd "$dir" && ctest --output-on-failure --parallel "$(nproc)" --timeout 300
