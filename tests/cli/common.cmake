# Included by each tests/cli/*_test.cmake, which runs the `tempest` command as a user would and
# checks exit codes and exact output. Inputs: TEMPEST (the binary), PLUGIN_DIR (where
# word_count_plugin.so is), NOT_A_PLUGIN, OTHER_VERSION_PLUGIN, GAUGE_PLUGIN, VERSION, SOURCE_DIR.
set(data ${SOURCE_DIR}/tests/data)
set(wc ${SOURCE_DIR}/examples/word_count/word_count.yaml)
# Each part has a folder of its own for its files, since ctest runs the parts side by side.
get_filename_component(part ${CMAKE_SCRIPT_MODE_FILE} NAME_WE)
set(work ${CMAKE_CURRENT_BINARY_DIR}/cli/${part})
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})

# No command here takes a minute where the suite runs in seconds: a command still running after
# `step_timeout` seconds is killed, and the check fails naming it, rather than leaving ctest's
# timeout to end the whole part without a word.
set(step_timeout 120)

# fail_if_not_ended(rc command...): fails when execute_process did not see the command end by
# itself with an exit code (it timed out, or died of a signal).
function(fail_if_not_ended rc)
  if(NOT rc MATCHES "^[0-9]+$")
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "${rc}: ${command}")
  endif()
endfunction()

function(tempest)
  execute_process(COMMAND ${TEMPEST} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc TIMEOUT ${step_timeout})
  fail_if_not_ended("${rc}" tempest ${ARGN} "\n${err}")
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()

function(expect_eq what actual expected)
  if(NOT "${actual}" STREQUAL "${expected}")
    message(FATAL_ERROR "${what}:\n--- expected ---\n${expected}\n--- actual ---\n${actual}")
  endif()
endfunction()

# Runs `tempest run ARGN` in the background until a line of its stderr matches `ready` (grep);
# then runs the shell command `then` (the stderr file is "$log" there) and stops the run with
# `signal`, sent `times` times (stop_run.sh). A run that hangs fails here, with its stderr.
# Sets out (the run's stdout), err (its stderr) and rc (its exit code; `then`'s, if that failed).
function(stop_run ready then signal times)
  set(log ${work}/stop_run.err)
  execute_process(COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/stop_run.sh ${TEMPEST} ${log} "${ready}"
                          "${then}" ${signal} ${times} ${ARGN}
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc TIMEOUT 240)
  file(READ ${log} err)
  file(REMOVE ${log})
  fail_if_not_ended("${rc}" stop_run.sh tempest run ${ARGN} "\n${err}")
  if(err MATCHES "(^|\n)stop_run: ")
    message(FATAL_ERROR "tempest run ${ARGN}:\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()
function(run_until ready then)
  stop_run("${ready}" "${then}" TERM 1 ${ARGN})
  set(err "${err}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()
