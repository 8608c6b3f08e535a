#!/usr/bin/env bash
# Checks that the Markdown documentation links only inside the repository: every link in a
# *.md file (outside build*/ and .git/) must be relative, resolve to an existing file or folder
# of the repository, and, when it names a heading of a Markdown file (#anchor), to an existing
# heading. Web links (http:, https:, mailto: …), absolute paths and paths that climb out of the
# repository are errors, and so are a bare web address in the text and any mention of a path
# into ../shared/. Fenced code blocks are not read, nor `code spans` (but for ../shared/).
# Usage: scripts/check-doc-links.sh [FILE.md...]   (default: every Markdown file of the repo)
# Prints FILE:LINE: what is wrong, for each bad link; exits 1 if there is one, else 0.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export LC_ALL=C  # awk works on bytes; headings' UTF-8 symbols are matched as byte sequences

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(find . \( -path './build*' -o -path ./.git \) -prune -o -type f \
    -name '*.md' -print | sed 's|^\./||' | sort)
fi

# awk: whether `line` is a fence line or inside a fenced code block (fence, its state, is global).
skip_fences='
  function in_fence(line,    mark) {
    if (match(line, /^ ? ? ?(```+|~~~+)/)) {
      mark = substr(line, RSTART, RLENGTH); sub(/^ +/, "", mark); mark = substr(mark, 1, 3)
      if (fence == "") { fence = mark; return 1 }
      if (mark == fence) { fence = ""; return 1 }
    }
    return fence != ""
  }'

# Prints FILE<TAB>LINE<TAB>TARGET for every link target, and FILE<TAB>LINE<TAB>!PROBLEM for a
# web address in the text or a path into ../shared (even in a code span). Skips fenced code
# blocks, and code spans for the rest.
extract_links() {
  awk "$skip_fences"'
    FNR == 1 { fence = "" }
    {
      line = $0
      if (in_fence(line)) next
      if (line ~ /(^|[^A-Za-z0-9_.])\.\.\/shared\/|\/work\/shared/) {
        print FILENAME "\t" FNR "\t!a path into ../shared/, outside the repository"
      }
      gsub(/``[^`]*``/, "", line)
      gsub(/`[^`]*`/, "", line)
      # Reference definitions: [id]: target
      if (match(line, /^ ? ? ?\[[^]]+\]:[ \t]*[^ \t]+/)) {
        t = substr(line, RSTART, RLENGTH); sub(/^ ? ? ?\[[^]]+\]:[ \t]*/, "", t)
        gsub(/^<|>$/, "", t)
        print FILENAME "\t" FNR "\t" t
        next
      }
      rest = line
      while (match(rest, /\]\([^)]*\)/)) {
        t = substr(rest, RSTART + 2, RLENGTH - 3)
        rest = substr(rest, RSTART + RLENGTH)
        sub(/^[ \t]+/, "", t)
        if (t ~ /^</) { sub(/^</, "", t); sub(/>.*$/, "", t) } else { sub(/[ \t].*$/, "", t) }
        print FILENAME "\t" FNR "\t" t
      }
      rest = line
      while (match(rest, /<[a-zA-Z][a-zA-Z0-9+.-]*:[^ >]*>/)) {
        print FILENAME "\t" FNR "\t" substr(rest, RSTART + 1, RLENGTH - 2)
        rest = substr(rest, RSTART + RLENGTH)
      }
      # A web address outside a link: GitHub turns it into one.
      bare = line
      gsub(/\]\([^)]*\)/, "", bare)
      gsub(/<[a-zA-Z][a-zA-Z0-9+.-]*:[^ >]*>/, "", bare)
      if (bare ~ /(https?|ftp):\/\/|www\.[a-zA-Z0-9-]+\.[a-z]/) {
        print FILENAME "\t" FNR "\t!a bare web address: links must stay in the repository"
      }
    }' "$@"
}

# Prints the anchors GitHub makes for the headings of a Markdown file, one per line (lowercase;
# punctuation and symbols dropped; spaces to '-'; a repeated heading gets -1, -2, …), plus
# explicit <a name="…"> / id="…" anchors.
anchors_of() {
  awk "$skip_fences"'
    {
      line = $0
      if (in_fence(line)) next
      rest = line
      while (match(rest, /(name|id)="[^"]+"/)) {
        a = substr(rest, RSTART, RLENGTH); sub(/^(name|id)="/, "", a); sub(/"$/, "", a)
        print a
        rest = substr(rest, RSTART + RLENGTH)
      }
      if (line !~ /^ ? ? ?#+([ \t]|$)/) next
      h = line
      sub(/^ ? ? ?#+[ \t]*/, "", h); sub(/[ \t]+#+[ \t]*$/, "", h); sub(/[ \t]+$/, "", h)
      while (match(h, /!?\[[^]]*\]\([^)]*\)/)) {
        t = substr(h, RSTART, RLENGTH); sub(/^!?\[/, "", t); sub(/\]\([^)]*\)$/, "", t)
        h = substr(h, 1, RSTART - 1) t substr(h, RSTART + RLENGTH)
      }
      h = tolower(h)
      # UTF-8 symbols and punctuation GitHub drops (letters of other scripts are kept).
      n = split("\342\206\222 \342\206\220 \303\227 \342\200\224 \342\200\223 \302\261 " \
                "\342\211\245 \342\211\244 \302\267 \342\200\246 \342\200\230 \342\200\231 " \
                "\342\200\234 \342\200\235 \342\212\225 \342\210\236 \302\247 \302\265", sym, " ")
      for (i = 1; i <= n; i++) {
        while ((p = index(h, sym[i])) > 0) h = substr(h, 1, p - 1) substr(h, p + length(sym[i]))
      }
      gsub(/[^a-z0-9 _\200-\377-]/, "", h)
      gsub(/ /, "-", h)
      if (h in seen) { seen[h]++; print h "-" seen[h] } else { seen[h] = 0; print h }
    }' "$1"
}

# Joins DIR and a relative PATH and removes "." and ".." steps. Prints nothing when the path
# climbs out of the repository.
resolve() {
  local dir="$1" path="$2" part
  local -a out=()
  IFS=/ read -r -a parts <<< "$dir/$path"
  for part in "${parts[@]}"; do
    case "$part" in
      '' | .) ;;
      ..) if [ ${#out[@]} -eq 0 ]; then return 0; fi; unset 'out[${#out[@]}-1]' ;;
      *) out+=("$part") ;;
    esac
  done
  local IFS=/
  printf '%s\n' "${out[*]:-.}"
}

declare -A anchor_cache=()
bad=0
report() {
  echo "$1:$2: $3" >&2
  bad=1
}

[ ${#files[@]} -gt 0 ] || exit 0
while IFS=$'\t' read -r file line target; do
  [ -n "$file" ] || continue
  case "$target" in
    '!'*) report "$file" "$line" "${target#!}"; continue ;;
    '') report "$file" "$line" "empty link"; continue ;;
  esac
  if [[ "$target" =~ ^[a-zA-Z][a-zA-Z0-9+.-]*: ]]; then
    report "$file" "$line" "link leaves the repository: $target"
    continue
  fi
  path="${target%%#*}"
  fragment=""
  [[ "$target" == *'#'* ]] && fragment="${target#*#}"
  path="${path//%20/ }"
  if [ -z "$path" ]; then
    resolved="$file"
  elif [[ "$path" == /* ]]; then
    report "$file" "$line" "absolute path (use a path relative to $file): $target"
    continue
  else
    resolved="$(resolve "$(dirname "$file")" "$path")"
    if [ -z "$resolved" ]; then
      report "$file" "$line" "link leaves the repository: $target"
      continue
    fi
    if [ ! -e "$resolved" ]; then
      report "$file" "$line" "no such file: $target"
      continue
    fi
  fi
  if [ -n "$fragment" ] && [[ "$resolved" == *.md ]] && [ -f "$resolved" ]; then
    if [ -z "${anchor_cache[$resolved]+set}" ]; then
      anchor_cache[$resolved]="$(anchors_of "$resolved")"
    fi
    if ! grep -qxF -- "$fragment" <<< "${anchor_cache[$resolved]}"; then
      report "$file" "$line" "no heading for #$fragment in $resolved: $target"
    fi
  fi
done < <(extract_links "${files[@]}")

if [ "$bad" -ne 0 ]; then
  echo "check-doc-links: links must be relative and point at files (and headings) of the" \
    "repository" >&2
  exit 1
fi
