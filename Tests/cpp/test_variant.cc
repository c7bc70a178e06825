// test_variant.cc — firebase::Variant as the SDK documents it: construction and getters of each
// type, conversions, equality and order across types, nesting, copies and moves, static (pointed
// to) vs mutable (copied) strings and blobs, setters changing the type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "firebase/variant.h"

using firebase::Variant;

namespace firebase {

// What a failed expectation shows of a Variant.
void PrintTo(const Variant& v, std::ostream* out) {
  *out << Variant::TypeName(v.type());
  if (v.is_fundamental_type()) *out << " \"" << v.AsString().string_value() << "\"";
  if (v.is_container_type()) *out << " of " << (v.is_vector() ? v.vector().size() : v.map().size());
  if (v.is_blob()) *out << " of " << v.blob_size() << " bytes";
}

}  // namespace firebase

namespace {

const uint8_t kBytes[] = {0x10, 0x00, 0xff, 0x42, 0x07};

std::vector<uint8_t> BytesOf(const Variant& blob) {
  return std::vector<uint8_t>(blob.blob_data(), blob.blob_data() + blob.blob_size());
}

}  // namespace

TEST(Variant, DefaultIsNull) {
  Variant v;
  EXPECT_EQ(v.type(), Variant::kTypeNull);
  EXPECT_TRUE(v.is_null());
  EXPECT_TRUE(v.is_fundamental_type());
  EXPECT_FALSE(v.is_container_type());
  EXPECT_EQ(v, Variant::Null());
}

TEST(Variant, IntegralTypesAreInt64) {
  EXPECT_EQ(Variant(int64_t{-9000000000}).int64_value(), -9000000000);
  Variant zero(0);  // an int, not a bool or a null pointer
  EXPECT_EQ(zero.type(), Variant::kTypeInt64);
  EXPECT_EQ(zero.int64_value(), 0);
  EXPECT_EQ(Variant(int16_t{-300}).int64_value(), -300);
  EXPECT_EQ(Variant(int8_t{-5}).int64_value(), -5);
  EXPECT_EQ(Variant(uint8_t{250}).int64_value(), 250);
  EXPECT_EQ(Variant('A').int64_value(), 65);
  for (const Variant& v : {Variant(int16_t{1}), Variant(int8_t{1}), Variant(uint8_t{1}), Variant('a')}) {
    EXPECT_TRUE(v.is_int64());
    EXPECT_TRUE(v.is_numeric());
    EXPECT_TRUE(v.is_fundamental_type());
  }
}

TEST(Variant, FloatingTypesAreDoubleAndBoolIsBool) {
  Variant d(2.5);
  EXPECT_EQ(d.type(), Variant::kTypeDouble);
  EXPECT_EQ(d.double_value(), 2.5);
  EXPECT_TRUE(d.is_numeric());
  Variant f(0.25f);
  EXPECT_TRUE(f.is_double());
  EXPECT_EQ(f.double_value(), 0.25);
  Variant b(true);
  EXPECT_EQ(b.type(), Variant::kTypeBool);
  EXPECT_TRUE(b.bool_value());
  EXPECT_FALSE(b.is_numeric());
  EXPECT_EQ(Variant::FromInt64(7), Variant(7));
  EXPECT_EQ(Variant::FromDouble(7.0).type(), Variant::kTypeDouble);
  EXPECT_EQ(Variant::FromBool(false), Variant::False());
  EXPECT_EQ(Variant::Zero().int64_value(), 0);
  EXPECT_EQ(Variant::One().int64_value(), 1);
  EXPECT_EQ(Variant::ZeroPointZero().double_value(), 0.0);
  EXPECT_EQ(Variant::OnePointZero().double_value(), 1.0);
  EXPECT_TRUE(Variant::True().bool_value());
}

TEST(Variant, ConstCharPointerIsStaticAndPointedTo) {
  static const char kText[] = "static text";
  Variant v(kText);
  EXPECT_EQ(v.type(), Variant::kTypeStaticString);
  EXPECT_TRUE(v.is_string());
  EXPECT_EQ(v.string_value(), kText);  // the same pointer: not copied
  Variant copy(v);
  EXPECT_EQ(copy.string_value(), kText);
  EXPECT_EQ(Variant::FromStaticString(kText).string_value(), kText);
  EXPECT_TRUE(Variant::EmptyString().is_static_string());
  EXPECT_STREQ(Variant::EmptyString().string_value(), "");
}

TEST(Variant, CharPointerAndStdStringAreCopied) {
  char buffer[] = "mutable";
  Variant from_buffer(buffer);
  buffer[0] = 'X';
  EXPECT_EQ(from_buffer.type(), Variant::kTypeMutableString);
  EXPECT_STREQ(from_buffer.string_value(), "mutable");
  EXPECT_NE(from_buffer.string_value(), buffer);

  std::string text = "a string longer than sixteen bytes";
  Variant from_string(text);
  text[0] = 'X';
  EXPECT_TRUE(from_string.is_mutable_string());
  EXPECT_EQ(from_string.mutable_string(), "a string longer than sixteen bytes");
  EXPECT_TRUE(Variant(std::string("short")).is_mutable_string());
  EXPECT_TRUE(Variant::FromMutableString("x").is_mutable_string());
  EXPECT_TRUE(Variant::EmptyMutableString().is_mutable_string());
  EXPECT_EQ(Variant::EmptyMutableString().mutable_string(), "");

  static const char kStatic[] = "from static";
  Variant made_mutable = Variant::MutableStringFromStaticString(kStatic);
  EXPECT_TRUE(made_mutable.is_mutable_string());
  EXPECT_NE(made_mutable.string_value(), kStatic);
  EXPECT_STREQ(made_mutable.string_value(), kStatic);
}

TEST(Variant, MutableStringPromotesAStaticOne) {
  static const char kText[] = "Hello!";
  Variant v(kText);
  const Variant& as_const = v;
  EXPECT_EQ(as_const.mutable_string(), "Hello!");  // a copy: the type stays
  EXPECT_TRUE(v.is_static_string());
  v.mutable_string()[5] = '?';
  EXPECT_TRUE(v.is_mutable_string());
  EXPECT_STREQ(v.string_value(), "Hello?");
  EXPECT_STREQ(kText, "Hello!");  // the static text is untouched
  v.set_string_value("Bye");
  EXPECT_TRUE(v.is_static_string());
  EXPECT_STREQ(v.string_value(), "Bye");
}

TEST(Variant, NullCStringsAreEmptyStrings) {
  const char* none = nullptr;
  Variant v(none);
  EXPECT_TRUE(v.is_static_string());
  EXPECT_STREQ(v.string_value(), "");
  char* none_mutable = nullptr;
  v.set_string_value(none_mutable);
  EXPECT_TRUE(v.is_mutable_string());
  EXPECT_EQ(v.mutable_string(), "");
  EXPECT_STREQ(Variant::MutableStringFromStaticString(nullptr).string_value(), "");
}

TEST(Variant, StaticBlobIsPointedToAndMutableBlobCopied) {
  uint8_t data[] = {1, 2, 3, 4};
  Variant pointed = Variant::FromStaticBlob(data, sizeof data);
  Variant copied = Variant::FromMutableBlob(data, sizeof data);
  EXPECT_EQ(pointed.type(), Variant::kTypeStaticBlob);
  EXPECT_EQ(copied.type(), Variant::kTypeMutableBlob);
  EXPECT_TRUE(pointed.is_blob());
  EXPECT_TRUE(copied.is_blob());
  EXPECT_FALSE(pointed.is_fundamental_type());
  EXPECT_EQ(pointed.blob_data(), data);
  EXPECT_NE(copied.blob_data(), data);
  EXPECT_EQ(copied.blob_size(), 4u);
  data[0] = 9;
  EXPECT_EQ(pointed.blob_data()[0], 9);
  EXPECT_EQ(copied.blob_data()[0], 1);

  Variant pointed_copy(pointed);
  EXPECT_EQ(pointed_copy.blob_data(), data);
  Variant copied_copy(copied);
  EXPECT_NE(copied_copy.blob_data(), copied.blob_data());
  EXPECT_EQ(BytesOf(copied_copy), BytesOf(copied));
}

TEST(Variant, MutableBlobDataPromotesAStaticBlob) {
  Variant v = Variant::FromStaticBlob(kBytes, sizeof kBytes);
  uint8_t* writable = v.mutable_blob_data();
  EXPECT_TRUE(v.is_mutable_blob());
  EXPECT_NE(writable, kBytes);
  writable[1] = 0x55;
  EXPECT_EQ(v.blob_data()[1], 0x55);
  EXPECT_EQ(kBytes[1], 0x00);
  const Variant& as_const = v;
  EXPECT_EQ(as_const.mutable_blob_data(), writable);
  v.set_static_blob(kBytes, sizeof kBytes);
  EXPECT_TRUE(v.is_static_blob());
  EXPECT_EQ(v.blob_data(), kBytes);
}

TEST(Variant, EmptyMutableBlobsAreZeros) {
  Variant zeros = Variant::EmptyMutableBlob(64);
  EXPECT_TRUE(zeros.is_mutable_blob());
  EXPECT_EQ(BytesOf(zeros), std::vector<uint8_t>(64, 0));
  Variant from_null = Variant::FromMutableBlob(nullptr, 3);
  EXPECT_EQ(BytesOf(from_null), std::vector<uint8_t>(3, 0));
  EXPECT_EQ(Variant::EmptyMutableBlob(0).blob_size(), 0u);
}

TEST(Variant, BlobsCompareBySizeThenBytes) {
  Variant a = Variant::FromStaticBlob(kBytes, sizeof kBytes);
  Variant b = Variant::FromMutableBlob(kBytes, sizeof kBytes);
  EXPECT_EQ(a, b);  // static and mutable: one type for comparisons
  EXPECT_FALSE(a < b);
  EXPECT_FALSE(b < a);
  Variant changed = b;
  changed.mutable_blob_data()[2] = 0x00;  // 0xff -> 0x00: less
  EXPECT_NE(changed, b);
  EXPECT_LT(changed, b);
  Variant shorter = Variant::FromMutableBlob(kBytes, sizeof kBytes - 1);
  EXPECT_LT(shorter, a);
  Variant larger_but_shorter = Variant::FromStaticBlob("\xff\xff", 2);
  EXPECT_LT(larger_but_shorter, a);  // size first
  EXPECT_EQ(Variant::FromStaticBlob(nullptr, 0), Variant::EmptyMutableBlob(0));
}

TEST(Variant, VectorsAndTheirTemplateConstructors) {
  Variant v(std::vector<Variant>{Variant(1), Variant("two"), Variant(3.0)});
  EXPECT_EQ(v.type(), Variant::kTypeVector);
  EXPECT_TRUE(v.is_container_type());
  EXPECT_FALSE(v.is_fundamental_type());
  ASSERT_EQ(v.vector().size(), 3u);
  EXPECT_EQ(v.vector()[0].int64_value(), 1);
  EXPECT_STREQ(v.vector()[1].string_value(), "two");
  EXPECT_EQ(v.vector()[2].double_value(), 3.0);

  Variant ints(std::vector<int>{8, 6, 7});
  EXPECT_EQ(ints, Variant(std::vector<Variant>{8, 6, 7}));
  EXPECT_TRUE(ints.vector()[0].is_int64());
  Variant bools(std::vector<bool>{true, false});
  EXPECT_TRUE(bools.vector()[0].is_bool());
  EXPECT_FALSE(bools.vector()[1].bool_value());
  Variant statics(std::vector<const char*>{"a", "b"});
  Variant mutables(std::vector<std::string>{"a", "b"});
  EXPECT_TRUE(statics.vector()[0].is_static_string());
  EXPECT_TRUE(mutables.vector()[0].is_mutable_string());
  EXPECT_EQ(statics, mutables);

  const double values[] = {0.5, 1.5, 2.5};
  Variant from_array(values, 3);
  EXPECT_EQ(from_array, Variant(std::vector<double>{0.5, 1.5, 2.5}));
  EXPECT_TRUE(Variant::EmptyVector().vector().empty());
}

TEST(Variant, MapsKeepKeysOfDifferentTypesApart) {
  std::map<Variant, Variant> m;
  m["0"] = 1;
  m[0] = 2;
  m[0.0] = 3;
  m[false] = 4;
  m[Variant::Null()] = 5;
  m[std::string("0")] = 6;  // the same key as the static "0"
  Variant v(m);
  EXPECT_EQ(v.type(), Variant::kTypeMap);
  ASSERT_EQ(v.map().size(), 5u);
  EXPECT_EQ(v.map().at(Variant("0")).int64_value(), 6);
  EXPECT_EQ(v.map().at(Variant(0)).int64_value(), 2);
  EXPECT_EQ(v.map().at(Variant(0.0)).int64_value(), 3);
  EXPECT_EQ(v.map().at(Variant(false)).int64_value(), 4);
  EXPECT_EQ(v.map().at(Variant()).int64_value(), 5);

  Variant from_template(std::map<int, const char*>{{23, "apple"}, {45, "banana"}});
  ASSERT_EQ(from_template.map().size(), 2u);
  EXPECT_STREQ(from_template.map().at(Variant(45)).string_value(), "banana");
  EXPECT_TRUE(from_template.map().begin()->first.is_int64());

  Variant by_vector = Variant::EmptyMap();
  by_vector.map()[std::vector<int>{1, 2, 3}] = "first";
  by_vector.map()[std::vector<int>{1, 2, 4}] = "second";
  by_vector.map()[std::vector<int>{1, 2, 3}] = "replaced";
  ASSERT_EQ(by_vector.map().size(), 2u);
  EXPECT_STREQ(by_vector.map().begin()->second.string_value(), "replaced");
}

TEST(Variant, NestedContainers) {
  Variant inner_map(std::map<std::string, int>{{"x", 1}});
  Variant v(std::vector<Variant>{Variant(std::vector<int>{1, 2}), inner_map, Variant::EmptyVector()});
  v.vector()[1].map()[Variant("y")] = std::vector<const char*>{"deep"};
  EXPECT_EQ(v.vector()[0].vector()[1].int64_value(), 2);
  EXPECT_STREQ(v.vector()[1].map().at(Variant("y")).vector()[0].string_value(), "deep");
  Variant copy = v;
  EXPECT_EQ(copy, v);
  copy.vector()[1].map()[Variant("y")].vector()[0] = "changed";
  EXPECT_NE(copy, v);  // deep copy: v keeps "deep"
  EXPECT_STREQ(v.vector()[1].map().at(Variant("y")).vector()[0].string_value(), "deep");
}

TEST(Variant, OrderAcrossTypes) {
  // Null < Int64 < Double < Bool < String < Vector < Map < Blob, whatever the values.
  const std::vector<Variant> ascending = {
      Variant(),
      Variant(int64_t{1000}),
      Variant(-5.0),
      Variant(false),
      Variant(""),
      Variant::EmptyVector(),
      Variant::EmptyMap(),
      Variant::FromStaticBlob(nullptr, 0),
  };
  for (size_t i = 0; i < ascending.size(); i++) {
    for (size_t j = 0; j < ascending.size(); j++) {
      EXPECT_EQ(ascending[i] < ascending[j], i < j) << i << " " << j;
      EXPECT_EQ(ascending[i] > ascending[j], i > j) << i << " " << j;
      EXPECT_EQ(ascending[i] <= ascending[j], i <= j) << i << " " << j;
      EXPECT_EQ(ascending[i] >= ascending[j], i >= j) << i << " " << j;
      EXPECT_EQ(ascending[i] == ascending[j], i == j) << i << " " << j;
      EXPECT_EQ(ascending[i] != ascending[j], i != j) << i << " " << j;
    }
  }
  EXPECT_LT(Variant(1), Variant(0.0));  // as the SDK warns
  EXPECT_NE(Variant(1), Variant(1.0));
  EXPECT_LT(Variant(std::string("a mutable string longer than sixteen")), Variant::EmptyVector());
  EXPECT_LT(Variant::FromMutableBlob(nullptr, 0), Variant::FromStaticBlob(kBytes, 1));
}

TEST(Variant, OrderWithinTypes) {
  EXPECT_LT(Variant(-3), Variant(2));
  EXPECT_LT(Variant(1.5), Variant(2.5));
  EXPECT_LT(Variant(false), Variant(true));
  EXPECT_LT(Variant("apple"), Variant(std::string("banana")));
  EXPECT_LT(Variant(std::string("Zebra")), Variant("apple"));  // strcmp: bytes
  EXPECT_EQ(Variant("same"), Variant(std::string("same")));
  EXPECT_FALSE(Variant("same") < Variant(std::string("same")));
  // Vectors: the first differing element decides; a prefix is less.
  EXPECT_LT(Variant(std::vector<int>{1, 2, 3}), Variant(std::vector<int>{1, 3}));
  EXPECT_LT(Variant(std::vector<int>{1, 2}), Variant(std::vector<int>{1, 2, 0}));
  EXPECT_FALSE(Variant(std::vector<int>{1, 2}) < Variant(std::vector<int>{1, 2}));
  EXPECT_LT(Variant(std::vector<Variant>{1, 9}), Variant(std::vector<Variant>{1.0, 0}));
  // Maps: entry by entry, key then value.
  EXPECT_LT(Variant(std::map<int, int>{{1, 5}}), Variant(std::map<int, int>{{2, 0}}));
  EXPECT_LT(Variant(std::map<int, int>{{1, 5}}), Variant(std::map<int, int>{{1, 6}}));
  EXPECT_LT(Variant(std::map<int, int>{{1, 5}}), Variant(std::map<int, int>{{1, 5}, {2, 0}}));
  EXPECT_EQ(Variant(std::map<int, int>{{1, 5}}), Variant(std::map<int64_t, int>{{1, 5}}));
}

TEST(Variant, DoublesCompareAsDoubles) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Variant(0.0), Variant(-0.0));
  EXPECT_NE(Variant(nan), Variant(nan));
  EXPECT_FALSE(Variant(nan) < Variant(1.0));
  EXPECT_FALSE(Variant(1.0) < Variant(nan));
}

TEST(Variant, AsString) {
  EXPECT_STREQ(Variant(int64_t{9223372036800000000}).AsString().string_value(), "9223372036800000000");
  EXPECT_STREQ(Variant(int64_t{-42}).AsString().string_value(), "-42");
  EXPECT_TRUE(Variant(7).AsString().is_mutable_string());
  EXPECT_STREQ(Variant(1.5).AsString().string_value(), "1.5000000000000000");  // %.16f
  EXPECT_STREQ(Variant(-0.25).AsString().string_value(), "-0.2500000000000000");
  EXPECT_STREQ(Variant(1e20).AsString().string_value(), "100000000000000000000.0000000000000000");
  EXPECT_EQ(Variant(true).AsString(), Variant("true"));
  EXPECT_EQ(Variant(false).AsString(), Variant("false"));
  EXPECT_TRUE(Variant(true).AsString().is_static_string());
  static const char kText[] = "itself";
  EXPECT_EQ(Variant(kText).AsString().string_value(), kText);  // a static string stays static
  EXPECT_TRUE(Variant(std::string("m")).AsString().is_mutable_string());
  for (const Variant& v : {Variant(), Variant::EmptyVector(), Variant(std::map<int, int>{{1, 1}}),
                           Variant::FromStaticBlob(kBytes, sizeof kBytes)}) {
    Variant s = v.AsString();
    EXPECT_TRUE(s.is_static_string()) << Variant::TypeName(v.type());
    EXPECT_STREQ(s.string_value(), "");
  }
}

TEST(Variant, AsInt64) {
  EXPECT_EQ(Variant(std::string("38294")).AsInt64(), Variant(38294));
  EXPECT_EQ(Variant("  -12abc").AsInt64().int64_value(), -12);  // strtol: leading number
  EXPECT_EQ(Variant("abc").AsInt64().int64_value(), 0);
  EXPECT_EQ(Variant("9223372036854775807").AsInt64().int64_value(), INT64_MAX);
  EXPECT_EQ(Variant(399.9).AsInt64().int64_value(), 399);
  EXPECT_EQ(Variant(-399.9).AsInt64().int64_value(), -399);
  EXPECT_EQ(Variant(1e300).AsInt64().int64_value(), INT64_MAX);
  EXPECT_EQ(Variant(-1e300).AsInt64().int64_value(), INT64_MIN);
  EXPECT_EQ(Variant(std::numeric_limits<double>::quiet_NaN()).AsInt64().int64_value(), 0);
  EXPECT_EQ(Variant(true).AsInt64(), Variant::One());
  EXPECT_EQ(Variant(false).AsInt64(), Variant::Zero());
  EXPECT_EQ(Variant(5).AsInt64(), Variant(5));
  EXPECT_EQ(Variant().AsInt64(), Variant::Zero());
  EXPECT_EQ(Variant(std::vector<int>{7}).AsInt64(), Variant::Zero());
}

TEST(Variant, AsDouble) {
  EXPECT_EQ(Variant("87755.899").AsDouble(), Variant(87755.899));
  EXPECT_EQ(Variant(std::string("-1e3x")).AsDouble().double_value(), -1000.0);
  EXPECT_EQ(Variant("x").AsDouble(), Variant::ZeroPointZero());
  EXPECT_EQ(Variant(12345).AsDouble(), Variant(12345.0));
  EXPECT_EQ(Variant(2.5).AsDouble(), Variant(2.5));
  EXPECT_EQ(Variant(true).AsDouble(), Variant::OnePointZero());
  EXPECT_EQ(Variant(false).AsDouble(), Variant::ZeroPointZero());
  EXPECT_EQ(Variant().AsDouble(), Variant::ZeroPointZero());
  EXPECT_EQ(Variant::EmptyMap().AsDouble(), Variant::ZeroPointZero());
}

TEST(Variant, AsBool) {
  for (const Variant& falsy :
       {Variant(), Variant(0), Variant(0.0), Variant(-0.0), Variant(false), Variant(""),
        Variant(std::string()), Variant("false"), Variant(std::string("false")), Variant::EmptyVector(),
        Variant::EmptyMap(), Variant::FromStaticBlob(kBytes, 0), Variant::EmptyMutableBlob(0)}) {
    EXPECT_EQ(falsy.AsBool(), Variant::False()) << Variant::TypeName(falsy.type());
  }
  for (const Variant& truthy :
       {Variant(-1), Variant(0.001), Variant(std::numeric_limits<double>::quiet_NaN()), Variant(true),
        Variant("False"), Variant("0"), Variant(std::string(" ")), Variant(std::vector<int>{0}),
        Variant(std::map<int, int>{{0, 0}}), Variant::FromStaticBlob(kBytes, 1), Variant::EmptyMutableBlob(1)}) {
    EXPECT_EQ(truthy.AsBool(), Variant::True()) << Variant::TypeName(truthy.type());
  }
}

TEST(Variant, CopiesAreDeep) {
  Variant original(std::string("a mutable string longer than sixteen bytes"));
  Variant copy(original);
  EXPECT_EQ(copy, original);
  EXPECT_NE(&copy.mutable_string(), &original.mutable_string());
  copy.mutable_string() += "!";
  EXPECT_NE(copy, original);
  Variant assigned;
  assigned = original;
  EXPECT_EQ(assigned, original);
  EXPECT_NE(assigned.string_value(), original.string_value());
  Variant& self = assigned;
  assigned = self;
  EXPECT_EQ(assigned, original);
}

TEST(Variant, MovesTakeTheValueAndLeaveNull) {
  std::vector<Variant> values = {Variant(int64_t{7}),
                                 Variant(2.5),
                                 Variant(true),
                                 Variant("static"),
                                 Variant(std::string("mutable and longer than sixteen")),
                                 Variant(std::vector<int>{1, 2}),
                                 Variant(std::map<int, int>{{1, 2}}),
                                 Variant::FromStaticBlob(kBytes, sizeof kBytes),
                                 Variant::FromMutableBlob(kBytes, sizeof kBytes)};
  for (Variant& source : values) {
    const Variant expected = source;
    Variant::Type type = source.type();
    Variant moved(std::move(source));
    EXPECT_EQ(moved.type(), type);
    EXPECT_EQ(moved, expected);
    EXPECT_TRUE(source.is_null()) << Variant::TypeName(type);  // NOLINT(bugprone-use-after-move)
    Variant target(42);
    target = std::move(moved);
    EXPECT_EQ(target, expected);
    EXPECT_TRUE(moved.is_null()) << Variant::TypeName(type);  // NOLINT(bugprone-use-after-move)
  }
  // What is owned changes hands without being copied.
  Variant vector(std::vector<int>{1, 2, 3});
  const std::vector<Variant>* elements = &vector.vector();
  Variant taken(std::move(vector));
  EXPECT_EQ(&taken.vector(), elements);
  Variant blob = Variant::FromMutableBlob(kBytes, sizeof kBytes);
  const uint8_t* bytes = blob.blob_data();
  Variant taken_blob;
  taken_blob = std::move(blob);
  EXPECT_EQ(taken_blob.blob_data(), bytes);
  Variant& self = taken_blob;
  taken_blob = std::move(self);
  EXPECT_EQ(taken_blob.blob_data(), bytes);
}

TEST(Variant, AssignsAValueItHolds) {
  Variant v(std::vector<Variant>{Variant(std::string("first, longer than sixteen bytes")), Variant(2)});
  v = v.vector()[0];
  EXPECT_EQ(v, Variant("first, longer than sixteen bytes"));
  Variant w(std::vector<Variant>{Variant(std::vector<int>{5, 6}), Variant(3)});
  w = std::move(w.vector()[0]);
  EXPECT_EQ(w, Variant(std::vector<int>{5, 6}));
  w.set_vector(w.vector());
  EXPECT_EQ(w, Variant(std::vector<int>{5, 6}));
  Variant m(std::map<int, int>{{1, 2}});
  m.set_map(m.map());
  EXPECT_EQ(m, Variant(std::map<int, int>{{1, 2}}));
  Variant s(std::string("text that is longer than sixteen"));
  s.set_mutable_string(s.mutable_string());
  EXPECT_EQ(s.mutable_string(), "text that is longer than sixteen");
  Variant b = Variant::FromMutableBlob(kBytes, sizeof kBytes);
  b.set_mutable_blob(b.blob_data(), b.blob_size());
  EXPECT_EQ(BytesOf(b), std::vector<uint8_t>(kBytes, kBytes + sizeof kBytes));
}

TEST(Variant, SettersChangeTheType) {
  Variant v;
  v.set_int64_value(123);
  EXPECT_EQ(v.type(), Variant::kTypeInt64);
  EXPECT_EQ(v.int64_value(), 123);
  v.set_vector({4, 5, 6});
  EXPECT_EQ(v, Variant(std::vector<int>{4, 5, 6}));
  v.set_double_value(456.7);
  EXPECT_EQ(v.type(), Variant::kTypeDouble);
  EXPECT_EQ(v.double_value(), 456.7);
  v.set_bool_value(false);
  EXPECT_EQ(v.type(), Variant::kTypeBool);
  EXPECT_FALSE(v.bool_value());
  v.set_map({std::make_pair(33, 44), std::make_pair(55, 66)});
  EXPECT_EQ(v.type(), Variant::kTypeMap);
  EXPECT_EQ(v.map().at(Variant(55)).int64_value(), 66);
  v.set_string_value(std::string("copied"));
  EXPECT_TRUE(v.is_mutable_string());
  v.set_mutable_string("small", false);
  EXPECT_TRUE(v.is_mutable_string());
  EXPECT_EQ(v.mutable_string(), "small");
  v.set_static_blob(kBytes, 2);
  EXPECT_TRUE(v.is_static_blob());
  v.set_mutable_blob(kBytes, 2);
  EXPECT_TRUE(v.is_mutable_blob());
  v.set_null();
  EXPECT_TRUE(v.is_null());
}

TEST(Variant, ClearGivesAnEmptyValueOfTheType) {
  Variant v(std::vector<int>{1, 2});
  v.Clear(Variant::kTypeInt64);
  EXPECT_EQ(v, Variant::Zero());
  v.Clear(Variant::kTypeDouble);
  EXPECT_EQ(v, Variant::ZeroPointZero());
  v.Clear(Variant::kTypeBool);
  EXPECT_EQ(v, Variant::False());
  v.Clear(Variant::kTypeStaticString);
  EXPECT_TRUE(v.is_static_string());
  EXPECT_STREQ(v.string_value(), "");
  v.Clear(Variant::kTypeMutableString);
  EXPECT_TRUE(v.is_mutable_string());
  EXPECT_EQ(v.mutable_string(), "");
  v.Clear(Variant::kTypeMap);
  EXPECT_TRUE(v.map().empty());
  v.Clear(Variant::kTypeVector);
  EXPECT_TRUE(v.vector().empty());
  v.Clear(Variant::kTypeMutableBlob);
  EXPECT_TRUE(v.is_mutable_blob());
  EXPECT_EQ(v.blob_size(), 0u);
  v.Clear(Variant::kTypeStaticBlob);
  EXPECT_TRUE(v.is_static_blob());
  EXPECT_EQ(v.blob_size(), 0u);
  v.Clear();
  EXPECT_TRUE(v.is_null());
}

TEST(Variant, AssignTakesOwnershipWithoutCopying) {
  std::string* text = new std::string("owned");
  const std::string* address = text;
  Variant v;
  v.AssignMutableString(&text);
  EXPECT_EQ(text, nullptr);
  EXPECT_EQ(&v.mutable_string(), address);
  auto* elements = new std::vector<Variant>{1, 2};
  v.AssignVector(&elements);
  EXPECT_EQ(elements, nullptr);
  EXPECT_EQ(v, Variant(std::vector<int>{1, 2}));
  auto* entries = new std::map<Variant, Variant>{{Variant("k"), Variant(1)}};
  v.AssignMap(&entries);
  EXPECT_EQ(entries, nullptr);
  EXPECT_EQ(v.map().at(Variant("k")), Variant(1));
  std::vector<Variant>* none = nullptr;
  v.AssignVector(&none);
  EXPECT_TRUE(v.is_vector());
  EXPECT_TRUE(v.vector().empty());
}

TEST(Variant, TypeNames) {
  const char* expected[] = {"Null",         "Int64",         "Double", "Bool",
                            "StaticString", "MutableString", "Vector", "Map",
                            "StaticBlob",   "MutableBlob"};
  for (int type = Variant::kTypeNull; type <= Variant::kTypeMutableBlob; type++)
    EXPECT_STREQ(Variant::TypeName(static_cast<Variant::Type>(type)), expected[type]);
  EXPECT_STREQ(Variant::TypeName(static_cast<Variant::Type>(99)), "Unknown");
}

TEST(VariantDeathTest, AnAccessorOfAnotherTypeAbortsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the suite's process has other threads
  Variant text("text");
  EXPECT_DEATH((void)text.int64_value(), "firebase::Variant: expected Int64, but the Variant is StaticString");
  Variant number(1);
  EXPECT_DEATH((void)number.string_value(),
               "expected StaticString or MutableString, but the Variant is Int64");
  EXPECT_DEATH((void)number.vector(), "expected Vector, but the Variant is Int64");
  const Variant pointed = Variant::FromStaticBlob(kBytes, 1);
  EXPECT_DEATH((void)pointed.mutable_blob_data(), "expected MutableBlob, but the Variant is StaticBlob");
}
