// storage_internal.h — the internals of the firebase::storage classes.
#ifndef FBSTORAGE_CPP_STORAGE_INTERNAL_H_
#define FBSTORAGE_CPP_STORAGE_INTERNAL_H_

#include <map>
#include <optional>
#include <set>
#include <string>

#include "firebase/storage.h"
#include "firebase/storage/list_result.h"
#include "internal.h"

namespace firebase {
namespace storage {
namespace internal {

// fbs_error_code -> storage::Error.
int MapError(int fbs_code);

class StorageInternal {
 public:
  StorageInternal(App* app, std::string url, std::string bucket) : app(app), url(std::move(url)), storage(bucket) {}
  App* app;
  std::string url;
  fbstorage::Storage storage;
};

class StorageReferenceInternal {
 public:
  StorageReferenceInternal(Storage* storage, fbstorage::Reference ref) : storage(storage), ref(std::move(ref)) {}
  Storage* storage;
  const fbstorage::Reference ref;
  firebase::internal::LastResult<void> delete_result;
  firebase::internal::LastResult<size_t> get_file_result;
  firebase::internal::LastResult<size_t> get_bytes_result;
  firebase::internal::LastResult<std::string> download_url_result;
  firebase::internal::LastResult<Metadata> get_metadata_result;
  firebase::internal::LastResult<Metadata> update_metadata_result;
  firebase::internal::LastResult<StorageListResult> list_result;
  firebase::internal::LastResult<Metadata> put_bytes_result;
  firebase::internal::LastResult<Metadata> put_file_result;
};

// A reference of this storage to the location of an fbstorage reference.
StorageReference MakeReference(Storage* storage, fbstorage::Reference ref);

// Metadata as values: what the server returned, and which writable fields the caller set.
class MetadataInternal {
 public:
  enum Field { kCacheControl, kContentDisposition, kContentEncoding, kContentLanguage, kContentType };
  MetadataInternal() = default;
  MetadataInternal(Storage* storage, const fbstorage::MetadataView& view);

  void Set(Field field, const char* value);
  const char* Get(Field field) const;
  // The fields set, and the custom metadata (keys the server had and the map lost: deleted).
  fbstorage::Metadata ToChanges() const;

  bool valid = true;
  Storage* storage = nullptr;
  std::string bucket, name, path, md5_hash;
  int64_t creation_time = 0, updated_time = 0, generation = 0, metadata_generation = 0, size_bytes = 0;
  std::map<std::string, std::string> custom_metadata;

 private:
  std::optional<std::string> fields_[5];
  std::set<Field> set_fields_;
  std::set<std::string> server_custom_keys_;
};

// The operation a Controller is bound to: its task while it runs, its last counts after.
class ControllerInternal {
 public:
  ControllerInternal(std::shared_ptr<fbstorage::Task> task, StorageReference reference)
      : task(std::move(task)), reference(std::move(reference)) {}
  std::mutex mutex;
  std::shared_ptr<fbstorage::Task> task;  // null once ended
  int64_t final_bytes = 0, final_total = -1;
  const StorageReference reference;
};

class StorageListResultInternal {
 public:
  std::vector<StorageReference> prefixes, items;
  std::string next_page_token;
};

}  // namespace internal
}  // namespace storage

namespace internal {
// A failed operation's Metadata is invalid, as in the SDK.
template <>
inline storage::Metadata FailedResult<storage::Metadata>() {
  auto* invalid = new storage::internal::MetadataInternal;
  invalid->valid = false;
  return storage::Metadata(invalid);
}
}  // namespace internal
}  // namespace firebase

#endif  // FBSTORAGE_CPP_STORAGE_INTERNAL_H_
