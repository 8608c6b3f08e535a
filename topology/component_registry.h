#pragma once

// The registry lives in tempest/plugin.h; this header is what the modules include.
#include "tempest/plugin.h"
