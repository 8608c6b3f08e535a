// The plugin that gives `tempest worker` processes the test's GaugeBolt.
#include "gauge_bolt.h"
#include "topology/plugin.h"

TEMPEST_PLUGIN(registry) { tempest::testing::RegisterGaugeBolt(registry); }
