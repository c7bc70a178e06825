// future.cc — firebase::FutureBase over a shared detail::FutureState.
#include "firebase/future.h"

#include <chrono>

#include "internal.h"

namespace firebase {
namespace detail {

void FutureState::Complete(int error, std::string message, std::shared_ptr<void> result) {
  std::function<void(const FutureBase&)> callback;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (complete_) return;
    complete_ = true;
    error_ = error;
    message_ = std::move(message);
    result_ = std::move(result);
    callback = std::move(callback_);
    callback_ = nullptr;
  }
  completed_.notify_all();
  if (callback) callback(FutureBase(shared_from_this()));
}

FutureStatus FutureState::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return complete_ ? kFutureStatusComplete : kFutureStatusPending;
}

int FutureState::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

const char* FutureState::error_message() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return complete_ && error_ != 0 ? message_.c_str() : nullptr;
}

const void* FutureState::result() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return complete_ ? result_.get() : nullptr;
}

std::shared_ptr<void> FutureState::shared_result() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return complete_ ? result_ : nullptr;
}

bool FutureState::Wait(int timeout_milliseconds) const {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout_milliseconds < 0) {
    completed_.wait(lock, [this] { return complete_; });
    return true;
  }
  return completed_.wait_for(lock, std::chrono::milliseconds(timeout_milliseconds), [this] { return complete_; });
}

void FutureState::SetCallback(std::function<void(const FutureBase&)> callback) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!complete_) {
      callback_ = std::move(callback);
      return;
    }
  }
  if (callback) callback(FutureBase(shared_from_this()));
}

}  // namespace detail

FutureBase::FutureBase() {}
FutureBase::FutureBase(std::shared_ptr<detail::FutureState> state) : state_(std::move(state)) {}
FutureBase::~FutureBase() {}
FutureBase::FutureBase(const FutureBase& rhs) : state_(rhs.state_) {}
FutureBase& FutureBase::operator=(const FutureBase& rhs) {
  state_ = rhs.state_;
  return *this;
}
FutureBase::FutureBase(FutureBase&& rhs) noexcept : state_(std::move(rhs.state_)) {}
FutureBase& FutureBase::operator=(FutureBase&& rhs) noexcept {
  state_ = std::move(rhs.state_);
  return *this;
}

void FutureBase::Release() { state_.reset(); }

FutureStatus FutureBase::status() const { return state_ ? state_->status() : kFutureStatusInvalid; }
int FutureBase::error() const { return state_ ? state_->error() : -1; }
const char* FutureBase::error_message() const { return state_ ? state_->error_message() : nullptr; }
const void* FutureBase::result_void() const { return state_ ? state_->result() : nullptr; }
bool FutureBase::Wait(int timeout_milliseconds) const { return state_ && state_->Wait(timeout_milliseconds); }

void FutureBase::OnCompletion(CompletionCallback callback, void* user_data) const {
  OnCompletion([callback, user_data](const FutureBase& future) { callback(future, user_data); });
}

void FutureBase::OnCompletion(std::function<void(const FutureBase&)> callback) const {
  if (state_) state_->SetCallback(std::move(callback));
}

}  // namespace firebase
