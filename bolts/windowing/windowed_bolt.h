#pragma once

// WindowedBolt lives in tempest/windowed_bolt.h; this header is what the modules include.
#include "bolts/windowing/window_config.h"
#include "tempest/windowed_bolt.h"
#include "topology/bolt.h"
