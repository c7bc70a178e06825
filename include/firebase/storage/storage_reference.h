// firebase/storage/storage_reference.h — a reference to a Cloud Storage object, as the
// Firebase C++ SDK declares it.
//
// Every operation returns a Future that completes on the Storage's callback thread; each
// method's *LastResult() returns the Future of its most recent call on this object. Copies
// share the location (and their last results). Thread safety: every method may be called from
// any thread. The SDK has no GetRoot(): use storage()->GetReference().
#ifndef FIREBASE_STORAGE_STORAGE_REFERENCE_H_
#define FIREBASE_STORAGE_STORAGE_REFERENCE_H_

#include <memory>
#include <string>
#include <vector>

#include "firebase/future.h"
#include "firebase/internal/common.h"
#include "firebase/storage/list_result.h"
#include "firebase/storage/metadata.h"

namespace firebase {
namespace storage {

class Controller;
class Listener;
class Storage;

namespace internal {
class StorageReferenceInternal;
}  // namespace internal

class StorageReference {
 public:
  // An invalid reference: its operations fail.
  StorageReference() {}
  ~StorageReference();
  StorageReference(const StorageReference& reference);
  StorageReference& operator=(const StorageReference& reference);
  StorageReference(StorageReference&& other);
  StorageReference& operator=(StorageReference&& other);

  Storage* storage();

  StorageReference Child(const char* path) const;
  StorageReference Child(const std::string& path) const { return Child(path.c_str()); }

  Future<void> Delete();
  Future<void> DeleteLastResult();

  std::string bucket();
  std::string full_path();

  // Downloads to the file at path, a local path or a file:// URL (written beside it, renamed over it on success); the result
  // is the number of bytes.
  Future<size_t> GetFile(const char* path, Listener* listener = nullptr, Controller* controller_out = nullptr);
  Future<size_t> GetFileLastResult();

  // Downloads into buffer, which must stay valid until the Future completes; fails with
  // kErrorDownloadSizeExceeded when the object is larger than buffer_size.
  Future<size_t> GetBytes(void* buffer, size_t buffer_size, Listener* listener = nullptr,
                          Controller* controller_out = nullptr);
  Future<size_t> GetBytesLastResult();

  Future<std::string> GetDownloadUrl();
  Future<std::string> GetDownloadUrlLastResult();

  Future<Metadata> GetMetadata();
  Future<Metadata> GetMetadataLastResult();

  Future<Metadata> UpdateMetadata(const Metadata& metadata);
  Future<Metadata> UpdateMetadataLastResult();

  // One page (1..1000 results) after page_token (nullptr: the first page).
  Future<StorageListResult> List(int max_results_per_page = 1000, const char* page_token = nullptr);
  Future<StorageListResult> ListLastResult();

  std::string name();

  // An invalid reference at the root.
  StorageReference GetParent();

  // The bytes are copied when the call returns.
  Future<Metadata> PutBytes(const void* buffer, size_t buffer_size, Listener* listener = nullptr,
                            Controller* controller_out = nullptr);
  Future<Metadata> PutBytes(const void* buffer, size_t buffer_size, const Metadata& metadata,
                            Listener* listener = nullptr, Controller* controller_out = nullptr);
  Future<Metadata> PutBytesLastResult();

  // Streams the file at path (a local path or a file:// URL) from disk (resumable protocol
  // above 256 KiB).
  Future<Metadata> PutFile(const char* path, Listener* listener = nullptr, Controller* controller_out = nullptr);
  Future<Metadata> PutFile(const char* path, const Metadata& metadata, Listener* listener = nullptr,
                           Controller* controller_out = nullptr);
  Future<Metadata> PutFileLastResult();

  // False for a default-constructed reference, and once its Storage (or that Storage's App)
  // was deleted: storage() is then null, its operations fail and its *LastResult() are invalid.
  bool is_valid() const;

  // fbstorage: a reference over its internal representation.
  explicit StorageReference(std::shared_ptr<internal::StorageReferenceInternal> internal);
  const std::shared_ptr<internal::StorageReferenceInternal>& internal() const { return internal_; }

 private:
  std::shared_ptr<internal::StorageReferenceInternal> internal_;
};

}  // namespace storage
}  // namespace firebase

#endif  // FIREBASE_STORAGE_STORAGE_REFERENCE_H_
