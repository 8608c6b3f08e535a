#pragma once

// Tempest's public API, all of it: what a program, a bolt, a spout or a plugin includes. Every
// name is in namespace tempest. Nothing else is installed; the rest of Tempest is internal.
#include "tempest/basic_bolt.h"              // BasicBolt, BasicOutputCollector, AdaptBasicBolt
#include "tempest/bolt.h"                    // Bolt, BoltFactory
#include "tempest/clock.h"                   // SystemMillis
#include "tempest/config.h"                  // TopologyConfig, ConfigReader, ConfigError
#include "tempest/errors.h"                  // InvalidTopologyException, FailedException
#include "tempest/fields.h"                  // Fields, GlobalStreamId, StreamSchema
#include "tempest/grouping.h"                // GroupingType, CustomStreamGrouping
#include "tempest/joins.h"                   // JoinBoltBuilder, IntervalJoinBoltBuilder, ...
#include "tempest/metrics.h"                 // Counter, Meter, Gauge, Histogram
#include "tempest/output_collector.h"        // OutputCollector, SpoutOutputCollector
#include "tempest/output_fields_declarer.h"  // OutputFieldsDeclarer
#include "tempest/plugin.h"                  // ComponentRegistry, TEMPEST_PLUGIN
#include "tempest/run.h"                     // RunTopology
#include "tempest/spout.h"                   // Spout, NextResult, SpoutFactory
#include "tempest/topology_builder.h"        // TopologyBuilder, BoltDeclarer
#include "tempest/topology_context.h"        // TopologyContext
#include "tempest/tuple.h"                   // Tuple
#include "tempest/value.h"                   // Value, Values
#include "tempest/version.h"                 // TEMPEST_VERSION, LibraryVersion
#include "tempest/windowed_bolt.h"           // WindowedBolt, TupleWindow, WindowConfig
