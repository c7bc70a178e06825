// test_retry_for_testing.cc — the Firebase C++ SDK's desktop test hook
// firebase::storage::internal::g_retry_all_errors_for_testing, which its own integration test
// sets (Tests/cpp/sdk-integration): while set, a failed operation (an object not found, a local
// file missing) is made again after 1 s, 2 s, … within its retry deadline, as the SDK does.
#include <atomic>
#include <chrono>
#include <regex>

#include "fixtures.h"

// Declared by whoever uses it, as the SDK's integration test does (no header declares it).
namespace firebase {
namespace storage {
namespace internal {
extern bool g_retry_all_errors_for_testing;
}  // namespace internal
}  // namespace storage
}  // namespace firebase

using firebase::storage::Controller;
using firebase::storage::Listener;
using firebase::storage::StorageReference;
using firebase::storage::internal::g_retry_all_errors_for_testing;

namespace {

class RetryAllErrorsTest : public FlavorTest {
 protected:
  void TearDown() override {
    g_retry_all_errors_for_testing = false;
    FlavorTest::TearDown();
  }
  // The emulator answers the next `times` reads of the object's metadata with 404.
  void FailMetadataReads(const std::string& object, int times) const {
    emulator().AddFault(R"({"match": {"method": "GET", "path_prefix": "/v0/b/)" + std::string(kBucket) + "/o/" +
                        object + R"("}, "times": )" + std::to_string(times) + R"(, "action": {"status": 404}})");
  }
  size_t NotFoundAnswers() const {
    std::string log = emulator().RequestsJson();
    std::regex not_found("\"status\": ?404");
    return std::distance(std::sregex_iterator(log.begin(), log.end(), not_found), std::sregex_iterator());
  }
};
INSTANTIATE_TEST_SUITE_P(Flavors, RetryAllErrorsTest, FBS_BOTH_FLAVORS);

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_P(RetryAllErrorsTest, UnsetANotFoundFailsAtOnce) {
  StorageReference ref = storage->GetReference("hook/a.txt");
  Succeeded(ref.PutBytes("abc", 3));
  FailMetadataReads("hook%2Fa.txt", 1);
  auto metadata = Completed(ref.GetMetadata());
  EXPECT_EQ(metadata.error(), firebase::storage::kErrorObjectNotFound);
  EXPECT_EQ(NotFoundAnswers(), 1u);
}

// Two 404s, then the object: attempts at 0 s, 1 s and 3 s, within the 20 s deadline.
TEST_P(RetryAllErrorsTest, SetANotFoundIsMadeAgainUntilItSucceeds) {
  StorageReference ref = storage->GetReference("hook/a.txt");
  Succeeded(ref.PutBytes("abc", 3));
  FailMetadataReads("hook%2Fa.txt", 2);
  g_retry_all_errors_for_testing = true;
  storage->set_max_operation_retry_time(20);
  auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(Succeeded(ref.GetMetadata()).size_bytes(), 3);
  EXPECT_GE(SecondsSince(started), 3.0);
  EXPECT_EQ(NotFoundAnswers(), 2u);
}

// A 3 s deadline: attempts at 0 s and 1 s (the next, 2 s after the second failed, would start
// past it), then the last attempt's error.
TEST_P(RetryAllErrorsTest, SetTheDeadlineEndsTheAttempts) {
  StorageReference ref = storage->GetReference("hook/a.txt");
  Succeeded(ref.PutBytes("abc", 3));
  FailMetadataReads("hook%2Fa.txt", 100);
  g_retry_all_errors_for_testing = true;
  storage->set_max_operation_retry_time(3);
  auto started = std::chrono::steady_clock::now();
  auto metadata = Completed(ref.GetMetadata());
  EXPECT_EQ(metadata.error(), firebase::storage::kErrorObjectNotFound);
  EXPECT_FALSE(metadata.result()->is_valid());
  EXPECT_GE(SecondsSince(started), 1.0);
  EXPECT_EQ(NotFoundAnswers(), 2u);
}

// A local file that is missing fails each attempt before anything is sent; it appears too late.
TEST_P(RetryAllErrorsTest, SetAMissingLocalFileIsTriedAgainUntilTheDeadline) {
  std::string missing = TempFile("") + ".missing";
  g_retry_all_errors_for_testing = true;
  storage->set_max_upload_retry_time(3);
  auto started = std::chrono::steady_clock::now();
  auto put = Completed(storage->GetReference("hook/b.txt").PutFile(missing.c_str()));
  EXPECT_EQ(put.error(), firebase::storage::kErrorUnknown);
  EXPECT_NE(std::string(put.error_message()).find(".missing"), std::string::npos) << put.error_message();
  EXPECT_GE(SecondsSince(started), 1.0);
}

// Cancels through the caller's Controller at the first progress event.
class CancellingListener : public Listener {
 public:
  explicit CancellingListener(Controller* controller) : controller_(controller) {}
  void OnProgress(Controller*) override {
    if (!tried_.exchange(true)) cancelled = controller_->Cancel();
  }
  void OnPaused(Controller*) override {}
  std::atomic<bool> cancelled{false};

 private:
  Controller* controller_;
  std::atomic<bool> tried_{false};
};

// The caller's Controller follows the second attempt (the first got a 404), and a cancellation
// ends the call: it is never made again.
TEST_P(RetryAllErrorsTest, SetTheControllerFollowsTheLatestAttemptAndACancelEndsIt) {
  std::string bytes = RandomBytes(1024 * 1024, 11);
  StorageReference ref = storage->GetReference("hook/c.bin");
  Succeeded(ref.PutBytes(bytes.data(), bytes.size()));
  FailMetadataReads("hook%2Fc.bin", 1);
  g_retry_all_errors_for_testing = true;
  storage->set_max_download_retry_time(20);
  Controller controller;
  CancellingListener listener(&controller);
  auto started = std::chrono::steady_clock::now();
  auto download = Completed(ref.GetFile(TempFile("").c_str(), &listener, &controller));
  EXPECT_EQ(download.error(), firebase::storage::kErrorCancelled) << download.error_message();
  EXPECT_TRUE(listener.cancelled);
  EXPECT_GE(SecondsSince(started), 1.0);  // after the first attempt's 404
  EXPECT_EQ(NotFoundAnswers(), 1u);
}

}  // namespace
