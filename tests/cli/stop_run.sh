#!/usr/bin/env bash
# Runs `TEMPEST run ARGS...` in the background, its stderr in LOG, until a line of it matches
# READY (grep, up to 30 s); then runs the shell command THEN (LOG is "$log" there), sends SIGNAL
# TIMES times 0.5 s apart and waits for the run to end.
# Exits with the run's exit code, or THEN's if the run's is 0. A run that never gets ready or
# does not end within 60 s of the signals is killed, the reason is appended to LOG and the exit
# code is 124, so that a hang names itself instead of running into ctest's timeout.
# Usage: stop_run.sh TEMPEST LOG READY THEN SIGNAL TIMES ARGS...
set -u
tempest=$1 log=$2 ready=$3 then=$4 signal=$5 times=$6
shift 6
"$tempest" run "$@" 2> "$log" &
pid=$!
# shellcheck source=tests/cli/ended.sh
source "$(dirname "$0")/ended.sh"
give_up() {
  echo "stop_run: $*" >> "$log"
  kill -KILL $pid 2> /dev/null
  wait $pid
  exit 124
}

wait_for_line "$log" "$ready" $pid 30 || give_up "no line matching '$ready' within 30 s"
(eval "$then")
got=$?
for i in $(seq "$times"); do
  [ "$i" = 1 ] || sleep 0.5
  kill -"$signal" $pid 2> /dev/null
done
wait_ended $pid 60 2>> "$log" || give_up "the run did not end within 60 s of SIG$signal"
wait $pid
rc=$?
[ $rc = 0 ] && exit $got
exit $rc
