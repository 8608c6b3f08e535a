#pragma once

// The public part lives in tempest/config.h; this header is what the modules include.
#include "tempest/config.h"
