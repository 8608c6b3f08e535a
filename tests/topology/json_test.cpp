// JSON text <-> Value (topology/json.h): the mapping FileSpout reads and FileSink writes.
#include "topology/json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace tempest::topology {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ParseError(std::string_view text) {
  try {
    ParseJson(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ParseJsonTest, Scalars) {
  EXPECT_EQ(ParseJson("null"), Value());
  EXPECT_EQ(ParseJson("true"), Value(true));
  EXPECT_EQ(ParseJson(" false \n"), Value(false));
  EXPECT_EQ(ParseJson("\"a\\u00e9\\n\\\"\""), Value("a\xC3\xA9\n\""));
  EXPECT_EQ(ParseJson("\"\\ud83d\\ude00\""), Value("\xF0\x9F\x98\x80"));  // a surrogate pair
}

TEST(ParseJsonTest, IntegersAreInt64AndFloatsDouble) {
  EXPECT_EQ(ParseJson("42").type(), ValueType::kInt);
  EXPECT_EQ(ParseJson("42").AsInt(), 42);
  EXPECT_EQ(ParseJson("-7").AsInt(), -7);
  EXPECT_EQ(ParseJson("0").AsInt(), 0);
  EXPECT_EQ(ParseJson("9223372036854775807").AsInt(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseJson("-9223372036854775808").AsInt(), std::numeric_limits<int64_t>::min());
  // Unsigned beyond int64: a double.
  const Value big = ParseJson("9223372036854775808");
  ASSERT_EQ(big.type(), ValueType::kDouble);
  EXPECT_EQ(big.AsDouble(), 9223372036854775808.0);
  EXPECT_EQ(ParseJson("18446744073709551615").type(), ValueType::kDouble);
  // Anything with a fraction or exponent is a double, even when integral.
  EXPECT_EQ(ParseJson("2.0").type(), ValueType::kDouble);
  EXPECT_EQ(ParseJson("2.0").AsDouble(), 2.0);
  EXPECT_EQ(ParseJson("1e3").type(), ValueType::kDouble);
  EXPECT_EQ(ParseJson("1e3").AsDouble(), 1000.0);
  EXPECT_EQ(ParseJson("-0.25").AsDouble(), -0.25);
}

TEST(ParseJsonTest, ObjectsKeepDocumentOrderAndNest) {
  const Value v = ParseJson(R"({"b":1,"a":[1,"x",null,2.5],"c":{"z":true,"y":{}},"d":[]})");
  const Map expected = {
      {Value("b"), Value(1)},
      {Value("a"), Value(List{Value(1), Value("x"), Value(), Value(2.5)})},
      {Value("c"), Value(Map{{Value("z"), Value(true)}, {Value("y"), Value(Map{})}})},
      {Value("d"), Value(List{})},
  };
  EXPECT_EQ(v, Value(expected));
  EXPECT_EQ(v.Find("c")->Find("z")->AsBool(), true);
}

TEST(ParseJsonTest, ARepeatedKeyKeepsItsFirstPlaceAndLastValue) {
  EXPECT_EQ(ParseJson(R"({"a":1,"b":2,"a":3})"),
            Value(Map{{Value("a"), Value(3)}, {Value("b"), Value(2)}}));
  // The same with more members than the small-object check handles.
  std::string text = "{";
  for (int i = 0; i < 40; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += "\"k5\":\"again\"}";
  const Value parsed = ParseJson(text);
  const Map& m = parsed.AsMap();
  ASSERT_EQ(m.size(), 40u);
  EXPECT_EQ(m[5].first, Value("k5"));
  EXPECT_EQ(m[5].second, Value("again"));
  EXPECT_EQ(m[39].second, Value(39));
}

TEST(ParseJsonTest, ErrorsSayWhereAndWhat) {
  EXPECT_EQ(ParseError("{\"a\":1"),
            "invalid JSON: parse error at line 1, column 7: syntax error while parsing object - "
            "unexpected end of input; expected '}'");
  EXPECT_EQ(ParseError("not json"),
            "invalid JSON: parse error at line 1, column 2: syntax error while parsing value - "
            "invalid literal; last read: 'no'");
  EXPECT_EQ(ParseError("1 2"),
            "invalid JSON: parse error at line 1, column 3: syntax error while parsing value - "
            "unexpected number literal; expected end of input");
  EXPECT_EQ(ParseError(""),
            "invalid JSON: parse error at line 1, column 1: syntax error while parsing value - "
            "unexpected end of input; expected '[', '{', or a literal");
  EXPECT_THAT(ParseError("[1,]"), StartsWith("invalid JSON: parse error at line 1, column 4: "));
  EXPECT_THAT(ParseError("{'a':1}"), StartsWith("invalid JSON: parse error at line 1, column 2: "));
  EXPECT_THAT(ParseError("\"\xFF\""),
              StartsWith("invalid JSON: parse error at line 1, column 2: "));
  EXPECT_THAT(ParseError("1e400"), HasSubstr("number overflow"));
}

TEST(ParseJsonTest, NestingIsLimited) {
  const auto nested = [](std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  EXPECT_NO_THROW(ParseJson(nested(kMaxJsonDepth)));
  EXPECT_EQ(ParseError(nested(kMaxJsonDepth + 1)),
            "invalid JSON: arrays/objects nested deeper than 512 levels");
  EXPECT_EQ(ParseError(std::string(100000, '[')),
            "invalid JSON: arrays/objects nested deeper than 512 levels");
}

TEST(AppendJsonTest, Scalars) {
  EXPECT_EQ(ToJson(Value()), "null");
  EXPECT_EQ(ToJson(Value(true)), "true");
  EXPECT_EQ(ToJson(Value(false)), "false");
  EXPECT_EQ(ToJson(Value(0)), "0");
  EXPECT_EQ(ToJson(Value(-42)), "-42");
  EXPECT_EQ(ToJson(Value(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
}

TEST(AppendJsonTest, DoublesAreShortestAndAlwaysReadBackAsFloats) {
  EXPECT_EQ(ToJson(Value(2.0)), "2.0");
  EXPECT_EQ(ToJson(Value(-0.0)), "-0.0");
  EXPECT_EQ(ToJson(Value(0.0)), "0.0");
  EXPECT_EQ(ToJson(Value(0.1)), "0.1");
  EXPECT_EQ(ToJson(Value(-2.5)), "-2.5");
  EXPECT_EQ(ToJson(Value(123456.789)), "123456.789");
  EXPECT_EQ(ToJson(Value(1e20)), "1e+20");
  EXPECT_EQ(ToJson(Value(1.5e-7)), "1.5e-07");
  EXPECT_EQ(ToJson(Value(1.0 / 3)), "0.3333333333333333");
  EXPECT_EQ(ToJson(Value(std::nan(""))), "null");
  EXPECT_EQ(ToJson(Value(std::numeric_limits<double>::infinity())), "null");
  EXPECT_EQ(ToJson(Value(-std::numeric_limits<double>::infinity())), "null");
}

TEST(AppendJsonTest, DoublesRoundTripExactly) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    double d = std::bit_cast<double>(rng());
    if (!std::isfinite(d)) continue;
    const Value back = ParseJson(ToJson(Value(d)));
    ASSERT_EQ(back.type(), ValueType::kDouble) << ToJson(Value(d));
    ASSERT_EQ(std::bit_cast<uint64_t>(back.AsDouble()), std::bit_cast<uint64_t>(d))
        << ToJson(Value(d));
  }
  for (double d : {5e-324, 1.7976931348623157e308, 1e15, 1e16, 1e17, 0.1 + 0.2}) {
    EXPECT_EQ(ParseJson(ToJson(Value(d))), Value(d)) << ToJson(Value(d));
  }
}

TEST(AppendJsonTest, StringsAreEscaped) {
  EXPECT_EQ(ToJson(Value("plain")), "\"plain\"");
  EXPECT_EQ(ToJson(Value(std::string("q\"b\\s/\b\f\n\r\t\x01\x1f\x7f", 14))),
            R"("q\"b\\s/\b\f\n\r\t\u0001\u001f)"
            "\x7f\"");
  EXPECT_EQ(ToJson(Value(std::string("nul\0x", 5))), R"("nul\u0000x")");
  // Valid UTF-8 passes through; invalid bytes become U+FFFD, so the output is always valid.
  EXPECT_EQ(ToJson(Value("\xC3\xA9\xF0\x9F\x98\x80")), "\"\xC3\xA9\xF0\x9F\x98\x80\"");
  EXPECT_EQ(ToJson(Value("a\xFFz")), R"("a\ufffdz")");
  EXPECT_EQ(ToJson(Value("\xC0\xAF")), R"("\ufffd\ufffd")");                      // overlong '/'
  EXPECT_EQ(ToJson(Value("\xED\xA0\x80")), R"("\ufffd\ufffd\ufffd")");            // a surrogate
  EXPECT_EQ(ToJson(Value("\xF4\x90\x80\x80")), R"("\ufffd\ufffd\ufffd\ufffd")");  // > U+10FFFF
  EXPECT_EQ(ToJson(Value("end\xE2\x82")), R"("end\ufffd\ufffd")");                // truncated
  EXPECT_EQ(ParseJson(ToJson(Value("a\xFFz"))), Value("a\xEF\xBF\xBDz"));
}

TEST(AppendJsonTest, BytesAreBase64) {
  // RFC 4648's test vectors.
  EXPECT_EQ(ToJson(Value(Bytes{""})), R"("")");
  EXPECT_EQ(ToJson(Value(Bytes{"f"})), R"("Zg==")");
  EXPECT_EQ(ToJson(Value(Bytes{"fo"})), R"("Zm8=")");
  EXPECT_EQ(ToJson(Value(Bytes{"foo"})), R"("Zm9v")");
  EXPECT_EQ(ToJson(Value(Bytes{"foob"})), R"("Zm9vYg==")");
  EXPECT_EQ(ToJson(Value(Bytes{"fooba"})), R"("Zm9vYmE=")");
  EXPECT_EQ(ToJson(Value(Bytes{"foobar"})), R"("Zm9vYmFy")");
  EXPECT_EQ(ToJson(Value(Bytes{std::string("\x00\xFF\xFE", 3)})), R"("AP/+")");
}

TEST(AppendJsonTest, ListsAndMaps) {
  EXPECT_EQ(ToJson(Value(List{})), "[]");
  EXPECT_EQ(ToJson(Value(Map{})), "{}");
  EXPECT_EQ(ToJson(Value(List{Value(1), Value("a"), Value(), Value(List{Value(2.0)})})),
            R"([1,"a",null,[2.0]])");
  EXPECT_EQ(ToJson(Value(Map{{Value("k"), Value(Map{{Value("n"), Value(false)}})},
                             {Value("l"), Value(List{})}})),
            R"({"k":{"n":false},"l":[]})");
}

TEST(AppendJsonTest, NonStringMapKeysBecomeTheirJsonText) {
  const Value m(Map{{Value(1), Value("int")},
                    {Value(), Value("null")},
                    {Value(true), Value("bool")},
                    {Value(1.5), Value("double")},
                    {Value(List{Value("x"), Value(2)}), Value("list")},
                    {Value("s\"q"), Value("string")}});
  EXPECT_EQ(
      ToJson(m),
      R"({"1":"int","null":"null","true":"bool","1.5":"double","[\"x\",2]":"list","s\"q":"string"})");
}

TEST(AppendJsonTest, AppendsToWhatIsThere) {
  std::string out = "prefix:";
  AppendJson(out, Value(List{Value(1)}));
  EXPECT_EQ(out, "prefix:[1]");
}

TEST(AppendJsonObjectTest, KeysAreTheFieldsInFieldOrder) {
  std::string out;
  AppendJsonObject(out, Fields{"id", "name", "score", "tags", "missing"},
                   Values{7, "a\"b", 2.0, Value(List{Value("x")}), Value()});
  EXPECT_EQ(out, R"({"id":7,"name":"a\"b","score":2.0,"tags":["x"],"missing":null})");
  out.clear();
  AppendJsonObject(out, Fields{}, Values{});
  EXPECT_EQ(out, "{}");
  out.clear();
  AppendJsonObject(out, Fields{"line\n"}, Values{1});
  EXPECT_EQ(out, R"({"line\n":1})");
}

TEST(AppendJsonObjectTest, SizesMustMatch) {
  std::string out;
  try {
    AppendJsonObject(out, Fields{"a", "b"}, Values{1});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "1 values for the 2 fields [a, b]");
  }
  EXPECT_EQ(out, "");
}

TEST(JsonRoundTripTest, ParseOfAppendIsIdentity) {
  const Value v(Map{{Value("i"), Value(-3)},
                    {Value("d"), Value(0.1)},
                    {Value("whole"), Value(4.0)},
                    {Value("s"), Value("tab\there \xE2\x82\xAC")},
                    {Value("n"), Value()},
                    {Value("b"), Value(true)},
                    {Value("l"), Value(List{Value(1), Value(List{}), Value(Map{})})}});
  EXPECT_EQ(ParseJson(ToJson(v)), v);
}

}  // namespace
}  // namespace tempest::topology
