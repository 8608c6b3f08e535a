# The `tempest` command as a user runs it: /metrics and /api/v1/, the runtime's and a bolt's own.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# /metrics: a running topology's metrics, on the port the run prints at its start, pass
# Prometheus' own checker (promtool, Debian's prometheus package: scripts/install-deps.sh); the
# same server answers /api/v1/ in JSON.
find_program(PROMTOOL promtool)
find_program(CURL curl)
if(NOT PROMTOOL OR NOT CURL)
  message(FATAL_ERROR "curl and promtool are needed (scripts/install-deps.sh installs them)")
endif()
set(scraped ${work}/metrics.txt)
set(summary ${work}/summary.json)
# Checks the scraped page with promtool, then sets `metrics` to it (and removes the file).
function(check_scraped what)
  execute_process(COMMAND ${PROMTOOL} check metrics INPUT_FILE ${scraped}
                  OUTPUT_VARIABLE promtool_out ERROR_VARIABLE promtool_out RESULT_VARIABLE rc
                  TIMEOUT ${step_timeout})
  file(READ ${scraped} page)
  file(REMOVE ${scraped})
  expect_eq("promtool check metrics of ${what} (${promtool_out})" "${rc}" "0")
  set(metrics "${page}" PARENT_SCOPE)
endfunction()
# Scraped until the series asserted below are there: on 2 workers they come with the workers'
# heartbeats.
set(worker_up "tempest_worker_up{topology=\"paced\",worker=\"1\"} 1")
foreach(workers 1 2)
  set(wanted "tempest_emitted_total{topology=\"paced\",component=\"gen\",task=\"1\"} ")
  if(workers EQUAL 2)
    set(wanted "${worker_up}")
  endif()
  run_until("metrics at"
            "url=$(grep -o 'http://[^ ]*/metrics' \"$log\"); until=$((SECONDS + 60)); while ((SECONDS < until)); do '${CURL}' -sf -m 10 \"$url\" > '${scraped}' && grep -qF '${wanted}' '${scraped}' && grep -qF 'tempest_emitted_total{topology=\"paced\",component=\"gen\",task=\"1\"} ' '${scraped}' && break; sleep 0.1; done; '${CURL}' -sf -m 10 \"\${url%/metrics}/api/v1/topology/summary\" > '${summary}'"
            ${data}/cli/paced.yaml --set count=0 --progress-interval 0 --workers ${workers})
  file(READ ${summary} summary_json)
  file(REMOVE ${summary})
  string(JSON topology_name ERROR_VARIABLE json_error GET "${summary_json}" topologies 0 name)
  expect_eq("/api/v1/topology/summary's topology (${json_error})" "${topology_name}" "paced")
  expect_eq("metrics run (curl, then the run's) exit code" "${rc}" "0")
  if(NOT err MATCHES "\\[info\\] metrics at http://127\\.0\\.0\\.1:[0-9]+/metrics\n")
    message(FATAL_ERROR "the run did not print where its metrics are:\n${err}")
  endif()
  check_scraped("runtime metrics on ${workers} workers")
  if(NOT metrics MATCHES "\ntempest_emitted_total{topology=\"paced\",component=\"gen\",task=\"1\"} [0-9]+\n")
    message(FATAL_ERROR "no emitted counter for the spout:\n${metrics}")
  endif()
  string(FIND "${metrics}" "\n${worker_up}\n" at)
  if(workers EQUAL 2 AND at EQUAL -1)
    message(FATAL_ERROR "no worker series on 2 workers:\n${metrics}")
  endif()
endforeach()
# A bolt's own metrics (tests/integration/gauge_bolt.h, from its plugin) pass promtool too.
# Scraped again until every series asserted below is there: task 1's come with its worker's
# heartbeats, a drop by cause once GaugeBolt has dropped a tenth input.
set(user_series "tempest_user_metric{topology=\"process-gauges\",component=\"gauges\",task=\"1\",name=\"task\",kind=\"gauge\"} 1"
                "tempest_user_events_total{topology=\"process-gauges\",component=\"gauges\",task=\"1\",name=\"marks\"} "
                "tempest_user_distribution_bucket{topology=\"process-gauges\",component=\"gauges\",task=\"1\",name=\"ones\",le=\"+Inf\"} ")
set(has_all "grep -q '^tempest_dropped_by_cause_total{' '${scraped}'")
foreach(series IN LISTS user_series)
  string(APPEND has_all " && grep -qF '${series}' '${scraped}'")
endforeach()
run_until("metrics at"
          "url=$(grep -o 'http://[^ ]*/metrics' \"$log\"); until=$((SECONDS + 60)); while ((SECONDS < until)); do '${CURL}' -sf -m 10 \"$url\" > '${scraped}' && ${has_all} && break; sleep 0.1; done"
          ${data}/process/gauges_worker.yaml --set count=0 --set plugin=${GAUGE_PLUGIN}
          --progress-interval 0 --workers 2)
expect_eq("user metrics run exit code" "${rc}" "0")
check_scraped("user metrics")
foreach(series IN LISTS user_series)
  string(FIND "${metrics}" "\n${series}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no '${series}' in:\n${metrics}")
  endif()
endforeach()
if(NOT metrics MATCHES "\ntempest_dropped_by_cause_total{topology=\"process-gauges\",component=\"gauges\",task=\"[0-9]+\",cause=\"tenth\"} [1-9][0-9]*\n")
  message(FATAL_ERROR "no drops by cause in:\n${metrics}")
endif()
