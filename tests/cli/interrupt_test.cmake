# The `tempest` command as a user runs it: Ctrl-C while draining, twice, and on a stuck run.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# Interrupting a run: trees that failed while draining make it exit 1; a second Ctrl-C ends it
# at once (130); a run that cannot drain (a bolt stuck in its code) ends after the drain
# timeout and a grace period (10 s + 5 s) with exit 1.
function(interrupt file signals)
  # Interrupts once the run says it is running (its first log line), then again every 0.5 s.
  stop_run(running true INT ${signals} ${file})
  set(err "${err}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()
interrupt(${data}/cli/always_throws.yaml 1)
expect_eq("Ctrl-C with failed trees exit code" "${rc}" "1")
if(NOT err MATCHES "tempest: interrupted with tuple trees not fully processed: [1-9][0-9]* failed and not replayed, 0 still pending\n$")
  message(FATAL_ERROR "unexpected message after Ctrl-C with failed trees:\n${err}")
endif()
interrupt(${data}/cli/stuck_bolt.yaml 2)
expect_eq("second Ctrl-C exit code" "${rc}" "130")
if(NOT err MATCHES "\ntempest: interrupted again: exiting at once\n$")
  message(FATAL_ERROR "unexpected message after a second Ctrl-C:\n${err}")
endif()
interrupt(${data}/cli/stuck_bolt.yaml 1)
expect_eq("stuck run exit code" "${rc}" "1")
if(NOT err MATCHES "tempest: the run did not stop within 15000 ms of the interrupt \\(a bolt stuck in its code\\?\\); exiting\n$")
  message(FATAL_ERROR "unexpected message of a run that cannot drain:\n${err}")
endif()
