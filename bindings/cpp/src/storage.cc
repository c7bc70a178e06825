// storage.cc — firebase::storage::Storage: one fbstorage::Storage per (App, URL), and the
// mapping of fbstorage's codes to storage::Error.
#include "firebase/storage.h"


#include "storage_internal.h"

namespace firebase {
namespace storage {

namespace internal {

int MapError(int fbs_code) {
  switch (fbs_code) {
    case FBS_OK: return kErrorNone;
    case FBS_ERR_OBJECT_NOT_FOUND: return kErrorObjectNotFound;
    case FBS_ERR_BUCKET_NOT_FOUND: return kErrorBucketNotFound;
    case FBS_ERR_PROJECT_NOT_FOUND: return kErrorProjectNotFound;
    case FBS_ERR_QUOTA_EXCEEDED: return kErrorQuotaExceeded;
    case FBS_ERR_UNAUTHENTICATED:
    case FBS_ERR_APP_CHECK_TOKEN_MISSING:  // App Check's 401, as the SDK; the message names App Check
    case FBS_ERR_APP_CHECK_TOKEN_INVALID: return kErrorUnauthenticated;
    case FBS_ERR_UNAUTHORIZED: return kErrorUnauthorized;
    case FBS_ERR_RETRY_LIMIT_EXCEEDED: return kErrorRetryLimitExceeded;
    case FBS_ERR_NON_MATCHING_CHECKSUM: return kErrorNonMatchingChecksum;
    case FBS_ERR_DOWNLOAD_SIZE_EXCEEDED: return kErrorDownloadSizeExceeded;
    case FBS_ERR_CANCELLED: return kErrorCancelled;
    default:
      // A user whose session died meanwhile (disabled, revoked) is unauthenticated to storage.
      if (fbs_code <= FBS_ERR_AUTH_INVALID_API_KEY && fbs_code >= FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN)
        return kErrorUnauthenticated;
      return kErrorUnknown;
  }
}

StorageReference MakeReference(std::shared_ptr<StorageInternal> owner, fbstorage::Reference ref) {
  return StorageReference(std::make_shared<StorageReferenceInternal>(std::move(owner), std::move(ref)));
}

const char kInvalidatedMessage[] = "its Storage, or the App of its Storage, was deleted";

std::shared_ptr<fbstorage::Storage> StorageInternal::core() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return core_;
}

Storage* StorageInternal::storage() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return storage_;
}

App* StorageInternal::app() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return app_;
}

void StorageInternal::Invalidate() {
  std::shared_ptr<fbstorage::Storage> core;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    storage_ = nullptr;
    app_ = nullptr;
    core.swap(core_);
  }
  // Out of the lock: freeing waits for the storage's callbacks, which may use this object.
}

}  // namespace internal

const char* GetErrorMessage(Error error) {
  switch (error) {
    case kErrorNone: return "The operation was a success, no error occurred.";
    case kErrorUnknown: return "An unknown error occurred.";
    case kErrorObjectNotFound: return "No object exists at the desired reference.";
    case kErrorBucketNotFound: return "No bucket is configured for Cloud Storage.";
    case kErrorProjectNotFound: return "No project is configured for Cloud Storage.";
    case kErrorQuotaExceeded: return "Quota on your Cloud Storage bucket has been exceeded.";
    case kErrorUnauthenticated: return "User is unauthenticated.";
    case kErrorUnauthorized: return "User is not authorized to perform the desired action.";
    case kErrorRetryLimitExceeded: return "The maximum time limit on an operation has been exceeded.";
    case kErrorNonMatchingChecksum: return "File on the client does not match the checksum of the file received by the server.";
    case kErrorDownloadSizeExceeded: return "Size of the downloaded file exceeds the amount of memory allocated for the download.";
    case kErrorCancelled: return "User cancelled the operation.";
  }
  return "An unknown error occurred.";
}

Storage::Storage(App* app, const char* url) {
  std::string bucket = url && *url ? url : std::string("gs://") + app->options().storage_bucket();
  internal_ = std::make_shared<internal::StorageInternal>(this, app, app->internal(), url ? url : "", bucket);
}

Storage::~Storage() {
  firebase::internal::AppInternal& registry = *internal_->registry;
  {
    std::lock_guard<std::mutex> lock(registry.mutex);
    auto entry = registry.storages.find(internal_->url);
    if (entry != registry.storages.end() && entry->second.instance == this) registry.storages.erase(entry);
    registry.invalidators.erase(this);
  }
  internal_->Invalidate();
}

Storage* Storage::GetInstance(App* app, InitResult* init_result_out) { return GetInstance(app, nullptr, init_result_out); }

Storage* Storage::GetInstance(App* app, const char* url, InitResult* init_result_out) {
  if (init_result_out) *init_result_out = kInitResultSuccess;
  if (!app) return nullptr;
  if (auto make_app_check = firebase::internal::app_check_hook.load()) make_app_check(app);
  firebase::internal::AppInternal& registry = *app->internal();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::string key = url ? url : "";
  auto found = registry.storages.find(key);
  if (found != registry.storages.end()) return static_cast<Storage*>(found->second.instance);
  Storage* storage;
  try {
    storage = new Storage(app, url);
  } catch (const fbstorage::Error& e) {
    firebase::internal::Log(kLogLevelError, "firebase::storage::Storage::GetInstance: %s", e.what());
    return nullptr;
  }
  std::shared_ptr<fbstorage::Storage> core = storage->internal_->core();
  if (registry.attach_auth) registry.attach_auth(*core);
  if (registry.attach_app_check) registry.attach_app_check(*core);
  registry.storages[key] = {storage, core};
  std::weak_ptr<internal::StorageInternal> weak = storage->internal_;
  registry.invalidators[storage] = [weak] {
    if (auto alive = weak.lock()) alive->Invalidate();
  };
  return storage;
}

App* Storage::app() { return internal_->app(); }
std::string Storage::url() { return internal_->url; }

StorageReference Storage::GetReference() const { return GetReference(""); }

StorageReference Storage::GetReference(const char* path) const {
  return internal_->Reference([path](fbstorage::Storage& core) { return core.reference(path ? path : ""); });
}

StorageReference Storage::GetReferenceFromUrl(const char* url) const {
  return internal_->Reference([url](fbstorage::Storage& core) { return core.reference_for_url(url ? url : ""); });
}

namespace {
// A retry time, 0 once the Storage is invalid.
double RetryTime(const internal::StorageInternal& internal, double (fbstorage::Storage::*getter)() const) {
  auto core = internal.core();
  return core ? ((*core).*getter)() : 0;
}
}  // namespace

double Storage::max_download_retry_time() { return RetryTime(*internal_, &fbstorage::Storage::max_download_retry_time); }
double Storage::max_upload_retry_time() { return RetryTime(*internal_, &fbstorage::Storage::max_upload_retry_time); }
double Storage::max_operation_retry_time() { return RetryTime(*internal_, &fbstorage::Storage::max_operation_retry_time); }

namespace {
// The SDK's void setters cannot report a bad value or an invalid Storage: say it on stderr and
// change nothing.
template <class Call>
void Report(const internal::StorageInternal& internal, const char* what, Call call) {
  auto core = internal.core();
  if (!core) {
    firebase::internal::Log(kLogLevelWarning, "firebase::storage::Storage::%s: %s", what, internal::kInvalidatedMessage);
    return;
  }
  try {
    call(*core);
  } catch (const fbstorage::Error& e) {
    firebase::internal::Log(kLogLevelWarning, "firebase::storage::Storage::%s: %s", what, e.what());
  }
}
}  // namespace

void Storage::set_max_download_retry_time(double seconds) {
  Report(*internal_, "set_max_download_retry_time", [&](fbstorage::Storage& s) { s.set_max_download_retry_time(seconds); });
}
void Storage::set_max_upload_retry_time(double seconds) {
  Report(*internal_, "set_max_upload_retry_time", [&](fbstorage::Storage& s) { s.set_max_upload_retry_time(seconds); });
}
void Storage::set_max_operation_retry_time(double seconds) {
  Report(*internal_, "set_max_operation_retry_time", [&](fbstorage::Storage& s) { s.set_max_operation_retry_time(seconds); });
}
void Storage::UseEmulator(const char* host, int port) {
  Report(*internal_, "UseEmulator", [&](fbstorage::Storage& s) { s.use_emulator(host ? host : "", port); });
}

}  // namespace storage
}  // namespace firebase
