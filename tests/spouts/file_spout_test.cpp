// FileSpout (docs/contracts.md, "Values and files"): typed values from JSON lines and CSV,
// multi-stream routing, bad lines reported and skipped, replay of failed ids, and a real run into a
// FileSink.
#include "spouts/file_spout.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <limits>
#include <set>
#include <thread>

#include "../support/builtin_test_support.h"
#include "bolts/file_sink.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace tempest::spouts {
namespace {

using ::testing::ElementsAre;
using testing::FakeSpoutCollector;
using testing::ReadFile;
using testing::SpoutContext;
using ::testing::StartsWith;
using testing::TempDir;
using testing::WriteFile;
using topology::List;
using topology::Map;
using topology::NextResult;
using topology::Value;
using topology::Values;

// What a spout emitted, for comparisons: stream, values, message id.
struct Out {
  std::string stream;
  Values values;
  Value id;
  friend bool operator==(const Out&, const Out&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Out& o) {
    return os << o.stream << " " << topology::ToString(o.values) << " #" << o.id.ToString();
  }
};

std::vector<Out> Emitted(const FakeSpoutCollector& c) {
  std::vector<Out> out;
  for (const auto& e : c.emitted) out.push_back({e.stream, e.values, e.message_id});
  return out;
}

// Calls NextTuple until the spout is exhausted (bounded, so a bug cannot hang the test).
std::vector<NextResult> Drain(FileSpout& spout) {
  std::vector<NextResult> results;
  for (int i = 0; i < 100000; ++i) {
    results.push_back(spout.NextTuple());
    if (results.back() == NextResult::kExhausted) break;
  }
  return results;
}

FileSpoutConfig Single(std::string path, std::vector<std::string> fields) {
  FileSpoutConfig c;
  c.path = std::move(path);
  c.fields = std::move(fields);
  return c;
}

std::string ValidationError(const FileSpoutConfig& c) {
  try {
    ValidateFileSpoutConfig(c);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(valid)";
}

TEST(FileSpoutConfigTest, ValidationNamesTheKeyAtFault) {
  FileSpoutConfig ok = Single("in.jsonl", {"a"});
  EXPECT_EQ(ValidationError(ok), "(valid)");

  FileSpoutConfig c = ok;
  c.path = "";
  EXPECT_EQ(ValidationError(c), "`path` is required: the file to read");

  c = ok;
  c.format = "xml";
  EXPECT_EQ(ValidationError(c), "`format` must be jsonl or csv, not \"xml\"");

  c = ok;
  c.streams = {{"s", {"a"}}};
  c.stream_field = "kind";
  EXPECT_EQ(ValidationError(c), "`fields` and `streams` are alternatives: give one, not both");

  c = ok;
  c.fields.clear();
  EXPECT_EQ(
      ValidationError(c),
      "give `fields` (the emitted fields) or `streams` (each stream's fields) with `stream_field`");

  c = ok;
  c.fields.clear();
  c.streams = {{"s", {"a"}}};
  EXPECT_EQ(ValidationError(c),
            "`streams` needs `stream_field`: the field whose value names each line's stream");

  c = ok;
  c.stream_field = "kind";
  EXPECT_EQ(ValidationError(c),
            "`stream_field` is only used with `streams`; with `fields` every line goes to "
            "`stream`");

  c = ok;
  c.stream = "";
  EXPECT_EQ(ValidationError(c), "`stream` must not be empty");

  c = ok;
  c.fields = {"a", "b", "a"};
  EXPECT_EQ(ValidationError(c), "`fields` names field \"a\" twice");

  c = ok;
  c.fields = {"a", ""};
  EXPECT_EQ(ValidationError(c), "`fields` has an empty field name");

  c = ok;
  c.fields.clear();
  c.stream_field = "kind";
  c.streams = {{"s", {"a"}}, {"t", {"b"}}, {"s", {"c"}}};
  EXPECT_EQ(ValidationError(c), "`streams` declares stream \"s\" twice");
  c.streams = {{"s", {"a"}}, {"", {"b"}}};
  EXPECT_EQ(ValidationError(c), "`streams` has a stream with an empty name");
  c.streams = {{"s", {"a"}}, {"t", {"b", "b"}}};
  EXPECT_EQ(ValidationError(c), "`streams.t` names field \"b\" twice");
  c.streams = {{"s", {"a"}}, {"t", {}}};  // a stream may have no fields
  EXPECT_EQ(ValidationError(c), "(valid)");
}

TEST(FileSpoutConfigTest, TheConstructorValidates) {
  EXPECT_THROW(FileSpout(Single("", {"a"})), std::invalid_argument);
}

TEST(FileSpoutConfigTest, FormatDefaultsFromTheExtension) {
  EXPECT_EQ(ResolveFileFormat(Single("a/b.csv", {"x"})), FileFormat::kCsv);
  EXPECT_EQ(ResolveFileFormat(Single("B.CSV", {"x"})), FileFormat::kCsv);
  EXPECT_EQ(ResolveFileFormat(Single("b.jsonl", {"x"})), FileFormat::kJsonl);
  EXPECT_EQ(ResolveFileFormat(Single("b.txt", {"x"})), FileFormat::kJsonl);
  EXPECT_EQ(ResolveFileFormat(Single("csv", {"x"})), FileFormat::kJsonl);
  FileSpoutConfig c = Single("b.csv", {"x"});
  c.format = "jsonl";
  EXPECT_EQ(ResolveFileFormat(c), FileFormat::kJsonl);
  c = Single("b.data", {"x"});
  c.format = "csv";
  EXPECT_EQ(ResolveFileFormat(c), FileFormat::kCsv);
}

TEST(FileSpoutTest, DeclaresItsStreams) {
  FileSpoutConfig c = Single("x.jsonl", {"a", "b"});
  c.stream = "rows";
  topology::OutputFieldsDeclarer d("files");
  FileSpout(c).DeclareOutputFields(d);
  auto streams = d.TakeStreams();
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0]->stream, "rows");
  EXPECT_EQ(*streams[0]->fields, (topology::Fields{"a", "b"}));

  FileSpoutConfig m;
  m.path = "x.jsonl";
  m.streams = {{"clicks", {"user", "url"}}, {"views", {"page"}}};
  m.stream_field = "type";
  topology::OutputFieldsDeclarer d2("files");
  FileSpout(m).DeclareOutputFields(d2);
  streams = d2.TakeStreams();
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0]->stream, "clicks");
  EXPECT_EQ(*streams[0]->fields, (topology::Fields{"user", "url"}));
  EXPECT_EQ(streams[1]->stream, "views");
  EXPECT_EQ(*streams[1]->fields, (topology::Fields{"page"}));
}

TEST(FileSpoutTest, JsonLinesGiveTypedValuesInFieldOrder) {
  TempDir dir;
  const std::string path = dir.File("in.jsonl");
  WriteFile(path,
            "{\"id\":1,\"name\":\"a\",\"score\":1.5,\"tags\":[\"x\",2],\"ok\":true}\n"
            "\n"
            "{\"name\":\"b\\\"q\",\"id\":2,\"score\":null}\n"
            "not json\n"
            "[1,2]\n"
            "{\"id\":3,\"score\":2.0,\"tags\":{\"k\":null},\"extra\":9}\n"
            "   \n"
            "{\"id\":9223372036854775807,\"name\":\"\\u00e9\",\"score\":-4}");  // no final \n
  FileSpout spout(Single(path, {"id", "name", "score", "tags"}));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  const std::vector<NextResult> results = Drain(spout);
  EXPECT_EQ(results, (std::vector<NextResult>{NextResult::kEmitted, NextResult::kEmitted,
                                              NextResult::kEmitted, NextResult::kEmitted,
                                              NextResult::kExhausted}));
  EXPECT_THAT(
      Emitted(out),
      ElementsAre(Out{"default", {1, "a", 1.5, Value(List{Value("x"), Value(2)})}, Value(1)},
                  Out{"default", {2, "b\"q", Value(), Value()}, Value(3)},
                  Out{"default", {3, Value(), 2.0, Value(Map{{Value("k"), Value()}})}, Value(6)},
                  Out{"default",
                      {std::numeric_limits<int64_t>::max(), "\xC3\xA9", -4, Value()},
                      Value(8)}));
  // Types are exact: 2.0 stays a double, -4 an int.
  EXPECT_EQ(out.emitted[2].values[2].type(), topology::ValueType::kDouble);
  EXPECT_EQ(out.emitted[3].values[2].type(), topology::ValueType::kInt);
  EXPECT_EQ(out.errors,
            (std::vector<std::string>{
                path + ":4: invalid JSON: parse error at line 1, column 2: syntax error while "
                       "parsing value - invalid literal; last read: 'no'",
                path + ":5: expected a JSON object, found an array"}));
  EXPECT_EQ(spout.skipped_lines(), 2u);
  // Exhausted stays exhausted.
  EXPECT_EQ(spout.NextTuple(), NextResult::kExhausted);
}

TEST(FileSpoutTest, EveryKindOfBadJsonLineIsReportedWithPathAndLine) {
  TempDir dir;
  const std::string path = dir.File("bad.jsonl");
  WriteFile(path,
            "{\"a\":1\n"
            "42\n"
            "\"text\"\n"
            "null\n"
            "{\"a\":1} {\"a\":2}\n"
            "{\"a\":2}\n");
  FileSpout spout(Single(path, {"a"}));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  EXPECT_THAT(Emitted(out), ElementsAre(Out{"default", {2}, Value(6)}));
  ASSERT_EQ(out.errors.size(), 5u);
  EXPECT_EQ(out.errors[0], path +
                               ":1: invalid JSON: parse error at line 1, column 7: syntax error "
                               "while parsing object - unexpected end of input; expected '}'");
  EXPECT_EQ(out.errors[1], path + ":2: expected a JSON object, found a number");
  EXPECT_EQ(out.errors[2], path + ":3: expected a JSON object, found a string");
  EXPECT_EQ(out.errors[3], path + ":4: expected a JSON object, found null");
  EXPECT_THAT(out.errors[4],
              StartsWith(path + ":5: invalid JSON: parse error at line 1, column 9"));
  EXPECT_EQ(spout.skipped_lines(), 5u);
}

TEST(FileSpoutTest, CrLfLineEndsAndAByteOrderMarkAreIgnored) {
  TempDir dir;
  const std::string path = dir.File("crlf.jsonl");
  WriteFile(path, "\xEF\xBB\xBF{\"a\":\"x\"}\r\n\r\n{\"a\":\"y\"}\r\n");
  FileSpout spout(Single(path, {"a"}));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  EXPECT_THAT(Emitted(out),
              ElementsAre(Out{"default", {"x"}, Value(1)}, Out{"default", {"y"}, Value(3)}));
  EXPECT_TRUE(out.errors.empty());
}

TEST(FileSpoutTest, EmitsOnTheConfiguredStream) {
  TempDir dir;
  const std::string path = dir.File("s.jsonl");
  WriteFile(path, "{\"a\":1}\n");
  FileSpoutConfig c = Single(path, {"a"});
  c.stream = "rows";
  FileSpout spout(c);
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  EXPECT_THAT(Emitted(out), ElementsAre(Out{"rows", {1}, Value(1)}));
}

TEST(FileSpoutTest, CsvHeaderNamesTheColumnsAndCellsAreTyped) {
  TempDir dir;
  const std::string path = dir.File("in.csv");
  WriteFile(path,
            "id,name,score,note\r\n"
            "1,alice,1.5,\"hello, world\"\r\n"
            "2,,2,\r\n"
            "\r\n"
            "3,\"bob \"\"the\"\" builder\",-0.5,\"two\r\nlines\"\r\n"
            "4,x\r\n"
            "5,a,b,c,d\r\n"
            "6,\"q\"x,1,2\r\n"
            "\"7\",\"\",\"1e3\",\"007\"\r\n");
  FileSpout spout(Single(path, {"name", "id", "note", "score"}));  // not the header's order
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  EXPECT_THAT(Emitted(out),
              ElementsAre(Out{"default", {"alice", 1, "hello, world", 1.5}, Value(2)},
                          Out{"default", {Value(), 2, Value(), 2}, Value(3)},
                          Out{"default", {"bob \"the\" builder", 3, "two\nlines", -0.5}, Value(5)},
                          Out{"default", {"x", 4, Value(), Value()}, Value(7)},
                          Out{"default", {Value(), 7, 7, 1000.0}, Value(10)}));
  EXPECT_EQ(out.emitted[1].values[3].type(), topology::ValueType::kInt);
  EXPECT_EQ(out.emitted[4].values[3].type(), topology::ValueType::kDouble);
  EXPECT_EQ(out.errors, (std::vector<std::string>{
                            path + ":8: 5 cells, but the header has 4 columns",
                            path + ":9: unexpected text after a closing quote (character 6)"}));
  EXPECT_EQ(spout.skipped_lines(), 2u);
}

TEST(FileSpoutTest, CsvUnterminatedQuoteAtTheEndIsReported) {
  TempDir dir;
  const std::string path = dir.File("open.csv");
  WriteFile(path, "a,b\n1,2\n3,\"never\nclosed\n");
  FileSpout spout(Single(path, {"a", "b"}));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  EXPECT_THAT(Emitted(out), ElementsAre(Out{"default", {1, 2}, Value(2)}));
  EXPECT_EQ(out.errors, (std::vector<std::string>{
                            path + ":3: a quoted cell is not closed before the end of the file"}));
}

TEST(FileSpoutTest, CsvFieldsMustBeHeaderColumns) {
  TempDir dir;
  const std::string path = dir.File("h.csv");
  WriteFile(path, "a,b,a\n1,2,3\n");
  FakeSpoutCollector out;
  try {
    FileSpout spout(Single(path, {"b", "c"}));
    spout.Open(SpoutContext(), out);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ":1: field \"c\" is not a column of the CSV header (columns: a, b, a)");
  }
  try {
    FileSpout spout(Single(path, {"a"}));
    spout.Open(SpoutContext(), out);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ":1: column \"a\" appears more than once in the CSV header");
  }
  FileSpout spout(Single(path, {"b"}));  // an unused repeated column is fine
  spout.Open(SpoutContext(), out);
  Drain(spout);
  EXPECT_THAT(Emitted(out), ElementsAre(Out{"default", {2}, Value(2)}));
}

TEST(FileSpoutTest, EmptyFilesAreExhaustedAtOnce) {
  TempDir dir;
  for (const char* name : {"empty.csv", "empty.jsonl"}) {
    WriteFile(dir.File(name), "");
    FileSpout spout(Single(dir.File(name), {"a"}));
    FakeSpoutCollector out;
    spout.Open(SpoutContext(), out);
    EXPECT_EQ(spout.NextTuple(), NextResult::kExhausted) << name;
    EXPECT_TRUE(out.emitted.empty());
    EXPECT_TRUE(out.errors.empty());
  }
}

TEST(FileSpoutTest, OpenNamesThePathItCannotRead) {
  TempDir dir;
  FakeSpoutCollector out;
  const std::string missing = dir.File("missing.jsonl");
  try {
    FileSpout spout(Single(missing, {"a"}));
    spout.Open(SpoutContext(), out);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot open " + missing + ": No such file or directory");
  }
  try {
    FileSpout spout(Single(dir.path(), {"a"}));
    spout.Open(SpoutContext(), out);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read " + dir.path() + ": it is a directory");
  }
  try {
    FileSpout spout(Single("/dev/zero", {"a"}));  // never ends, no line breaks
    spout.Open(SpoutContext(), out);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read /dev/zero: it is a character device (FileSpout reads files and named "
              "pipes)");
  }
}

// Only max_line_bytes of a line is ever held: a longer line (a longer CSV record, whatever its
// line breaks) is reported with its line number and skipped, and reading goes on.
TEST(FileSpoutTest, ALineLongerThanMaxLineBytesIsReportedAndSkipped) {
  TempDir dir;
  const std::string jsonl = dir.File("long.jsonl");
  WriteFile(jsonl, "{\"a\":1}\n{\"a\":\"" + std::string(100, 'x') + "\"}\n{\"a\":3}\n");
  FileSpoutConfig c = Single(jsonl, {"a"});
  c.max_line_bytes = 64;
  FileSpout spout(c);
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  EXPECT_THAT(Emitted(out),
              ElementsAre(Out{"default", {1}, Value(1)}, Out{"default", {3}, Value(3)}));
  EXPECT_EQ(out.errors,
            (std::vector<std::string>{jsonl + ":2: longer than max_line_bytes (64 bytes)"}));
  EXPECT_EQ(spout.skipped_lines(), 1u);

  const std::string csv = dir.File("long.csv");
  WriteFile(csv, "a\n1\n\"" + std::string(40, 'y') + "\n" + std::string(40, 'y') + "\"\n3\n");
  FileSpoutConfig k = Single(csv, {"a"});
  k.max_line_bytes = 64;
  FileSpout csv_spout(k);
  FakeSpoutCollector csv_out;
  csv_spout.Open(SpoutContext(), csv_out);
  Drain(csv_spout);
  EXPECT_EQ(csv_out.errors,
            (std::vector<std::string>{csv + ":3: longer than max_line_bytes (64 bytes)"}));
  ASSERT_FALSE(Emitted(csv_out).empty());
  EXPECT_EQ(Emitted(csv_out).front(), (Out{"default", {1}, Value(2)}));
}

FileSpoutConfig MultiStream(std::string path) {
  FileSpoutConfig c;
  c.path = std::move(path);
  c.streams = {{"clicks", {"user", "url"}}, {"views", {"user", "page", "type"}}};
  c.stream_field = "type";
  return c;
}

TEST(FileSpoutTest, MultiStreamJsonLinesGoToTheStreamTheirFieldNames) {
  TempDir dir;
  const std::string path = dir.File("events.jsonl");
  WriteFile(path,
            "{\"type\":\"clicks\",\"user\":\"u1\",\"url\":\"/a\"}\n"
            "{\"user\":\"u2\",\"page\":\"p\",\"type\":\"views\"}\n"
            "{\"type\":\"buys\",\"user\":\"u3\"}\n"
            "{\"user\":\"u4\"}\n"
            "{\"type\":7}\n"
            "{\"type\":\"clicks\",\"user\":\"u5\"}\n");
  FileSpout spout(MultiStream(path));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  EXPECT_THAT(Emitted(out), ElementsAre(Out{"clicks", {"u1", "/a"}, Value(1)},
                                        Out{"views", {"u2", "p", "views"}, Value(2)},
                                        Out{"clicks", {"u5", Value()}, Value(6)}));
  EXPECT_EQ(out.errors,
            (std::vector<std::string>{
                path + ":3: unknown stream \"buys\" in \"type\" (streams: clicks, views)",
                path + ":4: no member \"type\" naming the line's stream",
                path + ":5: member \"type\" names the line's stream, so it must be a string; "
                       "found a number"}));
  EXPECT_EQ(spout.skipped_lines(), 3u);
}

TEST(FileSpoutTest, MultiStreamCsvRowsGoToTheStreamTheirColumnNames) {
  TempDir dir;
  const std::string path = dir.File("events.csv");
  WriteFile(path,
            "type,user,url,page\n"
            "clicks,u1,/a,\n"
            "views,u2,,p1\n"
            "other,u3,,\n"
            ",u4,,\n"
            "views,u5\n");
  FileSpout spout(MultiStream(path));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  EXPECT_THAT(Emitted(out), ElementsAre(Out{"clicks", {"u1", "/a"}, Value(2)},
                                        Out{"views", {"u2", "p1", "views"}, Value(3)},
                                        Out{"views", {"u5", Value(), "views"}, Value(6)}));
  EXPECT_EQ(out.errors,
            (std::vector<std::string>{
                path + ":4: unknown stream \"other\" in \"type\" (streams: clicks, views)",
                path + ":5: no stream named in column \"type\""}));
}

TEST(FileSpoutTest, AFailedLineIsReplayedBeforeNewLines) {
  TempDir dir;
  const std::string path = dir.File("r.jsonl");
  WriteFile(path, "{\"a\":\"one\"}\n{\"a\":\"two\"}\n\n{\"a\":\"four\"}\n");
  FileSpout spout(Single(path, {"a"}));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);

  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);  // line 1
  EXPECT_EQ(spout.pending_lines(), 1u);
  spout.Fail(Value(1));
  spout.Fail(Value(1));                                // a repeated fail queues it once
  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);  // line 1 again
  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);  // line 2
  spout.Ack(Value(1));
  EXPECT_EQ(spout.pending_lines(), 1u);
  spout.Fail(Value(1));  // already acked: nothing to replay
  spout.Fail(Value(2));
  spout.Ack(Value(2));                                 // acked while queued: not replayed
  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);  // line 4
  ASSERT_EQ(spout.NextTuple(), NextResult::kExhausted);
  // Failures after the end of the file are replayed too, in the order they failed.
  spout.Fail(Value(4));
  spout.Fail(Value("not an id"));
  spout.Fail(Value(99));
  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);
  ASSERT_EQ(spout.NextTuple(), NextResult::kExhausted);
  EXPECT_THAT(Emitted(out),
              ElementsAre(Out{"default", {"one"}, Value(1)}, Out{"default", {"one"}, Value(1)},
                          Out{"default", {"two"}, Value(2)}, Out{"default", {"four"}, Value(4)},
                          Out{"default", {"four"}, Value(4)}));
  spout.Ack(Value(4));
  EXPECT_EQ(spout.pending_lines(), 0u);
}

TEST(FileSpoutTest, ReplayKeepsTheStreamOfAMultiStreamLine) {
  TempDir dir;
  const std::string path = dir.File("m.csv");
  WriteFile(path, "type,user,url,page\nviews,u1,,p\nclicks,u2,/x,\n");
  FileSpout spout(MultiStream(path));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  spout.Fail(Value(2));
  spout.Fail(Value(3));
  Drain(spout);
  EXPECT_THAT(Emitted(out), ElementsAre(Out{"views", {"u1", "p", "views"}, Value(2)},
                                        Out{"clicks", {"u2", "/x"}, Value(3)},
                                        Out{"views", {"u1", "p", "views"}, Value(2)},
                                        Out{"clicks", {"u2", "/x"}, Value(3)}));
}

TEST(FileSpoutTest, TasksSplitTheLinesSoTheFileIsEmittedOnce) {
  TempDir dir;
  for (const bool csv : {false, true}) {
    const std::string path = dir.File(csv ? "p.csv" : "p.jsonl");
    std::string text = csv ? "n\n" : "";
    for (int i = 0; i < 100; ++i) {
      text += csv ? std::to_string(i) + "\n" : "{\"n\":" + std::to_string(i) + "}\n";
      if (i % 10 == 0) text += csv ? "\n" : "oops\n";  // blank (csv) or bad (jsonl) lines
    }
    WriteFile(path, text);
    std::multiset<int64_t> all;
    uint64_t skipped = 0;
    for (int task = 0; task < 3; ++task) {
      FileSpout spout(Single(path, {"n"}));
      FakeSpoutCollector out;
      spout.Open(SpoutContext(3, task), out);
      Drain(spout);
      for (const auto& e : out.emitted) {
        all.insert(e.values[0].AsInt());
        EXPECT_EQ((e.message_id.AsInt() - 1) % 3, task);
      }
      skipped += spout.skipped_lines();
    }
    std::multiset<int64_t> expected;
    for (int i = 0; i < 100; ++i) expected.insert(i);
    EXPECT_EQ(all, expected) << path;
    EXPECT_EQ(skipped, csv ? 0u : 10u) << path;  // each bad line reported by one task only
  }
}

TEST(FileSpoutTest, ReadsTheFileIncrementally) {
  // A FIFO whose writer holds back its last line until the spout has emitted the first two:
  // a spout that read the whole file up front would block until the writer's deadline.
  TempDir dir;
  const std::string path = dir.File("fifo.jsonl");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::promise<void> go;
  std::future<void> go_signal = go.get_future();
  bool writer_timed_out = false;
  std::thread writer([&] {
    std::ofstream w(path);
    w << "{\"x\":1}\n{\"x\":2}\n" << std::flush;
    writer_timed_out = go_signal.wait_for(std::chrono::seconds(20)) != std::future_status::ready;
    w << "{\"x\":3}\n" << std::flush;
  });
  FileSpout spout(Single(path, {"x"}));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  EXPECT_EQ(spout.NextTuple(), NextResult::kEmitted);
  EXPECT_EQ(spout.NextTuple(), NextResult::kEmitted);
  EXPECT_EQ(out.emitted.size(), 2u);
  go.set_value();
  EXPECT_EQ(spout.NextTuple(), NextResult::kEmitted);
  EXPECT_EQ(spout.NextTuple(), NextResult::kExhausted);
  writer.join();
  EXPECT_FALSE(writer_timed_out);
  EXPECT_THAT(Emitted(out),
              ElementsAre(Out{"default", {1}, Value(1)}, Out{"default", {2}, Value(2)},
                          Out{"default", {3}, Value(3)}));
}

TEST(FileSpoutTest, ReportsHowMuchOfTheFileItHasRead) {
  // 10,000 lines of 13 bytes: the size and nothing read at Open, then the bytes read (whole
  // lines) every 4 KiB or more, and all of it at the end.
  TempDir dir;
  const std::string path = dir.File("n.jsonl");
  std::string text;
  for (int i = 0; i < 10000; ++i) text += fmt::format("{{\"n\":\"{:04}\"}}\n", i);
  ASSERT_EQ(text.size(), 130000u);
  WriteFile(path, text);
  FileSpout spout(Single(path, {"n"}));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  ASSERT_EQ(out.emitted.size(), 10000u);
  using G = std::pair<std::string, uint64_t>;
  ASSERT_GE(out.gauges.size(), 3u);
  EXPECT_EQ(out.gauges[0], (G{"input bytes", 130000}));
  EXPECT_EQ(out.gauges[1], (G{"input bytes read", 0}));
  EXPECT_EQ(out.gauges.back(), (G{"input bytes read", 130000}));
  uint64_t last = 0;
  for (std::size_t i = 2; i + 1 < out.gauges.size(); ++i) {
    EXPECT_EQ(out.gauges[i].first, "input bytes read");
    EXPECT_EQ(out.gauges[i].second % 13, 0u) << "not at a line's end: " << out.gauges[i].second;
    EXPECT_GE(out.gauges[i].second, last + 4096);
    last = out.gauges[i].second;
  }
  EXPECT_EQ(out.gauges.size(), 2 + 130000 / 4108 + 1);  // a report every 316 lines (4,108 bytes)
}

TEST(FileSpoutTest, APipeHasNoSizeAndReportsNoInputGauges) {
  TempDir dir;
  const std::string path = dir.File("fifo.jsonl");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(path) << "{\"x\":1}\n"; });
  FileSpout spout(Single(path, {"x"}));
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  Drain(spout);
  writer.join();
  EXPECT_EQ(out.emitted.size(), 1u);
  EXPECT_TRUE(out.gauges.empty());
}

// A real run: FileSpout → FileSink, every line written exactly once, as a JSON object of the
// spout's fields (compared as a multiset of lines, since tasks interleave).
class FileSpoutToFileSinkTest : public ::testing::TestWithParam<int> {};

TEST_P(FileSpoutToFileSinkTest, EveryLineArrivesOnceAsJson) {
  const int p = GetParam();
  TempDir dir;
  const std::string in = dir.File("in.jsonl");
  const std::string sink = dir.File("out.jsonl");
  WriteFile(sink, "stale content from an earlier run\n");
  constexpr int kLines = 3000;
  std::string input;
  std::vector<std::string> expected;
  int bad = 0;
  for (int i = 0; i < kLines; ++i) {
    const std::string score = std::to_string(i) + ".5";
    const std::string name = "n\\\"" + std::to_string(i) + "\\u00e9";  // JSON text of n"<i>é
    if (i % 7 == 3) {
      // Members in another order, one missing, an extra one ignored.
      input += fmt::format("{{\"extra\":[1],\"score\":{},\"id\":{}}}\n", score, i);
      expected.push_back(
          fmt::format("{{\"id\":{},\"name\":null,\"score\":{},\"tags\":null}}", i, score));
    } else {
      input += fmt::format("{{\"id\":{},\"name\":\"{}\",\"score\":{},\"tags\":[{},\"t\",{{}}]}}\n",
                           i, name, score, i);
      expected.push_back(fmt::format(
          "{{\"id\":{},\"name\":\"n\\\"{}\xC3\xA9\",\"score\":{},\"tags\":[{},\"t\",{{}}]}}", i, i,
          score, i));
    }
    if (i % 500 == 0) {
      input += "{broken\n\n";
      ++bad;
    }
  }
  WriteFile(in, input);

  topology::TopologyBuilder b("file-to-file");
  b.SetSpout(
      "files",
      [in] {
        return std::make_unique<FileSpout>(Single(in, {"id", "name", "score", "tags"}));
      },
      p);
  b.SetBolt(
       "sink",
       [sink] { return std::make_unique<bolts::FileSink>(bolts::FileSinkConfig{.path = sink}); }, p)
      .ShuffleGrouping("files");
  const runtime::RunSummary s = runtime::LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("files")->emitted, static_cast<uint64_t>(kLines));
  EXPECT_EQ(s.Find("files")->errors, static_cast<uint64_t>(bad));
  EXPECT_EQ(s.Find("sink")->executed, static_cast<uint64_t>(kLines));
  EXPECT_EQ(s.Find("sink")->acked, static_cast<uint64_t>(kLines));
  EXPECT_EQ(s.Find("sink")->errors, 0u);

  const std::string written = ReadFile(sink);
  ASSERT_FALSE(written.empty());
  EXPECT_EQ(written.back(), '\n');
  std::vector<std::string> lines = testing::SplitLines(written);
  std::sort(lines.begin(), lines.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(lines, expected);
}

INSTANTIATE_TEST_SUITE_P(Parallelism, FileSpoutToFileSinkTest, ::testing::Values(1, 3));

}  // namespace
}  // namespace tempest::spouts
