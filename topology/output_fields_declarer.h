#pragma once

// The declarer lives in tempest/output_fields_declarer.h; this is what the modules include.
#include "tempest/output_fields_declarer.h"
