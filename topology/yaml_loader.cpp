#include "topology/yaml_loader.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <sstream>

#include "topology/bolt.h"
#include "topology/config_node.h"
#include "topology/errors.h"
#include "topology/plugin.h"
#include "topology/spout.h"

namespace tempest::topology {
namespace {

namespace fs = std::filesystem;
using Kind = ConfigNode::Kind;

// ---------------------------------------------------------------------------------------------
// YAML text → ConfigNode with marks and paths.

std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}
std::string Item(const std::string& path, std::size_t i) { return fmt::format("{}[{}]", path, i); }

// YAML aliases are expanded as the document is converted: an alias that contains itself, or
// aliases nested inside aliases ("billion laughs"), would recurse forever or exhaust memory, so
// the nesting depth and the values expanded are bounded.
constexpr int kMaxYamlDepth = 64;
constexpr std::size_t kMaxYamlValues = 1'000'000;

struct ConvertBudget {
  std::size_t values_left = kMaxYamlValues;
};

ConfigNode Convert(const YAML::Node& node, const std::string& file, const std::string& path,
                   ConvertBudget& budget, int depth = 0) {
  ConfigNode out;
  out.mark = SourceMark{file, node.Mark().line + 1, node.Mark().column + 1};
  out.path = path;
  if (depth > kMaxYamlDepth) {
    throw ConfigError(out, fmt::format("nested deeper than {} levels (an alias that contains "
                                       "itself?)",
                                       kMaxYamlDepth));
  }
  if (budget.values_left-- == 0) {
    throw ConfigError(out, fmt::format("the document expands to more than {} values (aliases "
                                       "repeated inside aliases?)",
                                       kMaxYamlValues));
  }
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.kind = Kind::kNull;
      break;
    case YAML::NodeType::Scalar:
      out.kind = Kind::kScalar;
      out.scalar = node.Scalar();
      out.quoted = node.Tag() == "!";
      break;
    case YAML::NodeType::Sequence:
      out.kind = Kind::kSequence;
      for (std::size_t i = 0; i < node.size(); ++i) {
        out.items.push_back(Convert(node[i], file, Item(path, i), budget, depth + 1));
      }
      break;
    case YAML::NodeType::Map:
      out.kind = Kind::kMap;
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          throw ConfigError(SourceMark{file, kv.first.Mark().line + 1, kv.first.Mark().column + 1},
                            path, "expected a plain key, found a list or map used as a key");
        }
        const std::string key = kv.first.Scalar();
        if (out.Find(key) != nullptr) {
          throw ConfigError(SourceMark{file, kv.first.Mark().line + 1, kv.first.Mark().column + 1},
                            Child(path, key), fmt::format("duplicate key \"{}\"", key));
        }
        ConfigNode value = Convert(kv.second, file, Child(path, key), budget, depth + 1);
        value.key_mark = SourceMark{file, kv.first.Mark().line + 1, kv.first.Mark().column + 1};
        out.members.emplace_back(key, std::move(value));
      }
      break;
  }
  return out;
}

// Reads a topology file of at most `max_bytes` (read in bounded steps: a device or a pipe has no
// size to check first).
std::string ReadTopologyText(const std::string& file, std::size_t max_bytes) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    throw ConfigError(SourceMark{file, 0, 0}, "", "is a directory, not a topology file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(SourceMark{file, 0, 0}, "", "cannot read the file");
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      throw ConfigError(
          SourceMark{file, 0, 0}, "",
          fmt::format("larger than {} bytes (--max-file-bytes): not a topology file", max_bytes));
    }
  }
  return text;
}

ConfigNode ReadYaml(const std::string& file, std::size_t max_bytes) {
  const std::string text = ReadTopologyText(file, max_bytes);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(SourceMark{file, e.mark.line + 1, e.mark.column + 1}, "",
                      fmt::format("YAML syntax error: {}", e.msg));
  }
  ConvertBudget budget;
  ConfigNode node = Convert(root, file, "", budget);
  if (node.kind == Kind::kNull) node.kind = Kind::kMap;  // an empty file
  if (node.kind != Kind::kMap) {
    throw ConfigError(node, fmt::format("expected a map at the top of the file (name, config, "
                                        "spouts, bolts, streams), found {}",
                                        node.Describe()));
  }
  return node;
}

// ---------------------------------------------------------------------------------------------
// Flux includes: `includes: [{resource: false, file: base.yaml, override: false}]`.

const ConfigNode* ComponentIdOf(const ConfigNode& component) {
  return component.kind == Kind::kMap ? component.Find("id") : nullptr;
}

// Merges `from` (an included file) into `into`. Without override the including file wins.
void Merge(ConfigNode& into, const ConfigNode& from, bool override) {
  for (const auto& [key, value] : from.members) {
    ConfigNode* mine = nullptr;
    for (auto& [k, v] : into.members) {
      if (k == key) mine = &v;
    }
    if (mine == nullptr) {
      into.members.emplace_back(key, value);
      continue;
    }
    if (key == "config" && mine->kind == Kind::kMap && value.kind == Kind::kMap) {
      Merge(*mine, value, override);
    } else if ((key == "spouts" || key == "bolts") && mine->kind == Kind::kSequence &&
               value.kind == Kind::kSequence) {
      for (const ConfigNode& c : value.items) {
        const ConfigNode* id = ComponentIdOf(c);
        auto same = std::find_if(mine->items.begin(), mine->items.end(), [&](const ConfigNode& m) {
          const ConfigNode* mid = ComponentIdOf(m);
          return id != nullptr && mid != nullptr && mid->scalar == id->scalar;
        });
        if (same == mine->items.end()) {
          mine->items.push_back(c);
        } else if (override) {
          *same = c;
        }
      }
    } else if ((key == "streams" || key == "plugins") && mine->kind == Kind::kSequence &&
               value.kind == Kind::kSequence) {
      mine->items.insert(mine->items.end(), value.items.begin(), value.items.end());
    } else if (override) {
      *mine = value;
    }
  }
}

ConfigNode LoadWithIncludes(const std::string& file, std::vector<std::string>& stack,
                            std::size_t max_bytes) {
  const std::string canonical = fs::weakly_canonical(file).string();
  if (std::find(stack.begin(), stack.end(), canonical) != stack.end()) {
    throw ConfigError(
        SourceMark{file, 0, 0}, "",
        fmt::format("includes form a cycle: {} -> {}", fmt::join(stack, " -> "), canonical));
  }
  stack.push_back(canonical);
  ConfigNode root = ReadYaml(file, max_bytes);
  auto includes_it = std::find_if(root.members.begin(), root.members.end(),
                                  [](const auto& m) { return m.first == "includes"; });
  if (includes_it != root.members.end()) {
    const ConfigNode includes = includes_it->second;
    root.members.erase(includes_it);
    if (includes.kind != Kind::kSequence && includes.kind != Kind::kNull) {
      throw ConfigError(includes,
                        fmt::format("expected a list of includes, found {}", includes.Describe()));
    }
    for (const ConfigNode& inc : includes.items) {
      std::string path;
      bool override = false;
      if (inc.kind == Kind::kScalar) {
        path = inc.scalar;
      } else {
        ConfigReader r(inc);
        if (r.Bool("resource", false)) {
          r.Fail("resource", "classpath resources do not exist in Tempest; name a file");
        }
        path = r.RequiredString("file");
        override = r.Bool("override", false);
        r.Finish();
      }
      const fs::path target =
          fs::path(path).is_absolute() ? fs::path(path) : fs::path(file).parent_path() / path;
      if (!fs::exists(target)) {
        throw ConfigError(inc, fmt::format("included file \"{}\" does not exist", target.string()));
      }
      if (fs::is_directory(target)) {
        throw ConfigError(inc, fmt::format("included file \"{}\" is a directory, not a topology "
                                           "file",
                                           target.string()));
      }
      Merge(root, LoadWithIncludes(target.string(), stack, max_bytes), override);
    }
  }
  stack.pop_back();
  return root;
}

// ---------------------------------------------------------------------------------------------
// ${...} substitution.

class Properties {
 public:
  Properties(const LoadOptions& options)
      : env_(options.env_filter), max_file_bytes_(options.max_file_bytes) {
    root_.kind = Kind::kMap;
    if (!options.filter_file.empty()) LoadFilter(options.filter_file);
    for (const auto& [k, v] : options.set) Set(k, v, SourceMark{"--set", 0, 0});
  }

  // Replaces ${...} in every scalar of `node`, recursively.
  void Substitute(ConfigNode& node) const {
    switch (node.kind) {
      case Kind::kNull:
        return;
      case Kind::kSequence:
        for (ConfigNode& item : node.items) Substitute(item);
        return;
      case Kind::kMap:
        for (auto& [k, v] : node.members) Substitute(v);
        return;
      case Kind::kScalar:
        break;
    }
    const std::string& s = node.scalar;
    if (s.find("${") == std::string::npos) return;
    // A scalar that is exactly one reference takes the property's whole node (lists, maps).
    if (s.starts_with("${") && s.ends_with("}") && s.find("${", 2) == std::string::npos) {
      const ConfigNode& value = Lookup(node, s.substr(2, s.size() - 3));
      const std::string path = node.path;
      const SourceMark mark = node.mark;
      node = value;
      Repath(node, path, mark);
      return;
    }
    std::string out;
    std::size_t pos = 0;
    while (pos < s.size()) {
      const std::size_t start = s.find("${", pos);
      if (start == std::string::npos) {
        out += s.substr(pos);
        break;
      }
      const std::size_t end = s.find('}', start);
      if (end == std::string::npos) {
        throw ConfigError(node, fmt::format("unterminated \"${{\" in \"{}\"", s));
      }
      out += s.substr(pos, start - pos);
      const ConfigNode& value = Lookup(node, s.substr(start + 2, end - start - 2));
      if (value.kind != Kind::kScalar) {
        throw ConfigError(node,
                          fmt::format("property \"{}\" is {}, which cannot be part of a "
                                      "string",
                                      s.substr(start + 2, end - start - 2), value.Describe()));
      }
      out += value.scalar;
      pos = end + 1;
    }
    node.scalar = out;
  }

 private:
  void Set(const std::string& key, const std::string& value, const SourceMark& mark) {
    ConfigNode n;
    n.kind = Kind::kScalar;
    n.scalar = value;
    n.mark = mark;
    n.path = key;
    for (auto& [k, v] : root_.members) {
      if (k == key) {
        v = n;
        return;
      }
    }
    root_.members.emplace_back(key, n);
  }

  void LoadFilter(const std::string& file) {
    const std::string ext = fs::path(file).extension().string();
    if (ext == ".yaml" || ext == ".yml") {
      root_ = ReadYaml(file, max_file_bytes_);
      return;
    }
    std::ifstream in(file);
    if (!in) throw ConfigError(SourceMark{file, 0, 0}, "", "cannot read the --filter file");
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#' || line[first] == '!') continue;
      const auto sep = line.find_first_of("=:", first);
      if (sep == std::string::npos) {
        throw ConfigError(SourceMark{file, n, static_cast<int>(first) + 1}, "",
                          fmt::format("expected KEY=VALUE, found \"{}\"", line.substr(first)));
      }
      auto trim = [](std::string t) {
        const auto b = t.find_first_not_of(" \t\r");
        const auto e = t.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
      };
      Set(trim(line.substr(first, sep - first)), trim(line.substr(sep + 1)),
          SourceMark{file, n, static_cast<int>(first) + 1});
    }
  }

  // "name", "a.b", "list[2]", "ENV-NAME".
  const ConfigNode& Lookup(const ConfigNode& at, const std::string& name) const {
    if (name.starts_with("ENV-")) {
      if (!env_) {
        throw ConfigError(at, fmt::format("\"${{{}}}\" reads the environment, which needs "
                                          "--env-filter",
                                          name));
      }
      const char* value = std::getenv(name.substr(4).c_str());
      if (value == nullptr) {
        throw ConfigError(at, fmt::format("environment variable {} is not set", name.substr(4)));
      }
      env_values_.push_back(std::make_unique<ConfigNode>());
      ConfigNode& n = *env_values_.back();
      n.kind = Kind::kScalar;
      n.scalar = value;
      return n;
    }
    if (const ConfigNode* whole = root_.Find(name)) return *whole;
    const ConfigNode* cur = &root_;
    std::size_t pos = 0;
    while (cur != nullptr && pos < name.size()) {
      if (name[pos] == '[') {
        const auto close = name.find(']', pos);
        if (close == std::string::npos || cur->kind != Kind::kSequence) {
          cur = nullptr;
          break;
        }
        const std::size_t index =
            std::strtoul(name.substr(pos + 1, close - pos - 1).c_str(), nullptr, 10);
        cur = index < cur->items.size() ? &cur->items[index] : nullptr;
        pos = close + 1;
        if (pos < name.size() && name[pos] == '.') ++pos;
      } else {
        const auto end = name.find_first_of(".[", pos);
        const std::string key = name.substr(pos, end == std::string::npos ? end : end - pos);
        cur = cur->kind == Kind::kMap ? cur->Find(key) : nullptr;
        pos = end == std::string::npos ? name.size() : end;
        if (pos < name.size() && name[pos] == '.') ++pos;
      }
    }
    if (cur == nullptr) {
      throw ConfigError(at, fmt::format("undefined property \"{}\" (define it in a --filter file "
                                        "or with --set {}=VALUE)",
                                        name, name));
    }
    return *cur;
  }

  static void Repath(ConfigNode& node, const std::string& path, const SourceMark& mark) {
    node.path = path;
    node.mark = mark;
    for (std::size_t i = 0; i < node.items.size(); ++i) Repath(node.items[i], Item(path, i), mark);
    for (auto& [k, v] : node.members) Repath(v, Child(path, k), mark);
  }

  ConfigNode root_;
  bool env_;
  std::size_t max_file_bytes_;
  mutable std::vector<std::unique_ptr<ConfigNode>> env_values_;
};

// ---------------------------------------------------------------------------------------------
// Building the spec.

const std::vector<std::string> kTopLevelKeys = {"name",   "config", "plugins", "includes",
                                                "spouts", "bolts",  "streams"};

const std::map<std::string, GroupingType>& GroupingTypes() {
  static const std::map<std::string, GroupingType> kTypes = {
      {"SHUFFLE", GroupingType::kShuffle},
      {"FIELDS", GroupingType::kFields},
      {"ALL", GroupingType::kAll},
      {"GLOBAL", GroupingType::kGlobal},
      {"NONE", GroupingType::kNone},
      {"DIRECT", GroupingType::kDirect},
      {"LOCAL_OR_SHUFFLE", GroupingType::kLocalOrShuffle},
      {"PARTIAL_KEY", GroupingType::kPartialKey}};
  return kTypes;
}

std::string Join(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

// An IPv4 or IPv6 address in numeric form (a listening address: no name lookup).
std::string ReadIpAddress(const ConfigNode& node) {
  std::string text = ReadString(node);
  unsigned char buf[sizeof(in6_addr)];
  if (inet_pton(AF_INET, text.c_str(), buf) != 1 && inet_pton(AF_INET6, text.c_str(), buf) != 1) {
    throw ConfigError(node, fmt::format("expected an IP address such as 127.0.0.1 or ::1, found "
                                        "\"{}\"",
                                        text));
  }
  return text;
}

void ReadTopologyConfig(const ConfigNode& node, TopologyConfig& config) {
  if (node.kind == Kind::kNull) return;
  if (node.kind != Kind::kMap) {
    throw ConfigError(node, fmt::format("expected a map of settings, found {}", node.Describe()));
  }
  static const std::vector<std::string> kKnown = {"topology.workers",
                                                  "topology.acker.executors",
                                                  "topology.max.spout.pending",
                                                  "topology.message.timeout.secs",
                                                  "topology.spout.max.retries",
                                                  "topology.spout.retry.delay.ms",
                                                  "topology.spout.retry.max.delay.ms",
                                                  "topology.debug",
                                                  "topology.wait.yield.micros",
                                                  "topology.executor.receive.buffer.size",
                                                  "topology.chaining",
                                                  "topology.window.memory.budget.mb",
                                                  "topology.window.memory.limit.mb",
                                                  "topology.metrics.port",
                                                  "topology.metrics.host",
                                                  "supervisor.worker.timeout.secs"};
  for (const ConfigMember& member : node.members) {
    const std::string& key = member.first;
    const ConfigNode& value = member.second;
    auto between = [&](int64_t minimum, int64_t maximum) {
      const int64_t v = ReadInt(value);
      if (v < minimum || v > maximum) {
        // An open-ended setting names its minimum; a value past an int gets the whole range.
        const std::string range = maximum == std::numeric_limits<int>::max() && v < minimum
                                      ? fmt::format(">= {}", minimum)
                                      : fmt::format("from {} to {}", minimum, maximum);
        throw ConfigError(value, fmt::format("expected an integer {}, found {}", range, v));
      }
      return static_cast<int>(v);
    };
    auto at_least = [&](int64_t minimum) {
      return between(minimum, std::numeric_limits<int>::max());
    };
    if (key == "topology.workers") {
      config.workers = at_least(1);
    } else if (key == "topology.acker.executors") {
      config.acker_executors = at_least(-1);
    } else if (key == "topology.max.spout.pending") {
      config.max_spout_pending = at_least(0);
    } else if (key == "topology.window.memory.budget.mb") {
      config.window_memory_budget_mb = at_least(0);
    } else if (key == "topology.window.memory.limit.mb") {
      config.window_memory_limit_mb = at_least(0);
    } else if (key == "topology.message.timeout.secs") {
      config.message_timeout_secs = at_least(1);
    } else if (key == "topology.spout.max.retries") {
      config.max_spout_retries = at_least(-1);
    } else if (key == "topology.spout.retry.delay.ms") {
      config.spout_retry_delay_ms = at_least(0);
    } else if (key == "topology.spout.retry.max.delay.ms") {
      config.spout_retry_max_delay_ms = at_least(0);
    } else if (key == "topology.debug") {
      config.debug = ReadBool(value);
    } else if (key == "topology.wait.yield.micros") {
      config.wait_yield_micros = at_least(0);
    } else if (key == "topology.executor.receive.buffer.size") {
      config.receive_buffer_size = between(1, kMaxReceiveBufferSize);
    } else if (key == "topology.chaining") {
      config.chaining = ReadBool(value);
    } else if (key == "topology.metrics.port") {
      config.metrics_port = between(0, 65535);
    } else if (key == "topology.metrics.host") {
      config.metrics_host = ReadIpAddress(value);
    } else if (key == "supervisor.worker.timeout.secs") {
      config.worker_timeout_secs = at_least(1);
    } else if (key.starts_with("topology.")) {
      std::string message = fmt::format("unknown setting \"{}\"", key);
      const std::string hint = DidYouMean(key, kKnown);
      if (!hint.empty()) message += " (" + hint + ")";
      throw ConfigError(value.key_mark.line > 0 ? value.key_mark : value.mark, value.path,
                        message + fmt::format("; Tempest's settings: {}", Join(kKnown)));
    } else {
      auto it = std::find_if(config.extra.begin(), config.extra.end(),
                             [&](const auto& e) { return e.first == key; });
      if (it != config.extra.end()) {
        it->second = value.ToValue();
      } else {
        config.extra.emplace_back(key, value.ToValue());
      }
    }
  }
}

// One entry of `streams`, read and checked against the components.
struct StreamEntry {
  const ConfigNode* node = nullptr;
  const ConfigNode* from = nullptr;
  const ConfigNode* to = nullptr;
  const ConfigNode* stream_node = nullptr;  // streamId (may be null)
  const ConfigNode* type_node = nullptr;
  const ConfigNode* args_node = nullptr;
  InputSpec input;
  std::string to_id;
};

class Loader {
 public:
  Loader(std::string file, const LoadOptions& options)
      : file_(std::move(file)),
        options_(options),
        registry_(options.registry != nullptr ? *options.registry : ComponentRegistry::Global()) {}

  std::shared_ptr<const TopologySpec> Load() {
    std::vector<std::string> stack;
    ConfigNode root = LoadWithIncludes(file_, stack, options_.max_file_bytes);
    Properties(options_).Substitute(root);
    base_dir_ = fs::path(file_).parent_path().string();

    for (const auto& [key, value] : root.members) {
      if (std::find(kTopLevelKeys.begin(), kTopLevelKeys.end(), key) == kTopLevelKeys.end()) {
        std::string message = fmt::format("unknown key \"{}\"", key);
        const std::string hint = DidYouMean(key, kTopLevelKeys);
        if (!hint.empty()) message += " (" + hint + ")";
        throw ConfigError(value.key_mark, value.path,
                          message +
                              "; a topology has name, config, plugins, includes, spouts, "
                              "bolts, streams");
      }
    }
    auto spec = std::make_shared<TopologySpec>();
    const ConfigNode* name = root.Find("name");
    spec->name = name != nullptr && name->kind != Kind::kNull ? ReadString(*name)
                                                              : fs::path(file_).stem().string();
    if (const ConfigNode* config = root.Find("config")) ReadTopologyConfig(*config, spec->config);
    ApplySetOverrides(spec->config);
    topology_config_ = &spec->config;
    if (const ConfigNode* plugins = root.Find("plugins")) LoadPlugins(*plugins);

    const ConfigNode* spouts = root.Find("spouts");
    if (spouts != nullptr) ComponentList(*spouts, "spouts");
    if (spouts == nullptr || spouts->kind == Kind::kNull || spouts->items.empty()) {
      throw ConfigError(spouts != nullptr ? *spouts : root,
                        "a topology needs at least one spout under \"spouts\"");
    }
    for (const ConfigNode& s : spouts->items) Declare(s, ComponentKind::kSpout);
    if (const ConfigNode* bolts = root.Find("bolts")) {
      ComponentList(*bolts, "bolts");
      for (const ConfigNode& b : bolts->items) Declare(b, ComponentKind::kBolt);
    }
    if (const ConfigNode* streams = root.Find("streams")) ReadStreams(*streams);
    BuildComponents();

    for (const std::string& id : order_) spec->components.push_back(std::move(built_.at(id)));
    try {
      Validate(*spec);
    } catch (const InvalidTopologyException& e) {
      throw ConfigError(SourceMark{file_, 0, 0}, "", e.what());
    }
    return spec;
  }

 private:
  struct Pending {
    const ConfigNode* node;
    const ConfigNode* id_node;
    ComponentKind kind;
    std::string class_name;
    const ConfigNode* class_node;
    int parallelism;
    const ConfigNode* config;
    std::string failed_stream = {};                  // spouts
    const ConfigNode* failed_stream_node = nullptr;  // where it is set
  };

  void ApplySetOverrides(TopologyConfig& config) {
    if (options_.set.empty()) return;
    ConfigNode overrides;
    overrides.kind = Kind::kMap;
    for (const auto& [k, v] : options_.set) {
      ConfigNode n;
      n.kind = Kind::kScalar;
      n.scalar = v;
      n.mark = SourceMark{"--set", 0, 0};
      n.path = k;
      overrides.members.emplace_back(k, n);
    }
    ReadTopologyConfig(overrides, config);
  }

  void LoadPlugins(const ConfigNode& plugins) {
    if (plugins.kind == Kind::kNull) return;
    ReadStringList(plugins);  // type check
    for (const ConfigNode& item : plugins.items) {
      const std::string path = ComponentContext{"", base_dir_, {}}.ResolvePath(item.scalar);
      try {
        LoadPlugin(path, registry_);
      } catch (const std::exception& e) {
        throw ConfigError(item, e.what());
      }
    }
  }

  static void ComponentList(const ConfigNode& list, const char* what) {
    if (list.kind != Kind::kSequence && list.kind != Kind::kNull) {
      throw ConfigError(list,
                        fmt::format("expected a list of {}, found {}", what, list.Describe()));
    }
  }

  void Declare(const ConfigNode& node, ComponentKind kind) {
    ConfigReader r(node);
    Pending p{&node, nullptr, kind, "", nullptr, 1, nullptr};
    const std::string id = r.RequiredString("id");
    p.id_node = node.Find("id");
    p.class_name = r.RequiredString("className");
    p.class_node = node.Find("className");
    p.parallelism = static_cast<int>(r.IntAtLeast("parallelism", 1, 1));
    p.config = r.Node("config");
    if (kind == ComponentKind::kSpout) {
      p.failed_stream = r.String("failed_stream", "");
      p.failed_stream_node = node.Find("failed_stream");
    }
    r.Finish();
    if (id.empty()) throw ConfigError(*p.id_node, "expected a component id, found an empty string");
    if (id.starts_with("__")) {
      throw ConfigError(*p.id_node, fmt::format("component id \"{}\" is reserved: ids starting "
                                                "with \"__\" belong to Tempest",
                                                id));
    }
    if (auto it = pending_.find(id); it != pending_.end()) {
      const SourceMark& m = it->second.id_node->mark;
      throw ConfigError(*p.id_node, fmt::format("duplicate component id \"{}\" (first declared "
                                                "at {}:{}:{})",
                                                id, m.file, m.line, m.column));
    }
    if (kind == ComponentKind::kSpout ? registry_.FindSpout(p.class_name) == nullptr
                                      : registry_.FindBolt(p.class_name) == nullptr) {
      UnknownClass(p);
    }
    ids_.push_back(id);
    pending_.emplace(id, p);
  }

  [[noreturn]] void UnknownClass(const Pending& p) const {
    const bool spout = p.kind == ComponentKind::kSpout;
    const std::vector<std::string> names = spout ? registry_.SpoutNames() : registry_.BoltNames();
    const std::vector<std::string> other = spout ? registry_.BoltNames() : registry_.SpoutNames();
    std::string message =
        fmt::format("unknown {} className \"{}\"", spout ? "spout" : "bolt", p.class_name);
    if (std::find(other.begin(), other.end(), p.class_name) != other.end()) {
      message = fmt::format("\"{}\" is a {}, not a {}", p.class_name, spout ? "bolt" : "spout",
                            spout ? "spout" : "bolt");
    } else if (const std::string hint = DidYouMean(p.class_name, names); !hint.empty()) {
      message += " (" + hint + ")";
    }
    throw ConfigError(*p.class_node, message + fmt::format("; registered {}s: {}",
                                                           spout ? "spout" : "bolt", Join(names)));
  }

  void ReadStreams(const ConfigNode& streams) {
    if (streams.kind == Kind::kNull) return;
    if (streams.kind != Kind::kSequence) {
      throw ConfigError(streams,
                        fmt::format("expected a list of streams, found {}", streams.Describe()));
    }
    for (const ConfigNode& node : streams.items) {
      ConfigReader r(node);
      StreamEntry e;
      e.node = &node;
      r.String("name", "");
      const std::string from = r.RequiredString("from");
      e.from = node.Find("from");
      e.to_id = r.RequiredString("to");
      e.to = node.Find("to");
      std::string stream = r.String("streamId", kDefaultStream);
      e.stream_node = node.Find("streamId");
      const ConfigNode* grouping = r.Node("grouping");
      r.Finish();
      CheckComponent(*e.from, from);
      CheckComponent(*e.to, e.to_id);
      if (pending_.at(e.to_id).kind == ComponentKind::kSpout) {
        throw ConfigError(
            *e.to, fmt::format("\"{}\" is a spout; only bolts subscribe to streams", e.to_id));
      }
      if (grouping == nullptr) Fail(node, "missing required key \"grouping\"");
      ConfigReader g(*grouping);
      const std::string type = g.RequiredString("type");
      e.type_node = grouping->Find("type");
      std::vector<std::string> args = g.StringList("args");
      e.args_node = grouping->Find("args");
      if (g.Has("streamId")) {
        if (e.stream_node != nullptr) {
          g.Fail("streamId", "streamId is given twice, on the stream and in its grouping");
        }
        stream = g.String("streamId", kDefaultStream);
        e.stream_node = grouping->Find("streamId");
      }
      g.Finish();
      auto t = GroupingTypes().find(type);
      if (t == GroupingTypes().end()) {
        std::vector<std::string> names;
        for (const auto& [n, v] : GroupingTypes()) names.push_back(n);
        std::string message = fmt::format("unknown grouping type \"{}\"", type);
        if (const std::string hint = DidYouMean(type, names); !hint.empty()) {
          message += " (" + hint + ")";
        }
        throw ConfigError(*e.type_node, message + fmt::format("; types: {}", Join(names)));
      }
      const bool keyed =
          t->second == GroupingType::kFields || t->second == GroupingType::kPartialKey;
      if (keyed && args.empty()) {
        throw ConfigError(e.args_node != nullptr ? *e.args_node : *grouping,
                          fmt::format("a {} grouping needs args: the key fields", type));
      }
      if (!keyed && !args.empty()) {
        throw ConfigError(*e.args_node, fmt::format("a {} grouping takes no args", type));
      }
      e.input = InputSpec{GlobalStreamId{from, stream}, GroupingSpec{t->second, args, {}}};
      const auto [first, added] =
          subscriptions_.try_emplace({e.to_id, e.input.source}, streams_.size());
      if (!added) {
        throw ConfigError(
            node, fmt::format("\"{}\" already subscribes to stream \"{}\" of "
                              "\"{}\" (at line {})",
                              e.to_id, stream, from, streams_[first->second].node->mark.line));
      }
      streams_.push_back(std::move(e));
    }
  }

  [[noreturn]] static void Fail(const ConfigNode& at, const std::string& message) {
    throw ConfigError(at, message);
  }

  void CheckComponent(const ConfigNode& at, const std::string& id) const {
    if (pending_.contains(id)) return;
    std::string message = fmt::format("unknown component \"{}\"", id);
    if (const std::string hint = DidYouMean(id, ids_); !hint.empty()) message += " (" + hint + ")";
    throw ConfigError(at, message + fmt::format("; components: {}", Join(ids_)));
  }

  // Makes components upstream first, so each bolt's maker sees its inputs' fields.
  // Builds each component once every component it subscribes to is built (its maker sees
  // their fields): Kahn's algorithm, taking the earliest declared of the ready ones, so it is
  // linear in the topology (a chain of 100,000 bolts loads).
  void BuildComponents() {
    std::map<std::string, std::size_t> index;  // declaration order
    for (const std::string& id : ids_) index.emplace(id, index.size());
    std::vector<std::vector<const StreamEntry*>> inputs(ids_.size());
    std::vector<std::vector<std::size_t>> subscribers(ids_.size());
    std::vector<std::size_t> waiting(ids_.size(), 0);  // its input streams from unbuilt sources
    for (const StreamEntry& e : streams_) {
      const std::size_t to = index.at(e.to_id);
      inputs[to].push_back(&e);
      subscribers[index.at(e.input.source.component)].push_back(to);
      ++waiting[to];
    }
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < ids_.size(); ++i) {
      if (waiting[i] == 0) ready.push(i);
    }
    std::size_t built = 0;
    while (!ready.empty()) {
      const std::size_t i = ready.top();
      ready.pop();
      Build(ids_[i], inputs[i]);
      ++built;
      for (std::size_t s : subscribers[i]) {
        if (--waiting[s] == 0) ready.push(s);
      }
    }
    if (built < ids_.size()) {
      for (const StreamEntry& e : streams_) {
        if (!built_.contains(e.to_id) && !built_.contains(e.input.source.component)) {
          throw ConfigError(*e.node, fmt::format("streams form a cycle through \"{}\" and "
                                                 "\"{}\"; streams must form an acyclic graph so "
                                                 "that end-of-stream reaches every task",
                                                 e.input.source.component, e.to_id));
        }
      }
    }
    // Declaration order in the spec, as written.
    order_ = ids_;
  }

  void Build(const std::string& id, const std::vector<const StreamEntry*>& inputs) {
    const Pending& p = pending_.at(id);
    ComponentSpec c;
    c.id = id;
    c.kind = p.kind;
    c.parallelism = p.parallelism;
    c.class_name = p.class_name;
    c.failed_stream = p.failed_stream;
    ComponentContext context{id, base_dir_, {}, topology_config_, p.parallelism, {}, &files_};
    for (const StreamEntry* input : inputs) {
      const StreamEntry& e = *input;
      const ComponentSpec& source = built_.at(e.input.source.component);
      const StreamSchema* schema = source.FindStream(e.input.source.stream);
      if (schema == nullptr) {
        std::vector<std::string> declared;
        for (const auto& s : source.streams) declared.push_back(s->stream);
        throw ConfigError(e.stream_node != nullptr ? *e.stream_node : *e.from,
                          fmt::format("stream \"{}\" is not declared by \"{}\" (declared: {})",
                                      e.input.source.stream, source.id, Join(declared)));
      }
      CheckGrouping(e, *schema);
      context.inputs.emplace_back(e.input.source, *schema->fields);
      context.groupings.push_back(e.input.grouping);
      c.inputs.push_back(e.input);
    }
    ConfigNode empty;
    empty.kind = Kind::kMap;
    if (p.config != nullptr) empty = *p.config;
    ConfigReader reader(empty);
    try {
      switch (p.kind) {
        case ComponentKind::kSpout:
          c.spout_factory = (*registry_.FindSpout(p.class_name))(reader, context);
          break;
        case ComponentKind::kBolt:
          c.bolt_factory = (*registry_.FindBolt(p.class_name))(reader, context);
          break;
      }
      reader.Finish();
    } catch (const ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      throw ConfigError(p.config != nullptr ? *p.config : *p.class_node, e.what());
    }
    try {
      c.streams = c.DeclareStreams();
    } catch (const std::exception& e) {
      throw ConfigError(*p.class_node, fmt::format("{} failed to declare its output fields: {}",
                                                   p.class_name, e.what()));
    }
    try {
      c.AddFailedStream(c.streams);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(*p.failed_stream_node, e.what());
    }
    built_.emplace(id, std::move(c));
  }

  static void CheckGrouping(const StreamEntry& e, const StreamSchema& schema) {
    const GroupingSpec& g = e.input.grouping;
    const std::string& from = e.input.source.component;
    if (g.type == GroupingType::kDirect && !schema.direct) {
      throw ConfigError(*e.type_node, fmt::format("a DIRECT grouping needs a direct stream, and "
                                                  "stream \"{}\" of \"{}\" is not declared direct",
                                                  schema.stream, from));
    }
    if (g.type != GroupingType::kDirect && schema.direct) {
      throw ConfigError(*e.type_node, fmt::format("stream \"{}\" of \"{}\" is a direct stream: it "
                                                  "takes only a DIRECT grouping",
                                                  schema.stream, from));
    }
    for (std::size_t i = 0; i < g.fields.size(); ++i) {
      if (schema.fields->Contains(g.fields[i])) continue;
      const ConfigNode& item = e.args_node->items[i];
      throw ConfigError(item.mark, e.args_node->path,
                        fmt::format("field \"{}\" is not declared by \"{}\" (declared: {})",
                                    g.fields[i], from, Join(schema.fields->names())));
    }
  }

  std::string file_;
  const LoadOptions& options_;
  ComponentRegistry& registry_;
  std::string base_dir_;
  const TopologyConfig* topology_config_ = nullptr;  // the spec being loaded
  std::vector<std::string> ids_;                     // declaration order: spouts, then bolts
  // (subscriber, stream) of each entry of streams_, to its index there
  std::map<std::pair<std::string, GlobalStreamId>, std::size_t> subscriptions_;
  std::map<std::string, Pending> pending_;
  std::vector<StreamEntry> streams_;
  std::map<std::string, ComponentSpec> built_;
  std::vector<FileClaim> files_;  // the files makers claimed (ComponentContext::ClaimFile)
  std::vector<std::string> order_;
};

}  // namespace

std::shared_ptr<const TopologySpec> LoadTopology(const std::string& file,
                                                 const LoadOptions& options) {
  return Loader(file, options).Load();
}

}  // namespace tempest::topology
