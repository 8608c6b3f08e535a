// A plugin built against another minor version of Tempest: loading it must be refused, naming
// both versions. (Written by hand: TEMPEST_PLUGIN would record this tree's version.)
#include "tempest/plugin.h"

extern "C" const char* tempest_plugin_version() { return "0.0.7"; }
extern "C" void tempest_plugin_register_v1(::tempest::topology::ComponentRegistry&) {}
