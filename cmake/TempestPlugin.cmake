# tempest_add_plugin(NAME SOURCES...): a Tempest plugin, the shared module a topology file lists
# under `plugins:` (NAME.so, no "lib" prefix), compiled as C++20 against Tempest::tempest.
function(tempest_add_plugin name)
  if(NOT ARGN)
    message(FATAL_ERROR "tempest_add_plugin(${name}): no source files")
  endif()
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE Tempest::tempest)
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
endfunction()
