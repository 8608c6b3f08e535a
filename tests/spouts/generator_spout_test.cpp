// GeneratorSpout: [id, key, ts, payload] by the documented rule, split across tasks, failed ids
// replayed first; the same tuples whether it emits Values or rows (the runtime's collector).
#include "spouts/generator_spout.h"

#include <gtest/gtest.h>

#include "../support/builtin_test_support.h"

namespace tempest::spouts {
namespace {

using testing::FakeSpoutCollector;
using testing::SpoutContext;
using topology::NextResult;
using topology::Value;
using topology::Values;

// A collector that also takes rows, as the runtime's does; it records them as values.
class FakeRowSpoutCollector final : public FakeSpoutCollector, public topology::SpoutRowEmitter {
 public:
  int rows = 0;
  void EmitRow(std::string_view stream, const topology::RowRef& row, Value message_id) override {
    ++rows;
    Values values;
    row.LoadValues(values);
    emitted.push_back({std::string(stream), std::move(values), std::move(message_id)});
  }
};

// Emits until exhausted, failing ids 3 and 4 after the fifth emit (replayed before id 5).
void Drive(GeneratorSpout& spout, FakeSpoutCollector& out, int parallelism, int index) {
  spout.Open(SpoutContext(parallelism, index), out);
  int calls = 0;
  while (spout.NextTuple() == NextResult::kEmitted) {
    if (++calls == 5 && parallelism == 1) {
      spout.Fail(Value(int64_t{4}));
      spout.Fail(Value(int64_t{3}));
    }
    ASSERT_LT(calls, 100);
  }
}

TEST(GeneratorSpoutTest, EmitsTheDocumentedRowsAndReplaysFailedIdsFirst) {
  const GeneratorSpoutConfig config{.count = 8,
                                    .keys = 3,
                                    .payload_bytes = 20,
                                    .start_ts = 1000,
                                    .ts_step_ms = 10,
                                    .stream = "out"};
  GeneratorSpout spout(config);
  FakeSpoutCollector out;
  Drive(spout, out, 1, 0);
  const std::vector<int64_t> ids = {0, 1, 2, 3, 4, 4, 3, 5, 6, 7};
  ASSERT_EQ(out.emitted.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const int64_t id = ids[i];
    EXPECT_EQ(out.emitted[i].stream, "out");
    EXPECT_EQ(out.emitted[i].values, (Values{id, id % 3, 1000 + 10 * id, std::string(20, 'x')}));
    EXPECT_EQ(out.emitted[i].message_id, Value(id));
  }
}

TEST(GeneratorSpoutTest, RowsAndValuesCarryTheSameTuples) {
  for (const int parallelism : {1, 3}) {
    for (int index = 0; index < parallelism; ++index) {
      const GeneratorSpoutConfig config{.count = 10, .keys = 4, .payload_bytes = 16};
      GeneratorSpout by_values(config), by_rows(config);
      FakeSpoutCollector values_out;
      FakeRowSpoutCollector rows_out;
      Drive(by_values, values_out, parallelism, index);
      Drive(by_rows, rows_out, parallelism, index);
      EXPECT_EQ(rows_out.rows, static_cast<int>(rows_out.emitted.size()));
      ASSERT_EQ(rows_out.emitted.size(), values_out.emitted.size());
      ASSERT_FALSE(values_out.emitted.empty());
      for (std::size_t i = 0; i < values_out.emitted.size(); ++i) {
        EXPECT_EQ(rows_out.emitted[i].stream, values_out.emitted[i].stream);
        EXPECT_EQ(rows_out.emitted[i].values, values_out.emitted[i].values);
        EXPECT_EQ(rows_out.emitted[i].message_id, values_out.emitted[i].message_id);
      }
    }
  }
}

}  // namespace
}  // namespace tempest::spouts
