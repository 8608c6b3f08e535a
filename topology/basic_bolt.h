#pragma once

// BasicBolt lives in tempest/basic_bolt.h; this header is what the modules include.
#include "tempest/basic_bolt.h"
#include "topology/bolt.h"
