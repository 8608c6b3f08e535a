#pragma once

// The clock lives in tempest/clock.h; this header is what the modules include.
#include "tempest/clock.h"
