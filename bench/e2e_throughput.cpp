// End-to-end in-process throughput of the benchmark shapes, each compared with a raw baseline
// measured in the same run: a bare two-thread SPSC ring moving the same tuples.
//
//   raw: producer builds Values{id, key, ts, payload} -> SPSC ring -> consumer drops them
//   spout_null: GeneratorSpout -shuffle-> NullBolt (storm-perf's ConstSpout -> DevNull)
//   spout_id_null: GeneratorSpout -shuffle-> IdentityBolt -shuffle-> NullBolt
//   word_count: sentences -shuffle-> split -fields(word)-> count -shuffle-> NullBolt
//
// Every run is verified (nothing lost, nothing failed); the exit code is 1 if any run was not.
#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bench/median.h"
#include "bolts/identity_bolt.h"
#include "bolts/null_bolt.h"
#include "runtime/local_cluster.h"
#include "spouts/generator_spout.h"
#include "topology/basic_bolt.h"
#include "topology/spout.h"
#include "topology/topology_builder.h"

namespace {

using tempest::bench::Median;

namespace topology = tempest::topology;
namespace runtime = tempest::runtime;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Raw baseline: a lock-free single-producer single-consumer ring.

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins briefly, then yields: both threads of the baseline may share a vCPU with others.
class Spinner {
 public:
  void Wait() {
    if (++spins_ < 64) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
  void Reset() { spins_ = 0; }

 private:
  int spins_ = 0;
};

// Bounded SPSC ring of T with a power-of-two number of slots. The producer publishes its write
// index every kPublishEvery pushes (and on Publish()/when full); the consumer publishes its read
// index once per drained batch. One producer thread, one consumer thread.
template <typename T>
class SpscRing {
 public:
  static constexpr std::size_t kPublishEvery = 64;
  static constexpr uint64_t kMaxPop = 256;

  explicit SpscRing(std::size_t slots) : mask_(slots - 1), slots_(alloc_.allocate(slots)) {}
  ~SpscRing() {
    for (uint64_t i = tail_.load(); i != head_.load(); ++i) std::destroy_at(&slots_[i & mask_]);
    alloc_.deallocate(slots_, mask_ + 1);
  }
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  // Producer: blocks (spinning) while the ring is full.
  void Push(T&& value) {
    if (write_ - tail_cache_ > mask_) {
      Publish();
      Spinner spin;
      while (write_ - (tail_cache_ = tail_.load(std::memory_order_acquire)) > mask_) spin.Wait();
    }
    std::construct_at(&slots_[write_ & mask_], std::move(value));
    if ((++write_ & (kPublishEvery - 1)) == 0) Publish();
  }
  void Publish() { head_.store(write_, std::memory_order_release); }

  // Consumer: hands up to kMaxPop published elements to f (by rvalue reference), destroying
  // each, and returns how many there were (0 if none).
  template <typename F>
  std::size_t PopBatch(F&& f) {
    const uint64_t head = std::min(head_.load(std::memory_order_acquire), read_ + kMaxPop);
    const uint64_t n = head - read_;
    for (; read_ != head; ++read_) {
      T* slot = &slots_[read_ & mask_];
      f(std::move(*slot));
      std::destroy_at(slot);
    }
    if (n != 0) tail_.store(read_, std::memory_order_release);
    return n;
  }

 private:
  const std::size_t mask_;
  std::allocator<T> alloc_;
  T* const slots_;
  alignas(64) std::atomic<uint64_t> head_{0};  // published write index
  alignas(64) std::atomic<uint64_t> tail_{0};  // published read index
  alignas(64) uint64_t write_ = 0;             // producer only
  uint64_t tail_cache_ = 0;                    // producer only
  alignas(64) uint64_t read_ = 0;              // consumer only
};

// ---------------------------------------------------------------------------------------------
// Measurement plumbing.

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
  };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

struct Measurement {
  uint64_t items = 0;                 // tuples (words for word_count) counted for the rate
  double seconds = 0;                 // wall time of the run
  double cpu_seconds = 0;             // user+sys CPU of the whole process during the run
  std::vector<std::string> problems;  // verification failures; empty when the run is good

  double rate() const { return static_cast<double>(items) / seconds; }
};

void Expect(Measurement& m, const std::string& what, uint64_t got, uint64_t want) {
  if (got != want) m.problems.push_back(fmt::format("{}: got {}, want {}", what, got, want));
}

// Checks the common parts of a run summary: finished cleanly, nothing failed.
const runtime::ComponentSummary* CheckSummary(Measurement& m, const runtime::RunSummary& s,
                                              const std::string& component) {
  if (!s.completed) m.problems.push_back("run did not complete (force-stopped)");
  if (!s.error.empty()) m.problems.push_back("run error: " + s.error);
  for (const runtime::ComponentSummary& c : s.components) {
    Expect(m, c.id + ".failed", c.failed, 0);
    Expect(m, c.id + ".errors", c.errors, 0);
  }
  const runtime::ComponentSummary* c = s.Find(component);
  if (c == nullptr) m.problems.push_back("no component " + component);
  return c;
}

// ---------------------------------------------------------------------------------------------
// The shapes.

Measurement RunRaw(uint64_t n, std::size_t payload_bytes, std::size_t ring_slots) {
  Measurement m;
  SpscRing<topology::Values> ring(ring_slots);
  uint64_t received = 0;
  uint64_t id_sum = 0;
  const double cpu0 = CpuSeconds();
  const auto t0 = Clock::now();
  std::thread consumer([&] {
    Spinner spin;
    while (received < n) {
      const std::size_t got = ring.PopBatch([&](topology::Values&& v) { id_sum += *v[0].IfInt(); });
      if (got == 0) {
        spin.Wait();
      } else {
        spin.Reset();
        received += got;
      }
    }
  });
  std::thread producer([&] {
    const std::string payload(payload_bytes, 'x');  // as GeneratorSpout's
    for (uint64_t i = 0; i < n; ++i) {
      const auto id = static_cast<int64_t>(i);
      ring.Push(topology::Values{id, id % 1000, id, payload});
    }
    ring.Publish();
  });
  producer.join();
  consumer.join();
  m.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  m.cpu_seconds = CpuSeconds() - cpu0;
  m.items = received;
  Expect(m, "raw.received", received, n);
  Expect(m, "raw.sum(id)", id_sum, n == 0 ? 0 : n * (n - 1) / 2);
  return m;
}

std::unique_ptr<topology::Spout> MakeGenerator(uint64_t n, std::size_t payload_bytes) {
  tempest::spouts::GeneratorSpoutConfig config;
  config.count = n;
  config.payload_bytes = payload_bytes;
  return std::make_unique<tempest::spouts::GeneratorSpout>(config);
}

Measurement RunCluster(std::shared_ptr<const topology::TopologySpec> spec,
                       const runtime::LocalRunOptions& options, runtime::RunSummary& summary) {
  Measurement m;
  const double cpu0 = CpuSeconds();
  runtime::LocalCluster cluster(std::move(spec), options);
  summary = cluster.Run();
  m.cpu_seconds = CpuSeconds() - cpu0;
  m.seconds = summary.seconds;
  return m;
}

Measurement RunSpoutNull(uint64_t n, std::size_t payload_bytes,
                         const runtime::LocalRunOptions& options, bool chaining) {
  topology::TopologyBuilder builder("spout_null");
  builder.Config().chaining = chaining;
  builder.SetSpout("spout", [=] { return MakeGenerator(n, payload_bytes); });
  builder.SetBolt("sink", [] { return std::make_unique<tempest::bolts::NullBolt>(); })
      .ShuffleGrouping("spout");
  runtime::RunSummary s;
  Measurement m = RunCluster(builder.Build(), options, s);
  if (const auto* spout = CheckSummary(m, s, "spout")) {
    Expect(m, "spout.emitted", spout->emitted, n);
    Expect(m, "spout.acked", spout->acked, n);
  }
  if (const auto* sink = CheckSummary(m, s, "sink")) {
    Expect(m, "sink.executed", sink->executed, n);
    Expect(m, "sink.acked", sink->acked, n);
    m.items = sink->executed;
  }
  return m;
}

Measurement RunSpoutIdNull(uint64_t n, std::size_t payload_bytes,
                           const runtime::LocalRunOptions& options, bool chaining) {
  topology::TopologyBuilder builder("spout_id_null");
  builder.Config().chaining = chaining;
  builder.SetSpout("spout", [=] { return MakeGenerator(n, payload_bytes); });
  builder
      .SetBolt("id",
               [] {
                 return std::make_unique<tempest::bolts::IdentityBolt>(
                     topology::Fields{"id", "key", "ts", "payload"});
               })
      .ShuffleGrouping("spout");
  builder.SetBolt("sink", [] { return std::make_unique<tempest::bolts::NullBolt>(); })
      .ShuffleGrouping("id");
  runtime::RunSummary s;
  Measurement m = RunCluster(builder.Build(), options, s);
  if (const auto* spout = CheckSummary(m, s, "spout")) {
    Expect(m, "spout.emitted", spout->emitted, n);
    Expect(m, "spout.acked", spout->acked, n);
  }
  if (const auto* id = CheckSummary(m, s, "id")) {
    Expect(m, "id.executed", id->executed, n);
    Expect(m, "id.emitted", id->emitted, n);
  }
  if (const auto* sink = CheckSummary(m, s, "sink")) {
    Expect(m, "sink.executed", sink->executed, n);
    m.items = sink->executed;
  }
  return m;
}

// Storm's RandomSentenceSpout sentences, emitted round-robin from memory.
const std::vector<std::string>& Sentences() {
  static const std::vector<std::string> kSentences = {
      "the cow jumped over the moon",   "an apple a day keeps the doctor away",
      "four score and seven years ago", "snow white and the seven dwarfs",
      "i am at two with nature",
  };
  return kSentences;
}

std::size_t WordsIn(const std::string& sentence) {
  std::size_t words = 0;
  bool in_word = false;
  for (char c : sentence) {
    if (c != ' ' && !in_word) ++words;
    in_word = c != ' ';
  }
  return words;
}

class SentenceSpout final : public topology::Spout {
 public:
  explicit SentenceSpout(uint64_t count) : count_(count) {}
  void Open(const topology::TopologyContext&, topology::SpoutOutputCollector& collector) override {
    out_ = &collector;
  }
  topology::NextResult NextTuple() override {
    if (emitted_ == count_) return topology::NextResult::kExhausted;
    const std::vector<std::string>& sentences = Sentences();
    out_->Emit({sentences[emitted_ % sentences.size()]}, static_cast<int64_t>(emitted_));
    ++emitted_;
    return topology::NextResult::kEmitted;
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override {
    declarer.Declare({"sentence"});
  }

 private:
  uint64_t count_;
  uint64_t emitted_ = 0;
  topology::SpoutOutputCollector* out_ = nullptr;
};

// Splits on spaces (Storm's SplitSentence).
class SplitSentence final : public topology::BasicBolt {
 public:
  void Execute(const topology::Tuple& input, topology::BasicOutputCollector& collector) override {
    const std::string& s = input.GetString(0);
    std::size_t start = 0;
    while (start < s.size()) {
      std::size_t end = s.find(' ', start);
      if (end == std::string::npos) end = s.size();
      if (end > start) collector.Emit({std::string(s, start, end - start)});
      start = end + 1;
    }
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override {
    declarer.Declare({"word"});
  }
};

class WordCounter final : public topology::BasicBolt {
 public:
  void Execute(const topology::Tuple& input, topology::BasicOutputCollector& collector) override {
    const std::string& word = input.GetString(0);
    int64_t& n = counts_[word];
    collector.Emit({word, ++n});
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override {
    declarer.Declare({"word", "count"});
  }

 private:
  std::unordered_map<std::string, int64_t> counts_;
};

Measurement RunWordCount(uint64_t sentences, int split_tasks, int count_tasks,
                         const runtime::LocalRunOptions& options, bool chaining) {
  uint64_t words = 0;
  for (uint64_t i = 0; i < std::min<uint64_t>(sentences, Sentences().size()); ++i) {
    const uint64_t times = sentences / Sentences().size() + (i < sentences % Sentences().size());
    words += times * WordsIn(Sentences()[i]);
  }
  topology::TopologyBuilder builder("word_count");
  builder.Config().chaining = chaining;
  builder.SetSpout("sentences", [sentences] { return std::make_unique<SentenceSpout>(sentences); });
  builder
      .SetBolt(
          "split", [] { return std::make_unique<SplitSentence>(); }, split_tasks)
      .ShuffleGrouping("sentences");
  builder
      .SetBolt(
          "count", [] { return std::make_unique<WordCounter>(); }, count_tasks)
      .FieldsGrouping("split", {"word"});
  builder.SetBolt("sink", [] { return std::make_unique<tempest::bolts::NullBolt>(); })
      .ShuffleGrouping("count");
  runtime::RunSummary s;
  Measurement m = RunCluster(builder.Build(), options, s);
  if (const auto* spout = CheckSummary(m, s, "sentences")) {
    Expect(m, "sentences.emitted", spout->emitted, sentences);
  }
  if (const auto* split = CheckSummary(m, s, "split")) {
    Expect(m, "split.executed", split->executed, sentences);
    Expect(m, "split.emitted", split->emitted, words);
    m.items = split->emitted;
  }
  if (const auto* count = CheckSummary(m, s, "count")) {
    Expect(m, "count.executed", count->executed, words);
  }
  if (const auto* sink = CheckSummary(m, s, "sink")) {
    Expect(m, "sink.executed", sink->executed, words);
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tempest end-to-end in-process throughput, relative to a raw SPSC-ring baseline."};
  uint64_t tuples = 20'000'000;
  int repeats = 3;
  std::string shape = "all";
  std::size_t ring_slots = 64 * 1024;
  std::size_t payload_bytes = 16;
  uint64_t wc_sentences = 0;
  int wc_split = 1;
  int wc_count = 1;
  runtime::LocalRunOptions options;
  bool chaining = false;
  app.add_option("--tuples", tuples, "Tuples per run (raw, spout_null, spout_id_null)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--repeats", repeats, "Runs of each shape; best and median are reported")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--shape", shape, "Which shape to run (raw always runs as the baseline)")
      ->capture_default_str()
      ->check(CLI::IsMember({"all", "raw", "spout_null", "spout_id_null", "word_count"}));
  app.add_option("--ring-slots", ring_slots, "Slots of the raw baseline's ring (power of two)")
      ->capture_default_str();
  app.add_option("--payload-bytes", payload_bytes,
                 "Payload length of raw and GeneratorSpout tuples (<= 15 fits libstdc++'s SSO)")
      ->capture_default_str();
  app.add_option("--wc-sentences", wc_sentences, "Sentences of word_count (0: tuples / 20)")
      ->capture_default_str();
  app.add_option("--wc-split", wc_split, "Tasks of word_count's split bolt")
      ->capture_default_str()
      ->check(CLI::Range(1, 2));
  app.add_option("--wc-count", wc_count, "Tasks of word_count's count bolt")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--batch-size", options.batch_size, "LocalRunOptions::batch_size")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--queue-capacity", options.queue_capacity, "LocalRunOptions::queue_capacity")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("--chaining", chaining,
               "topology.chaining: a bolt fed by one bolt task runs on that task's thread");
  CLI11_PARSE(app, argc, argv);
  if (ring_slots < 2 || (ring_slots & (ring_slots - 1)) != 0) {
    fmt::print(stderr, "e2e_throughput: --ring-slots must be a power of two >= 2\n");
    return 2;
  }
  if (wc_sentences == 0) wc_sentences = std::max<uint64_t>(1, tuples / 20);

  struct Shape {
    std::string name;
    std::string unit;
    std::function<Measurement()> run;
  };
  std::vector<Shape> shapes = {
      {"raw", "tuples", [&] { return RunRaw(tuples, payload_bytes, ring_slots); }},
      {"spout_null", "tuples",
       [&] { return RunSpoutNull(tuples, payload_bytes, options, chaining); }},
      {"spout_id_null", "tuples",
       [&] { return RunSpoutIdNull(tuples, payload_bytes, options, chaining); }},
      {"word_count", "words",
       [&] { return RunWordCount(wc_sentences, wc_split, wc_count, options, chaining); }}};
  if (shape != "all") {
    std::erase_if(shapes, [&](const Shape& s) { return s.name != "raw" && s.name != shape; });
  }

  fmt::print(
      "e2e_throughput: tuples={} repeats={} cores={} batch_size={} queue_capacity={} "
      "payload_bytes={} ring_slots={} wc_sentences={} wc_split={} wc_count={}\n",
      tuples, repeats, std::thread::hardware_concurrency(), options.batch_size,
      options.queue_capacity, payload_bytes, ring_slots, wc_sentences, wc_split, wc_count);
  // Repeats are interleaved (raw, a, b, ..., raw, a, b, ...) so that a noisy neighbour affects
  // every shape alike.
  std::map<std::string, std::vector<Measurement>> results;
  bool all_good = true;
  for (int r = 0; r < repeats; ++r) {
    for (const Shape& s : shapes) {
      Measurement m;
      try {
        m = s.run();
      } catch (const std::exception& e) {
        m.problems.push_back(std::string("exception: ") + e.what());
      }
      fmt::print(
          "  run {} {:<14} {:>11} {:<6} {:7.3f} s  {:8.2f}M {}/s  cpu {:6.3f} s ({:.2f} "
          "cores, {:6.1f} cpu-ns/{})\n",
          r + 1, s.name, m.items, s.unit, m.seconds, m.rate() / 1e6, s.unit, m.cpu_seconds,
          m.cpu_seconds / m.seconds,
          m.cpu_seconds * 1e9 / static_cast<double>(std::max<uint64_t>(1, m.items)),
          s.unit == "words" ? "word" : "tuple");
      for (const std::string& p : m.problems) fmt::print(stderr, "    LOST/FAILED: {}\n", p);
      all_good = all_good && m.problems.empty();
      results[s.name].push_back(std::move(m));
    }
  }

  auto rates = [&](const std::string& name) {
    std::vector<double> v;
    for (const Measurement& m : results[name]) v.push_back(m.rate());
    return v;
  };
  const std::vector<double> raw_rates = rates("raw");
  const double raw_best = *std::max_element(raw_rates.begin(), raw_rates.end());
  const double raw_median = Median(raw_rates);
  fmt::print("\n{:<14} {:>6} {:>13} {:>13} {:>10} {:>10} {:>14}\n", "shape", "unit", "best M/s",
             "median M/s", "best/raw", "med/raw", "cpu-ns/item");
  for (const Shape& s : shapes) {
    const std::vector<double> v = rates(s.name);
    const double best = *std::max_element(v.begin(), v.end());
    const double median = Median(v);
    std::vector<double> cpu_ns;
    for (const Measurement& m : results[s.name]) {
      cpu_ns.push_back(m.cpu_seconds * 1e9 / static_cast<double>(std::max<uint64_t>(1, m.items)));
    }
    fmt::print("{:<14} {:>6} {:>13.2f} {:>13.2f} {:>10.3f} {:>10.3f} {:>14.1f}\n", s.name, s.unit,
               best / 1e6, median / 1e6, best / raw_best, median / raw_median, Median(cpu_ns));
  }
  if (!all_good) {
    fmt::print(stderr, "e2e_throughput: some runs lost or failed tuples (see above)\n");
    return 1;
  }
  return 0;
}
