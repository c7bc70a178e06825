// fixtures.h — what the C++ tests share: one emulator per flavor for the whole run, a fresh
// App and Storage per test, and waiting for Futures.
#ifndef FBSTORAGE_TESTS_CPP_FIXTURES_H_
#define FBSTORAGE_TESTS_CPP_FIXTURES_H_

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "emulator.h"
#include "firebase/app.h"
#include "firebase/auth.h"
#include "firebase/future.h"
#include "firebase/storage.h"

constexpr const char* kBucket = "cpp-tests.appspot.com";
constexpr int kFutureTimeoutMs = 30000;

// The emulator of a flavor ("production" or "firebase-tools"), started once per run.
const Emulator& EmulatorFor(const std::string& flavor);

// Handles and strings of the library the process holds now (handle_count.cc).
long LiveHandles();

// An email action code the emulator holds, and the link the mail carries.
struct OobCode {
  std::string code, link;
};
// The pending codes of this kind ("VERIFY_EMAIL", ...) for this email (GET
// /emulator/v1/projects/demo-project/oobCodes).
std::vector<OobCode> PendingOobCodes(const Emulator& emulator, const std::string& request_type, const std::string& email);

// n pseudo-random bytes, the same for the same seed.
std::string RandomBytes(size_t n, unsigned seed);

// Local files with given bytes, removed with this object.
class TempFiles {
 public:
  ~TempFiles();
  std::string Make(const std::string& bytes);

 private:
  std::vector<std::string> paths_;
};

// Both flavors, for INSTANTIATE_TEST_SUITE_P.
#define FBS_BOTH_FLAVORS ::testing::Values(std::string("production"), std::string("firebase-tools"))

// Waits for a Future (failing the test on a timeout) and returns it complete.
template <class F>
const F& Completed(const F& future) {
  EXPECT_TRUE(future.Wait(kFutureTimeoutMs)) << "the Future did not complete in " << kFutureTimeoutMs << " ms";
  EXPECT_EQ(future.status(), firebase::kFutureStatusComplete);
  return future;
}

// Asserts success (error 0) and returns the result.
template <class T>
const T& Succeeded(const firebase::Future<T>& future) {
  Completed(future);
  EXPECT_EQ(future.error(), 0) << (future.error_message() ? future.error_message() : "");
  return *future.result();
}

// A flag another thread raises, waited for with a timeout (events, never sleeps).
class Signal {
 public:
  void Raise() {
    std::lock_guard<std::mutex> lock(mutex_);
    raised_ = true;
    changed_.notify_all();
  }
  bool WaitFor(int timeout_ms = kFutureTimeoutMs) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return raised_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool raised_ = false;
};

// A test on a fresh emulator state of one flavor, with an App (API key, project, bucket) and
// its Storage pointed at the emulator. The Storage, then the App, are deleted after (a test that
// deletes one sets its pointer to nullptr).
class FlavorTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override;
  const Emulator& emulator() const { return EmulatorFor(GetParam()); }
  // A local file with these bytes, removed after the test.
  std::string TempFile(const std::string& bytes) { return temp_files_.Make(bytes); }

  firebase::App* app = nullptr;
  firebase::storage::Storage* storage = nullptr;

 private:
  TempFiles temp_files_;
};

// A FlavorTest whose App also has an Auth pointed at the emulator, deleted first after.
class FlavorAuthTest : public FlavorTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  firebase::auth::Auth* auth = nullptr;
};

#endif  // FBSTORAGE_TESTS_CPP_FIXTURES_H_
