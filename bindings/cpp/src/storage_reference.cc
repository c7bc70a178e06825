// storage_reference.cc — firebase::storage::StorageReference: operations as Futures over
// fbstorage's *_async calls, transfers as fbstorage::Tasks observed for the Listener and the
// Future, controlled through a Controller.
#include "firebase/storage/storage_reference.h"

#include <atomic>

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "firebase/storage/controller.h"
#include "firebase/storage/listener.h"
#include "retry_for_testing.h"
#include "storage_internal.h"

namespace firebase {
namespace storage {

using firebase::internal::FailedFuture;
using firebase::internal::Promise;
using firebase::internal::RunOperation;
using internal::ControllerInternal;
using internal::MapError;

namespace {

const char kInvalidReference[] = "invalid StorageReference (default-constructed, or its path was refused)";

// The failed Future of an operation on an invalid reference, or nothing when it is valid.
template <class T>
std::optional<Future<T>> RefuseInvalid(const std::shared_ptr<internal::StorageReferenceInternal>& internal) {
  if (!internal) return FailedFuture<T>(kErrorUnknown, kInvalidReference);
  if (!internal->owner->valid())
    return FailedFuture<T>(kErrorUnknown, std::string("invalid StorageReference: ") + internal::kInvalidatedMessage);
  return std::nullopt;
}

Metadata MetadataFrom(const std::shared_ptr<internal::StorageInternal>& owner, const fbstorage::MetadataView& view) {
  return Metadata(new internal::MetadataInternal(owner, view));
}

// The Controller state of one call: made at its first task, bound again to each task a retry
// starts (retry_for_testing.h), so that the caller's Controller follows the latest attempt.
using ControlSlot = std::shared_ptr<std::shared_ptr<ControllerInternal>>;

// Binds the call's Controller state to task (making it, and handing it to controller_out, at
// the call's first task).
std::shared_ptr<ControllerInternal> Bind(const ControlSlot& slot, const std::shared_ptr<fbstorage::Task>& task,
                                         const StorageReference& reference, Controller* controller_out) {
  if (!*slot) {
    *slot = std::make_shared<ControllerInternal>(task, reference);
    if (controller_out) *controller_out = Controller(*slot);
    return *slot;
  }
  std::lock_guard<std::mutex> lock((*slot)->mutex);
  (*slot)->task = task;
  (*slot)->final_bytes = 0;
  (*slot)->final_total = -1;
  return *slot;
}

// Runs a started task to its end: Listener events as they come, the Controller bound to it,
// and finish(snapshot) at SUCCESS or FAILURE. The observers hold the controller's state, which
// holds the task: a cycle the end breaks (the task is dropped from its own observer; the C API
// removes its observers then and fbstorage.hpp releases them after the callback returns).
void RunTask(fbstorage::Task task, const StorageReference& reference, Listener* listener, Controller* controller_out,
             const ControlSlot& slot, std::function<void(const fbstorage::SnapshotView&)> finish) {
  auto held = std::make_shared<fbstorage::Task>(std::move(task));  // alive while we register
  auto control = Bind(slot, held, reference, controller_out);
  if (listener) {
    held->observe(fbstorage::TaskStatus::kProgress, [control, listener](const fbstorage::SnapshotView&) {
      Controller controller(control);
      listener->OnProgress(&controller);
    });
    held->observe(fbstorage::TaskStatus::kPause, [control, listener](const fbstorage::SnapshotView&) {
      Controller controller(control);
      listener->OnPaused(&controller);
    });
  }
  auto ended = std::make_shared<std::atomic<bool>>(false);
  auto end = [control, finish, ended](const fbstorage::SnapshotView& snapshot) {
    if (ended->exchange(true)) return;  // once: from its observer, or from the check below
    std::shared_ptr<fbstorage::Task> ending;
    {
      std::lock_guard<std::mutex> lock(control->mutex);
      control->final_bytes = snapshot.bytes_transferred();
      control->final_total = snapshot.total_bytes().value_or(-1);
      ending = std::move(control->task);
    }
    finish(snapshot);
  };
  held->observe(fbstorage::TaskStatus::kSuccess, end);
  held->observe(fbstorage::TaskStatus::kFailure, end);
  // No callback of a freed storage runs: a task its deletion (or its App's) ended before these
  // observers were added would never finish its Future. Finish it here from its snapshot.
  if (!reference.is_valid()) {
    fbstorage::Snapshot latest = held->snapshot();
    if (latest.status() == fbstorage::TaskStatus::kSuccess || latest.status() == fbstorage::TaskStatus::kFailure) end(latest);
  }
}

// Completes promise from a task's end: on_success(snapshot) or the failure.
template <class T, class OnSuccess>
std::function<void(const fbstorage::SnapshotView&)> Finisher(Promise<T> promise, OnSuccess on_success) {
  return [promise, on_success](const fbstorage::SnapshotView& snapshot) {
    if (auto error = snapshot.error()) return promise.Fail(MapError(error->code()), error->what());
    try {
      promise.Succeed(on_success(snapshot));
    } catch (const fbstorage::Error& e) {
      promise.Fail(MapError(e.code()), e.what());
    }
  };
}

// Starts a task (start(reference)); cleanup runs once it ended or failed to start.
template <class T, class Start, class OnSuccess>
Future<T> StartTask(const internal::StorageReferenceInternal& internal, const StorageReference& self,
                    Listener* listener, Controller* controller_out, const ControlSlot& slot, Start start,
                    OnSuccess on_success, std::function<void()> cleanup = [] {}) {
  Promise<T> promise;
  auto finish = [finisher = Finisher(promise, on_success), cleanup](const fbstorage::SnapshotView& snapshot) {
    finisher(snapshot);
    cleanup();
  };
  try {
    RunTask(start(internal.ref), self, listener, controller_out, slot, finish);
  } catch (const fbstorage::Error& e) {
    promise.Fail(MapError(e.code()), e.what());
    cleanup();
  }
  return promise.future();
}

// A file for GetBytes with a Listener or Controller: the download runs as a task into it.
std::string TemporaryDownloadPath() {
  const char* dir = getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/fbstorage-cpp-XXXXXX";
  int fd = mkstemp(&path[0]);
  if (fd < 0) throw fbstorage::Error(FBS_ERR_UNKNOWN, "cannot create a temporary file in " + path);
  close(fd);
  return path;
}

// A local path, or a file:// URL as the SDK's guides pass (file:///local/images/rivers.jpg).
std::string LocalPath(const char* path_or_url) {
  std::string path = path_or_url ? path_or_url : "";
  return path.rfind("file://", 0) == 0 ? path.substr(7) : path;
}

// The Future of an operation (made by attempt(internal)), made again while the SDK's test hook
// asks for it (retry_for_testing.h) within the owner's max_retry_time.
template <class T, class Attempt>
Future<T> Retrying(const std::shared_ptr<internal::StorageReferenceInternal>& internal,
                   double (fbstorage::Storage::*max_retry_time)() const, Attempt attempt) {
  return internal::RetryAllErrorsForTesting<T>(internal->owner, max_retry_time, [internal, attempt] {
    if (auto refused = RefuseInvalid<T>(internal)) return *refused;
    return attempt(*internal);
  });
}

const auto kOperationTime = &fbstorage::Storage::max_operation_retry_time;
const auto kDownloadTime = &fbstorage::Storage::max_download_retry_time;
const auto kUploadTime = &fbstorage::Storage::max_upload_retry_time;
}  // namespace

StorageReference::StorageReference(std::shared_ptr<internal::StorageReferenceInternal> internal)
    : internal_(std::move(internal)) {}
StorageReference::~StorageReference() {}
StorageReference::StorageReference(const StorageReference& reference) = default;
StorageReference& StorageReference::operator=(const StorageReference& reference) = default;
StorageReference::StorageReference(StorageReference&& other) = default;
StorageReference& StorageReference::operator=(StorageReference&& other) = default;

Storage* StorageReference::storage() { return internal_ ? internal_->owner->storage() : nullptr; }
bool StorageReference::is_valid() const { return internal_ && internal_->owner->valid(); }
std::string StorageReference::bucket() { return is_valid() ? internal_->ref.bucket() : std::string(); }
std::string StorageReference::full_path() { return is_valid() ? internal_->ref.full_path() : std::string(); }
std::string StorageReference::name() { return is_valid() ? internal_->ref.name() : std::string(); }

StorageReference StorageReference::Child(const char* path) const {
  if (!is_valid() || !path) return StorageReference();
  try {
    return internal::MakeReference(internal_->owner, internal_->ref.child(path));
  } catch (const fbstorage::Error&) {
    return StorageReference();
  }
}

StorageReference StorageReference::GetParent() {
  if (!is_valid()) return StorageReference();
  try {
    auto parent = internal_->ref.parent();
    return parent ? internal::MakeReference(internal_->owner, std::move(*parent)) : StorageReference();
  } catch (const fbstorage::Error&) {
    return StorageReference();
  }
}

Future<void> StorageReference::Delete() {
  if (auto refused = RefuseInvalid<void>(internal_)) return *refused;
  return internal_->delete_result.set(Retrying<void>(internal_, kOperationTime, [](auto& internal) {
    return RunOperation<void, void>(MapError, [&](auto done) { internal.ref.delete_object_async(done); }, [] {});
  }));
}

Future<std::string> StorageReference::GetDownloadUrl() {
  if (auto refused = RefuseInvalid<std::string>(internal_)) return *refused;
  return internal_->download_url_result.set(Retrying<std::string>(internal_, kOperationTime, [](auto& internal) {
    return RunOperation<std::string, std::string>(
        MapError, [&](auto done) { internal.ref.download_url_async(done); },
        [](const std::string& url) { return url; });
  }));
}

Future<Metadata> StorageReference::GetMetadata() {
  if (auto refused = RefuseInvalid<Metadata>(internal_)) return *refused;
  return internal_->get_metadata_result.set(Retrying<Metadata>(internal_, kOperationTime, [](auto& internal) {
    auto owner = internal.owner;
    return RunOperation<Metadata, fbstorage::MetadataView>(
        MapError, [&](auto done) { internal.ref.metadata_async(done); },
        [owner](const fbstorage::MetadataView& m) { return MetadataFrom(owner, m); });
  }));
}

Future<Metadata> StorageReference::UpdateMetadata(const Metadata& metadata) {
  if (auto refused = RefuseInvalid<Metadata>(internal_)) return *refused;
  return internal_->update_metadata_result.set(
      Retrying<Metadata>(internal_, kOperationTime, [metadata](auto& internal) {
        auto owner = internal.owner;
        return RunOperation<Metadata, fbstorage::MetadataView>(
            MapError, [&](auto done) { internal.ref.update_metadata_async(metadata.internal()->ToChanges(), done); },
            [owner](const fbstorage::MetadataView& m) { return MetadataFrom(owner, m); });
      }));
}

Future<StorageListResult> StorageReference::List(int max_results_per_page, const char* page_token) {
  if (auto refused = RefuseInvalid<StorageListResult>(internal_)) return *refused;
  if (max_results_per_page < 1 || max_results_per_page > 1000)  // 0 would mean "the server's choice" below
    return internal_->list_result.set(
        FailedFuture<StorageListResult>(kErrorUnknown, "max_results_per_page must be 1..1000, not " +
                                                     std::to_string(max_results_per_page)));
  std::string token = page_token ? page_token : "";
  return internal_->list_result.set(Retrying<StorageListResult>(
      internal_, kOperationTime, [max_results_per_page, token](auto& internal) {
        auto owner = internal.owner;
        std::optional<std::string_view> page;
        if (!token.empty()) page = token;
        return RunOperation<StorageListResult, fbstorage::ListResultView>(
            MapError, [&](auto done) { internal.ref.list_async(max_results_per_page, page, done); },
            [owner](const fbstorage::ListResultView& listing) {
              auto result = std::make_shared<internal::StorageListResultInternal>();
              result->owner = owner;
              for (auto& item : listing.items())
                result->items.push_back(internal::MakeReference(owner, std::move(item)));
              for (auto& prefix : listing.prefixes())
                result->prefixes.push_back(internal::MakeReference(owner, std::move(prefix)));
              result->next_page_token = listing.page_token().value_or("");
              return StorageListResult(std::move(result));
            });
      }));
}


Future<size_t> StorageReference::GetBytes(void* buffer, size_t buffer_size, Listener* listener,
                                          Controller* controller_out) {
  if (auto refused = RefuseInvalid<size_t>(internal_)) return *refused;
  if (!listener && !controller_out) {
    return internal_->get_bytes_result.set(Retrying<size_t>(internal_, kDownloadTime, [buffer, buffer_size](auto& internal) {
      return RunOperation<size_t, std::string>(
          MapError, [&](auto done) { internal.ref.get_data_async(static_cast<int64_t>(buffer_size), done); },
          [buffer](const std::string& bytes) {
            if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
            return bytes.size();
          });
    }));
  }
  // Progress and pause need a task: download to a temporary file, then read it into buffer.
  auto slot = std::make_shared<std::shared_ptr<ControllerInternal>>();
  StorageReference self = *this;
  return internal_->get_bytes_result.set(Retrying<size_t>(
      internal_, kDownloadTime, [self, buffer, buffer_size, listener, controller_out, slot](auto& internal) {
        std::string path;
        try {
          path = TemporaryDownloadPath();
        } catch (const fbstorage::Error& e) {
          return FailedFuture<size_t>(MapError(e.code()), e.what());
        }
        auto read_into_buffer = [path, buffer, buffer_size](const fbstorage::SnapshotView&) -> size_t {
          std::ifstream file(path, std::ios::binary);
          std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
          if (!file.eof() && file.fail()) throw fbstorage::Error(FBS_ERR_UNKNOWN, "cannot read the downloaded " + path);
          if (bytes.size() > buffer_size)
            throw fbstorage::Error(FBS_ERR_DOWNLOAD_SIZE_EXCEEDED, "the object (" + std::to_string(bytes.size()) +
                                                                       " bytes) is larger than the buffer");
          if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
          return bytes.size();
        };
        return StartTask<size_t>(
            internal, self, listener, controller_out, slot,
            [&](const fbstorage::Reference& ref) { return ref.write_to_file(path); }, read_into_buffer,
            [path] { std::remove(path.c_str()); });
      }));
}

Future<size_t> StorageReference::GetFile(const char* path, Listener* listener, Controller* controller_out) {
  if (auto refused = RefuseInvalid<size_t>(internal_)) return *refused;
  std::string local_path = LocalPath(path);
  auto slot = std::make_shared<std::shared_ptr<ControllerInternal>>();
  StorageReference self = *this;
  return internal_->get_file_result.set(Retrying<size_t>(
      internal_, kDownloadTime, [self, local_path, listener, controller_out, slot](auto& internal) {
        return StartTask<size_t>(
            internal, self, listener, controller_out, slot,
            [&](const fbstorage::Reference& ref) { return ref.write_to_file(local_path); },
            [](const fbstorage::SnapshotView& s) { return static_cast<size_t>(s.bytes_transferred()); });
      }));
}

Future<Metadata> StorageReference::PutBytes(const void* buffer, size_t buffer_size, Listener* listener,
                                            Controller* controller_out) {
  return PutBytes(buffer, buffer_size, Metadata(), listener, controller_out);
}

Future<Metadata> StorageReference::PutBytes(const void* buffer, size_t buffer_size, const Metadata& metadata,
                                            Listener* listener, Controller* controller_out) {
  if (auto refused = RefuseInvalid<Metadata>(internal_)) return *refused;
  auto slot = std::make_shared<std::shared_ptr<ControllerInternal>>();
  StorageReference self = *this;
  return internal_->put_bytes_result.set(Retrying<Metadata>(
      internal_, kUploadTime, [self, buffer, buffer_size, metadata, listener, controller_out, slot](auto& internal) {
        auto owner = internal.owner;
        return StartTask<Metadata>(
            internal, self, listener, controller_out, slot,
            [&](const fbstorage::Reference& ref) {
              fbstorage::Metadata changes = metadata.internal()->ToChanges();
              return ref.put_data(buffer, buffer_size, &changes);
            },
            [owner](const fbstorage::SnapshotView& s) { return MetadataFrom(owner, s.metadata().value()); });
      }));
}

Future<Metadata> StorageReference::PutFile(const char* path, Listener* listener, Controller* controller_out) {
  return PutFile(path, Metadata(), listener, controller_out);
}

Future<Metadata> StorageReference::PutFile(const char* path, const Metadata& metadata, Listener* listener,
                                           Controller* controller_out) {
  if (auto refused = RefuseInvalid<Metadata>(internal_)) return *refused;
  std::string local_path = LocalPath(path);
  auto slot = std::make_shared<std::shared_ptr<ControllerInternal>>();
  StorageReference self = *this;
  return internal_->put_file_result.set(Retrying<Metadata>(
      internal_, kUploadTime, [self, local_path, metadata, listener, controller_out, slot](auto& internal) {
        auto owner = internal.owner;
        return StartTask<Metadata>(
            internal, self, listener, controller_out, slot,
            [&](const fbstorage::Reference& ref) {
              fbstorage::Metadata changes = metadata.internal()->ToChanges();
              return ref.put_file(local_path, &changes);
            },
            [owner](const fbstorage::SnapshotView& s) { return MetadataFrom(owner, s.metadata().value()); });
      }));
}

Future<void> StorageReference::DeleteLastResult() { return is_valid() ? internal_->delete_result.get() : Future<void>(); }
Future<size_t> StorageReference::GetFileLastResult() { return is_valid() ? internal_->get_file_result.get() : Future<size_t>(); }
Future<size_t> StorageReference::GetBytesLastResult() { return is_valid() ? internal_->get_bytes_result.get() : Future<size_t>(); }
Future<std::string> StorageReference::GetDownloadUrlLastResult() {
  return is_valid() ? internal_->download_url_result.get() : Future<std::string>();
}
Future<Metadata> StorageReference::GetMetadataLastResult() {
  return is_valid() ? internal_->get_metadata_result.get() : Future<Metadata>();
}
Future<Metadata> StorageReference::UpdateMetadataLastResult() {
  return is_valid() ? internal_->update_metadata_result.get() : Future<Metadata>();
}
Future<StorageListResult> StorageReference::ListLastResult() {
  return is_valid() ? internal_->list_result.get() : Future<StorageListResult>();
}
Future<Metadata> StorageReference::PutBytesLastResult() { return is_valid() ? internal_->put_bytes_result.get() : Future<Metadata>(); }
Future<Metadata> StorageReference::PutFileLastResult() { return is_valid() ? internal_->put_file_result.get() : Future<Metadata>(); }

}  // namespace storage
}  // namespace firebase
