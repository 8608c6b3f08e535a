#pragma once

// TopologyBuilder lives in tempest/topology_builder.h; this is what the modules include.
#include "tempest/topology_builder.h"
#include "topology/basic_bolt.h"
#include "topology/topology_spec.h"
