// The plugin that gives `tempest worker` processes the test's own bolts.
#include "ack_mix_bolt.h"
#include "gauge_bolt.h"
#include "topology/plugin.h"

TEMPEST_PLUGIN(registry) {
  tempest::testing::RegisterGaugeBolt(registry);
  tempest::testing::RegisterAckMixBolt(registry);
}
