// retry_for_testing.cc — the SDK's g_retry_all_errors_for_testing: see retry_for_testing.h.
#include "retry_for_testing.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace firebase {
namespace storage {
namespace internal {

bool g_retry_all_errors_for_testing = false;

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kInitialDelay(1000);
constexpr std::chrono::milliseconds kMaxDelay(30000);

// One call's attempts, made one after another; the last completes result.
class Attempts : public std::enable_shared_from_this<Attempts> {
 public:
  Attempts(std::shared_ptr<StorageInternal> owner, Clock::time_point deadline, std::function<FutureBase()> attempt)
      : owner_(std::move(owner)), deadline_(deadline), attempt_(std::move(attempt)) {}

  std::shared_ptr<detail::FutureState> result() const { return result_; }

  void Start() {
    attempt_().OnCompletion([self = shared_from_this()](const FutureBase& done) { self->Ended(done); });
  }

 private:
  // On the thread that completed the attempt: completes result, or waits (on a thread of its
  // own, so that the storage's callback thread goes on) and tries again.
  void Ended(const FutureBase& done) {
    bool retry = g_retry_all_errors_for_testing && done.error() != kErrorNone && done.error() != kErrorCancelled &&
                 owner_->valid() && Clock::now() + delay_ <= deadline_;
    if (!retry) {
      const char* message = done.error_message();
      result_->Complete(done.error(), message ? message : "", done.internal_state()->shared_result());
      return;
    }
    auto wait = delay_;
    delay_ = std::min<Clock::duration>(delay_ * 2, kMaxDelay);
    std::thread([self = shared_from_this(), wait] {
      std::this_thread::sleep_for(wait);
      self->Start();
    }).detach();
  }

  const std::shared_ptr<StorageInternal> owner_;
  const Clock::time_point deadline_;
  const std::function<FutureBase()> attempt_;
  Clock::duration delay_ = kInitialDelay;
  const std::shared_ptr<detail::FutureState> result_ = std::make_shared<detail::FutureState>();
};

}  // namespace

FutureBase RetryAllErrorsForTesting(const std::shared_ptr<StorageInternal>& owner,
                                    double (fbstorage::Storage::*max_retry_time)() const,
                                    std::function<FutureBase()> attempt) {
  auto core = owner->core();
  if (!g_retry_all_errors_for_testing || !core) return attempt();
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(((*core).*max_retry_time)()));
  auto attempts = std::make_shared<Attempts>(owner, deadline, std::move(attempt));
  attempts->Start();
  return FutureBase(attempts->result());
}

}  // namespace internal
}  // namespace storage
}  // namespace firebase
