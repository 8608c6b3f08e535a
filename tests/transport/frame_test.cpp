// The wire format: exact round trips, and garbage of every kind counted as a status, never a
// crash (ASan runs these too).
#include "transport/frame.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <msgpack.hpp>
#include <random>

#include "../support/test_components.h"
#include "topology/topology_builder.h"

namespace tempest::transport {
namespace {

using topology::Bytes;
using topology::Fields;
using topology::List;
using topology::Map;
using topology::Tuple;
using topology::Value;
using topology::Values;

// A decoded frame's rows as the tuples a bolt would get.
std::vector<Tuple> Tuples(const Frame& f) {
  std::vector<Tuple> out(f.rows.size());
  for (std::size_t i = 0; i < f.rows.size(); ++i) f.rows.Load(i, f.from_task, out[i]);
  return out;
}

class FrameTest : public ::testing::Test {
 protected:
  FrameTest() {
    topology::TopologyBuilder b;
    b.SetSpout("a", [] {
      return std::make_unique<testing::ListSpout>(Fields{"x"}, std::vector<Values>{});
    });
    b.SetSpout("b", [] {
      return std::make_unique<testing::ListSpout>(Fields{"k", "v", "w"}, std::vector<Values>{},
                                                  "side");
    });
    spec_ = b.Build();
    table_.emplace(spec_);
    a_ = spec_->Find("a")->FindStream("default");
    b_ = spec_->Find("b")->FindStream("side");
  }

  std::string Encode(const std::vector<Tuple>& tuples, FrameKind kind = FrameKind::kTuples) {
    std::string out;
    EncodeFrame(kind, 3, 7, tuples, *table_, out);
    return out;
  }

  DecodeStatus Decode(std::string_view bytes, std::string* error = nullptr) {
    Frame f;
    return DecodeFrame(bytes, *table_, f, error);
  }

  std::shared_ptr<const topology::TopologySpec> spec_;
  std::optional<StreamTable> table_;
  const topology::StreamSchema* a_ = nullptr;
  const topology::StreamSchema* b_ = nullptr;
};

TEST_F(FrameTest, StreamsAreNumberedInSpecOrder) {
  EXPECT_EQ(table_->size(), 2u);
  EXPECT_EQ(table_->IndexOf(a_), 0);
  EXPECT_EQ(table_->IndexOf(b_), 1);
  EXPECT_EQ(table_->At(1), b_);
  EXPECT_EQ(table_->At(2), nullptr);
}

TEST_F(FrameTest, EveryValueTypeRoundTrips) {
  const Value nested =
      Map{{"list", List{1, "two", List{}, Value()}}, {7, Bytes{std::string("\0\1", 2)}}};
  std::vector<Tuple> tuples;
  tuples.emplace_back(a_, 3, Values{Value()});
  tuples.emplace_back(
      b_, 3, Values{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), -1});
  tuples.emplace_back(b_, 3, Values{true, 2.5, std::string("h\xc3\xa9llo\0x", 8)});
  tuples.emplace_back(b_, 3, Values{Bytes{std::string("\x00\xff", 2)}, nested, ""});
  tempest::topology::TupleAccess::MutableAck(tuples.back()).anchors = {{1, 2}, {UINT64_MAX, 0}};
  const std::string bytes = Encode(tuples);

  Frame f;
  ASSERT_EQ(DecodeFrame(bytes, *table_, f), DecodeStatus::kOk);
  EXPECT_EQ(f.kind, FrameKind::kTuples);
  EXPECT_EQ(f.from_task, 3);
  EXPECT_EQ(f.to_task, 7);
  ASSERT_EQ(Tuples(f).size(), tuples.size());
  for (std::size_t i = 0; i < tuples.size(); ++i) {
    EXPECT_EQ(Tuples(f)[i].schema(), tuples[i].schema()) << i;
    EXPECT_EQ(Tuples(f)[i].GetValues(), tuples[i].GetValues()) << i;
    EXPECT_EQ(Tuples(f)[i].GetSourceTask(), 3);
    EXPECT_EQ(tempest::topology::TupleAccess::Ack(Tuples(f)[i]).anchors,
              tempest::topology::TupleAccess::Ack(tuples[i]).anchors)
        << i;
  }
  EXPECT_EQ(Tuples(f)[3].GetValue(0).type(), topology::ValueType::kBytes);
}

// Each msgpack integer width, at its edges, decodes to the same int64 (the common widths have
// their own fast path).
TEST_F(FrameTest, IntegersOfEveryWidthRoundTrip) {
  const std::vector<int64_t> ints = {
      0,  127, 128, 255,  256,  65535,  65536,  4294967295, 4294967296,
      -1, -32, -33, -128, -129, -32768, -32769, INT32_MIN,  int64_t{INT32_MIN} - 1};
  std::vector<Tuple> tuples;
  for (int64_t i : ints) tuples.emplace_back(a_, 3, Values{i});
  Frame f;
  ASSERT_EQ(DecodeFrame(Encode(tuples), *table_, f), DecodeStatus::kOk);
  ASSERT_EQ(f.rows.size(), ints.size());
  for (std::size_t i = 0; i < ints.size(); ++i) EXPECT_EQ(f.rows[i].cell(0).Int(), ints[i]) << i;
}

// The encoder and decoder are Tempest's own; msgpack-c, the reference, must read the same bytes.
TEST_F(FrameTest, FramesAreMsgpackAsMsgpackCReadsIt) {
  std::vector<Tuple> tuples;
  tuples.emplace_back(b_, 3,
                      Values{int64_t{-40000}, std::string(300, 'y'), Map{{"k", List{1.5, true}}}});
  tuples.emplace_back(a_, 3, Values{Bytes{std::string(70000, 'b')}});
  const std::string bytes = Encode(tuples);
  std::size_t offset = 0;
  const msgpack::object_handle h = msgpack::unpack(bytes.data(), bytes.size(), offset);
  EXPECT_EQ(offset, bytes.size());
  const msgpack::object& root = h.get();
  ASSERT_EQ(root.type, msgpack::type::ARRAY);
  ASSERT_EQ(root.via.array.size, 5u);
  EXPECT_EQ(root.via.array.ptr[0].as<uint64_t>(), kWireVersion);
  EXPECT_EQ(root.via.array.ptr[3].as<int>(), 7);
  const msgpack::object& body = root.via.array.ptr[4];
  ASSERT_EQ(body.via.array.size, 2u);
  const msgpack::object& values = body.via.array.ptr[0].via.array.ptr[1];
  EXPECT_EQ(values.via.array.ptr[0].as<int64_t>(), -40000);
  EXPECT_EQ(values.via.array.ptr[1].as<std::string>(), std::string(300, 'y'));
  EXPECT_EQ(values.via.array.ptr[2].type, msgpack::type::MAP);
  const msgpack::object& bin = body.via.array.ptr[1].via.array.ptr[1].via.array.ptr[0];
  EXPECT_EQ(bin.type, msgpack::type::BIN);
  EXPECT_EQ(bin.via.bin.size, 70000u);
}

TEST_F(FrameTest, IntegralDoublesStayDoubles) {
  std::vector<Tuple> tuples;
  tuples.emplace_back(b_, 3, Values{1000.0, -0.0, 9.2233720368547758e18});
  Frame f;
  ASSERT_EQ(DecodeFrame(Encode(tuples), *table_, f), DecodeStatus::kOk);
  ASSERT_EQ(Tuples(f).size(), 1u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(Tuples(f)[0].GetValue(i).type(), topology::ValueType::kDouble) << i;
    EXPECT_EQ(Tuples(f)[0].GetValue(i), tuples[0].GetValue(i)) << i;
  }
  EXPECT_TRUE(std::signbit(Tuples(f)[0].GetDouble(1)));
}

TEST_F(FrameTest, ControlFramesRoundTrip) {
  for (FrameKind kind : {FrameKind::kEndOfStream, FrameKind::kEndOfStreamAck, FrameKind::kClose,
                         FrameKind::kCloseAck}) {
    Frame f;
    ASSERT_EQ(DecodeFrame(Encode({}, kind), *table_, f), DecodeStatus::kOk);
    EXPECT_EQ(f.kind, kind);
    EXPECT_TRUE(Tuples(f).empty());
  }
}

TEST_F(FrameTest, EveryTruncationIsMalformed) {
  std::vector<Tuple> tuples;
  for (int i = 0; i < 5; ++i) tuples.emplace_back(b_, 3, Values{i, "payload", 0.5 * i});
  const std::string bytes = Encode(tuples);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::string error;
    EXPECT_EQ(Decode(std::string_view(bytes).substr(0, n), &error), DecodeStatus::kMalformed)
        << "prefix of " << n << " bytes";
    EXPECT_FALSE(error.empty());
  }
}

TEST_F(FrameTest, FlippedBytesNeverCrash) {
  std::vector<Tuple> tuples;
  for (int i = 0; i < 3; ++i) tuples.emplace_back(b_, 3, Values{i, List{"x", i}, Map{{"m", i}}});
  const std::string bytes = Encode(tuples);
  int rejected = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string copy = bytes;
      copy[i] = static_cast<char>(copy[i] ^ (1 << bit));
      rejected += Decode(copy) != DecodeStatus::kOk;
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST_F(FrameTest, RandomGarbageIsRejected) {
  std::mt19937_64 rng(42);
  int ok = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string junk(rng() % 64, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    ok += Decode(junk) == DecodeStatus::kOk;
  }
  EXPECT_EQ(ok, 0);
}

TEST_F(FrameTest, AForgedHugeLengthDoesNotAllocateIt) {
  // array32 claiming 4 billion elements, then nothing.
  std::string error;
  EXPECT_EQ(Decode(std::string("\xdd\xff\xff\xff\xff", 5), &error), DecodeStatus::kMalformed);
  EXPECT_NE(error.find("not a msgpack frame"), std::string::npos) << error;
}

TEST_F(FrameTest, OtherVersionsAreRejectedByName) {
  std::string bytes = Encode({});
  ASSERT_EQ(static_cast<unsigned char>(bytes[1]), 1u);  // fixarray(5), then version 1
  bytes[1] = 2;
  std::string error;
  EXPECT_EQ(Decode(bytes, &error), DecodeStatus::kWrongVersion);
  EXPECT_EQ(error, "frame version 2, expected 1");
}

TEST_F(FrameTest, UnknownStreamsAndWrongAritiesAreRejected) {
  std::vector<Tuple> one;
  one.emplace_back(a_, 3, Values{1});
  std::string bytes = Encode(one);
  // The tuple's stream number is the byte after its fixarray(3) header (0x93).
  const auto at = bytes.find('\x93');
  ASSERT_NE(at, std::string::npos);
  std::string unknown = bytes;
  unknown[at + 1] = 9;
  std::string error;
  EXPECT_EQ(Decode(unknown, &error), DecodeStatus::kUnknownStream);
  EXPECT_EQ(error, "stream number 9 does not exist (the topology has 2)");
  std::string arity = bytes;
  arity[at + 1] = 1;  // stream "side" has 3 fields, the tuple 1 value
  EXPECT_EQ(Decode(arity, &error), DecodeStatus::kMalformed);
  EXPECT_EQ(error, "a tuple of stream 'side' of 'b' has 1 values, expected 3");
}

// A sender's writer is reused frame after frame: each encoding starts it afresh.
TEST_F(FrameTest, AckFramesEncodeIntoAReusedWriter) {
  using Type = AckMessage::Type;
  MsgpackWriter w;
  Frame f;
  std::vector<AckMessage> acks;
  for (uint64_t i = 1; i <= 2000; ++i) acks.push_back({Type::kAck, i, ~i});
  EncodeAckFrame(4, 8, acks, w);
  ASSERT_EQ(DecodeFrame(w.view(), *table_, f), DecodeStatus::kOk);
  EXPECT_EQ(f.acks, acks);
  const std::vector<AckMessage> one = {{Type::kFail, 7, 0}};
  EncodeAckFrame(5, 6, one, w);
  ASSERT_EQ(DecodeFrame(w.view(), *table_, f), DecodeStatus::kOk);
  EXPECT_EQ(f.from_task, 5);
  EXPECT_EQ(f.to_task, 6);
  EXPECT_EQ(f.acks, one);
}

TEST_F(FrameTest, AckFramesRoundTripAndBadOnesAreMalformed) {
  using Type = AckMessage::Type;
  const std::vector<AckMessage> acks = {{Type::kInit, 1, UINT64_MAX}, {Type::kAck, UINT64_MAX, 0},
                                        {Type::kFail, 42, 0},         {Type::kReset, 43, 0},
                                        {Type::kCompleted, 44, 0},    {Type::kFailed, 45, 0},
                                        {Type::kFrameAcked, 46, 47},  {Type::kFrameRows, 0, 3}};
  std::string bytes;
  EncodeAckFrame(3, 9, acks, bytes);
  FrameHeader h;
  ASSERT_EQ(PeekFrameHeader(bytes, h), DecodeStatus::kOk);
  EXPECT_EQ(h.kind, FrameKind::kAcks);
  EXPECT_EQ(h.count, acks.size());
  Frame f;
  ASSERT_EQ(DecodeFrame(bytes, *table_, f), DecodeStatus::kOk);
  EXPECT_EQ(f.from_task, 3);
  EXPECT_EQ(f.to_task, 9);
  EXPECT_EQ(f.acks, acks);
  EXPECT_TRUE(Tuples(f).empty());
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_NE(DecodeFrame(std::string_view(bytes).substr(0, cut), *table_, f), DecodeStatus::kOk);
  }
  // The body is (type, root, value) triples of a known type, written as fixed-size records: a
  // fixint type, root and value as uint 64 however small.
  std::string bad;
  EncodeAckFrame(3, 9, std::vector<AckMessage>{{Type::kAck, 1, 2}}, bad);
  std::string two;
  EncodeAckFrame(3, 9, std::vector<AckMessage>{{Type::kAck, 1, 2}, {Type::kAck, 3, 0}}, two);
  ASSERT_EQ(two.size() - bad.size(), 19u);
  ASSERT_EQ(static_cast<unsigned char>(bad[bad.size() - 18]), 0xcfu);
  bad[bad.size() - 19] = 9;  // type 2 -> 9
  std::string error;
  EXPECT_EQ(DecodeFrame(bad, *table_, f, &error), DecodeStatus::kMalformed);
  EXPECT_EQ(error, "unknown ack message type 9");
}

TEST_F(FrameTest, CreditAndHelloFramesRoundTrip) {
  std::string credit;
  EncodeCreditFrame(5, 4096, credit);
  Frame f;
  ASSERT_EQ(DecodeFrame(credit, *table_, f), DecodeStatus::kOk);
  EXPECT_EQ(f.kind, FrameKind::kCredit);
  EXPECT_EQ(f.from_task, 5);
  EXPECT_EQ(f.credit, 4096u);
  std::string hello;
  EncodeControlFrame(FrameKind::kHello, 2, 0, hello);
  ASSERT_EQ(DecodeFrame(hello, *table_, f), DecodeStatus::kOk);
  EXPECT_EQ(f.kind, FrameKind::kHello);
  EXPECT_EQ(f.from_task, 2);
}

TEST_F(FrameTest, TheHeaderIsReadWithoutTheTuples) {
  std::vector<Tuple> tuples;
  for (int i = 0; i < 3; ++i) tuples.emplace_back(a_, 3, Values{i});
  FrameHeader h;
  ASSERT_EQ(PeekFrameHeader(Encode(tuples), h), DecodeStatus::kOk);
  EXPECT_EQ(h.kind, FrameKind::kTuples);
  EXPECT_EQ(h.from_task, 3);
  EXPECT_EQ(h.to_task, 7);
  EXPECT_EQ(h.count, 3u);
  std::string credit;
  EncodeCreditFrame(4, 99, credit);
  ASSERT_EQ(PeekFrameHeader(credit, h), DecodeStatus::kOk);
  EXPECT_EQ(h.kind, FrameKind::kCredit);
  EXPECT_EQ(h.count, 99u);
  // The header alone is checked: a kind the format does not have, or a wrong version.
  std::string error;
  std::string bad = credit;
  bad[2] = 4;  // watermark: reserved, not sent by this version
  EXPECT_EQ(PeekFrameHeader(bad, h, &error), DecodeStatus::kMalformed);
  EXPECT_EQ(error, "unknown frame kind 4");
  bad = credit;
  bad[1] = 3;
  EXPECT_EQ(PeekFrameHeader(bad, h, &error), DecodeStatus::kWrongVersion);
  EXPECT_EQ(PeekFrameHeader("", h, &error), DecodeStatus::kMalformed);
}

TEST_F(FrameTest, AFrameBuiltFromValuesDecodesLikeEncodedTuples) {
  FrameBuilder builder;
  for (int round = 0; round < 2; ++round) {  // the builder is reused
    builder.Begin(3, 7);
    builder.Add(1, Values{round, "s", 0.5});
    builder.Add(0, Values{List{1, 2}});
    const std::vector<topology::AckMeta::Anchor> anchors = {{5, 6}};
    builder.Add(0, Values{Value()}, anchors);
    EXPECT_EQ(builder.count(), 3u);
    Frame f;
    ASSERT_EQ(DecodeFrame(builder.Finish(), *table_, f), DecodeStatus::kOk);
    ASSERT_EQ(Tuples(f).size(), 3u);
    EXPECT_EQ(Tuples(f)[0].schema(), b_);
    EXPECT_EQ(Tuples(f)[0].GetValues(), (Values{round, "s", 0.5}));
    EXPECT_EQ(Tuples(f)[1].GetValues(), (Values{List{1, 2}}));
    const std::vector<Tuple> got = Tuples(f);
    const auto& got_anchors = tempest::topology::TupleAccess::Ack(got[2]).anchors;
    EXPECT_EQ(std::vector<topology::AckMeta::Anchor>(got_anchors.begin(), got_anchors.end()),
              anchors);
  }
}

TEST_F(FrameTest, AnchorsAreWrittenAsUint64Pairs) {
  FrameBuilder builder;
  builder.Begin(3, 7);
  const std::vector<topology::AckMeta::Anchor> anchors = {{5, 0x0102030405060708}};
  builder.Add(0, Values{Value()}, anchors);
  const std::string_view frame = builder.Finish();
  // The tuple ends with its anchors: a fixarray of 2, then each id as 0xcf and 8 bytes, big
  // endian, however small.
  const std::string want("\x92\xcf\0\0\0\0\0\0\0\x05\xcf\x01\x02\x03\x04\x05\x06\x07\x08", 19);
  ASSERT_GE(frame.size(), want.size());
  EXPECT_EQ(frame.substr(frame.size() - want.size()), want);
  Frame f;
  ASSERT_EQ(DecodeFrame(frame, *table_, f), DecodeStatus::kOk);
  const std::vector<Tuple> tuples = Tuples(f);  // the anchors are read from these
  const auto& got = tempest::topology::TupleAccess::Ack(tuples[0]).anchors;
  EXPECT_EQ(std::vector<topology::AckMeta::Anchor>(got.begin(), got.end()), anchors);
}

// A frame with an edge key: a tuple whose one anchor has the edge DerivedEdge(key, its index)
// travels with its root alone (a fixarray of 1), and comes back with that edge; any other
// anchors are written in full in the same frame.
TEST_F(FrameTest, AnEdgeKeyLetsATupleCarryItsRootAlone) {
  constexpr uint64_t kKey = 0x1234567890abcdef;
  using Anchor = topology::AckMeta::Anchor;
  const std::vector<Anchor> derived0 = {{5, DerivedEdge(kKey, 0)}};
  const std::vector<Anchor> drawn = {{6, 77}};
  const std::vector<Anchor> derived_at_0 = {{7, DerivedEdge(kKey, 0)}};  // not its index
  const std::vector<Anchor> two = {{8, DerivedEdge(kKey, 3)}, {9, 99}};
  const std::vector<Anchor> derived4 = {{10, DerivedEdge(kKey, 4)}};
  FrameBuilder builder;
  builder.Begin(3, 7, kKey);
  builder.Add(0, Values{1}, derived0);
  builder.Add(0, Values{2}, drawn);
  builder.Add(0, Values{3}, derived_at_0);
  builder.Add(0, Values{4}, two);
  builder.Add(0, Values{5}, derived4);
  const std::string frame(builder.Finish());
  const std::string alone = std::string("\x91\xcf\0\0\0\0\0\0\0\x0a", 10);
  EXPECT_EQ(frame.substr(frame.size() - alone.size()), alone);
  FrameHeader h;
  ASSERT_EQ(PeekFrameHeader(frame, h), DecodeStatus::kOk);
  EXPECT_EQ(h.edge_key, kKey);
  EXPECT_EQ(h.count, 5u);
  Frame f;
  ASSERT_EQ(DecodeFrame(frame, *table_, f), DecodeStatus::kOk);
  const std::vector<std::vector<Anchor>> want = {derived0, drawn, derived_at_0, two, derived4};
  ASSERT_EQ(f.rows.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto got = f.rows[i].anchors();
    EXPECT_EQ(std::vector<Anchor>(got.begin(), got.end()), want[i]) << "tuple " << i;
  }
  // Three tuples of 19 bytes of anchors, two of 10 (and the 9-byte key in the header).
  FrameBuilder plain;
  plain.Begin(3, 7);
  for (const auto& a : want) plain.Add(0, Values{1}, a);
  EXPECT_EQ(plain.Finish().size() - frame.size(), 2u * 9u - 9u);
  // The distinct edges a key gives, never 0.
  EXPECT_NE(DerivedEdge(kKey, 0), DerivedEdge(kKey, 1));
  EXPECT_NE(DerivedEdge(kKey, 0), DerivedEdge(kKey + 1, 0));
}

TEST_F(FrameTest, ARootAloneWithoutAnEdgeKeyOrAKeyOnAnotherFrameIsMalformed) {
  FrameBuilder builder;
  builder.Begin(3, 7, 42);
  builder.Add(0, Values{1}, std::vector<topology::AckMeta::Anchor>{{5, DerivedEdge(42, 0)}});
  std::string frame(builder.Finish());
  // Drop the key: [1, 1, 3, 7, 42, body] -> [1, 1, 3, 7, body].
  ASSERT_EQ(static_cast<unsigned char>(frame[0]), 0x96u);
  ASSERT_EQ(frame[5], 42);
  std::string keyless = frame;
  keyless[0] = static_cast<char>(0x95);
  keyless.erase(5, 1);
  std::string error;
  Frame f;
  EXPECT_EQ(DecodeFrame(keyless, *table_, f, &error), DecodeStatus::kMalformed);
  EXPECT_EQ(error, "a tuple's anchors are not (root, edge) pairs");
  std::string zero = frame;
  zero[5] = 0;
  EXPECT_EQ(DecodeFrame(zero, *table_, f, &error), DecodeStatus::kMalformed);
  EXPECT_EQ(error, "the edge key is 0");
  std::string credit;
  EncodeCreditFrame(3, 9, credit);  // [1, 6, 3, 0, 9] -> [1, 6, 3, 0, 42, 9]
  credit[0] = static_cast<char>(0x96);
  credit.insert(5, 1, 42);
  EXPECT_EQ(DecodeFrame(credit, *table_, f, &error), DecodeStatus::kMalformed);
  EXPECT_EQ(error, "only a tuples frame has an edge key");
}

TEST_F(FrameTest, ARowIsEncodedAsTheSameBytesAsItsValues) {
  // Every kind of cell: scalars, short and long text and bytes (inline and in the arena), a
  // list and a map (side values).
  const std::vector<Values> rows = {
      {Value(), true, false},
      {int64_t{-5}, 2.25, "short"},
      {"a string longer than a cell holds", Bytes{"raw"}, Bytes{std::string(40, 'b')}},
      {List{1, "x"}, Map{{Value("k"), Value(1)}}, int64_t{1} << 40},
  };
  const std::vector<topology::AckMeta::Anchor> anchors = {{5, 6}, {7, 8}};
  topology::RowBatch batch;
  for (const Values& v : rows) batch.Append(b_, v);
  FrameBuilder from_values, from_rows;
  from_values.Begin(3, 7);
  from_rows.Begin(3, 7);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    from_values.Add(1, rows[i], i == 1 ? anchors : std::span<const topology::AckMeta::Anchor>{});
    from_rows.AddRow(1, batch[i], i == 1 ? anchors : std::span<const topology::AckMeta::Anchor>{});
  }
  const std::string expected(from_values.Finish());
  EXPECT_EQ(from_rows.Finish(), expected);
  Frame f;
  ASSERT_EQ(DecodeFrame(expected, *table_, f), DecodeStatus::kOk);
  ASSERT_EQ(Tuples(f).size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(Tuples(f)[i].GetValues(), rows[i]);
}

TEST_F(FrameTest, DecodingIntoAUsedBatchLeavesNothingOfTheOldRows) {
  std::vector<Tuple> first, second;
  for (int i = 0; i < 4; ++i) {
    first.emplace_back(b_, 3, Values{"a long string that is on the heap", i, List{i}});
    tempest::topology::TupleAccess::MutableAck(first.back()).anchors = {{1, 2}};
  }
  second.emplace_back(a_, 3, Values{42});
  second.emplace_back(b_, 3, Values{1.5, "x", Value()});
  Frame f;
  ASSERT_EQ(DecodeFrame(Encode(first), *table_, f), DecodeStatus::kOk);
  ASSERT_EQ(DecodeFrame(Encode(second), *table_, f), DecodeStatus::kOk);
  ASSERT_EQ(Tuples(f).size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(Tuples(f)[i].schema(), second[i].schema());
    EXPECT_EQ(Tuples(f)[i].GetValues(), second[i].GetValues());
    EXPECT_TRUE(tempest::topology::TupleAccess::Ack(Tuples(f)[i]).anchors.empty());
  }
}

TEST_F(FrameTest, TrailingBytesAreMalformed) {
  std::string error;
  EXPECT_EQ(Decode(Encode({}) + "x", &error), DecodeStatus::kMalformed);
  EXPECT_EQ(error, "1 trailing bytes after the frame");
}

}  // namespace
}  // namespace tempest::transport
