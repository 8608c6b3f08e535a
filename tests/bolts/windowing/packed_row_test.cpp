// The packed form a window holds its tuples in: values round-trip exactly, paths find nested
// values as LookupPath does, ack metadata acks as the tuple would, and the arena gives chunks
// back as their rows are released.
#include "bolts/windowing/packed_row.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "bolts/join/field_selector.h"
#include "bolts/windowing/pack_into.h"
#include "bolts/windowing/packed_values.h"
#include "bolts/windowing/row_arena.h"
#include "topology/row_batch.h"

namespace tempest::bolts {
namespace {

using topology::Tuple;
using topology::Value;
using topology::Values;

Values Mixed() {
  topology::Map inner = {{Value("userId"), Value(int64_t{42})}, {Value(int64_t{7}), Value("x")}};
  topology::Map outer = {{Value("a"), Value(1.5)}, {Value("inner"), Value(std::move(inner))}};
  return {Value(),
          Value(true),
          Value(false),
          Value(int64_t{-1}),
          Value(std::numeric_limits<int64_t>::min()),
          Value(std::numeric_limits<int64_t>::max()),
          Value(-0.0),
          Value(std::string(300, 'y')),
          Value(topology::Bytes{std::string("\0\1\2", 3)}),
          Value(topology::List{Value(int64_t{1}), Value("two")}),
          Value(std::move(outer))};
}

// A batch row packs into the same bytes as the tuple of the same values and anchors, with every
// field or only the fields read.
TEST(PackedValuesTest, CopyBytesCopiesEveryLengthExactlyAndNothingMore) {
  const std::string from = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (std::size_t n = 0; n <= from.size(); ++n) {
    std::string to(from.size() + 2, '.');
    packed::CopyBytes(reinterpret_cast<uint8_t*>(to.data()) + 1, from.data(), n);
    EXPECT_EQ(to, "." + from.substr(0, n) + std::string(from.size() + 1 - n, '.')) << n;
  }
}

TEST(PackedRowTest, ABatchRowPacksAsItsTuple) {
  const std::vector<topology::AckMeta::Anchor> anchors = {{11, 0xA0}, {12, 0xB0}, {13, 0xC0}};
  Tuple t(nullptr, 3, Mixed());
  tempest::topology::TupleAccess::MutableAck(t).anchors.assign(anchors.begin(), anchors.end());
  topology::RowBatch batch;
  batch.Append(nullptr, Mixed(), anchors);
  const topology::RowRef row = batch[0];
  std::vector<uint8_t> some(t.size(), 1);
  some[3] = some[7] = some[10] = 0;
  for (const uint8_t* read : {static_cast<const uint8_t*>(nullptr), std::as_const(some).data()}) {
    std::vector<uint8_t> from_tuple(PackedRow::SizeBound(t, read));
    std::vector<uint8_t> from_row(PackedRow::SizeBound(row, read));
    from_tuple.resize(PackedRow::Write(t, 5, read, from_tuple.data()));
    from_row.resize(PackedRow::Write(row, 5, read, from_row.data()));
    EXPECT_EQ(from_row, from_tuple);
  }
}

TEST(PackedRowTest, ValuesAndAckMetadataRoundTrip) {
  Tuple t(nullptr, 3, Mixed());
  tempest::topology::TupleAccess::MutableAck(t).anchors = {{11, 0xA0}, {12, 0xB0}};
  tempest::topology::TupleAccess::MutableAck(t).ack_val = 0x0F;
  std::string bytes;
  PackedRow::Append(t, 5, bytes);
  const PackedRow r = PackedRow::Parse(reinterpret_cast<const uint8_t*>(bytes.data()));
  EXPECT_EQ(r.origin, 5u);
  EXPECT_EQ(r.field_count, t.size());
  Values back;
  r.UnpackValues(back);
  EXPECT_EQ(back, t.GetValues());
  // An ack sends edge ^ ack value per root: the same from the row as from the tuple.
  topology::AckMeta ack;
  r.LoadAck(ack);
  ASSERT_EQ(ack.anchors.size(), 2u);
  EXPECT_EQ(ack.anchors[0].root, 11u);
  EXPECT_EQ(ack.anchors[0].edge ^ ack.ack_val, 0xA0u ^ 0x0F);
  EXPECT_EQ(ack.anchors[1].edge ^ ack.ack_val, 0xB0u ^ 0x0F);
  uint64_t root = 0;
  ASSERT_TRUE(r.FirstRoot(root));
  EXPECT_EQ(root, 11u);
  // Emits anchored to it XOR their edges in; folding keeps every root's word right.
  r.FoldAckVal(0x300);
  r.FoldAckVal(0x050);
  PackedRow::Parse(reinterpret_cast<const uint8_t*>(bytes.data())).LoadAck(ack);
  EXPECT_EQ(ack.anchors[0].edge ^ ack.ack_val, 0xA0u ^ 0x0F ^ 0x300 ^ 0x050);
  EXPECT_EQ(ack.anchors[1].edge ^ ack.ack_val, 0xB0u ^ 0x0F ^ 0x300 ^ 0x050);
}

TEST(PackedRowTest, ThreeOrMoreAnchorsAndLargeOriginsRoundTrip) {
  for (const std::size_t n : {std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{130}}) {
    Tuple t(nullptr, 1, Values{Value("v")});
    for (std::size_t i = 0; i < n; ++i)
      tempest::topology::TupleAccess::MutableAck(t).anchors.push_back({i + 1, 100 + i});
    std::string bytes;
    PackedRow::Append(t, 1u << 29, bytes);
    EXPECT_EQ(bytes.size(), PackedRow::Size(t, 1u << 29));
    const PackedRow r = PackedRow::Parse(reinterpret_cast<const uint8_t*>(bytes.data()));
    EXPECT_EQ(r.origin, 1u << 29);
    ASSERT_EQ(r.anchors, n);
    topology::AckMeta ack;
    r.LoadAck(ack);
    EXPECT_EQ(ack.anchors.back().root, n);
    EXPECT_EQ(ack.anchors.back().edge, 100 + n - 1);
    Values back;
    r.UnpackValues(back);
    EXPECT_EQ(back, t.GetValues());
  }
}

TEST(PackedRowTest, AnUntrackedTupleHasNoAnchors) {
  std::string bytes;
  PackedRow::Append(Tuple(nullptr, 1, Values{Value(int64_t{1})}), 0, bytes);
  const PackedRow r = PackedRow::Parse(reinterpret_cast<const uint8_t*>(bytes.data()));
  uint64_t root = 0;
  EXPECT_FALSE(r.FirstRoot(root));
  topology::AckMeta ack;
  r.LoadAck(ack);
  EXPECT_TRUE(ack.anchors.empty());
  EXPECT_EQ(bytes.size(), 4u);  // origin and anchors, field count; int tag and its varint
}

TEST(PackedValuesTest, FindPathFindsWhatLookupPathFinds) {
  const Tuple t(nullptr, 1, Mixed());
  std::string bytes;
  for (const Value& v : t.GetValues()) packed::Pack(v, bytes);
  const auto* fields = reinterpret_cast<const uint8_t*>(bytes.data());
  const auto count = static_cast<uint32_t>(t.size());
  const std::vector<std::vector<std::string>> paths = {{"f"},
                                                       {"f", "a"},
                                                       {"f", "inner"},
                                                       {"f", "inner", "userId"},
                                                       {"f", "inner", "7"},
                                                       {"f", "missing"},
                                                       {"f", "a", "deeper"}};
  for (int index = -1; index <= static_cast<int>(count); ++index) {
    for (const auto& path : paths) {
      const Value* want = LookupPath(t, index, path);
      const uint8_t* got = packed::FindPath(fields, count, index, path);
      ASSERT_EQ(got != nullptr, want != nullptr) << index << " " << path.size();
      if (want == nullptr) continue;
      Value v;
      packed::UnpackValue(got, v);
      EXPECT_EQ(v, *want) << index << " " << path.size();
    }
  }
}

// The row lookup reads integers inline and everything else out of line: both must find what
// the tuple lookup finds, whatever the scratch value held before.
TEST(PackedValuesTest, RowLookupPathFindsWhatLookupPathFinds) {
  const Tuple t(nullptr, 1, Mixed());
  topology::RowBatch batch;
  batch.Append(nullptr, t.GetValues());
  const topology::RowRef row = batch[0];
  const std::vector<std::vector<std::string>> paths = {
      {"f"}, {"f", "a"}, {"f", "inner", "userId"}, {"f", "missing"}};
  for (int index = -1; index <= static_cast<int>(t.size()); ++index) {
    for (const auto& path : paths) {
      for (const Value& before : {Value("a string"), Value(int64_t{5}), Value()}) {
        Value scratch = before;
        const Value* want = LookupPath(t, index, path);
        const Value* got = bolts::LookupPath(row, index, path, scratch);
        ASSERT_EQ(got != nullptr, want != nullptr) << index << " " << path.size();
        if (want == nullptr) continue;
        EXPECT_EQ(*got, *want) << index << " " << path.size();
      }
    }
  }
}

TEST(PackedValuesTest, UnpackAppendBuildsTheSameValuesAsUnpackValue) {
  const Values values = Mixed();
  std::string bytes;
  for (const Value& v : values) packed::Pack(v, bytes);
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  Values back;
  for (std::size_t i = 0; i < values.size(); ++i) packed::UnpackAppend(p, back);
  EXPECT_EQ(back, values);
  EXPECT_EQ(p, reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size());
}

TEST(PackedValuesTest, PackedEqualsFollowsValueEquality) {
  const std::vector<Value> values = {Value(0.0),
                                     Value(-0.0),
                                     Value(std::nan("")),
                                     Value(int64_t{0}),
                                     Value(false),
                                     Value(),
                                     Value(""),
                                     Value("a"),
                                     Value(topology::List{Value(0.0)}),
                                     Value(topology::List{Value(-0.0)})};
  for (const Value& a : values) {
    std::string bytes;
    packed::Pack(a, bytes);
    for (const Value& b : values) {
      const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
      EXPECT_EQ(packed::PackedEquals(p, b), a == b) << a.ToString() << " vs " << b.ToString();
    }
  }
}

TEST(RowArenaTest, SmallFirstChunksGrowWithWhatIsHeld) {
  RowArena arena(1024);
  std::vector<std::pair<HeldRow, std::string>> rows;
  for (int i = 0; i < 40; ++i) {  // ~1.2 KiB: two 1 KiB chunks
    std::string bytes(30, static_cast<char>('a' + i % 26));
    const auto [row, at] = arena.Allocate(bytes.size());
    std::memcpy(at, bytes.data(), bytes.size());
    rows.emplace_back(row, std::move(bytes));
  }
  EXPECT_EQ(arena.chunks_in_use(), 2u);
  for (int i = 0; i < 40000; ++i) {  // ~1.2 MB: chunks grow to a sixteenth of that, at most 64 KiB
    std::string bytes(30, static_cast<char>('A' + i % 26));
    const auto [row, at] = arena.Allocate(bytes.size());
    std::memcpy(at, bytes.data(), bytes.size());
    rows.emplace_back(row, std::move(bytes));
  }
  EXPECT_LT(arena.chunks_in_use(), 80u);  // not the ~1,200 of 1 KiB chunks that no growth gives
  for (const auto& [row, bytes] : rows) {
    ASSERT_EQ(std::memcmp(arena.Data(row), bytes.data(), bytes.size()), 0);
  }
  const std::string big(RowArena::kChunkBytes / 2, 'Z');  // larger than a small chunk
  RowArena small(1024);
  const auto [big_row, big_at] = small.Allocate(big.size());
  std::memcpy(big_at, big.data(), big.size());
  EXPECT_EQ(std::memcmp(small.Data(big_row), big.data(), big.size()), 0);
  for (const auto& [row, bytes] : rows) arena.Release(row);
  EXPECT_LE(arena.chunks_in_use(), 1u);  // the one being filled stays
}

TEST(RowArenaTest, RowsKeepTheirBytesAndChunksGoBackWhenEmpty) {
  RowArena arena;
  std::vector<std::pair<HeldRow, std::string>> rows;
  std::mt19937 rng(7);
  // About 10 chunks of rows of 1..200 bytes, each filled with its own pattern.
  std::size_t bytes = 0;
  for (int i = 0; bytes < 10 * RowArena::kChunkBytes; ++i) {
    const std::size_t n = 1 + rng() % 200;
    const std::string pattern(n, static_cast<char>('a' + i % 26));
    const auto [row, at] = arena.Allocate(n);
    std::memcpy(at, pattern.data(), n);
    rows.emplace_back(row, pattern);
    bytes += n;
  }
  EXPECT_GE(arena.chunks_in_use(), 10u);
  EXPECT_LE(arena.chunks_in_use(), 11u);
  // A row larger than a chunk gets one of its own.
  const std::string big(RowArena::kChunkBytes + 10, 'Z');
  const auto [big_row, big_at] = arena.Allocate(big.size());
  std::memcpy(big_at, big.data(), big.size());
  for (const auto& [row, pattern] : rows) {
    ASSERT_EQ(std::string(reinterpret_cast<const char*>(arena.Data(row)), pattern.size()), pattern);
  }
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(arena.Data(big_row)), big.size()), big);
  // Released in arrival order, as a window does: the chunks behind go back.
  const std::size_t with_big = arena.chunks_in_use();
  arena.Release(big_row);
  EXPECT_EQ(arena.chunks_in_use(), with_big - 1);
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) arena.Release(rows[i].first);
  EXPECT_EQ(arena.chunks_in_use(), 1u);  // the one holding the last row
  arena.Release(rows.back().first);
  EXPECT_EQ(arena.chunks_in_use(), 1u);  // the current chunk, empty, is filled again
  // Freed slots are reused, and the bytes of new rows are their own.
  const auto [again, again_at] = arena.Allocate(3);
  std::memcpy(again_at, "new", 3);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(arena.Data(again)), 3), "new");
  EXPECT_EQ(arena.chunks_in_use(), 1u);
}

TEST(RowArenaTest, TrimGivesBackTheUnusedEndOfTheLastRow) {
  RowArena arena;
  const auto [a, a_at] = arena.Allocate(100);
  arena.Trim(a, 100, 40);
  const auto [b, b_at] = arena.Allocate(10);
  EXPECT_EQ(b_at, a_at + 40);  // the next row starts where the trimmed one ends
  arena.Trim(a, 100, 10);      // not the last row any more: nothing happens
  const auto [c, c_at] = arena.Allocate(1);
  EXPECT_EQ(c_at, b_at + 10);
  (void)c;
}

TEST(PackedRowTest, TheSizeBoundHoldsAndWriteReturnsTheSize) {
  Tuple t(nullptr, 3, Mixed());
  tempest::topology::TupleAccess::MutableAck(t).anchors = {{1, 2}};
  EXPECT_GE(PackedRow::SizeBound(t), PackedRow::Size(t, 300));
  std::string bytes(PackedRow::SizeBound(t), '\0');
  EXPECT_EQ(PackedRow::Write(t, 300, reinterpret_cast<uint8_t*>(bytes.data())),
            PackedRow::Size(t, 300));
}

// WriteWithin writes Write's bytes or reports that the row may not fit, and never writes past
// `room` (guard bytes follow it).
TEST(PackedRowTest, WriteWithinWritesWritesBytesOrReportsNoRoom) {
  const std::vector<topology::AckMeta::Anchor> anchors = {{11, 0xA0}};
  topology::RowBatch batch;
  batch.Append(nullptr, Mixed(), anchors);
  batch.Append(nullptr, Values{Value(int64_t{5}), Value("short")});
  const uint8_t read[] = {1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0};
  for (std::size_t r = 0; r < batch.size(); ++r) {
    for (const uint8_t* mask : {static_cast<const uint8_t*>(nullptr), read}) {
      const uint8_t* m = r == 0 ? mask : nullptr;
      std::vector<uint8_t> whole(PackedRow::SizeBound(batch[r], m));
      whole.resize(PackedRow::Write(batch[r], 77, m, whole.data()));
      std::size_t fitted_from = 0;
      for (std::size_t room = 0; room <= whole.size() + 400; ++room) {
        std::vector<uint8_t> into(room + 64, 0xEE);
        const std::size_t n = PackedRow::WriteWithin(batch[r], 77, m, into.data(), room);
        EXPECT_EQ(
            std::vector<uint8_t>(into.begin() + static_cast<std::ptrdiff_t>(room), into.end()),
            std::vector<uint8_t>(64, 0xEE))
            << "row " << r << ", room " << room;
        if (n == 0) {
          EXPECT_EQ(fitted_from, 0u) << "row " << r << ", room " << room;
          continue;
        }
        if (fitted_from == 0) fitted_from = room;
        into.resize(n);
        EXPECT_EQ(into, whole) << "row " << r << ", room " << room;
      }
      // Fits from a room of its fields at their longest, not much beyond.
      EXPECT_GE(fitted_from, whole.size()) << r;
      EXPECT_LE(fitted_from, PackedRow::SizeBound(batch[r], nullptr) + 25) << r;
    }
  }
}

// PackInto writes rows straight into the chunk being filled, a row that does not fit there goes
// to a new chunk, and each row reads back as it was packed.
TEST(PackIntoTest, RowsFillTheChunkAndTheRowThatDoesNotFitStartsAnother) {
  RowArena arena(1024);
  topology::RowBatch batch;
  for (int i = 0; i < 40; ++i) {
    batch.Append(nullptr, Values{Value(int64_t{i}), Value(std::string(20 + i, 'a' + i % 26))});
  }
  std::vector<HeldRow> held;
  for (std::size_t i = 0; i < batch.size(); ++i)
    held.push_back(PackInto(arena, batch[i], 3, nullptr));
  Tuple first(nullptr, 0, Values{Value(int64_t{0}), Value(std::string(20, 'a'))});
  EXPECT_EQ(held[0].chunk, held[1].chunk);
  EXPECT_EQ(held[1].offset, held[0].offset + PackedRow::Size(first, 3));  // no gap
  EXPECT_NE(held.front().chunk, held.back().chunk);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const PackedRow r = PackedRow::Parse(arena.Data(held[i]));
    EXPECT_EQ(r.origin, 3u);
    Values v;
    r.UnpackValues(v);
    Values want;
    batch[i].LoadValues(want);
    EXPECT_EQ(v, want) << i;
  }
  // A Tuple goes the bounded way, with the same bytes as a batch row.
  const HeldRow from_tuple = PackInto(arena, first, 3, nullptr);
  EXPECT_EQ(std::memcmp(arena.Data(from_tuple), arena.Data(held[0]), PackedRow::Size(first, 3)), 0);
  for (const HeldRow r : held) arena.Release(r);
  arena.Release(from_tuple);
}

TEST(RowArenaTest, AChunkWithOneLiveRowStaysUntilItIsReleased) {
  RowArena arena;
  const auto [first, first_at] = arena.Allocate(RowArena::kChunkBytes / 2);
  (void)first_at;
  const auto [second, second_at] = arena.Allocate(RowArena::kChunkBytes / 2);
  std::memset(second_at, 'q', RowArena::kChunkBytes / 2);
  const auto [third, third_at] = arena.Allocate(100);  // a new chunk
  (void)third_at;
  EXPECT_EQ(arena.chunks_in_use(), 2u);
  arena.Release(first);
  EXPECT_EQ(arena.chunks_in_use(), 2u);  // `second` still lives there
  EXPECT_EQ(arena.Data(second)[RowArena::kChunkBytes / 2 - 1], 'q');
  arena.Release(second);
  EXPECT_EQ(arena.chunks_in_use(), 1u);
  arena.Release(third);
}

}  // namespace
}  // namespace tempest::bolts
