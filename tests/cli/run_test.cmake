# The `tempest` command as a user runs it: runs to their end, their summary and progress lines.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

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

# An unbounded run (count 0) shows its progress too: stopped after its first progress line.
run_until("^progress" true ${data}/cli/paced.yaml --set count=0 --progress-interval 0.2)
expect_eq("stopped unbounded run exit code" "${rc}" "0")
if(NOT err MATCHES "\n${progress_line}")
  message(FATAL_ERROR "an unbounded run printed no progress line:\n${err}")
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
set(lines ${work}/lines.jsonl)
string(REPEAT "x" 90 pad)
set(text "")
foreach(i RANGE 1 300)
  string(APPEND text "{\"n\":${i},\"pad\":\"${pad}\"}\n")
endforeach()
file(WRITE ${lines} "${text}")
file(SIZE ${lines} size)
execute_process(COMMAND script -qec "'${TEMPEST}' run '${data}/cli/slow_file.yaml' --set input='${lines}'" /dev/null
                OUTPUT_VARIABLE out RESULT_VARIABLE rc TIMEOUT ${step_timeout})
file(REMOVE ${lines})
expect_eq("run on a terminal exit code" "${rc}" "0")
if(NOT out MATCHES "\n  input \\[[# ]+\\] [0-9]+% read")
  message(FATAL_ERROR "no input bar on the terminal:\n${out}")
endif()
if(NOT out MATCHES "lines: input bytes ${size}, input bytes read ${size}\r?\n")
  message(FATAL_ERROR "the summary does not show the input read:\n${out}")
endif()
