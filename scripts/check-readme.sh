#!/usr/bin/env bash
# Builds and runs the README's code as a newcomer would, against an installed Tempest, so the
# README cannot rot. In a fresh folder: every ```LANG file=NAME block is written to NAME, every
# ```sh run block runs there (bash -e, in order), and a ```text output block right after a run
# block must equal what that block printed on stdout. A ```yaml same-as=PATH block must be
# identical to PATH in the repository. The README's /opt/tempest stands for the prefix given.
#
# Usage: scripts/check-readme.sh prefix PREFIX   Tempest installed in PREFIX (cmake --install)
#        scripts/check-readme.sh deb              Tempest installed from the .deb (under /usr)
# Also builds the examples (examples/word_count) out of tree the same way and runs them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:?usage: check-readme.sh prefix PREFIX | deb}"
case "$mode" in
  prefix) prefix="$(cd "${2:?check-readme.sh prefix: PREFIX missing}" && pwd)" ;;
  deb) prefix=/usr ;;
  *) echo "check-readme.sh: unknown mode '$mode' (expected prefix or deb)" >&2; exit 2 ;;
esac
export PATH="$prefix/bin:$PATH"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "check-readme: $*" >&2; exit 1; }

# --- extract ---------------------------------------------------------------------------------
project="$work/readme"
mkdir -p "$project/.run"
runs=0
in_block=0
kind=none
target=""
while IFS= read -r line; do
  if [[ $in_block == 0 && $line =~ ^\`\`\`([a-z]*)(.*)$ ]]; then
    lang="${BASH_REMATCH[1]}"
    attrs="${BASH_REMATCH[2]}"
    in_block=1
    kind=none
    if [[ $attrs =~ file=([^[:space:]]+) ]]; then
      kind=file
      target="$project/${BASH_REMATCH[1]}"
      : > "$target"
    elif [[ $attrs =~ same-as=([^[:space:]]+) ]]; then
      kind=same
      same_path="${BASH_REMATCH[1]}"
      target="$work/same"
      : > "$target"
    elif [[ $lang == sh && $attrs =~ (^|[[:space:]])run($|[[:space:]]) ]]; then
      kind=run
      runs=$((runs + 1))
      target="$project/.run/$runs.sh"
      : > "$target"
    elif [[ $lang == text && $attrs =~ (^|[[:space:]])output($|[[:space:]]) ]]; then
      [[ $runs -gt 0 ]] || fail "README.md: an output block before any run block"
      kind=file
      target="$project/.run/$runs.expected"
      : > "$target"
    fi
    continue
  fi
  if [[ $in_block == 1 && $line == '```' ]]; then
    in_block=0
    if [[ $kind == same ]] && ! diff -u "$root/$same_path" "$target"; then
      fail "README.md's block for $same_path differs from the file (diff above)"
    fi
    continue
  fi
  if [[ $in_block == 1 && $kind != none ]]; then printf '%s\n' "$line" >> "$target"; fi
done < "$root/README.md"
[[ $runs -gt 0 ]] || fail "README.md has no \`\`\`sh run block"

# --- run -------------------------------------------------------------------------------------
for ((i = 1; i <= runs; i++)); do
  sed -i "s#/opt/tempest#$prefix#g" "$project/.run/$i.sh"
  echo "check-readme: run block $i: $(head -n 1 "$project/.run/$i.sh")"
  if ! (cd "$project" && bash -e ".run/$i.sh") > "$project/.run/$i.actual"; then
    cat "$project/.run/$i.actual" >&2
    fail "README.md's run block $i failed"
  fi
  if [[ -f $project/.run/$i.expected ]] &&
    ! diff -u "$project/.run/$i.expected" "$project/.run/$i.actual"; then
    fail "README.md's run block $i printed something else than its output block (diff above)"
  fi
done

# --- the examples, out of tree -----------------------------------------------------------------
cmake -S "$root/examples/word_count" -B "$work/word_count" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$work/word_count" > /dev/null
out="$("$work/word_count/word_count" --repeat 1 --top 1 --workers 2 2>/dev/null)"
[[ $out == "157 words, 72 distinct. Top 1:"*"the"*"17" ]] ||
  fail "examples/word_count built out of tree printed: $out"
out="$(tempest run "$root/examples/word_count/word_count.yaml" --quiet \
  --set plugin_dir="$work/word_count/plugin")"
[[ $out == "157 words, 72 distinct. Top 10:"* ]] ||
  fail "the YAML word count with the out-of-tree plugin printed: $out"
echo "check-readme: the README's code and the examples build and run against $prefix"
