# Runs the `tempest` command as a user would and checks exit codes and exact output.
# Inputs: TEMPEST (the binary), PLUGIN_DIR (where word_count_plugin.so is), SOURCE_DIR.
set(data ${SOURCE_DIR}/tests/data)

function(tempest)
  execute_process(COMMAND ${TEMPEST} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()

function(expect_eq what actual expected)
  if(NOT "${actual}" STREQUAL "${expected}")
    message(FATAL_ERROR "${what}:\n--- expected ---\n${expected}\n--- actual ---\n${actual}")
  endif()
endfunction()

# validate: a good file.
set(wc ${SOURCE_DIR}/examples/word_count/word_count.yaml)
tempest(validate --set plugin_dir=${PLUGIN_DIR} ${wc})  # --set may come before FILE
expect_eq("validate exit code" "${rc}" "0")
expect_eq("validate output" "${out}"
          "${wc}: topology 'word-count' is valid: 1 spouts, 3 bolts, 3 streams, 6 tasks\n")

# validate: a bad file exits 2 with the error pointing at the line.
tempest(validate ${data}/bad/unknown_component_in_stream.yaml)
expect_eq("bad topology exit code" "${rc}" "2")
expect_eq("bad topology message" "${err}"
          "${data}/bad/unknown_component_in_stream.yaml:7:11: streams[0].from: unknown component \"clikcs\" (did you mean \"clicks\"?); components: clicks, sink\n")

# validate: a count window that can hold more than the memory budget is valid, with a warning
# that names the line.
tempest(validate ${data}/cli/huge_count_window.yaml)
expect_eq("huge count window exit code" "${rc}" "0")
string(FIND "${err}" "[warning] ${data}/cli/huge_count_window.yaml:11:15: bolts[0].config.window: a count window of 1000000000 tuples holds at least 61035 MiB (64 bytes a tuple), more than topology.window.memory.budget.mb 1024; it may run out of memory" at)
if(at EQUAL -1)
  message(FATAL_ERROR "no memory budget warning:\n${err}")
endif()

# graph: exact DOT.
tempest(graph ${data}/cli/graph.yaml)
file(READ ${data}/cli/graph.dot dot)
expect_eq("graph exit code" "${rc}" "0")
expect_eq("graph output" "${out}" "${dot}")

# run: the YAML word count prints its counts (the bundled text has 157 words).
tempest(run ${wc} --set plugin_dir=${PLUGIN_DIR} --quiet)
expect_eq("word count exit code" "${rc}" "0")
if(NOT out MATCHES "^157 words, 72 distinct. Top 10:\n  the                 17\n  of                  12\n")
  message(FATAL_ERROR "unexpected word count output:\n${out}")
endif()
expect_eq("--quiet prints no summary" "${err}" "")

# run: the summary table without --quiet.
tempest(run ${data}/cli/quiet.yaml)
expect_eq("run exit code" "${rc}" "0")
if(NOT err MATCHES "gen +1 +1000 +0 +1000 +0 +0\nsink +1 +0 +1000 +1000 +0 +0\ngen: 1000 trees acked, 0 failed \\(0 timed out\\), 0 replayed, 0 pending; complete latency p50 [0-9]+ us, p99 [0-9]+ us\nfinished in")
  message(FATAL_ERROR "unexpected summary:\n${err}")
endif()

# run without a terminal (stderr is a pipe here): a progress line every --progress-interval
# seconds, then the summary; none with --quiet or --progress-interval 0. The run lasts at least
# 0.6 s (600 tuples at 1000 a second), so lines at 0.1 s must come.
set(progress_line "progress [0-9.]+ s: gen emitted [0-9]+ \\([0-9.]+k?/s\\); sink executed [0-9]+ \\([0-9.]+k?/s\\); trees acked [0-9]+, failed 0; errors 0\n")
foreach(workers 1 2)
  tempest(run ${data}/cli/paced.yaml --set count=600 --progress-interval 0.1 --workers ${workers})
  expect_eq("paced run exit code (${workers} workers)" "${rc}" "0")
  if(NOT err MATCHES "\n${progress_line}.*component +tasks")
    message(FATAL_ERROR "no progress line before the summary (${workers} workers):\n${err}")
  endif()
endforeach()
tempest(run ${data}/cli/paced.yaml --set count=600 --progress-interval 0.1 --quiet)
expect_eq("--quiet prints no progress" "${err}" "")
tempest(run ${data}/cli/paced.yaml --set count=600 --progress-interval 0)
if(err MATCHES "progress")
  message(FATAL_ERROR "--progress-interval 0 printed progress:\n${err}")
endif()
tempest(run ${data}/cli/paced.yaml --set count=600 --progress-interval -1)
expect_eq("negative --progress-interval exit code" "${rc}" "2")
# Runs `tempest run ARGN` in the background until a line of its stderr matches `ready` (grep);
# then runs the shell command `then` (the stderr file is "$log" there) and stops the run with
# `signal`, sent `times` times (stop_run.sh). A run that hangs fails here, with its stderr.
# Sets out (the run's stdout), err (its stderr) and rc (its exit code; `then`'s, if that failed).
function(stop_run ready then signal times)
  set(log ${CMAKE_CURRENT_BINARY_DIR}/stop_run.err)
  execute_process(COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/stop_run.sh ${TEMPEST} ${log} "${ready}"
                          "${then}" ${signal} ${times} ${ARGN}
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  file(READ ${log} err)
  file(REMOVE ${log})
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

# An unbounded run (count 0) shows its progress too: stopped after its first progress line.
run_until("^progress" true ${data}/cli/paced.yaml --set count=0 --progress-interval 0.2)
expect_eq("stopped unbounded run exit code" "${rc}" "0")
if(NOT err MATCHES "\n${progress_line}")
  message(FATAL_ERROR "an unbounded run printed no progress line:\n${err}")
endif()

# /metrics: a running topology's metrics, on the port the run prints at its start, pass
# Prometheus' own checker (promtool, Debian's prometheus package: scripts/install-deps.sh); the
# same server answers /api/v1/ in JSON.
find_program(PROMTOOL promtool)
find_program(CURL curl)
if(NOT PROMTOOL OR NOT CURL)
  message(FATAL_ERROR "curl and promtool are needed (scripts/install-deps.sh installs them)")
endif()
set(scraped ${CMAKE_CURRENT_BINARY_DIR}/metrics.txt)
set(summary ${CMAKE_CURRENT_BINARY_DIR}/summary.json)
# Scraped until the series asserted below are there: on 2 workers they come with the workers'
# heartbeats.
set(worker_up "tempest_worker_up{topology=\"paced\",worker=\"1\"} 1")
foreach(workers 1 2)
  set(wanted "tempest_emitted_total{topology=\"paced\",component=\"gen\",task=\"1\"} ")
  if(workers EQUAL 2)
    set(wanted "${worker_up}")
  endif()
  run_until("metrics at"
            "url=$(grep -o 'http://[^ ]*/metrics' \"$log\"); for i in $(seq 300); do '${CURL}' -sf -m 10 \"$url\" > '${scraped}' && grep -qF '${wanted}' '${scraped}' && grep -qF 'tempest_emitted_total{topology=\"paced\",component=\"gen\",task=\"1\"} ' '${scraped}' && break; sleep 0.1; done; '${CURL}' -sf -m 10 \"\${url%/metrics}/api/v1/topology/summary\" > '${summary}'"
            ${data}/cli/paced.yaml --set count=0 --progress-interval 0 --workers ${workers})
  file(READ ${summary} summary_json)
  file(REMOVE ${summary})
  string(JSON topology_name ERROR_VARIABLE json_error GET "${summary_json}" topologies 0 name)
  expect_eq("/api/v1/topology/summary's topology (${json_error})" "${topology_name}" "paced")
  expect_eq("metrics run (curl, then the run's) exit code" "${rc}" "0")
  if(NOT err MATCHES "\\[info\\] metrics at http://127\\.0\\.0\\.1:[0-9]+/metrics\n")
    message(FATAL_ERROR "the run did not print where its metrics are:\n${err}")
  endif()
  execute_process(COMMAND ${PROMTOOL} check metrics INPUT_FILE ${scraped}
                  OUTPUT_VARIABLE promtool_out ERROR_VARIABLE promtool_out RESULT_VARIABLE rc)
  file(READ ${scraped} metrics)
  file(REMOVE ${scraped})
  expect_eq("promtool check metrics exit code (${promtool_out})" "${rc}" "0")
  if(NOT metrics MATCHES "\ntempest_emitted_total{topology=\"paced\",component=\"gen\",task=\"1\"} [0-9]+\n")
    message(FATAL_ERROR "no emitted counter for the spout:\n${metrics}")
  endif()
  string(FIND "${metrics}" "\n${worker_up}\n" at)
  if(workers EQUAL 2 AND at EQUAL -1)
    message(FATAL_ERROR "no worker series on 2 workers:\n${metrics}")
  endif()
endforeach()
# The web UI's address carries the token that lets deactivate, activate and kill act; the token
# is kept in the run's 0700 folder; a killed run drains and ends with exit code 0.
foreach(workers 1 2)
  execute_process(COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/web_ui_actions.sh ${TEMPEST}
                          ${data}/cli/paced.yaml ${workers}
                  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  expect_eq("web UI actions on ${workers} workers (${out})" "${rc}" "0")
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
          "url=$(grep -o 'http://[^ ]*/metrics' \"$log\"); for i in $(seq 300); do '${CURL}' -sf -m 10 \"$url\" > '${scraped}' && ${has_all} && break; sleep 0.1; done"
          ${data}/process/gauges_worker.yaml --set count=0 --set plugin=${GAUGE_PLUGIN}
          --progress-interval 0 --workers 2)
expect_eq("user metrics run exit code" "${rc}" "0")
execute_process(COMMAND ${PROMTOOL} check metrics INPUT_FILE ${scraped}
                OUTPUT_VARIABLE promtool_out ERROR_VARIABLE promtool_out RESULT_VARIABLE rc)
file(READ ${scraped} metrics)
file(REMOVE ${scraped})
expect_eq("promtool check metrics of user metrics (${promtool_out})" "${rc}" "0")
foreach(series IN LISTS user_series)
  string(FIND "${metrics}" "\n${series}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no '${series}' in:\n${metrics}")
  endif()
endforeach()
if(NOT metrics MATCHES "\ntempest_dropped_by_cause_total{topology=\"process-gauges\",component=\"gauges\",task=\"[0-9]+\",cause=\"tenth\"} [1-9][0-9]*\n")
  message(FATAL_ERROR "no drops by cause in:\n${metrics}")
endif()
tempest(run ${data}/cli/paced.yaml --set count=10 --metrics-port 0)
if(err MATCHES "metrics at")
  message(FATAL_ERROR "--metrics-port 0 still serves metrics:\n${err}")
endif()
tempest(run ${data}/cli/paced.yaml --set count=10 --set topology.metrics.port=0)
if(err MATCHES "metrics at")
  message(FATAL_ERROR "topology.metrics.port 0 still serves metrics:\n${err}")
endif()
tempest(run ${data}/cli/paced.yaml --set count=10 --metrics-port 70000)
expect_eq("--metrics-port 70000 exit code" "${rc}" "2")

# On a terminal (script(1) gives the run one), a bounded run over a file shows a bar of the share
# of its input read and an ETA under the live lines, redrawn every second; this one takes at
# least 1.5 s (300 lines, 5 ms each in one bolt task).
set(lines ${CMAKE_CURRENT_BINARY_DIR}/lines.jsonl)
string(REPEAT "x" 90 pad)
set(text "")
foreach(i RANGE 1 300)
  string(APPEND text "{\"n\":${i},\"pad\":\"${pad}\"}\n")
endforeach()
file(WRITE ${lines} "${text}")
file(SIZE ${lines} size)
execute_process(COMMAND script -qec "'${TEMPEST}' run '${data}/cli/slow_file.yaml' --set input='${lines}'" /dev/null
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
file(REMOVE ${lines})
expect_eq("run on a terminal exit code" "${rc}" "0")
if(NOT out MATCHES "\n  input \\[[# ]+\\] [0-9]+% read")
  message(FATAL_ERROR "no input bar on the terminal:\n${out}")
endif()
if(NOT out MATCHES "lines: input bytes ${size}, input bytes read ${size}\r?\n")
  message(FATAL_ERROR "the summary does not show the input read:\n${out}")
endif()

# run: a failure while running exits 1 and says why.
tempest(run ${data}/cli/missing_input.yaml --quiet)
expect_eq("failed run exit code" "${rc}" "1")
if(NOT err MATCHES "^tempest: run failed: spout 'lines' task 1 failed to open: .*no_such_file.jsonl")
  message(FATAL_ERROR "unexpected failure message:\n${err}")
endif()

# poison tuples: past topology.spout.max.retries each is given up, counted, and the run exits 1.
tempest(run ${data}/cli/poison.yaml)
expect_eq("poison run exit code" "${rc}" "1")
if(NOT err MATCHES "gen: 20 tuples given up after topology.spout.max.retries\n.*gen: 0 trees acked, 80 failed \\(0 timed out\\), 60 replayed, 0 pending;.*\ntempest: 20 tuples failed past topology.spout.max.retries and were given up\n$")
  message(FATAL_ERROR "unexpected poison run output:\n${err}")
endif()
set(dead_letter ${CMAKE_CURRENT_BINARY_DIR}/poison_dead_letter.jsonl)
file(REMOVE ${dead_letter})
tempest(run ${data}/cli/poison_dead_letter.yaml --quiet --set dead_letter=${dead_letter})
expect_eq("dead-letter run exit code" "${rc}" "1")
file(STRINGS ${dead_letter} dead_lines)
list(LENGTH dead_lines dead_count)
expect_eq("dead-letter lines" "${dead_count}" "20")
foreach(i RANGE 19)
  string(REGEX MATCHALL "\"id\":${i}," found "${dead_lines}")
  list(LENGTH found n)
  expect_eq("dead-letter lines of id ${i}" "${n}" "1")
endforeach()
tempest(run ${data}/cli/sink_on_dev_full.yaml --quiet)
expect_eq("/dev/full run exit code" "${rc}" "1")
if(NOT err MATCHES "tempest: 50 tuples failed past topology.spout.max.retries and were given up\n$")
  message(FATAL_ERROR "unexpected /dev/full run output:\n${err}")
endif()

# a shared object that is not a plugin: exit 2, naming the missing entry point.
tempest(validate ${data}/cli/not_a_plugin.yaml --set plugin=${NOT_A_PLUGIN})
expect_eq("not-a-plugin exit code" "${rc}" "2")
expect_eq("not-a-plugin message" "${err}"
          "${data}/cli/not_a_plugin.yaml:2:11: plugins[0]: plugin \"${NOT_A_PLUGIN}\" has no tempest_plugin_register_v1 symbol: define it with TEMPEST_PLUGIN(registry) { ... } from tempest/plugin.h\n")
tempest(validate ${data}/cli/not_a_plugin.yaml --set plugin=${OTHER_VERSION_PLUGIN})
expect_eq("other-version plugin exit code" "${rc}" "2")
expect_eq("other-version plugin message" "${err}"
          "${data}/cli/not_a_plugin.yaml:2:11: plugins[0]: plugin \"${OTHER_VERSION_PLUGIN}\" was built against Tempest 0.0.7; this is Tempest ${VERSION} (major and minor versions must match): rebuild the plugin against it\n")

# Flux's simple_wordcount shape runs until SIGINT, then drains and exits 0 with its summary.
execute_process(COMMAND timeout -k 60 --preserve-status -s INT 2 ${TEMPEST} run
                        ${SOURCE_DIR}/examples/flux/simple_wordcount.yaml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
expect_eq("Ctrl-C exit code (${err})" "${rc}" "0")
if(NOT err MATCHES "spout-1 +1 +[1-9][0-9]* +0 +[1-9][0-9]* +0 +0\nbolt-1 +1")
  message(FATAL_ERROR "unexpected summary after SIGINT:\n${err}")
endif()

# The same runs as worker processes under a supervisor: the same output, the same exit codes.
tempest(run ${wc} --set plugin_dir=${PLUGIN_DIR} --quiet --workers 3)
expect_eq("word count on 3 workers exit code" "${rc}" "0")
if(NOT out MATCHES "^157 words, 72 distinct. Top 10:\n  the                 17\n  of                  12\n")
  message(FATAL_ERROR "unexpected word count output on 3 workers:\n${out}")
endif()
expect_eq("--quiet on 3 workers prints nothing" "${err}" "")
tempest(run ${data}/cli/quiet.yaml --workers 2 --transport tcp)
expect_eq("run on 2 workers exit code" "${rc}" "0")
if(NOT err MATCHES "gen +1 +1000 +0 +1000 +0 +0\nsink +1 +0 +1000 +1000 +0 +0\ngen: 1000 trees acked, 0 failed \\(0 timed out\\), 0 replayed, 0 pending; complete latency p50 [0-9]+ us, p99 [0-9]+ us\n2 worker processes, 0 restarted, 0 bad frames dropped\nfinished in")
  message(FATAL_ERROR "unexpected summary on 2 workers:\n${err}")
endif()
tempest(run ${data}/cli/missing_input.yaml --quiet --workers 2)
expect_eq("failed run on 2 workers exit code" "${rc}" "1")
if(NOT err MATCHES "^tempest: run failed: spout 'lines' task 1 failed to open: .*no_such_file.jsonl")
  message(FATAL_ERROR "unexpected failure message on 2 workers:\n${err}")
endif()
execute_process(COMMAND timeout -k 60 --preserve-status -s INT 2 ${TEMPEST} run
                        ${SOURCE_DIR}/examples/flux/simple_wordcount.yaml --workers 2
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
expect_eq("Ctrl-C on 2 workers exit code (${err})" "${rc}" "0")
if(NOT err MATCHES "spout-1 +1 +[1-9][0-9]* +0 +[1-9][0-9]* +0 +0\nbolt-1 +1.*2 worker processes, 0 restarted")
  message(FATAL_ERROR "unexpected summary after SIGINT on 2 workers:\n${err}")
endif()
tempest(worker ${data}/cli/quiet.yaml)
expect_eq("worker without the supervisor's flags exit code" "${rc}" "2")
expect_eq("worker without the supervisor's flags message" "${err}"
          "tempest: worker: a worker is started by `tempest run` (TEMPEST_WORKER is not set)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E env TEMPEST_WORKER=--worker-index
                        ${TEMPEST} run ${data}/cli/quiet.yaml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
expect_eq("worker with bad flags exit code" "${rc}" "2")
expect_eq("worker with bad flags message" "${err}"
          "tempest: worker flag --worker-index has no value\n")

# --version; logs never reach stdout, and --log-file takes them (the workers' too).
tempest(--version)
expect_eq("--version exit code" "${rc}" "0")
if(NOT out MATCHES "^tempest [0-9]+\\.[0-9]+\\.[0-9]+\n$")
  message(FATAL_ERROR "unexpected --version output:\n${out}")
endif()

# StdoutSink's rows alone on stdout, whatever is logged (in one process and on 2 workers, whose
# logs the supervisor relays): jq parses every line and finds each id once.
foreach(workers 1 2)
  execute_process(COMMAND ${TEMPEST} run ${data}/cli/stdout_sink_with_errors.yaml
                          --workers ${workers}
                  COMMAND jq -c .id
                  OUTPUT_VARIABLE ids ERROR_VARIABLE err RESULT_VARIABLE rc)
  expect_eq("jq over stdout on ${workers} workers: exit codes" "${rc}" "0")
  string(REGEX MATCHALL "[0-9]+\n" id_lines "${ids}")
  list(REMOVE_DUPLICATES id_lines)
  list(LENGTH id_lines distinct)
  expect_eq("distinct ids on stdout on ${workers} workers" "${distinct}" "300")
  if(NOT err MATCHES "\\[error\\] component 'chaos' task [0-9]+: ")
    message(FATAL_ERROR "the bolt's errors are not logged on stderr (${workers} workers):\n${err}")
  endif()
endforeach()
set(log ${CMAKE_CURRENT_BINARY_DIR}/cli_test_run.log)
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

# usage errors exit 2, with a message that says what is wrong.
tempest(run ${data}/cli/quiet.yaml --workers 0)
expect_eq("--workers 0 exit code" "${rc}" "2")
if(NOT err MATCHES "^--workers: Value 0 not in range 1 to 2147483647\n")
  message(FATAL_ERROR "unexpected --workers 0 message:\n${err}")
endif()
tempest(validate ${data}/cli)
expect_eq("a directory as the topology exit code" "${rc}" "2")
expect_eq("a directory as the topology message" "${err}"
          "${data}/cli: is a directory, not a topology file\n")
tempest(run)
expect_eq("usage exit code" "${rc}" "2")
tempest(run ${data}/cli/quiet.yaml --set novalue)
expect_eq("bad --set exit code" "${rc}" "2")
message(STATUS "tempest CLI: all checks passed")
