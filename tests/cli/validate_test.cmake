# The `tempest` command as a user runs it: validate, graph, plugins that fail to load, usage.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

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


# a shared object that is not a plugin: exit 2, naming the missing entry point.
tempest(validate ${data}/cli/not_a_plugin.yaml --set plugin=${NOT_A_PLUGIN})
expect_eq("not-a-plugin exit code" "${rc}" "2")
expect_eq("not-a-plugin message" "${err}"
          "${data}/cli/not_a_plugin.yaml:2:11: plugins[0]: plugin \"${NOT_A_PLUGIN}\" has no tempest_plugin_register_v1 symbol: define it with TEMPEST_PLUGIN(registry) { ... } from tempest/plugin.h\n")
tempest(validate ${data}/cli/not_a_plugin.yaml --set plugin=${OTHER_VERSION_PLUGIN})
expect_eq("other-version plugin exit code" "${rc}" "2")
expect_eq("other-version plugin message" "${err}"
          "${data}/cli/not_a_plugin.yaml:2:11: plugins[0]: plugin \"${OTHER_VERSION_PLUGIN}\" was built against Tempest 0.0.7; this is Tempest ${VERSION} (major and minor versions must match): rebuild the plugin against it\n")


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

# --version; logs never reach stdout, and --log-file takes them (the workers' too).
tempest(--version)
expect_eq("--version exit code" "${rc}" "0")
if(NOT out MATCHES "^tempest [0-9]+\\.[0-9]+\\.[0-9]+\n$")
  message(FATAL_ERROR "unexpected --version output:\n${out}")
endif()
