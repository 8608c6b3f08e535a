# shellcheck shell=bash
# Sourced by the CLI test scripts.

# ended PID: whether process PID has ended, waited for or not (kill -0 succeeds on a zombie).
# The shell reaps its children on its own, so /proc/PID can vanish at any moment: it is read
# once, with a builtin (no fork to fail on a loaded machine), and a failed read means it is gone.
ended() {
  local stat
  { read -r stat < "/proc/$1/stat"; } 2> /dev/null || return 0
  [[ $stat == *") Z "* ]]
}

# wait_ended PID SECONDS: waits until PID has ended, for SECONDS of wall time at most; fails,
# describing what PID's threads are doing, if it has not.
wait_ended() {
  local until=$((SECONDS + $2))
  while ((SECONDS < until)); do
    ended "$1" && return 0
    sleep 0.1
  done
  ended "$1" && return 0
  describe_threads "$1" >&2
  return 1
}

# wait_for_line FILE PATTERN PID SECONDS: waits until a line of FILE matches PATTERN (grep), for
# SECONDS of wall time at most, or until PID has ended; fails if no line matches by then.
wait_for_line() {
  local until=$((SECONDS + $4))
  while ((SECONDS < until)); do
    grep -q "$2" "$1" && return 0
    ended "$3" && break
    sleep 0.1
  done
  grep -q "$2" "$1"
}

# describe_threads PID: each thread's name, state and kernel wait channel.
describe_threads() {
  local task
  for task in /proc/"$1"/task/*; do
    echo "thread $(cat "$task/comm" 2> /dev/null): $(grep '^State' "$task/status" 2> /dev/null)" \
      "wchan $(cat "$task/wchan" 2> /dev/null)"
  done
}
