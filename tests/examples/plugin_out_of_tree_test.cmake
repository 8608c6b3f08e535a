# Installs Tempest from BUILD_DIR into a scratch prefix, builds the word count plugin as an
# out-of-tree project against it (find_package(Tempest)), and runs the YAML word count with the
# installed `tempest` and that plugin.
set(work ${BUILD_DIR}/plugin-out-of-tree)
file(REMOVE_RECURSE ${work})
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${work}/prefix)
step("configure the plugin" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/word_count/plugin
     -B ${work}/build -G Ninja -DCMAKE_PREFIX_PATH=${work}/prefix -DCMAKE_BUILD_TYPE=Release)
step("build the plugin" ${CMAKE_COMMAND} --build ${work}/build)
step("run the word count" ${work}/prefix/bin/tempest run
     ${SOURCE_DIR}/examples/word_count/word_count.yaml --set plugin_dir=${work}/build --quiet)
if(NOT out MATCHES "^157 words, 72 distinct. Top 10:\n  the                 17\n")
  message(FATAL_ERROR "unexpected output of the installed tempest with the plugin:\n${out}")
endif()
file(REMOVE_RECURSE ${work})
message(STATUS "out-of-tree plugin: built against the installed package and loaded")
