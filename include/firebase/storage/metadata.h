// firebase/storage/metadata.h — object metadata, a value type as in the Firebase C++ SDK.
//
// A default-constructed Metadata is valid and empty: set fields and pass it to PutBytes,
// PutFile or UpdateMetadata. Only the fields set (and the custom metadata) are sent; a setter
// given nullptr deletes that field on update, and a custom key removed from custom_metadata()
// of a Metadata the server returned is deleted on update. Getters of absent strings return "",
// absent numbers 0. Thread safety: as a std::string (const use from many threads is safe).
#ifndef FIREBASE_STORAGE_METADATA_H_
#define FIREBASE_STORAGE_METADATA_H_

#include <stdint.h>

#include <map>
#include <string>

#include "firebase/internal/common.h"

namespace firebase {
namespace storage {

namespace internal {
class MetadataInternal;
}  // namespace internal

class Storage;
class StorageReference;

class Metadata {
 public:
  Metadata();
  Metadata(const Metadata& other);
  Metadata& operator=(const Metadata& other);
  Metadata(Metadata&& other);
  Metadata& operator=(Metadata&& other);
  ~Metadata();

  const char* bucket() const;
  void set_cache_control(const char* cache_control);
  void set_cache_control(const std::string& cache_control) { set_cache_control(cache_control.c_str()); }
  const char* cache_control() const;
  void set_content_disposition(const char* disposition);
  void set_content_disposition(const std::string& disposition) { set_content_disposition(disposition.c_str()); }
  const char* content_disposition() const;
  void set_content_encoding(const char* encoding);
  void set_content_encoding(const std::string& encoding) { set_content_encoding(encoding.c_str()); }
  const char* content_encoding() const;
  void set_content_language(const char* language);
  void set_content_language(const std::string& language) { set_content_language(language.c_str()); }
  const char* content_language() const;
  void set_content_type(const char* type);
  void set_content_type(const std::string& type) { set_content_type(type.c_str()); }
  const char* content_type() const;
  // Milliseconds since the Unix epoch.
  int64_t creation_time() const;
  // The custom metadata, modifiable; valid as long as this Metadata.
  std::map<std::string, std::string>* custom_metadata() const;
  int64_t generation() const;
  int64_t metadata_generation() const;
  const char* name() const;
  const char* path() const;
  // The object's reference (invalid for a Metadata not returned by the server).
  StorageReference GetReference() const;
  int64_t size_bytes() const;
  int64_t updated_time() const;
  // False for the Metadata of a failed operation, and once the Storage it came from (or that
  // Storage's App) was deleted.
  bool is_valid() const;
  const char* md5_hash() const;

  // fbstorage: the internal representation.
  explicit Metadata(internal::MetadataInternal* internal);
  internal::MetadataInternal* internal() const { return internal_; }

 private:
  internal::MetadataInternal* internal_;
};

}  // namespace storage
}  // namespace firebase

#endif  // FIREBASE_STORAGE_METADATA_H_
