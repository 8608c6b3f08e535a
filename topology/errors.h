#pragma once

// The public part lives in tempest/errors.h; this header is what the modules include.
#include "tempest/errors.h"
