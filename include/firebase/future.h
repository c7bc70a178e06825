// firebase/future.h — firebase::Future<T>, as the Firebase C++ SDK declares it
// (app/src/include/firebase/future.h), over a shared completion state.
//
// Copies of a Future share one state. A Future may be destroyed (or Release()d) before its
// operation completes: the operation keeps the state alive and completes it unobserved.
// Completion callbacks (OnCompletion: one per state, a new one replaces the previous) run on
// the thread that completes the operation (the Storage's or Auth's callback thread), or at
// once on the calling thread when the Future is complete already. Thread safety: the state is
// locked; distinct Future objects may be used from any threads (one object, as a shared_ptr,
// must not be assigned while another thread reads it).
// Wait() and Await() are public here; the SDK keeps them behind INTERNAL_EXPERIMENTAL.
#ifndef FIREBASE_FUTURE_H_
#define FIREBASE_FUTURE_H_

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <memory>
#include <utility>

#include "firebase/internal/common.h"

namespace firebase {

namespace detail {
class FutureState;
}  // namespace detail

enum FutureStatus {
  kFutureStatusComplete,
  kFutureStatusPending,
  kFutureStatusInvalid
};

class FutureBase {
 public:
  typedef void (*CompletionCallback)(const FutureBase& result_data, void* user_data);

  static constexpr int kWaitTimeoutInfinite = -1;

  FutureBase();
  // fbstorage: a Future over an operation's state.
  explicit FutureBase(std::shared_ptr<detail::FutureState> state);
  ~FutureBase();
  FutureBase(const FutureBase& rhs);
  FutureBase& operator=(const FutureBase& rhs);
  FutureBase(FutureBase&& rhs) noexcept;
  FutureBase& operator=(FutureBase&& rhs) noexcept;

  // Detaches from the state: status() becomes kFutureStatusInvalid.
  void Release();

  FutureStatus status() const;
  // The error code (0 on success; -1 for an invalid Future).
  int error() const;
  // nullptr unless the operation failed.
  const char* error_message() const;
  // The result once complete, else nullptr.
  const void* result_void() const;

  // Blocks until complete or timeout_milliseconds passed (kWaitTimeoutInfinite: no limit);
  // true when complete. Never call it on the callback thread that would complete it.
  bool Wait(int timeout_milliseconds) const;

  void OnCompletion(CompletionCallback callback, void* user_data) const;
  void OnCompletion(std::function<void(const FutureBase&)> callback) const;

  // fbstorage: the shared state (Future<T>'s typed callbacks rebuild a Future<T> from it).
  const std::shared_ptr<detail::FutureState>& internal_state() const { return state_; }

  bool operator==(const FutureBase& rhs) const { return state_ == rhs.state_; }
  bool operator!=(const FutureBase& rhs) const { return !operator==(rhs); }

 protected:
  std::shared_ptr<detail::FutureState> state_;
};

template <typename ResultType>
class Future : public FutureBase {
 public:
  typedef void (*TypedCompletionCallback)(const Future<ResultType>& result_data, void* user_data);

  Future() {}
  explicit Future(std::shared_ptr<detail::FutureState> state) : FutureBase(std::move(state)) {}

  const ResultType* result() const { return static_cast<const ResultType*>(result_void()); }

  // Waits (see Wait) and returns result().
  const ResultType* Await(int timeout_milliseconds) const {
    Wait(timeout_milliseconds);
    return result();
  }

  void OnCompletion(TypedCompletionCallback callback, void* user_data) const {
    FutureBase::OnCompletion([callback, user_data](const FutureBase& base) {
      callback(Future<ResultType>(base.internal_state()), user_data);
    });
  }
  void OnCompletion(std::function<void(const Future<ResultType>&)> callback) const {
    FutureBase::OnCompletion([callback = std::move(callback)](const FutureBase& base) {
      callback(Future<ResultType>(base.internal_state()));
    });
  }
};

}  // namespace firebase

#endif  // FIREBASE_FUTURE_H_
