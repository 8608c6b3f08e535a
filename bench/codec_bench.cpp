// Wire-format cost: encoding and fully decoding frames of 100 benchmark tuples
// [id, key, ts, payload] (the shape docs/architecture.md, "Measured facts", reports: ~185M tuples/s
// encode, ~16-19M decode per core).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"
#include "transport/frame.h"

namespace {

using namespace tempest;

struct Fixture {
  Fixture() {
    topology::TopologyBuilder b;
    b.SetSpout("gen", [] { return std::make_unique<spouts::GeneratorSpout>(); });
    spec = b.Build();
    table = std::make_unique<transport::StreamTable>(spec);
    const topology::StreamSchema* schema = spec->Find("gen")->FindStream("default");
    for (int64_t id = 0; id < 100; ++id) {
      tuples.emplace_back(schema, 1, topology::Values{id, id % 1000, id, std::string(16, 'x')});
    }
    transport::EncodeFrame(transport::FrameKind::kTuples, 1, 2, tuples, *table, bytes);
  }
  std::shared_ptr<const topology::TopologySpec> spec;
  std::unique_ptr<transport::StreamTable> table;
  std::vector<topology::Tuple> tuples;
  std::string bytes;
};

void BM_EncodeFrameOf100(benchmark::State& state) {
  Fixture f;
  std::string out;
  for (auto _ : state) {
    out.clear();
    transport::EncodeFrame(transport::FrameKind::kTuples, 1, 2, f.tuples, *f.table, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * 100);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.bytes.size()));
}
BENCHMARK(BM_EncodeFrameOf100);

// What a task does for a remote destination: one reused builder, values straight in.
void BM_FrameBuilderOf100(benchmark::State& state) {
  Fixture f;
  transport::FrameBuilder builder;
  for (auto _ : state) {
    builder.Begin(1, 2);
    for (const topology::Tuple& t : f.tuples) builder.Add(0, t.GetValues());
    benchmark::DoNotOptimize(builder.Finish().data());
  }
  state.SetItemsProcessed(state.iterations() * 100);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.bytes.size()));
}
BENCHMARK(BM_FrameBuilderOf100);

void BM_DecodeFrameOf100(benchmark::State& state) {
  Fixture f;
  transport::Frame frame;
  for (auto _ : state) {
    const auto status = transport::DecodeFrame(f.bytes, *f.table, frame);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(frame.rows.size());
  }
  state.SetItemsProcessed(state.iterations() * 100);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.bytes.size()));
}
BENCHMARK(BM_DecodeFrameOf100);

// A bolt's acks to an acker of another worker: a frame of 256 ack messages with random 64-bit
// roots and values, as the remote ack batch sends them.
void BM_EncodeAckFrameOf256(benchmark::State& state) {
  std::vector<transport::AckMessage> acks;
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < 256; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    acks.push_back({transport::AckMessage::Type::kAck, x, x * 0xFF51AFD7ED558CCDULL});
  }
  std::string out;
  for (auto _ : state) {
    out.clear();
    transport::EncodeAckFrame(1, 2, acks, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * 256);
}
BENCHMARK(BM_EncodeAckFrameOf256);

}  // namespace

BENCHMARK_MAIN();
