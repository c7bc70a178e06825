// retry_for_testing.h — the Firebase C++ SDK's desktop test hook,
// firebase::storage::internal::g_retry_all_errors_for_testing, honoured as the SDK does: while it
// is set, an operation that failed for any reason but cancellation (an object not found, a
// local file missing) is made again until its retry deadline. Not part of the SDK's API: its
// own integration test sets it (Tests/cpp/sdk-integration); applications never should.
#ifndef FBSTORAGE_CPP_RETRY_FOR_TESTING_H_
#define FBSTORAGE_CPP_RETRY_FOR_TESTING_H_

#include <functional>

#include "storage_internal.h"

namespace firebase {
namespace storage {
namespace internal {

extern bool g_retry_all_errors_for_testing;

// The Future of attempt(). With the flag set, a failed attempt is made again after 1 s, then
// 2 s, 4 s … (at most 30 s) while the next attempt would start within max_retry_time (the
// owner's max_*_retry_time, read now) and the owner is valid; the Future completes as the last
// attempt did. The SDK's schedule (storage_reference_desktop.cc, AsyncSendRequestWithRetry).
FutureBase RetryAllErrorsForTesting(const std::shared_ptr<StorageInternal>& owner,
                                    double (fbstorage::Storage::*max_retry_time)() const,
                                    std::function<FutureBase()> attempt);

template <class T, class Attempt>
Future<T> RetryAllErrorsForTesting(const std::shared_ptr<StorageInternal>& owner,
                                   double (fbstorage::Storage::*max_retry_time)() const, Attempt attempt) {
  return Future<T>(RetryAllErrorsForTesting(owner, max_retry_time, [attempt] { return FutureBase(attempt()); })
                       .internal_state());
}

}  // namespace internal
}  // namespace storage
}  // namespace firebase

#endif  // FBSTORAGE_CPP_RETRY_FOR_TESTING_H_
