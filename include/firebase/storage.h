// firebase/storage.h — firebase::storage::Storage, as the Firebase C++ SDK declares it
// (storage/src/include/firebase/storage.h), over fbstorage's C API.
//
// One Storage per (App, URL), created by GetInstance and deleted by `delete`. Deleting it, or
// its App, cancels its running operations (their Futures complete with kErrorCancelled) and
// invalidates everything made from it: references, metadata, list results and controllers say
// is_valid() false, storage() null, and their operations fail at once. After its App was
// deleted a Storage is invalid too (app() null) and must still be deleted.
// When the App has an Auth (firebase/auth.h), every request carries its current user's ID
// token, as in the SDK. FIREBASE_STORAGE_EMULATOR_HOST=host:port selects an emulator as
// UseEmulator does. Thread safety: every method may be called from any thread.
#ifndef FIREBASE_STORAGE_H_
#define FIREBASE_STORAGE_H_

#include <memory>
#include <string>

#include "firebase/app.h"
#include "firebase/internal/common.h"
#include "firebase/storage/common.h"
#include "firebase/storage/controller.h"
#include "firebase/storage/listener.h"
#include "firebase/storage/metadata.h"
#include "firebase/storage/storage_reference.h"

namespace firebase {
namespace storage {

namespace internal {
class StorageInternal;
}  // namespace internal

class Storage {
 public:
  ~Storage();

  // The Storage of the app's storage bucket; nullptr when the app has none.
  static Storage* GetInstance(::firebase::App* app, InitResult* init_result_out = nullptr);
  // The Storage of url ("gs://bucket"); nullptr when it is not a bucket URL.
  static Storage* GetInstance(::firebase::App* app, const char* url, InitResult* init_result_out = nullptr);

  // nullptr once the App was deleted.
  ::firebase::App* app();
  // The URL given to GetInstance, "" for the default bucket.
  std::string url();

  StorageReference GetReference() const;
  StorageReference GetReference(const char* path) const;
  StorageReference GetReference(const std::string& path) const { return GetReference(path.c_str()); }
  // "gs://bucket/path" or an http(s) URL of an object of this bucket; invalid otherwise.
  StorageReference GetReferenceFromUrl(const char* url) const;
  StorageReference GetReferenceFromUrl(const std::string& url) const { return GetReferenceFromUrl(url.c_str()); }

  double max_download_retry_time();
  void set_max_download_retry_time(double max_transfer_retry_seconds);
  double max_upload_retry_time();
  void set_max_upload_retry_time(double max_transfer_retry_seconds);
  double max_operation_retry_time();
  void set_max_operation_retry_time(double max_transfer_retry_seconds);

  void UseEmulator(const std::string& host, int port) { UseEmulator(host.c_str(), port); }
  // A bad host or port is reported on stderr (the SDK's signature returns nothing).
  void UseEmulator(const char* host, int port);

  // fbstorage: the internal representation.
  const std::shared_ptr<internal::StorageInternal>& internal() const { return internal_; }

 private:
  Storage(::firebase::App* app, const char* url);
  Storage(const Storage& src) = delete;
  Storage& operator=(const Storage& src) = delete;

  std::shared_ptr<internal::StorageInternal> internal_;
};

}  // namespace storage
}  // namespace firebase

#endif  // FIREBASE_STORAGE_H_
