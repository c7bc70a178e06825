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

// A Storage's state, shared by the Storage and everything made from it (references, metadata,
// list results, controllers) so that each can tell, after the Storage or its App was deleted,
// that it is invalid. Invalidate() tears the fbstorage storage down (its running operations
// end with kErrorCancelled, no callback runs after it returns); the objects stay.
class StorageInternal : public std::enable_shared_from_this<StorageInternal> {
 public:
  StorageInternal(Storage* storage, App* app, std::shared_ptr<firebase::internal::AppInternal> registry,
                  std::string url, const std::string& bucket)
      : url(std::move(url)), registry(std::move(registry)), storage_(storage), app_(app),
        core_(std::make_shared<fbstorage::Storage>(bucket)) {}

  // Each is null once invalidated.
  std::shared_ptr<fbstorage::Storage> core() const;
  Storage* storage() const;
  App* app() const;
  bool valid() const { return core() != nullptr; }
  // Idempotent; returns once the fbstorage storage is freed (unless another thread is in a call on it).
  void Invalidate();
  // A reference of this storage made by make(core); invalid when make throws or the storage is invalid.
  template <class Make>
  StorageReference Reference(Make make);

  const std::string url;  // as given to GetInstance, "" for the app's bucket
  const std::shared_ptr<firebase::internal::AppInternal> registry;

 private:
  mutable std::mutex mutex_;
  Storage* storage_;
  App* app_;
  std::shared_ptr<fbstorage::Storage> core_;
};

// What a message says of an object made invalid by the deletion of its Storage or App.
extern const char kInvalidatedMessage[];

class StorageReferenceInternal {
 public:
  StorageReferenceInternal(std::shared_ptr<StorageInternal> owner, fbstorage::Reference ref)
      : owner(std::move(owner)), ref(std::move(ref)) {}
  const std::shared_ptr<StorageInternal> owner;
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

// A reference of the owner storage to the location of an fbstorage reference.
StorageReference MakeReference(std::shared_ptr<StorageInternal> owner, fbstorage::Reference ref);

template <class Make>
StorageReference StorageInternal::Reference(Make make) {
  auto storage = core();
  if (!storage) return StorageReference();
  try {
    return MakeReference(shared_from_this(), make(*storage));
  } catch (const fbstorage::Error&) {
    return StorageReference();
  }
}

// Metadata as values: what the server returned, and which writable fields the caller set.
class MetadataInternal {
 public:
  enum Field { kCacheControl, kContentDisposition, kContentEncoding, kContentLanguage, kContentType };
  MetadataInternal() = default;
  MetadataInternal(std::shared_ptr<StorageInternal> owner, const fbstorage::MetadataView& view);

  void Set(Field field, const char* value);
  const char* Get(Field field) const;
  // The fields set, and the custom metadata (keys the server had and the map lost: deleted).
  fbstorage::Metadata ToChanges() const;

  bool valid = true;
  std::shared_ptr<StorageInternal> owner;  // null for a Metadata the caller made
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
  std::shared_ptr<StorageInternal> owner;
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
