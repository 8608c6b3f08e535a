#!/usr/bin/env bash
# The web UI's actions from outside, as curl sees them: an unbounded run prints the UI's address
# with its token; the token sits in the run's 0700 folder (mode 0600); deactivate and kill act
# only with it; deactivate shows as INACTIVE; kill ends the run by itself, with exit code 0.
# Usage: web_ui_actions.sh TEMPEST TOPOLOGY WORKERS. Exits non-zero with a reason on stderr.
set -uo pipefail
tempest=$1 topology=$2 workers=$3
work=$(mktemp -d)
trap 'kill -KILL $pid 2>/dev/null; rm -rf "$work"' EXIT
# shellcheck source=tests/cli/ended.sh
source "$(dirname "$0")/ended.sh"
fail() { echo "web UI actions ($workers workers): $*" >&2; cat "$work/err" >&2; exit 1; }

TMPDIR=$work XDG_RUNTIME_DIR='' "$tempest" run "$topology" --set count=0 --progress-interval 0 \
  --workers "$workers" 2> "$work/err" &
pid=$!
wait_for_line "$work/err" 'web UI at' $pid 30 || fail "no web UI address within 30 s"
ui=$(grep -o 'http://[^ ]*?token=[0-9a-f]*' "$work/err") || fail "no web UI address printed"
base=${ui%%/?token=*}
token=${ui##*token=}
api=$base/api/v1/topology/paced

file=$(find "$work" -name ui-token) || true
[ -n "$file" ] || fail "no ui-token in the run folder"
[ "$(stat -c %a "$file")" = 600 ] || fail "ui-token has mode $(stat -c %a "$file")"
[ "$(stat -c %a "$(dirname "$file")")" = 700 ] || fail "the run folder is not 0700"
[ "$(cat "$file")" = "$token" ] || fail "ui-token holds another token than the address"

code() { curl -s -m 10 -o "$work/body" -w '%{http_code}' -X POST "$@"; }
# GET into a file: grep -q on a pipe may close it before curl is done (SIGPIPE, pipefail).
has() { curl -sf -m 10 -o "$work/got" "$1" && grep -q "$2" "$work/got"; }
[ "$(code "$api/deactivate")" = 403 ] || fail "deactivate without a token: not 403"
grep -q 'X-Tempest-Token' "$work/body" || fail "the 403 does not say what is missing"
[ "$(code -H 'X-Tempest-Token: 0123' "$api/deactivate")" = 403 ] || fail "a wrong token acted"
has "$api" '"status":"ACTIVE"' || fail "not ACTIVE before deactivate"
[ "$(code -H "X-Tempest-Token: $token" "$api/deactivate")" = 200 ] || fail "deactivate refused"
has "$api" '"status":"INACTIVE"' || fail "not INACTIVE after deactivate"
[ "$(code -H "X-Tempest-Token: $token" "$api/activate")" = 200 ] || fail "activate refused"
has "$api" '"status":"ACTIVE"' || fail "not ACTIVE after activate"
has "$base/" '<svg id="graph"' || fail "/ is not the web UI page"
[ "$(code -H "X-Tempest-Token: $token" "$api/kill")" = 200 ] || fail "kill refused"
wait_ended $pid 60 || fail "the run did not end within 60 s of the kill"
wait $pid
rc=$?
[ $rc = 0 ] || fail "the killed run exited with $rc"
grep -q 'killed from the web UI' "$work/err" || fail "the run did not say it was killed"
[ -z "$(find "$work" -name 'tempest-*')" ] || fail "the run folder was left behind"
echo "web UI actions ($workers workers): ok"
