// JoinBolt across processes (issue 7, item 4: "≥ 50% of the multi-process msgpack+ZeroMQ baseline
// end to end"). Two streams of N rows [id, key, ts, payload16] each (GeneratorSpout's: key =
// id % 1000, ts = id), joined on `key` in tumbling count windows of W rows, every input crossing
// a process boundary, both sides measured in the same run on the same machine:
//
//   baseline  bare msgpack-c + ZeroMQ, three processes: two producers (one per stream, forked)
//             each pack their N rows as msgpack [id, key, ts, str] arrays, --batch (100) rows per
//             message tagged with the stream, and PUSH them over ipc:// to one consumer (this
//             process); they start together (a hello/go exchange on the sockets). The consumer
//             unpacks every row into Values, cuts windows of W rows by arrival order and joins
//             each with bench/bare_join.h (the b rows hashed, probed with the a rows, one
//             Values{a.id, b.id} built per match and counted: join.cpp's bare join); a last
//             partial window is joined at the end, as JoinBolt fires one at end of input. Timed
//             at the consumer, from the first message in to the last window joined.
//   tempest   join.cpp's topology on a ProcessCluster of 2 worker processes of this program:
//             GeneratorSpout a, GeneratorSpout b -> JoinBolt (from a, inner join b on key,
//             select "a:id, b:id", tumbling count window W) -> a counting sink (TimedSink). The
//             spouts run in one worker, the join and the sink in the other (the join's component
//             id is chosen for that placement, and it is checked), so every input crosses as a
//             msgpack frame over ZeroMQ. Acking off. Timed from when the supervisor has told every
//             worker to start (spawning, connecting and preparing the workers excluded) to the
//             sink's end of stream, right behind the last row (CLOCK_MONOTONIC, the same in every
//             process; the sink reads no clock per row, as the baseline's consumer does not).
//             --chaining sets topology.chaining: the sink then runs on the join's thread.
//
// Rates are input rows per second, 2N / time; each round runs the baseline, then Tempest; medians
// of --repeats rounds per window. Checks: the baseline's consumer got N rows of each stream with
// ids summing to N(N-1)/2, and its producers exited 0; each Tempest run completed without error,
// restart or dropped frame, the spouts emitted N each, the join executed 2N without errors, and
// the sink received every row the join emitted (its summary and its own count). Both cut windows
// by arrival order, so their row counts are close, not equal; both are printed. Exit code 1 if a
// check failed.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <msgpack.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
#include <zmq.hpp>

#include "bench/bare_join.h"
#include "bench/join_topology.h"
#include "bench/median.h"
#include "bench/process_bench.h"
#include "bench/wait_yield.h"
#include "bolts/join/join_bolt.h"
#include "runtime/process/worker_plan.h"
#include "spouts/generator_spout.h"
#include "topology/task_layout.h"
#include "topology/topology_builder.h"

namespace {

using tempest::bench::Median;

namespace bench = tempest::bench;
namespace bolts = tempest::bolts;
namespace runtime = tempest::runtime;
namespace topology = tempest::topology;
using bench::Clock;

constexpr uint64_t kKeys = 1000;
constexpr int kWorkers = 2;
// Tasks are numbered in sorted component order and dealt round-robin to the workers
// (runtime/process/worker_plan.h): a, a_join_b, b, sink puts a and b in worker 0, the join and the
// sink in worker 1.
constexpr const char* kJoin = "a_join_b";

struct Row {
  topology::Values values;  // id, key, ts, payload
};

struct Result {
  double seconds = 0;
  uint64_t rows = 0;  // joined rows
  bool ok = false;
};

// ---------------------------------------------------------------------------------------------
// The baseline.

Result RunBaseline(uint64_t n, uint64_t window, uint64_t batch) {
  const std::string data = bench::IpcEndpoint("join-cross-process", "data");
  std::vector<std::string> acks;
  std::vector<pid_t> producers;
  for (int stream = 0; stream < 2; ++stream) {
    const std::string ack = bench::IpcEndpoint("join-cross-process", fmt::format("ack{}", stream));
    acks.push_back(ack);
    producers.push_back(bench::ForkChild([&data, ack, n, batch, stream] {
      bench::PushBatches(data, ack, n, batch,
                         [stream](uint64_t first, uint64_t count, std::string& out) {
                           out.clear();
                           bench::StringSink sink{&out};
                           msgpack::packer<bench::StringSink> pk(sink);
                           pk.pack_array(2);
                           pk.pack_int(stream);
                           bench::PackGeneratorRows(pk, first, count, kKeys);
                         });
    }));
  }

  std::vector<Row> side[2];
  side[0].reserve(window);
  side[1].reserve(window);
  bench::WindowHashJoin<Row> join;
  Result r;
  uint64_t count[2] = {}, id_sum[2] = {};
  bool bad_message = false;
  const auto join_window = [&] {
    r.rows += join.Join(side[0], side[1]);
    side[0].clear();
    side[1].clear();
  };
  const bench::PullTimes t = bench::PullUntilDone(data, acks, [&](const zmq::message_t& msg) {
    try {
      const msgpack::object_handle h =
          msgpack::unpack(static_cast<const char*>(msg.data()), msg.size());
      if (h.get().type != msgpack::type::ARRAY || h.get().via.array.size != 2) {
        throw std::runtime_error("not a [stream, rows] message");
      }
      const msgpack::object_array& m = h.get().via.array;
      const int stream = m.ptr[0].as<int>();
      if (stream != 0 && stream != 1) throw std::runtime_error("no such stream");
      const msgpack::object_array& rows = m.ptr[1].via.array;
      for (uint32_t i = 0; i < rows.size; ++i) {
        const msgpack::object* f = rows.ptr[i].via.array.ptr;
        topology::Values& v = side[stream].emplace_back().values;
        v.emplace_back(f[0].as<int64_t>());
        v.emplace_back(f[1].as<int64_t>());
        v.emplace_back(f[2].as<int64_t>());
        v.emplace_back(std::string_view(f[3].via.str.ptr, f[3].via.str.size));
        ++count[stream];
        id_sum[stream] += static_cast<uint64_t>(v[0].AsInt());
        if (side[0].size() + side[1].size() == window) join_window();
      }
    } catch (const std::exception&) {
      bad_message = true;
    }
  });
  if (!side[0].empty() || !side[1].empty()) join_window();
  r.seconds = std::chrono::duration<double>(Clock::now() - t.first).count();
  if (join.checksum() == -1) fmt::print("");  // keep the rows observable
  r.ok = !bad_message;
  for (int s = 0; s < 2; ++s) {
    r.ok = r.ok && count[s] == n && id_sum[s] == n * (n - 1) / 2;
  }
  for (pid_t p : producers) r.ok = bench::ReapedOk(p) && r.ok;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Tempest: this program is also its workers (--tempest-worker ...).

std::shared_ptr<const topology::TopologySpec> BuildTopology(uint64_t n, uint64_t window,
                                                            const std::string& out,
                                                            int receive_buffer, bool chaining) {
  topology::TopologyBuilder b("bench-join-cross-process");
  b.Config().acker_executors = 0;
  b.Config().receive_buffer_size = receive_buffer;
  b.Config().chaining = chaining;
  tempest::bench::ApplyWaitYieldOverride(b.Config());
  bench::AddJoinSpouts(b, n, kKeys);
  b.SetBolt(kJoin, bench::JoinBToA(window).Build()).GlobalGrouping("a").GlobalGrouping("b");
  b.SetBolt("sink", [out] {
     return std::make_unique<bench::TimedSink>(out, bench::TimedSink::Timing::kEndOfStream);
   }).ShuffleGrouping(kJoin);
  return b.Build();
}

// Whether the spouts share one worker and the join and the sink the other.
bool PlacedAsDesigned(const topology::TopologySpec& spec) {
  const topology::TaskLayout layout(spec, topology::AckerTasks(spec, kWorkers));
  const std::vector<int> worker_of = runtime::AssignTasks(layout, kWorkers);
  const auto worker = [&](std::string_view c) { return worker_of.at(layout.TasksOf(c).at(0)); };
  return worker("a") == worker("b") && worker(kJoin) == worker("sink") &&
         worker("a") != worker(kJoin);
}

Result RunTempest(uint64_t n, uint64_t window, const std::string& out, int receive_buffer,
                  bool chaining) {
  auto spec = BuildTopology(n, window, out, receive_buffer, chaining);
  if (!PlacedAsDesigned(*spec)) throw std::logic_error("the tasks are not placed as designed");
  const bench::WorkerRun run = bench::RunOnWorkers(
      std::move(spec), kWorkers,
      {"--tuples", std::to_string(n), "--window", std::to_string(window), "--out", out,
       "--receive-buffer", std::to_string(receive_buffer), "--chaining", chaining ? "1" : "0"});
  const std::vector<int64_t> sunk = bench::ReadNumbers(out);  // count id_sum first_ns last_ns
  std::remove(out.c_str());
  const runtime::RunSummary& s = run.summary;
  const runtime::ComponentSummary* a = s.Find("a");
  const runtime::ComponentSummary* b = s.Find("b");
  const runtime::ComponentSummary* join = s.Find(kJoin);
  const runtime::ComponentSummary* sink = s.Find("sink");
  Result r;
  if (a == nullptr || b == nullptr || join == nullptr || sink == nullptr || sunk.size() < 4) {
    fmt::print(stderr, "tempest run: no summary or sink file ({})\n", s.error);
    return r;
  }
  r.rows = join->emitted;
  r.seconds = static_cast<double>(sunk[3] - run.started_ns) * 1e-9;
  r.ok = s.completed && s.error.empty() && s.restarts == 0 && s.dropped_frames == 0 &&
         a->emitted == n && b->emitted == n && join->executed == 2 * n && join->errors == 0 &&
         sink->errors == 0 && sink->executed == join->emitted &&
         static_cast<uint64_t>(sunk[0]) == join->emitted;
  if (!r.ok) {
    fmt::print(stderr,
               "tempest run not verified: completed {} error '{}' restarts {} dropped frames {}; "
               "emitted a {} b {}; join executed {} emitted {} errors {}; sink executed {} "
               "counted {}\n",
               s.completed, s.error, s.restarts, s.dropped_frames, a->emitted, b->emitted,
               join->executed, join->emitted, join->errors, sink->executed, sunk[0]);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<int> worker =
      bench::RunAsWorker(argc, argv, [](const std::map<std::string, std::string>& flags) {
        return BuildTopology(std::stoull(flags.at("--tuples")), std::stoull(flags.at("--window")),
                             flags.at("--out"), std::stoi(flags.at("--receive-buffer")),
                             flags.at("--chaining") == "1");
      });
  if (worker) return *worker;

  CLI::App app("JoinBolt across processes vs a bare msgpack+ZeroMQ join, same run (BENCHMARKS.md)");
  uint64_t n = 1'000'000;
  uint64_t batch = 100;
  int repeats = 3;
  std::vector<uint64_t> windows = {10'000, 100'000};
  app.add_option("--tuples", n, "Tuples per stream")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--repeats", repeats, "Rounds (medians reported)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--windows", windows, "Tumbling count window lengths")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--batch", batch, "Rows per message of the baseline")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  int receive_buffer = 0;
  app.add_option("--receive-buffer", receive_buffer,
                 "topology.executor.receive.buffer.size of the JoinBolt topology (0: default)")
      ->check(CLI::Range(0, topology::kMaxReceiveBufferSize));
  bool chaining = false;
  app.add_flag("--chaining", chaining,
               "topology.chaining: the sink runs on the join's thread (they share a worker)");
  CLI11_PARSE(app, argc, argv);

  const std::string out = fmt::format("/tmp/tempest-join-cross-process-{}.out", ::getpid());
  const double inputs = 2.0 * static_cast<double>(n);
  bool ok = true;
  fmt::print(
      "{} tuples per stream, {} keys, {} rounds, {} workers, baseline batch {}, JoinBolt receive "
      "buffer {}, chaining {}\n",
      n, kKeys, repeats, kWorkers, batch,
      receive_buffer > 0 ? std::to_string(receive_buffer) : "default", chaining ? "on" : "off");
  struct Line {
    uint64_t window;
    double baseline, tempest;
    uint64_t baseline_rows, tempest_rows;
  };
  std::vector<Line> lines;
  for (uint64_t w : windows) {
    std::vector<double> base_rates, temp_rates;
    Line line{w, 0, 0, 0, 0};
    for (int round = 1; round <= repeats; ++round) {
      const Result base = RunBaseline(n, w, batch);
      const Result temp = RunTempest(n, w, out, receive_buffer, chaining);
      ok = ok && base.ok && temp.ok;
      base_rates.push_back(inputs / base.seconds);
      temp_rates.push_back(inputs / temp.seconds);
      line.baseline_rows = base.rows;
      line.tempest_rows = temp.rows;
      fmt::print(
          "  window {} round {}: baseline {:.3f} s {:.2f}M in/s {} rows{}; tempest {:.3f} s "
          "{:.2f}M in/s {} rows{}\n",
          w, round, base.seconds, base_rates.back() / 1e6, base.rows,
          base.ok ? "" : " NOT VERIFIED", temp.seconds, temp_rates.back() / 1e6, temp.rows,
          temp.ok ? "" : " NOT VERIFIED");
    }
    line.baseline = Median(base_rates);
    line.tempest = Median(temp_rates);
    lines.push_back(line);
  }
  fmt::print("\n{:>8} {:>16} {:>15} {:>7}   {}\n", "window", "baseline M in/s", "tempest M in/s",
             "ratio", "rows (last round): baseline / tempest");
  for (const Line& l : lines) {
    fmt::print("{:>8} {:>16.2f} {:>15.2f} {:>7.2f}   {} / {}\n", l.window, l.baseline / 1e6,
               l.tempest / 1e6, l.tempest / l.baseline, l.baseline_rows, l.tempest_rows);
  }
  return ok ? 0 : 1;
}
