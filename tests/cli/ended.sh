# shellcheck shell=bash
# Sourced by the CLI test scripts. ended PID: whether process PID has ended, waited for or not
# (kill -0 succeeds on a zombie), so that a run that does not end fails a test with a reason
# instead of hanging it.
ended() { [ ! -e "/proc/$1" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2> /dev/null)" = Z ]; }
