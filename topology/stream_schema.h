#pragma once

// The public part lives in tempest/fields.h; this header is what the modules include.
#include "tempest/fields.h"
