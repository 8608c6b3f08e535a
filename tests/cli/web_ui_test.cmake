# The `tempest` command as a user runs it: the web UI's actions, with and without its token.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# The web UI's address carries the token that lets deactivate, activate and kill act; the token
# is kept in the run's 0700 folder; a killed run drains and ends with exit code 0.
foreach(workers 1 2)
  execute_process(COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/web_ui_actions.sh ${TEMPEST}
                          ${data}/cli/paced.yaml ${workers}
                  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc TIMEOUT 240)
  expect_eq("web UI actions on ${workers} workers (${out})" "${rc}" "0")
endforeach()
