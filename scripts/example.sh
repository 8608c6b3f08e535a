#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and run the word-count example.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" release --target word_count
exec "$root/build/examples/word_count/word_count" "$@"
