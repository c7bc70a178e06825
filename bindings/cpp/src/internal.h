// internal.h — what the firebase:: classes share inside libfbstorage-cpp.a: the Future state
// and its completing side (Promise), the App registry, the internals of the storage and auth
// classes. Everything runs on fbstorage.hpp (the C API's RAII layer); no logic of its own
// beyond mapping the SDK's shapes onto it.
#ifndef FBSTORAGE_CPP_INTERNAL_H_
#define FBSTORAGE_CPP_INTERNAL_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fbstorage.hpp>

#include "firebase/app.h"
#include "firebase/future.h"
#include "firebase/log.h"

namespace firebase {
namespace detail {

// One operation's outcome, shared by its Futures and by the operation until it completes.
class FutureState : public std::enable_shared_from_this<FutureState> {
 public:
  // Completes once (later calls are ignored), then runs the completion callback, if any.
  void Complete(int error, std::string message, std::shared_ptr<void> result);
  FutureStatus status() const;
  int error() const;
  const char* error_message() const;
  const void* result() const;
  // The result once complete (shared: another state may complete with it), else null.
  std::shared_ptr<void> shared_result() const;
  bool Wait(int timeout_milliseconds) const;
  // Replaces the callback; runs it at once (on this thread) when complete already.
  void SetCallback(std::function<void(const FutureBase&)> callback);

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable completed_;
  bool complete_ = false;
  int error_ = 0;
  std::string message_;
  std::shared_ptr<void> result_;
  std::function<void(const FutureBase&)> callback_;
};

}  // namespace detail

namespace internal {

// Writes one diagnostic line (printf-style, no newline) on stderr when level is at or above
// GetLogLevel() (log.cc).
void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

// The result a failed Future<T> holds (the SDK's results exist on failure too); specialized
// where a failed result differs from a default one (an invalid storage::Metadata).
template <class T>
T FailedResult() {
  return T();
}

// The operation's side of a Future<T>. Copies complete the same state.
template <class T>
class Promise {
 public:
  Promise() : state_(std::make_shared<detail::FutureState>()) {}
  Future<T> future() const { return Future<T>(state_); }
  void Succeed(T value) const { state_->Complete(0, std::string(), std::make_shared<T>(std::move(value))); }
  // A failed Future still has a (default) result, as in the SDK.
  void Fail(int error, const std::string& message) const {
    state_->Complete(error, message, std::make_shared<T>(FailedResult<T>()));
  }

 private:
  std::shared_ptr<detail::FutureState> state_;
};

template <>
class Promise<void> {
 public:
  Promise() : state_(std::make_shared<detail::FutureState>()) {}
  Future<void> future() const { return Future<void>(state_); }
  void Succeed() const { state_->Complete(0, std::string(), nullptr); }
  void Fail(int error, const std::string& message) const { state_->Complete(error, message, nullptr); }

 private:
  std::shared_ptr<detail::FutureState> state_;
};

// A Future that has failed already.
template <class T>
Future<T> FailedFuture(int error, const std::string& message) {
  Promise<T> promise;
  promise.Fail(error, message);
  return promise.future();
}

// Starts an fbstorage *_async call (start(completion)) and completes the promise with
// convert(value), or with map_error(code) and the message when it fails, at the call or later.
template <class T, class V, class Start, class Convert>
Future<T> RunOperation(int (*map_error)(int), Start start, Convert convert) {
  Promise<T> promise;
  auto fail = [promise, map_error](const fbstorage::Error& e) { promise.Fail(map_error(e.code()), e.what()); };
  try {
    start([promise, fail, convert](fbstorage::Result<V> result) {
      if (const fbstorage::Error* e = result.error()) return fail(*e);
      try {
        if constexpr (std::is_void_v<T>) {
          promise.Succeed();
        } else {
          promise.Succeed(convert(result.value()));
        }
      } catch (const fbstorage::Error& e) {
        fail(e);
      }
    });
  } catch (const fbstorage::Error& e) {
    fail(e);
  }
  return promise.future();
}

// An App's Storage and Auth instances. Shared by the App and its instances, so that an instance
// deleted after its App can still leave it.
class AppInternal {
 public:
  std::mutex mutex;
  struct StorageEntry {
    void* instance;                         // storage::Storage*
    std::weak_ptr<fbstorage::Storage> core;  // its fbstorage storage, until invalidated
  };
  std::map<std::string, StorageEntry> storages;  // by URL
  void* auth = nullptr;                   // auth::Auth*
  // Set by the App's Auth: makes a storage send its current user's ID token (nullptr: none).
  std::function<void(fbstorage::Storage&)> attach_auth;
  void* app_check = nullptr;  // app_check::AppCheck*
  // Set by the App's AppCheck: makes a storage send its App Check tokens (nullptr: none).
  std::function<void(fbstorage::Storage&)> attach_app_check;
  // How ~App invalidates each instance (Storage, Auth), by its address; an instance deleted
  // first removes its entry. Type-erased so that an App without Auth does not link the auth code.
  std::map<void*, std::function<void()>> invalidators;
  // Instances the App made itself (the AppCheck made for its storages while a provider factory is
  // installed), by address: deleted with it, with no warning. An instance deleted first removes its entry.
  std::map<void*, std::function<void()>> owned;
};

// While an App Check provider factory is installed: makes the App's AppCheck (so that its
// storages send tokens with no code, as the SDK's). Null otherwise, so that an App without App
// Check does not link the App Check code.
extern std::atomic<void (*)(App*)> app_check_hook;

// Reads google-services-desktop.json, else google-services.json, from the working directory
// into options, as the desktop SDK's App::Create(); false (stderr says why) when neither loads.
bool LoadDefaultAppOptions(AppOptions* options);

// Guards what an object's *LastResult accessors return.
template <class T>
class LastResult {
 public:
  Future<T> get() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return future_;
  }
  Future<T> set(Future<T> future) {
    std::lock_guard<std::mutex> lock(mutex_);
    future_ = future;
    return future;
  }

 private:
  mutable std::mutex mutex_;
  Future<T> future_;
};

}  // namespace internal
}  // namespace firebase

#endif  // FBSTORAGE_CPP_INTERNAL_H_
