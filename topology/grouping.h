#pragma once

// The public part lives in tempest/grouping.h; this header is what the modules include.
#include "tempest/grouping.h"
