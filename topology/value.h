#pragma once

// The public part lives in tempest/value.h; this header is what the modules include.
#include "tempest/value.h"
