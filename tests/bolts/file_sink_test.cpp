// FileSink (docs/contracts.md, "Values and files"): exact JSON lines, acks only after the write,
// flush timing on an injected clock, truncation by task 0, whole-line appends from several tasks,
// write errors.
#include "bolts/file_sink.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <thread>

#include "../support/builtin_test_support.h"
#include "topology/json.h"

namespace tempest::bolts {
namespace {

using testing::BoltContext;
using testing::FakeBoltCollector;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
using topology::Bytes;
using topology::List;
using topology::Map;
using topology::StreamSchema;
using topology::Tuple;
using topology::Value;
using topology::Values;
using namespace std::chrono_literals;

// A clock the test moves by hand.
struct FakeClock {
  FileSink::Clock::time_point now{std::chrono::hours(1)};
  std::function<FileSink::Clock::time_point()> Fn() {
    return [this] { return now; };
  }
};

StreamSchema Schema(std::vector<std::string> fields, std::string component = "src") {
  StreamSchema s;
  s.component = std::move(component);
  s.fields = std::make_shared<const topology::Fields>(std::move(fields));
  return s;
}

Tuple Tracked(const StreamSchema& schema, Values values, uint64_t root) {
  Tuple t(&schema, 7, std::move(values));
  tempest::topology::TupleAccess::MutableAck(t).anchors.push_back({root, root * 10});
  return t;
}

std::string ValidationError(const FileSinkConfig& c) {
  try {
    ValidateFileSinkConfig(c);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(valid)";
}

TEST(FileSinkConfigTest, Validation) {
  EXPECT_EQ(ValidationError({.path = "out.jsonl"}), "(valid)");
  EXPECT_EQ(ValidationError({.path = "out.jsonl", .flush_ms = 0}), "(valid)");
  EXPECT_EQ(ValidationError({.path = ""}), "`path` is required: the file to write");
  EXPECT_EQ(ValidationError({.path = "o", .flush_ms = -1}),
            "`flush_ms` must be 0 or more milliseconds, not -1");
  EXPECT_THROW(FileSink(FileSinkConfig{}), std::invalid_argument);
  EXPECT_EQ(FileSinkConfig{}.flush_ms, 100);
}

TEST(FileSinkTest, WritesEachTupleAsAJsonObjectLineOfItsFields) {
  TempDir dir;
  const std::string path = dir.File("out.jsonl");
  FileSink sink({.path = path, .flush_ms = 0});
  FakeBoltCollector out;
  sink.Prepare(BoltContext(), out);
  const StreamSchema schema =
      Schema({"id", "name", "score", "whole", "tags", "meta", "raw", "none"});
  sink.Execute(Tuple(&schema, 1,
                     Values{1, "a\"b\\c\n", 0.25, 2.0, Value(List{Value(1), Value("x")}),
                            Value(Map{{Value("k"), Value(true)}, {Value(3), Value()}}),
                            Value(Bytes{"foo"}), Value()}));
  const StreamSchema other = Schema({"n"});
  sink.Execute(Tuple(&other, 1, Values{-5}));
  sink.Cleanup();
  EXPECT_EQ(ReadFile(path),
            "{\"id\":1,\"name\":\"a\\\"b\\\\c\\n\",\"score\":0.25,\"whole\":2.0,\"tags\":[1,\"x\"],"
            "\"meta\":{\"k\":true,\"3\":null},\"raw\":\"Zm9v\",\"none\":null}\n"
            "{\"n\":-5}\n");
  EXPECT_EQ(out.acked.size(), 2u);
  EXPECT_TRUE(out.errors.empty());
  EXPECT_TRUE(out.emitted.empty());
}

TEST(FileSinkTest, AcksOnlyOnceTheLinesAreWrittenAndFlushesEveryFlushMs) {
  TempDir dir;
  const std::string path = dir.File("out.jsonl");
  FakeClock clock;
  FileSink sink({.path = path, .flush_ms = 100}, clock.Fn());
  EXPECT_EQ(sink.TickInterval(), 100ms);
  FakeBoltCollector out;
  sink.Prepare(BoltContext(), out);
  const StreamSchema schema = Schema({"v"});
  sink.Execute(Tracked(schema, {1}, 1));
  clock.now += 60ms;
  sink.Execute(Tracked(schema, {2}, 2));
  EXPECT_EQ(ReadFile(path), "");  // buffered: nothing written, nothing acked
  EXPECT_TRUE(out.acked.empty());

  clock.now += 40ms;  // 100 ms since the last flush (Prepare)
  sink.Execute(Tracked(schema, {3}, 3));
  EXPECT_EQ(ReadFile(path), "{\"v\":1}\n{\"v\":2}\n{\"v\":3}\n");
  ASSERT_EQ(out.acked.size(), 3u);
  // The ack handles carry what acking needs (schema, source task, ack metadata), not the values.
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out.acked[i].schema(), &schema);
    EXPECT_EQ(out.acked[i].GetSourceTask(), 7);
    EXPECT_EQ(std::vector<topology::AckMeta::Anchor>(
                  tempest::topology::TupleAccess::Ack(out.acked[i]).anchors.begin(),
                  tempest::topology::TupleAccess::Ack(out.acked[i]).anchors.end()),
              (std::vector<topology::AckMeta::Anchor>{{i + 1, (i + 1) * 10}}));
    EXPECT_EQ(out.acked[i].size(), 0u);
  }

  clock.now += 99ms;
  sink.Execute(Tracked(schema, {4}, 4));
  EXPECT_EQ(out.acked.size(), 3u);
  sink.OnTick();  // the tick flushes what is buffered
  EXPECT_EQ(ReadFile(path), "{\"v\":1}\n{\"v\":2}\n{\"v\":3}\n{\"v\":4}\n");
  EXPECT_EQ(out.acked.size(), 4u);

  sink.Execute(Tracked(schema, {5}, 5));
  EXPECT_EQ(out.acked.size(), 4u);
  sink.OnEndOfStream();  // end-of-stream flushes
  EXPECT_EQ(out.acked.size(), 5u);
  EXPECT_EQ(ReadFile(path), "{\"v\":1}\n{\"v\":2}\n{\"v\":3}\n{\"v\":4}\n{\"v\":5}\n");

  sink.Execute(Tracked(schema, {6}, 6));
  sink.Cleanup();  // so does Cleanup
  EXPECT_EQ(out.acked.size(), 6u);
  EXPECT_EQ(testing::SplitLines(ReadFile(path)).size(), 6u);
  EXPECT_EQ(out.log, std::vector<std::string>(6, "ack"));
}

// The batch path writes, from the rows' cells, the lines Execute writes for the same tuples
// (every kind of value, a string longer than a cell), acks the rows with their anchors once the
// flush interval has passed, and hands a row that does not match its fields to Execute, which
// fails it.
TEST(FileSinkTest, BatchesWriteTheLinesTuplesWrite) {
  TempDir dir;
  const StreamSchema schema = Schema({"id", "name", "score", "tags", "meta", "raw", "none"});
  const std::vector<Values> rows = {
      {1, "a\"b\\c\n", 0.25, Value(List{Value(1), Value("x")}),
       Value(Map{{Value("k"), Value(true)}, {Value(3), Value()}}), Value(Bytes{"foo"}), Value()},
      {-2, "a name longer than any cell holds", 2.0, Value(List{}), Value(Map{}),
       Value(Bytes{"bytes longer than a cell"}), false}};

  const std::string by_tuple = dir.File("tuples.jsonl");
  {
    FileSink sink({.path = by_tuple, .flush_ms = 0});
    FakeBoltCollector out;
    sink.Prepare(BoltContext(), out);
    for (const Values& r : rows) sink.Execute(Tuple(&schema, 1, r));
    sink.Cleanup();
  }

  const std::string by_batch = dir.File("batch.jsonl");
  FakeClock clock;
  FileSink sink({.path = by_batch, .flush_ms = 100}, clock.Fn());
  FakeBoltCollector out;
  sink.Prepare(BoltContext(), out);
  testing::FakeBatchCollector collector(sink, out);
  topology::RowBatch batch;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const topology::AckMeta::Anchor anchor{i + 1, (i + 1) * 10};
    batch.Append(&schema, rows[i], {&anchor, 1});
  }
  const StreamSchema too_many = Schema({"n"});
  const topology::AckMeta::Anchor bad_anchor{9, 90};
  batch.Append(&too_many, Values{1, 2}, {&bad_anchor, 1});
  sink.ExecuteBatch(batch, collector);
  EXPECT_EQ(ReadFile(by_batch), "");  // within flush_ms: buffered
  EXPECT_TRUE(out.acked.empty());
  EXPECT_EQ(collector.executed_as_tuples, 1);
  ASSERT_EQ(out.failed.size(), 1u);
  EXPECT_EQ(tempest::topology::TupleAccess::Ack(out.failed[0]).anchors[0].root, 9u);

  clock.now += 100ms;
  sink.ExecuteBatch(topology::RowBatch(), collector);  // the interval is checked per batch
  EXPECT_EQ(ReadFile(by_batch), ReadFile(by_tuple));
  EXPECT_EQ(testing::SplitLines(ReadFile(by_batch)).size(), 2u);
  ASSERT_EQ(out.acked.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out.acked[i].schema(), &schema);
    EXPECT_EQ(out.acked[i].GetSourceTask(), collector.BatchSource());
    EXPECT_EQ(std::vector<topology::AckMeta::Anchor>(
                  tempest::topology::TupleAccess::Ack(out.acked[i]).anchors.begin(),
                  tempest::topology::TupleAccess::Ack(out.acked[i]).anchors.end()),
              (std::vector<topology::AckMeta::Anchor>{{i + 1, (i + 1) * 10}}));
  }
  EXPECT_TRUE(out.errors.empty());
}

TEST(FileSinkTest, TaskZeroTruncatesAndOtherTasksAppend) {
  TempDir dir;
  const std::string path = dir.File("out.jsonl");
  const StreamSchema schema = Schema({"v"});
  WriteFile(path, "old\n");
  {
    FileSink sink({.path = path, .flush_ms = 0});
    FakeBoltCollector out;
    sink.Prepare(BoltContext(2, 1), out);  // task index 1: appends
    sink.Execute(Tuple(&schema, 1, Values{1}));
    sink.Cleanup();
  }
  EXPECT_EQ(ReadFile(path), "old\n{\"v\":1}\n");
  {
    FileSink sink({.path = path, .flush_ms = 0});
    FakeBoltCollector out;
    sink.Prepare(BoltContext(2, 0), out);  // task index 0: truncates
    EXPECT_EQ(ReadFile(path), "");
    sink.Execute(Tuple(&schema, 1, Values{2}));
    sink.Cleanup();
  }
  EXPECT_EQ(ReadFile(path), "{\"v\":2}\n");
}

// A sink killed while it writes can leave a partial last line (the kernel stops a write at a
// page once SIGKILL is pending); the next line must not be glued to it.
TEST(FileSinkTest, APartialLineAKilledWriterLeftIsCutOffBeforeTheNextLine) {
  TempDir dir;
  const std::string path = dir.File("out.jsonl");
  const StreamSchema schema = Schema({"v"});
  const std::string long_torn = "{\"pad\":\"" + std::string(10000, 'p');  // beyond one read
  for (const std::string& before : {std::string("{\"v\":1}\n"), std::string()}) {
    for (const std::string& torn : {std::string("{\"v\":2"), long_torn}) {
      WriteFile(path, before + torn);
      FileSink sink({.path = path, .flush_ms = 0});
      FakeBoltCollector out;
      sink.Prepare(BoltContext(2, 1), out);  // task index 1: appends
      sink.Execute(Tracked(schema, Values{3}, 1));
      EXPECT_EQ(ReadFile(path), before + "{\"v\":3}\n") << torn.size() << " torn bytes";
      EXPECT_EQ(out.acked.size(), 1u);
      EXPECT_TRUE(out.errors.empty());
      sink.Cleanup();
    }
  }
}

TEST(FileSinkTest, APartialLineLeftBetweenFlushesIsCutOffToo) {
  TempDir dir;
  const std::string path = dir.File("out.jsonl");
  const StreamSchema schema = Schema({"v"});
  FileSink sink({.path = path, .flush_ms = 0});
  FakeBoltCollector out;
  sink.Prepare(BoltContext(), out);
  sink.Execute(Tuple(&schema, 1, Values{1}));
  // Another task's sink, sharing the file from another worker, is killed part-way through a line.
  WriteFile(path, ReadFile(path) + "{\"v\":9");
  sink.Execute(Tuple(&schema, 1, Values{2}));
  sink.Cleanup();
  EXPECT_EQ(ReadFile(path), "{\"v\":1}\n{\"v\":2}\n");
}

TEST(FileSinkTest, CreatesTheFile) {
  TempDir dir;
  const std::string path = dir.File("new.jsonl");
  FileSink sink({.path = path});
  FakeBoltCollector out;
  sink.Prepare(BoltContext(3, 2), out);
  sink.Cleanup();
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(ReadFile(path), "");
}

TEST(FileSinkTest, PrepareNamesThePathItCannotOpen) {
  TempDir dir;
  const std::string path = dir.File("no/such/dir/out.jsonl");
  FileSink sink({.path = path});
  FakeBoltCollector out;
  try {
    sink.Prepare(BoltContext(), out);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open " + path + " for writing: No such file or directory");
  }
}

TEST(FileSinkTest, AFailedWriteFailsTheTuplesAndReportsIt) {
  // /dev/full accepts the open and fails every write with ENOSPC.
  FileSink sink({.path = "/dev/full", .flush_ms = 100});
  FakeBoltCollector out;
  sink.Prepare(BoltContext(), out);
  const StreamSchema schema = Schema({"v"});
  sink.Execute(Tuple(&schema, 1, Values{1}));
  sink.Execute(Tuple(&schema, 1, Values{2}));
  sink.OnEndOfStream();
  EXPECT_EQ(out.errors,
            (std::vector<std::string>{
                "cannot write to /dev/full: No space left on device (2 tuples failed)"}));
  EXPECT_EQ(out.failed.size(), 2u);
  EXPECT_TRUE(out.acked.empty());
  sink.Cleanup();  // nothing left to write
  EXPECT_EQ(out.errors.size(), 1u);
}

// A file-size limit (RLIMIT_FSIZE) makes writes past it fail part-way with EFBIG, as a full disk
// fails them with ENOSPC; it is lifted again when the test ends.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of the signal
    Set(bytes);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }
  void Set(rlim_t bytes) {
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
};

TEST(FileSinkTest, AWriteThatFailsPartWayLeavesNoPartialLineAndReplaysWhole) {
  TempDir dir;
  const std::string path = dir.File("full.jsonl");
  FakeClock clock;
  FileSink sink({.path = path, .flush_ms = 1000}, clock.Fn());
  FakeBoltCollector out;
  sink.Prepare(BoltContext(), out);
  const StreamSchema schema = Schema({"id", "name"});
  const auto line = [](int i) {
    return "{\"id\":" + std::to_string(i) + ",\"name\":\"n" + std::to_string(i) + "\"}";
  };
  sink.Execute(Tracked(schema, Values{1, "n1"}, 1));
  sink.Flush();  // written: the file holds one whole line
  const std::size_t first = ReadFile(path).size();
  ASSERT_EQ(ReadFile(path), line(1) + "\n");
  {
    FileSizeLimit full(first + 10);  // the next line stops part-way
    sink.Execute(Tracked(schema, Values{2358, "n2358"}, 2));
    sink.Execute(Tracked(schema, Values{2359, "n2359"}, 3));
    sink.Flush();
    EXPECT_EQ(out.errors, (std::vector<std::string>{"cannot write to " + path +
                                                    ": File too large (2 tuples failed)"}));
    EXPECT_EQ(out.failed.size(), 2u);
    EXPECT_EQ(ReadFile(path), line(1) + "\n");  // the partial line was cut off
  }
  // Space again: the replays (and later tuples) follow the last whole line.
  sink.Execute(Tracked(schema, Values{1521, "n1521"}, 4));
  sink.Execute(Tracked(schema, Values{2358, "n2358"}, 2));
  sink.Execute(Tracked(schema, Values{2359, "n2359"}, 3));
  sink.Flush();
  EXPECT_EQ(ReadFile(path),
            line(1) + "\n" + line(1521) + "\n" + line(2358) + "\n" + line(2359) + "\n");
  EXPECT_EQ(out.acked.size(), 4u);
  EXPECT_EQ(out.failed.size(), 2u);
}

TEST(FileSinkTest, ALargeFlushKeepsEveryLineWhole) {
  TempDir dir;
  const std::string path = dir.File("big.jsonl");
  FakeClock clock;
  FileSink sink({.path = path, .flush_ms = 1000}, clock.Fn());
  FakeBoltCollector out;
  sink.Prepare(BoltContext(), out);
  const StreamSchema schema = Schema({"i", "pad"});
  constexpr int kTuples = 40000;  // ~4 MB: crosses the write-chunk and buffer limits
  const std::string pad(90, 'p');
  for (int i = 0; i < kTuples; ++i) sink.Execute(Tuple(&schema, 1, Values{i, pad}));
  sink.OnEndOfStream();
  const std::vector<std::string> lines = testing::SplitLines(ReadFile(path));
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(kTuples));
  for (int i = 0; i < kTuples; ++i) {
    ASSERT_EQ(lines[i], "{\"i\":" + std::to_string(i) + ",\"pad\":\"" + pad + "\"}");
  }
  EXPECT_EQ(out.acked.size(), static_cast<std::size_t>(kTuples));
}

TEST(FileSinkTest, TasksAppendingConcurrentlyNeverSplitALine) {
  TempDir dir;
  const std::string path = dir.File("shared.jsonl");
  constexpr int kTasks = 3;
  constexpr int kLines = 5000;
  const StreamSchema schema = Schema({"task", "i", "pad"});
  std::vector<std::unique_ptr<FileSink>> sinks;
  std::vector<FakeBoltCollector> outs(kTasks);
  for (int t = 0; t < kTasks; ++t) {
    sinks.push_back(std::make_unique<FileSink>(FileSinkConfig{.path = path, .flush_ms = 0}));
    sinks.back()->Prepare(BoltContext(kTasks, t), outs[t]);  // all prepare before any writes
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kTasks; ++t) {
    threads.emplace_back([&, t] {
      const std::string pad(static_cast<std::size_t>(50 + 37 * t), static_cast<char>('a' + t));
      for (int i = 0; i < kLines; ++i) sinks[t]->Execute(Tuple(&schema, 1, Values{t, i, pad}));
      sinks[t]->Cleanup();
    });
  }
  for (std::thread& th : threads) th.join();
  std::vector<std::string> lines = testing::SplitLines(ReadFile(path));
  std::vector<std::string> expected;
  for (int t = 0; t < kTasks; ++t) {
    const std::string pad(static_cast<std::size_t>(50 + 37 * t), static_cast<char>('a' + t));
    for (int i = 0; i < kLines; ++i) {
      expected.push_back("{\"task\":" + std::to_string(t) + ",\"i\":" + std::to_string(i) +
                         ",\"pad\":\"" + pad + "\"}");
    }
  }
  std::sort(lines.begin(), lines.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(lines, expected);
}

}  // namespace
}  // namespace tempest::bolts
