# The `tempest` command as a user runs it: worker processes under a supervisor, and Ctrl-C.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# Flux's simple_wordcount shape runs until SIGINT, then drains and exits 0 with its summary. The
# signal goes to the run alone, once, as a terminal's Ctrl-C does (`timeout -s INT` may deliver
# it twice: to the run, then to its process group, and a second SIGINT is "exit at once").
set(flux_wc ${SOURCE_DIR}/examples/flux/simple_wordcount.yaml)
stop_run(bolt-1:default true INT 1 ${flux_wc})
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
stop_run(bolt-1:default true INT 1 ${flux_wc} --workers 2)
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
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT ${step_timeout})
expect_eq("worker with bad flags exit code" "${rc}" "2")
expect_eq("worker with bad flags message" "${err}"
          "tempest: worker flag --worker-index has no value\n")
