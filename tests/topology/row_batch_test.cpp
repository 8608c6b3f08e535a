#include "topology/row_batch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tempest::topology {
namespace {

const StreamSchema kSchema{"spout", "default", std::make_shared<const Fields>(Fields{"a", "b"})};

// Every value type, with strings and bytes on both sides of the inline limit.
std::vector<Values> AllKinds() {
  const std::string inline_text(Cell::kInline, 'i');
  const std::string long_text(Cell::kInline + 1, 'l');
  return {
      {Value(), true},
      {false, std::numeric_limits<int64_t>::min()},
      {std::numeric_limits<int64_t>::max(), -0.0},
      {2.5, std::string()},
      {inline_text, long_text},
      {Bytes{std::string("\0\xff", 2)}, Bytes{std::string(40, '\0')}},
      {List{1, "two", List{}}, Map{{"k", 3}, {4, Value()}}},
  };
}

// A row being built cell by cell can be taken back (its builder threw) without touching the
// rows before it, and the next row starts clean.
TEST(RowBatchTest, ARowBeingBuiltIsDroppedWithoutTheRowsBeforeIt) {
  RowBatch batch;
  EXPECT_EQ(batch.OpenCells(), 0u);
  batch.AddInt(1);
  EXPECT_EQ(batch.OpenCells(), 1u);
  batch.DropOpenCells();  // the first row
  batch.AddInt(2);
  batch.AddString("two");
  batch.EndRow(&kSchema, 2, 0);
  batch.AddInt(3);
  batch.AddString(std::string(40, 'x'));
  EXPECT_EQ(batch.OpenCells(), 2u);
  batch.DropOpenCells();
  EXPECT_EQ(batch.OpenCells(), 0u);
  batch.AddInt(4);
  batch.AddNull();
  batch.EndRow(&kSchema, 2, 0);
  ASSERT_EQ(batch.size(), 2u);
  Values v;
  batch[0].LoadValues(v);
  EXPECT_EQ(v, (Values{2, "two"}));
  batch[1].LoadValues(v);
  EXPECT_EQ(v, (Values{4, Value()}));
}

TEST(RowBatchTest, RowsLoadBackAsTheTuplesTheyWereAppendedFrom) {
  RowBatch batch;
  const std::vector<Values> rows = AllKinds();
  const std::vector<AckMeta::Anchor> anchors = {{1, 2}, {3, 4}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    batch.Append(&kSchema, rows[i], i == 2 ? std::span(anchors) : std::span(anchors).first(0));
  }
  ASSERT_EQ(batch.size(), rows.size());
  Tuple t;  // refilled row after row, as an executor does
  for (std::size_t i = 0; i < rows.size(); ++i) {
    batch.Load(i, 9, t);
    EXPECT_EQ(t.GetValues(), rows[i]) << i;
    EXPECT_EQ(t.schema(), &kSchema);
    EXPECT_EQ(t.GetSourceTask(), 9);
    EXPECT_EQ(TupleAccess::Ack(t).anchors.size(), i == 2 ? 2u : 0u) << i;
    EXPECT_EQ(TupleAccess::Ack(t).ack_val, 0u);
  }
  batch.Load(2, 9, t);
  EXPECT_EQ(TupleAccess::Ack(t).anchors[1], (AckMeta::Anchor{3, 4}));
  EXPECT_TRUE(std::signbit(t.GetDouble(1)));
  batch.Load(5, 9, t);
  EXPECT_EQ(t.GetValue(0).type(), ValueType::kBytes);  // bytes stay bytes
}

// A string field is loaded over whatever the reused value held: a shorter or longer string
// (inline or allocated), or another type. Each length of text up to past the inline limit over
// each length of string held before.
TEST(RowBatchTest, AStringLoadsOverAnyValueHeldBefore) {
  RowBatch batch;
  std::vector<std::string> texts;
  for (std::size_t n = 0; n <= 2 * Cell::kInline + 2; ++n) {
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text.push_back(static_cast<char>('a' + (n + i) % 26));
    texts.push_back(text);
    batch.Append(&kSchema, Values{text, static_cast<int64_t>(n)});
  }
  std::vector<Value> before = {Value(), Value(int64_t{7}), Value(Bytes{"b"})};
  for (const std::string& t : texts) before.emplace_back(t);
  for (std::size_t row = 0; row < batch.size(); ++row) {
    for (const Value& held : before) {
      Value v = held;
      batch[row].LoadValue(0, v);
      EXPECT_EQ(v, Value(texts[row])) << row << " over " << held.ToString();
      EXPECT_EQ(v.AsString().c_str()[texts[row].size()], '\0') << row;
    }
  }
}

TEST(RowBatchTest, RowsReadInPlace) {
  RowBatch batch;
  batch.Append(&kSchema, {42, std::string(100, 'x')});
  const RowRef r = batch[0];
  EXPECT_EQ(r.cell(0).tag, CellTag::kInt);
  EXPECT_EQ(r.cell(0).Int(), 42);
  EXPECT_EQ(r.cell(1).tag, CellTag::kString);
  EXPECT_EQ(r.Text(1), std::string(100, 'x'));
  EXPECT_EQ(r.Text(0), "");  // not text
}

// A row re-emitted with new integers (GeneratorSpout's) keeps its other fields.
TEST(RowBatchTest, SetIntChangesOneIntegerOfARow) {
  RowBatch batch;
  batch.Append(&kSchema, {1, "a long enough text to live in the arena"});
  batch.Append(&kSchema, {2, 3});
  batch.SetInt(0, 0, -7);
  batch.SetInt(1, 1, std::numeric_limits<int64_t>::max());
  Values row;
  batch[0].LoadValues(row);
  EXPECT_EQ(row, (Values{-7, "a long enough text to live in the arena"}));
  batch[1].LoadValues(row);
  EXPECT_EQ(row, (Values{2, std::numeric_limits<int64_t>::max()}));
}

TEST(RowBatchTest, ACopiedRowHasTheSameValuesAndItsOwnAnchors) {
  RowBatch from, to;
  for (const Values& v : AllKinds()) from.Append(&kSchema, v, std::vector<AckMeta::Anchor>{{1, 1}});
  const std::vector<AckMeta::Anchor> mine = {{7, 8}};
  for (std::size_t i = 0; i < from.size(); ++i) to.AppendRow(&kSchema, from[i], mine);
  from.Clear();  // the copies own their strings
  Tuple t;
  const std::vector<Values> rows = AllKinds();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    to.Load(i, 1, t);
    EXPECT_EQ(t.GetValues(), rows[i]) << i;
    ASSERT_EQ(TupleAccess::Ack(t).anchors.size(), 1u);
    EXPECT_EQ(TupleAccess::Ack(t).anchors[0], mine[0]);
  }
}

// A range of rows appended at once reads back as those rows on the new stream, after what the
// batch held and without anchors: in one block (ints and short text only) and row by row (long
// text, side values, anchors) alike.
TEST(RowBatchTest, AppendedRowsReadBackOnTheirNewStreamAfterTheOthers) {
  const StreamSchema other{"bolt", "out", kSchema.fields};
  const std::vector<Values> plain = {{1, "a"}, {2, std::string(Cell::kInline, 'b')}, {3, true}};
  for (const bool block : {true, false}) {
    const std::vector<Values> rows = block ? plain : AllKinds();
    RowBatch from;
    for (const Values& v : rows) from.Append(&kSchema, v);
    RowBatch to;
    to.Append(&kSchema, {"held before", std::string(40, 'h')},
              std::vector<AckMeta::Anchor>{{5, 6}});
    to.AppendRows(&other, from, 1, rows.size());
    from.Clear();  // the copies are the batch's own
    ASSERT_EQ(to.size(), rows.size()) << block;
    Tuple t;
    to.Load(0, 1, t);
    EXPECT_EQ(t.GetValues(), (Values{"held before", std::string(40, 'h')}));
    EXPECT_EQ(TupleAccess::Ack(t).anchors.size(), 1u);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      to.Load(i, 1, t);
      EXPECT_EQ(t.GetValues(), rows[i]) << block << " row " << i;
      EXPECT_EQ(t.schema(), &other);
      EXPECT_TRUE(TupleAccess::Ack(t).anchors.empty());
    }
    to.AppendRows(&other, to, 0, 0);  // an empty range adds nothing
    EXPECT_EQ(to.size(), rows.size());
  }
}

TEST(RowBatchTest, ClearKeepsTheBuffers) {
  RowBatch batch;
  batch.reserve(64);
  for (int i = 0; i < 64; ++i) batch.Append(&kSchema, {i, "a string longer than fourteen"});
  batch.Clear();
  EXPECT_TRUE(batch.empty());
  EXPECT_GE(batch.capacity(), 64u);
  batch.Append(&kSchema, {1, 2});
  batch.Append(&kSchema, {7, "x"}, std::vector<AckMeta::Anchor>{{5, 6}});
  ASSERT_EQ(batch.size(), 2u);  // nothing of the cleared rows is left
  Tuple t;
  batch.Load(0, 0, t);
  EXPECT_EQ(t.GetValues(), (Values{1, 2}));
  EXPECT_TRUE(TupleAccess::Ack(t).anchors.empty());
  batch.Load(1, 0, t);
  EXPECT_EQ(t.GetValues(), (Values{7, "x"}));
  ASSERT_EQ(TupleAccess::Ack(t).anchors.size(), 1u);
  EXPECT_EQ(TupleAccess::Ack(t).anchors[0], (AckMeta::Anchor{5, 6}));
}

TEST(RowBatchTest, ARowBuiltFieldByFieldEqualsAnAppendedOne) {
  RowBatch batch;
  batch.AddInt(-5);
  batch.AddString("a string longer than fourteen");
  batch.AddAnchor({1, 2});
  batch.EndRow(&kSchema, 2, 1);
  batch.AddNull();
  batch.AddDouble(0.25);
  batch.EndRow(&kSchema, 2, 0);
  Tuple t;
  batch.Load(0, 0, t);
  EXPECT_EQ(t.GetValues(), (Values{-5, "a string longer than fourteen"}));
  EXPECT_EQ(TupleAccess::Ack(t).anchors.size(), 1u);
  batch.Load(1, 0, t);
  EXPECT_EQ(t.GetValues(), (Values{Value(), 0.25}));
  EXPECT_TRUE(TupleAccess::Ack(t).anchors.empty());
}

}  // namespace
}  // namespace tempest::topology
