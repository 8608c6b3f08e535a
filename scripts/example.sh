#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and run the YAML word count: a built-in file
# spout, Storm's TestWordCounter and the example's own C++ bolts loaded as a plugin.
# Extra arguments go to `tempest run` (e.g. --quiet).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" release --target tempest_cli word_count_plugin
exec "$root/build/cli/tempest" run "$root/examples/word_count/word_count.yaml" \
  --set plugin_dir="$root/build/examples/word_count/plugin" "$@"
