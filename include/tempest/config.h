#pragma once

// Topology settings, and the reader of a component's `config` map that plugins use (part of
// Tempest's public API, tempest/tempest.h).

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tempest/value.h"

namespace tempest::topology {

// The largest topology.executor.receive.buffer.size the loader accepts (4 GiB of queued tuples
// per task): a larger value is a typo, not a setting.
inline constexpr int kMaxReceiveBufferSize = 1 << 24;

// Topology-wide settings; the names mirror Storm's config keys.
struct TopologyConfig {
  int workers = 1;                // topology.workers: worker processes of a run
  int acker_executors = -1;       // topology.acker.executors: -1 = one per worker, 0 = ack at emit
  int max_spout_pending = 0;      // topology.max.spout.pending: 0 = unlimited
  int message_timeout_secs = 30;  // topology.message.timeout.secs
  // topology.spout.max.retries: replays of a failed message id before the spout gives it up
  // (acks it, counts and logs it; the run then exits 1); -1 = no limit
  int max_spout_retries = -1;
  // topology.spout.retry.delay.ms / topology.spout.retry.max.delay.ms: a failed message id
  // replays after delay * 2^(failures - 1), at most max.delay (Storm's KafkaSpout back-off)
  int spout_retry_delay_ms = 2;
  int spout_retry_max_delay_ms = 10000;
  // supervisor.worker.timeout.secs: a worker process silent this long is killed and restarted
  int worker_timeout_secs = 30;
  bool debug = false;  // topology.debug: log every emit
  // topology.wait.yield.micros: a task out of input yields the CPU for up to this long before
  // it sleeps (as Storm's progressive wait strategy does); 0 sleeps at once
  int wait_yield_micros = 30;
  // topology.executor.receive.buffer.size: tuples a task's inbound queue holds before its
  // producers block (and a worker's credit towards each remote task); 0 = the run's
  // LocalRunOptions::queue_capacity (16,384)
  int receive_buffer_size = 0;
  // topology.chaining: run a bolt task whose only input is one bolt task of the same process on
  // that task's thread (Flink's operator chaining), instead of on its own
  bool chaining = false;
  // topology.window.memory.budget.mb: a window that can hold more than this is warned about (a
  // count window when the topology loads, any window once it holds that much); 0 = no warning
  int window_memory_budget_mb = 1024;
  // topology.window.memory.limit.mb: a count window that can hold more than this is a load
  // error; 0 = no limit
  int window_memory_limit_mb = 0;
  // topology.metrics.port: the port of the run's Prometheus endpoint /metrics; -1 = a free one
  // (printed at the start), 0 = none
  int metrics_port = -1;
  // topology.metrics.host: the address /metrics listens on; only this machine can reach the
  // default
  std::string metrics_host = "127.0.0.1";
  // Any other key of the topology file's `config` (users' own settings), in file order.
  std::vector<std::pair<std::string, Value>> extra;
};

// Where a node of a topology file starts (1-based); line 0 when it did not come from a file.
struct SourceMark {
  std::string file;
  int line = 0;
  int column = 0;
};

struct ConfigMember;

// A YAML subtree as plain data, with the position and YAML path of every node, so errors can
// say "wc.yaml:14:7: streams[2].grouping.args: …". The YAML loader builds it; component makers
// read it through ConfigReader. Immutable value type.
struct ConfigNode {
  enum class Kind { kNull, kScalar, kSequence, kMap };
  Kind kind = Kind::kNull;
  std::string scalar;                 // kScalar: the text as written
  bool quoted = false;                // kScalar: written in quotes, so always a string
  std::vector<ConfigNode> items;      // kSequence
  std::vector<ConfigMember> members;  // kMap, in document order
  SourceMark mark;
  SourceMark key_mark;  // for a map member: where its key is written
  std::string path;     // from the document root, e.g. "bolts[1].config.fields"

  const ConfigNode* Find(std::string_view key) const noexcept;
  // "a string \"abc\"", "an integer 12", "a list", "a map", "null": for "found …" messages.
  std::string Describe() const;
  // The typed value: plain scalars become int, double, bool or null when they read as one
  // (YAML 1.2 core schema), everything else a string; lists and maps convert recursively.
  Value ToValue() const;
};

// One key of a map node and its value.
struct ConfigMember {
  ConfigMember(std::string key, ConfigNode value)
      : first(std::move(key)), second(std::move(value)) {}
  std::string first;
  ConfigNode second;
};

// An error in a topology file or component config: "file:line:column: path: message".
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const ConfigNode& at, const std::string& message);
  ConfigError(const SourceMark& mark, const std::string& path, const std::string& message);
};

// `did you mean "x"?` for the closest candidate within a small edit distance, else "".
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

// Reads one config map into a config struct: each getter names a key, checks its type and
// records it as known; Finish() then rejects every key nobody asked for, with a "did you mean".
// Absent keys give the fallback. Errors are ConfigError at the offending value (or, for a missing
// required key, at the map).
class ConfigReader {
 public:
  // `map` may be a map or null (no keys).
  explicit ConfigReader(const ConfigNode& map);

  int64_t Int(std::string_view key, int64_t fallback);
  // An integer >= minimum.
  int64_t IntAtLeast(std::string_view key, int64_t fallback, int64_t minimum);
  double Double(std::string_view key, double fallback);
  bool Bool(std::string_view key, bool fallback);
  std::string String(std::string_view key, std::string fallback);
  std::string RequiredString(std::string_view key);
  // A list of strings; absent: empty.
  std::vector<std::string> StringList(std::string_view key);
  // The raw node (nullptr if absent), recorded as known.
  const ConfigNode* Node(std::string_view key);
  bool Has(std::string_view key) const noexcept { return map_.Find(key) != nullptr; }

  // Throws ConfigError at key's value (or at the map when the key is absent).
  [[noreturn]] void Fail(std::string_view key, const std::string& message) const;
  // Rejects keys that no getter asked for.
  void Finish() const;

  const ConfigNode& node() const noexcept { return map_; }

 private:
  const ConfigNode* Use(std::string_view key);

  const ConfigNode& map_;
  std::vector<std::string> known_;
};

// Scalar readers shared by the loader: throw ConfigError "expected …, found …".
int64_t ReadInt(const ConfigNode& node);
double ReadDouble(const ConfigNode& node);
bool ReadBool(const ConfigNode& node);
const std::string& ReadString(const ConfigNode& node);
std::vector<std::string> ReadStringList(const ConfigNode& node);

}  // namespace tempest::topology

namespace tempest {
using topology::ConfigError;
using topology::ConfigNode;
using topology::ConfigReader;
using topology::TopologyConfig;
}  // namespace tempest
