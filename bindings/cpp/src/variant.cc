// variant.cc — firebase::Variant: a tagged union owning its string, vector, map or blob through a
// pointer (see variant.h). Every change builds the new value before releasing the old one, so a
// Variant may be given a value it holds.
#include "firebase/variant.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "internal.h"

namespace firebase {
namespace {

constexpr const char* kTypeNames[] = {"Null",         "Int64",         "Double", "Bool",
                                      "StaticString", "MutableString", "Vector", "Map",
                                      "StaticBlob",   "MutableBlob"};
constexpr size_t kTypeCount = sizeof(kTypeNames) / sizeof(kTypeNames[0]);
static_assert(kTypeCount == Variant::kTypeMutableBlob + 1, "a name for every Variant::Type");

// size bytes copied from source (zeros when source is nullptr); never nullptr.
uint8_t* CopyBytes(const void* source, size_t size) {
  uint8_t* bytes = new uint8_t[size]();
  if (source != nullptr && size > 0) std::memcpy(bytes, source, size);
  return bytes;
}

// The order's rank of a type: both kinds of string rank as one, and so do both kinds of blob.
int OrderRank(Variant::Type type) {
  switch (type) {
    case Variant::kTypeMutableString: return Variant::kTypeStaticString;
    case Variant::kTypeMutableBlob: return Variant::kTypeStaticBlob;
    default: return type;
  }
}

// The SDK's container order: the first elements that differ (by ==) decide, with less;
// otherwise the shorter container is less.
template <class Container, class Less>
bool LessAtFirstDifference(const Container& left, const Container& right, Less less) {
  auto [l, r] = std::mismatch(left.begin(), left.end(), right.begin(), right.end());
  if (l != left.end() && r != right.end()) return less(*l, *r);
  return l == left.end() && r != right.end();
}

int CompareBytes(const uint8_t* left, const uint8_t* right, size_t size) {
  return size == 0 ? 0 : std::memcmp(left, right, size);  // memcmp's pointers may not be null
}

int64_t TruncateToInt64(double value) {
  if (std::isnan(value)) return 0;
  if (value >= 9223372036854775808.0) return INT64_MAX;  // 2^63
  if (value < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(value);
}

}  // namespace

Variant::Variant(const std::string& value) : Variant() { set_mutable_string(value); }
Variant::Variant(const std::vector<Variant>& value) : Variant() { set_vector(value); }
Variant::Variant(const std::map<Variant, Variant>& value) : Variant() { set_map(value); }

Variant::Variant(const Variant& other) : Variant() {
  Value copy = other.value_;  // scalars, static strings and static blobs: as they are
  switch (other.type_) {
    case kTypeMutableString: copy.mutable_string = new std::string(*other.value_.mutable_string); break;
    case kTypeVector: copy.vector = new std::vector<Variant>(*other.value_.vector); break;
    case kTypeMap: copy.map = new std::map<Variant, Variant>(*other.value_.map); break;
    case kTypeMutableBlob: copy.blob.data = CopyBytes(other.value_.blob.data, other.value_.blob.size); break;
    default: break;
  }
  Adopt(other.type_, copy);
}

Variant& Variant::operator=(const Variant& other) {
  if (this != &other) *this = Variant(other);
  return *this;
}

Variant::Variant(Variant&& other) noexcept : type_(other.type_), value_(other.value_) {
  other.type_ = kTypeNull;
  other.value_ = Value{};
}

Variant& Variant::operator=(Variant&& other) noexcept {
  if (this != &other) {
    // Detached from other first: other may live inside this Variant's vector or map.
    Type type = other.type_;
    Value value = other.value_;
    other.type_ = kTypeNull;
    other.value_ = Value{};
    Adopt(type, value);
  }
  return *this;
}

Variant::~Variant() { Release(); }

void Variant::Release() noexcept {
  Type type = type_;
  Value value = value_;
  type_ = kTypeNull;
  value_ = Value{};
  switch (type) {
    case kTypeMutableString: delete value.mutable_string; break;
    case kTypeVector: delete value.vector; break;
    case kTypeMap: delete value.map; break;
    case kTypeMutableBlob: delete[] value.blob.data; break;
    default: break;
  }
}

void Variant::Adopt(Type type, Value value) noexcept {
  Release();
  type_ = type;
  value_ = value;
}

void Variant::Expect(Type type, Type or_type) const {
  if (type_ == type || type_ == or_type) return;
  if (type == or_type) {
    internal::Log(kLogLevelAssert, "firebase::Variant: expected %s, but the Variant is %s",
                  TypeName(type), TypeName(type_));
  } else {
    internal::Log(kLogLevelAssert, "firebase::Variant: expected %s or %s, but the Variant is %s",
                  TypeName(type), TypeName(or_type), TypeName(type_));
  }
  std::abort();
}

void Variant::Clear(Type new_type) {
  Value value{};
  switch (new_type) {
    case kTypeNull:
    case kTypeInt64:
    case kTypeDouble:
    case kTypeBool:
    case kTypeStaticBlob:
    case kTypeMutableBlob: break;  // zeros: 0, 0.0, false, a blob of no bytes
    case kTypeStaticString: value.static_string = ""; break;
    case kTypeMutableString: value.mutable_string = new std::string(); break;
    case kTypeVector: value.vector = new std::vector<Variant>(); break;
    case kTypeMap: value.map = new std::map<Variant, Variant>(); break;
    default:
      internal::Log(kLogLevelAssert, "firebase::Variant: Clear to an unknown type %d", static_cast<int>(new_type));
      std::abort();
  }
  Adopt(new_type, value);
}

bool Variant::operator==(const Variant& other) const {
  if (is_string() && other.is_string()) return std::strcmp(string_value(), other.string_value()) == 0;
  if (is_blob() && other.is_blob())
    return blob_size() == other.blob_size() && CompareBytes(blob_data(), other.blob_data(), blob_size()) == 0;
  if (type_ != other.type_) return false;
  switch (type_) {
    case kTypeNull: return true;
    case kTypeInt64: return value_.int64_value == other.value_.int64_value;
    case kTypeDouble: return value_.double_value == other.value_.double_value;
    case kTypeBool: return value_.bool_value == other.value_.bool_value;
    case kTypeVector: return *value_.vector == *other.value_.vector;
    case kTypeMap: return *value_.map == *other.value_.map;
    default: return false;  // strings and blobs: above
  }
}

bool Variant::operator<(const Variant& other) const {
  int rank = OrderRank(type_);
  int other_rank = OrderRank(other.type_);
  if (rank != other_rank) return rank < other_rank;
  switch (type_) {
    case kTypeInt64: return value_.int64_value < other.value_.int64_value;
    case kTypeDouble: return value_.double_value < other.value_.double_value;
    case kTypeBool: return value_.bool_value < other.value_.bool_value;
    case kTypeStaticString:
    case kTypeMutableString: return std::strcmp(string_value(), other.string_value()) < 0;
    case kTypeVector:
      return LessAtFirstDifference(*value_.vector, *other.value_.vector,
                                   [](const Variant& l, const Variant& r) { return l < r; });
    case kTypeMap:
      return LessAtFirstDifference(*value_.map, *other.value_.map, [](const auto& l, const auto& r) {
        return l.first != r.first ? l.first < r.first : l.second < r.second;
      });
    case kTypeStaticBlob:
    case kTypeMutableBlob:
      if (blob_size() != other.blob_size()) return blob_size() < other.blob_size();
      return CompareBytes(blob_data(), other.blob_data(), blob_size()) < 0;
    default: return false;  // Null
  }
}

Variant Variant::EmptyMutableString() { return FromMutableString(std::string()); }

Variant Variant::EmptyVector() {
  Variant empty;
  empty.Clear(kTypeVector);
  return empty;
}

Variant Variant::EmptyMap() {
  Variant empty;
  empty.Clear(kTypeMap);
  return empty;
}

Variant Variant::EmptyMutableBlob(size_t size_bytes) { return FromMutableBlob(nullptr, size_bytes); }

Variant Variant::FromStaticBlob(const void* static_data, size_t size_bytes) {
  Variant blob;
  blob.set_static_blob(static_data, size_bytes);
  return blob;
}

Variant Variant::FromMutableBlob(const void* src_data, size_t size_bytes) {
  Variant blob;
  blob.set_mutable_blob(src_data, size_bytes);
  return blob;
}

Variant Variant::MutableStringFromStaticString(const char* value) {
  return FromMutableString(value != nullptr ? value : "");
}

const char* Variant::TypeName(Type type) {
  return type >= 0 && static_cast<size_t>(type) < kTypeCount ? kTypeNames[type] : "Unknown";
}

Variant Variant::AsString() const {
  switch (type_) {
    case kTypeInt64: return FromMutableString(std::to_string(value_.int64_value));
    case kTypeDouble: {
      int length = std::snprintf(nullptr, 0, "%.16f", value_.double_value);
      std::string text(static_cast<size_t>(length), '\0');
      std::snprintf(text.data(), text.size() + 1, "%.16f", value_.double_value);
      return FromMutableString(text);
    }
    case kTypeBool: return FromStaticString(value_.bool_value ? "true" : "false");
    case kTypeStaticString:
    case kTypeMutableString: return *this;
    default: return EmptyString();
  }
}

Variant Variant::AsInt64() const {
  switch (type_) {
    case kTypeInt64: return *this;
    case kTypeDouble: return FromInt64(TruncateToInt64(value_.double_value));
    case kTypeBool: return FromInt64(value_.bool_value ? 1 : 0);
    case kTypeStaticString:
    case kTypeMutableString: return FromInt64(std::strtoll(string_value(), nullptr, 10));
    default: return Zero();
  }
}

Variant Variant::AsDouble() const {
  switch (type_) {
    case kTypeInt64: return FromDouble(static_cast<double>(value_.int64_value));
    case kTypeDouble: return *this;
    case kTypeBool: return FromDouble(value_.bool_value ? 1.0 : 0.0);
    case kTypeStaticString:
    case kTypeMutableString: return FromDouble(std::strtod(string_value(), nullptr));
    default: return ZeroPointZero();
  }
}

Variant Variant::AsBool() const {
  switch (type_) {
    case kTypeInt64: return FromBool(value_.int64_value != 0);
    case kTypeDouble: return FromBool(value_.double_value != 0.0);  // NaN: true
    case kTypeBool: return *this;
    case kTypeStaticString:
    case kTypeMutableString: {
      const char* text = string_value();
      return FromBool(text[0] != '\0' && std::strcmp(text, "false") != 0);
    }
    case kTypeVector: return FromBool(!value_.vector->empty());
    case kTypeMap: return FromBool(!value_.map->empty());
    case kTypeStaticBlob:
    case kTypeMutableBlob: return FromBool(value_.blob.size != 0);
    default: return False();  // Null
  }
}

std::string& Variant::mutable_string() {
  if (type_ == kTypeStaticString) set_mutable_string(value_.static_string);
  Expect(kTypeMutableString, kTypeMutableString);
  return *value_.mutable_string;
}

std::string Variant::mutable_string() const { return string_value(); }

const char* Variant::string_value() const {
  Expect(kTypeStaticString, kTypeMutableString);
  return type_ == kTypeStaticString ? value_.static_string : value_.mutable_string->c_str();
}

size_t Variant::blob_size() const {
  Expect(kTypeStaticBlob, kTypeMutableBlob);
  return value_.blob.size;
}

const uint8_t* Variant::blob_data() const {
  Expect(kTypeStaticBlob, kTypeMutableBlob);
  return value_.blob.data;
}

uint8_t* Variant::mutable_blob_data() {
  if (type_ == kTypeStaticBlob) set_mutable_blob(value_.blob.data, value_.blob.size);
  return static_cast<const Variant*>(this)->mutable_blob_data();
}

uint8_t* Variant::mutable_blob_data() const {
  Expect(kTypeMutableBlob, kTypeMutableBlob);
  return const_cast<uint8_t*>(value_.blob.data);  // allocated by CopyBytes, not const
}

std::vector<Variant>& Variant::vector() {
  Expect(kTypeVector, kTypeVector);
  return *value_.vector;
}

const std::vector<Variant>& Variant::vector() const {
  Expect(kTypeVector, kTypeVector);
  return *value_.vector;
}

std::map<Variant, Variant>& Variant::map() {
  Expect(kTypeMap, kTypeMap);
  return *value_.map;
}

const std::map<Variant, Variant>& Variant::map() const {
  Expect(kTypeMap, kTypeMap);
  return *value_.map;
}

int64_t Variant::int64_value() const {
  Expect(kTypeInt64, kTypeInt64);
  return value_.int64_value;
}

double Variant::double_value() const {
  Expect(kTypeDouble, kTypeDouble);
  return value_.double_value;
}

const bool& Variant::bool_value() const {
  Expect(kTypeBool, kTypeBool);
  return value_.bool_value;
}

void Variant::set_int64_value(int64_t value) {
  Value scalar{};
  scalar.int64_value = value;
  Adopt(kTypeInt64, scalar);
}

void Variant::set_double_value(double value) {
  Value scalar{};
  scalar.double_value = value;
  Adopt(kTypeDouble, scalar);
}

void Variant::set_bool_value(bool value) {
  Value scalar{};
  scalar.bool_value = value;
  Adopt(kTypeBool, scalar);
}

void Variant::set_string_value(const char* value) {
  Value pointer{};
  pointer.static_string = value != nullptr ? value : "";
  Adopt(kTypeStaticString, pointer);
}

void Variant::set_string_value(char* value) { set_mutable_string(value != nullptr ? value : ""); }

void Variant::set_string_value(const std::string& value) { set_mutable_string(value); }

void Variant::set_mutable_string(const std::string& value, bool /*use_small_string*/) {
  Value owned{};
  owned.mutable_string = new std::string(value);
  Adopt(kTypeMutableString, owned);
}

void Variant::set_mutable_blob(const void* src_data, size_t size_bytes) {
  Value owned{};
  owned.blob = {CopyBytes(src_data, size_bytes), size_bytes};
  Adopt(kTypeMutableBlob, owned);
}

void Variant::set_static_blob(const void* static_data, size_t size_bytes) {
  Value pointer{};
  pointer.blob = {static_cast<const uint8_t*>(static_data), size_bytes};
  Adopt(kTypeStaticBlob, pointer);
}

void Variant::set_vector(const std::vector<Variant>& value) {
  Value owned{};
  owned.vector = new std::vector<Variant>(value);
  Adopt(kTypeVector, owned);
}

void Variant::set_map(const std::map<Variant, Variant>& value) {
  Value owned{};
  owned.map = new std::map<Variant, Variant>(value);
  Adopt(kTypeMap, owned);
}

namespace {

// What an Assign* member takes: *pointer (a new empty T when there is none), *pointer set to
// nullptr.
template <class T>
T* TakeOwnership(T** pointer) {
  T* owned = pointer != nullptr ? *pointer : nullptr;
  if (pointer != nullptr) *pointer = nullptr;
  return owned != nullptr ? owned : new T();
}

}  // namespace

void Variant::AssignMutableString(std::string** str) {
  Value owned{};
  owned.mutable_string = TakeOwnership(str);
  Adopt(kTypeMutableString, owned);
}

void Variant::AssignVector(std::vector<Variant>** vect) {
  Value owned{};
  owned.vector = TakeOwnership(vect);
  Adopt(kTypeVector, owned);
}

void Variant::AssignMap(std::map<Variant, Variant>** map) {
  Value owned{};
  owned.map = TakeOwnership(map);
  Adopt(kTypeMap, owned);
}

}  // namespace firebase
