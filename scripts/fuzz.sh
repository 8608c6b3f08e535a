#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (build-fuzz/, ASan + UBSan) and runs each for SECONDS
# (default 60) over its corpus, fuzz/corpus/NAME/. New inputs go to a scratch folder, not the
# repository. A crash, timeout, memory blow-up or sanitizer report stops the run with a non-zero
# status and leaves the input as build-fuzz/crash-* (or timeout-*, oom-*): add it to the corpus
# with the fix. Usage: scripts/fuzz.sh [SECONDS] [NAME...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(frame yaml expression lines)
"$root/scripts/install-deps.sh"
dir="$root/build-fuzz"
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DTEMPEST_FUZZ=ON -DTEMPEST_BUILD_TESTS=OFF -DTEMPEST_BUILD_BENCH=OFF \
  -DTEMPEST_BUILD_EXAMPLES=OFF > /dev/null
targets=()
for name in "${names[@]}"; do targets+=("${name}_fuzzer"); done
cmake --build "$dir" --parallel "$(nproc)" --target "${targets[@]}"
for name in "${names[@]}"; do
  scratch="$(mktemp -d)"
  echo "fuzz: $name for ${seconds} s"
  log="$dir/fuzz-$name.log"
  if ! (cd "$dir" && "./fuzz/${name}_fuzzer" -max_total_time="$seconds" -timeout=10 \
          -rss_limit_mb=2048 -print_final_stats=1 "$scratch" "$root/fuzz/corpus/$name" \
          > "$log" 2>&1); then
    tail -n 40 "$log" >&2
    echo "fuzz: $name found a failure (log: $log)" >&2
    exit 1
  fi
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
  rm -rf "$scratch"
done
