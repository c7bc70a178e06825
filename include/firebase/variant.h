// firebase/variant.h — firebase::Variant, as the Firebase C++ SDK declares it
// (app/src/include/firebase/variant.h): a null, an int64_t, a double, a bool, a string, a vector
// or map of Variants, or a blob of bytes.
//
// Every public member of the SDK's class is here, with its semantics: the same Type values in the
// same order, the same conversions (AsString, AsInt64, AsDouble, AsBool) and the same ordering
// across types. A "static" string or blob is only pointed to (the caller keeps it alive for the
// Variant's life, copies included); a "mutable" one is the Variant's own copy. A moved-from
// Variant is Null. A typed accessor called on another type (int64_value() of a string, vector()
// of a map...) writes "firebase::Variant: expected ..." on stderr and aborts, as the SDK's
// assertion does.
//
// Differs from the SDK, where the SDK's behaviour is undefined or internal:
// - No small-string storage: a mutable string is always a std::string (the SDK keeps strings
//   under 16 bytes inline; type() reports kTypeMutableString for both, so only the lifetime of
//   string_value()'s pointer differs: here it lasts until the Variant changes).
//   set_mutable_string's use_small_string parameter is accepted and has no effect.
// - AsInt64() of a double outside int64_t's range gives the nearest bound, of NaN 0 (the SDK
//   casts, which is undefined there).
// - The array constructor Variant(const T[], size_t) fills the vector (the SDK's writes past its
//   end); set_mutable_blob(nullptr, n) gives n zero bytes (the SDK's are uninitialized); a null
//   const char* or char* is taken as "" (the SDK keeps it, or crashes copying it); the Assign*
//   members given a null pointer give an empty value of their type.
// - Assigning a Variant a value held inside itself (v = v.vector()[0], v.set_vector(v.vector()))
//   works: the new value is built before the old one is released.
// - The SDK's SWIG and VariantInternal hooks (friend class internal::VariantInternal) are not
//   declared: they are internal to the SDK.
// Thread safety: as a std::string's: distinct Variants may be used from any threads; one Variant
// may be read from several threads while none changes it.
#ifndef FIREBASE_VARIANT_H_
#define FIREBASE_VARIANT_H_

#include <stddef.h>
#include <stdint.h>

#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "firebase/internal/common.h"

namespace firebase {

class Variant {
 public:
  enum Type {
    kTypeNull,
    kTypeInt64,
    kTypeDouble,
    kTypeBool,
    // A const char* the Variant points to, not a copy.
    kTypeStaticString,
    // A std::string the Variant owns.
    kTypeMutableString,
    kTypeVector,
    kTypeMap,
    // Bytes the Variant points to, not a copy (FromStaticBlob, set_static_blob).
    kTypeStaticBlob,
    // Bytes the Variant owns (FromMutableBlob, set_mutable_blob, EmptyMutableBlob).
    kTypeMutableBlob,
  };

  Variant() : type_(kTypeNull), value_{} {}

  // From a scalar or C string: int64_t, int, int16_t, int8_t, uint8_t and char give kTypeInt64;
  // double and float kTypeDouble; bool kTypeBool; const char* (and string literals) a static
  // string, pointed to; char* a mutable string, copied. Any other type does not compile (as in
  // the SDK: cast it, to int64_t for unsigned and long long values).
  template <typename T>
  Variant(T value)  // NOLINT(google-explicit-constructor): implicit, as in the SDK
      : Variant() {
    static_assert(IsScalarOrCString<T>::value,
                  "firebase::Variant is built from int64_t, int, int16_t, int8_t, uint8_t, char, "
                  "double, float, bool, const char* or char* (or the string, vector and map "
                  "constructors): cast the value");
    if constexpr (IsScalarOrCString<T>::value) SetScalarOrCString(value);
  }

  // A mutable string: a copy of value.
  Variant(const std::string& value);  // NOLINT
  Variant(const std::vector<Variant>& value);  // NOLINT
  Variant(const std::map<Variant, Variant>& value);  // NOLINT

  // A vector of one Variant per element, each built as Variant(element) is.
  template <typename T>
  Variant(const std::vector<T>& value)  // NOLINT
      : Variant() {
    Clear(kTypeVector);
    std::vector<Variant>& elements = vector();
    elements.reserve(value.size());
    // static_cast: std::vector<bool>'s elements are proxies.
    for (const auto& element : value) elements.push_back(Variant(static_cast<T>(element)));
  }

  // A vector of the array_size first elements of array_of_values.
  template <typename T>
  Variant(const T array_of_values[], size_t array_size) : Variant() {
    Clear(kTypeVector);
    std::vector<Variant>& elements = vector();
    elements.reserve(array_size);
    for (size_t i = 0; i < array_size; i++) elements.push_back(Variant(array_of_values[i]));
  }

  // A map of Variant(key) to Variant(value) for each entry.
  template <typename K, typename V>
  Variant(const std::map<K, V>& value)  // NOLINT
      : Variant() {
    Clear(kTypeMap);
    std::map<Variant, Variant>& entries = map();
    for (const auto& entry : value) entries.emplace(Variant(entry.first), Variant(entry.second));
  }

  // Copies are deep, except that a static string or blob is pointed to by the copy too.
  Variant(const Variant& other);
  Variant& operator=(const Variant& other);
  // Moves take other's value (its string, vector, map or blob, without copying) and leave other
  // Null.
  Variant(Variant&& other) noexcept;
  Variant& operator=(Variant&& other) noexcept;

  ~Variant();

  // Same type and equal values, where static and mutable strings are one type (compared as C
  // strings, up to their first NUL byte, as the SDK does), and so are static and mutable blobs
  // (equal when of the same size and bytes). Vectors and maps compare element by element. Doubles
  // compare as doubles: a NaN equals nothing, 0.0 equals -0.0.
  bool operator==(const Variant& other) const;
  bool operator!=(const Variant& other) const { return !(*this == other); }

  // The SDK's order, which makes Variant a std::map key: first by type, Null < Int64 < Double
  // < Bool < String < Vector < Map < Blob (so Variant(1) < Variant(0.0): numbers of different
  // types are not compared as numbers); then by value: strings by strcmp, vectors
  // lexicographically, maps entry by entry (key, then value), a shorter container or blob before a
  // longer one it starts like, blobs of one size by memcmp.
  bool operator<(const Variant& other) const;
  bool operator>(const Variant& other) const { return other < *this; }
  bool operator<=(const Variant& other) const { return !(other < *this); }
  bool operator>=(const Variant& other) const { return !(*this < other); }

  // Releases the value and makes this an empty one of new_type: 0, 0.0, false, "" (a static
  // string for kTypeStaticString), an empty vector or map, or a blob of no bytes.
  void Clear(Type new_type = kTypeNull);

  static Variant Null() { return Variant(); }
  static Variant Zero() { return FromInt64(0); }
  static Variant One() { return FromInt64(1); }
  static Variant ZeroPointZero() { return FromDouble(0.0); }
  static Variant OnePointZero() { return FromDouble(1.0); }
  static Variant False() { return FromBool(false); }
  static Variant True() { return FromBool(true); }
  // A static "".
  static Variant EmptyString() { return FromStaticString(""); }
  static Variant EmptyMutableString();
  static Variant EmptyVector();
  static Variant EmptyMap();
  // A mutable blob of size_bytes zero bytes.
  static Variant EmptyMutableBlob(size_t size_bytes);

  Type type() const { return type_; }

  bool is_null() const { return type_ == kTypeNull; }
  bool is_int64() const { return type_ == kTypeInt64; }
  bool is_double() const { return type_ == kTypeDouble; }
  bool is_bool() const { return type_ == kTypeBool; }
  bool is_vector() const { return type_ == kTypeVector; }
  bool is_map() const { return type_ == kTypeMap; }
  bool is_static_string() const { return type_ == kTypeStaticString; }
  bool is_mutable_string() const { return type_ == kTypeMutableString; }
  bool is_string() const { return is_static_string() || is_mutable_string(); }
  bool is_static_blob() const { return type_ == kTypeStaticBlob; }
  bool is_mutable_blob() const { return type_ == kTypeMutableBlob; }
  bool is_blob() const { return is_static_blob() || is_mutable_blob(); }
  bool is_numeric() const { return is_int64() || is_double(); }
  // Null, Int64, Double, Bool or a string (not a container, not a blob).
  bool is_fundamental_type() const {
    return is_null() || is_int64() || is_double() || is_bool() || is_string();
  }
  bool is_container_type() const { return is_vector() || is_map(); }

  // The value as a string Variant: an integer in decimal, a double with 16 decimals ("%.16f":
  // 1.5 gives "1.5000000000000000"), a bool as "true" or "false", a string as itself (static or
  // mutable as it is); anything else (Null, containers, blobs) as a static "".
  Variant AsString() const;
  // The value as an Int64 Variant: a double truncated toward zero (see the top comment for out of
  // range values), a bool as 1 or 0, a string as strtol reads its leading decimal number (0 when
  // there is none); anything else 0.
  Variant AsInt64() const;
  // The value as a Double Variant: an integer converted, a bool as 1.0 or 0.0, a string as strtod
  // reads its leading number (0.0 when there is none); anything else 0.0.
  Variant AsDouble() const;
  // False for Null, 0, 0.0 (and -0.0), false, "" and "false" (case-sensitive, either kind of
  // string), an empty vector or map and a blob of no bytes; True for anything else.
  Variant AsBool() const;

  // The string, which a static string becomes a mutable copy of first (type() changes).
  std::string& mutable_string();
  // A copy of the string, static or mutable.
  std::string mutable_string() const;
  // The string of either kind. A mutable string's pointer lasts until the Variant changes.
  const char* string_value() const;

  // A blob's size and bytes, static or mutable.
  size_t blob_size() const;
  const uint8_t* blob_data() const;
  // The bytes, writable: a static blob becomes a mutable copy first (type() changes).
  uint8_t* mutable_blob_data();
  // The bytes of a mutable blob, writable (a static blob here aborts: it cannot be copied).
  uint8_t* mutable_blob_data() const;

  std::vector<Variant>& vector();
  const std::vector<Variant>& vector() const;
  std::map<Variant, Variant>& map();
  const std::map<Variant, Variant>& map() const;

  int64_t int64_value() const;
  double double_value() const;
  const bool& bool_value() const;

  void set_null() { Clear(kTypeNull); }
  void set_int64_value(int64_t value);
  void set_double_value(double value);
  void set_bool_value(bool value);
  // A static string: value is pointed to, and must outlive the Variant.
  void set_string_value(const char* value);
  // A mutable string: value is copied.
  void set_string_value(char* value);
  void set_string_value(const std::string& value);
  void set_mutable_string(const std::string& value, bool use_small_string = true);
  // A mutable copy of size_bytes from src_data (zero bytes when src_data is nullptr).
  void set_mutable_blob(const void* src_data, size_t size_bytes);
  // A static blob: static_data is pointed to, and must outlive the Variant.
  void set_static_blob(const void* static_data, size_t size_bytes);
  void set_vector(const std::vector<Variant>& value);
  void set_map(const std::map<Variant, Variant>& value);

  // Take ownership of a heap-allocated (new) string, vector or map without copying it, and set
  // *str (*vect, *map) to nullptr.
  void AssignMutableString(std::string** str);
  void AssignVector(std::vector<Variant>** vect);
  void AssignMap(std::map<Variant, Variant>** map);

  static Variant FromInt64(int64_t value) { return Variant(value); }
  static Variant FromDouble(double value) { return Variant(value); }
  static Variant FromBool(bool value) { return Variant(value); }
  // Points to value, which must outlive the Variant.
  static Variant FromStaticString(const char* value) { return Variant(value); }
  static Variant FromMutableString(const std::string& value) { return Variant(value); }
  // Points to static_data, which must outlive the Variant.
  static Variant FromStaticBlob(const void* static_data, size_t size_bytes);
  static Variant FromMutableBlob(const void* src_data, size_t size_bytes);
  static Variant MutableStringFromStaticString(const char* value);

  // "Null", "Int64", "Double", "Bool", "StaticString", "MutableString", "Vector", "Map",
  // "StaticBlob", "MutableBlob"; for a value outside Type, "Unknown".
  static const char* TypeName(Type type);

 private:
  template <typename T>
  struct IsScalarOrCString
      : std::integral_constant<
            bool, std::is_same<T, int64_t>::value || std::is_same<T, int>::value ||
                      std::is_same<T, int16_t>::value || std::is_same<T, int8_t>::value ||
                      std::is_same<T, uint8_t>::value || std::is_same<T, char>::value ||
                      std::is_same<T, double>::value || std::is_same<T, float>::value ||
                      std::is_same<T, bool>::value || std::is_same<T, const char*>::value ||
                      std::is_same<T, char*>::value> {};

  template <typename T>
  void SetScalarOrCString(T value) {
    if constexpr (std::is_same<T, bool>::value) {
      set_bool_value(value);
    } else if constexpr (std::is_floating_point<T>::value) {
      set_double_value(static_cast<double>(value));
    } else if constexpr (std::is_integral<T>::value) {
      set_int64_value(static_cast<int64_t>(value));
    } else {
      set_string_value(value);  // const char*: static; char*: mutable
    }
  }

  struct Blob {
    const uint8_t* data;
    size_t size;
  };

  // Which member is meaningful follows type_; the pointers of mutable strings, vectors, maps and
  // mutable blobs are owned (new, new[] for a blob).
  union Value {
    int64_t int64_value;
    double double_value;
    bool bool_value;
    const char* static_string;
    std::string* mutable_string;
    std::vector<Variant>* vector;
    std::map<Variant, Variant>* map;
    Blob blob;
  };

  // Releases what the value owns and makes this Null.
  void Release() noexcept;
  // Releases the old value, then holds (type, value), taking ownership of its pointer.
  void Adopt(Type type, Value value) noexcept;
  // Aborts, with a message naming both types, unless this is of one of the two types.
  void Expect(Type type, Type or_type) const;

  Type type_;
  Value value_;
};

}  // namespace firebase

#endif  // FIREBASE_VARIANT_H_
