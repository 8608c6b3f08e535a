#pragma once

// The public Spout lives in tempest/spout.h; this header is what the modules include.
#include "tempest/spout.h"
#include "topology/output_collector.h"
