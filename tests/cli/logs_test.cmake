# The `tempest` command as a user runs it: rows alone on stdout, logs on stderr or in --log-file.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# StdoutSink's rows alone on stdout, whatever is logged (in one process and on 2 workers, whose
# logs the supervisor relays): jq parses every line and finds each id once.
foreach(workers 1 2)
  execute_process(COMMAND ${TEMPEST} run ${data}/cli/stdout_sink_with_errors.yaml
                          --workers ${workers}
                  COMMAND jq -c .id
                  OUTPUT_VARIABLE ids ERROR_VARIABLE err RESULT_VARIABLE rc
                  TIMEOUT ${step_timeout})
  expect_eq("jq over stdout on ${workers} workers: exit codes" "${rc}" "0")
  string(REGEX MATCHALL "[0-9]+\n" id_lines "${ids}")
  list(REMOVE_DUPLICATES id_lines)
  list(LENGTH id_lines distinct)
  expect_eq("distinct ids on stdout on ${workers} workers" "${distinct}" "300")
  if(NOT err MATCHES "\\[error\\] component 'chaos' task [0-9]+: ")
    message(FATAL_ERROR "the bolt's errors are not logged on stderr (${workers} workers):\n${err}")
  endif()
endforeach()
set(log ${work}/cli_test_run.log)
file(REMOVE ${log})
tempest(run ${data}/cli/stdout_sink_with_errors.yaml --workers 2 --log-file ${log}
        --log-level warn)
expect_eq("--log-file run exit code" "${rc}" "0")
if(err MATCHES "\\[error\\]")
  message(FATAL_ERROR "with --log-file, errors still on stderr:\n${err}")
endif()
file(READ ${log} logged)
if(NOT logged MATCHES "\\[worker [01]\\] \\[error\\] component 'chaos' task [0-9]+: ")
  message(FATAL_ERROR "the workers' errors are not in the log file:\n${logged}")
endif()
if(logged MATCHES "\\[info\\]")
  message(FATAL_ERROR "--log-level warn let info lines through:\n${logged}")
endif()
file(REMOVE ${log})
tempest(run ${data}/cli/quiet.yaml --log-level loud)
expect_eq("bad --log-level exit code" "${rc}" "2")
